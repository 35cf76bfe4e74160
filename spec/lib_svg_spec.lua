-- clua.svg: the frame of the SVG documents of clua.plot and clua.timeline.
local svg = require("clua.svg")

describe("clua.svg", function()
  it("escapes the five XML specials and takes any value", function()
    assert.are.equal("a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;", svg.esc([[a <b> & "c" 'd']]))
    assert.are.equal("42", svg.esc(42))
  end)

  it("frames a document: size, white background, the title escaped and centred, closed once", function()
    local add, finish = svg.document(300, 200, "x < y", 150)
    add('<line x1="%g" y1="%g" x2="%g" y2="%g"/>', 0, 1, 2, 3)
    local doc = finish()
    assert.matches('^<%?xml version="1.0" encoding="UTF%-8"%?>\n<svg xmlns="http://www.w3.org/2000/svg" '
      .. 'width="300" height="200" viewBox="0 0 300 200"', doc)
    assert.matches('<rect width="300" height="200" fill="white"/>', doc, 1, true)
    assert.matches('<text x="150" y="24" text-anchor="middle" font-size="15" font-weight="bold">x &lt; y</text>',
      doc, 1, true)
    assert.matches('<line x1="0" y1="1" x2="2" y2="3"/>\n</svg>\n$', doc)
    local _, closes = doc:gsub("</svg>", "")
    assert.are.equal(1, closes)
  end)
end)
