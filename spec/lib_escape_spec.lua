-- clua.escape (one escaping rule per output format), clua.svgsafe (an SVG
-- cleaned to drawing elements) and clua.jsonin (JSON input bounded and
-- checked), each alone; spec/hostile_writers_spec.lua has them at work in
-- every writer.
local escape = require("clua.escape")
local svgsafe = require("clua.svgsafe")
local jsonin = require("clua.jsonin")

describe("clua.escape", function()
  it("replaces each byte that is no UTF-8 with U+FFFD, and leaves UTF-8 alone", function()
    assert.are.equal("a\u{FFFD}b\u{FFFD}", escape.utf8("a\xffb\xc3"))
    assert.are.equal("µs ✓", escape.utf8("µs ✓"))
    assert.are.equal("\u{FFFD}\u{FFFD}", escape.utf8("\xed\xa0")) -- a cut surrogate
  end)

  it("shows terminal controls as escapes: C0, DEL, C1, bidirectional overrides", function()
    assert.are.equal("\\e[31mred\\r\\n\\t\\x7f\\u{009b}\\u{202e}", escape.terminal("\27[31mred\r\n\t\127\u{9b}\u{202e}"))
    assert.are.equal("a\nb\\r\t", escape.terminal("a\nb\r\t", { lines = true }))
  end)

  it("escapes HTML text and attributes", function()
    assert.are.equal("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;", escape.html([[<a href="x" title='y'>&]]))
  end)

  it("keeps Markdown text as text: entities, escaped syntax, code spans longer than any backtick run", function()
    assert.are.equal("&lt;b> \\*x\\* [l\\](u) [r\\] [x] a\\|b my_kernel \\_x\\_ posx[], [0:0], c[0] (n)",
      escape.markdown("<b> *x* [l](u) [r] [x] a|b my_kernel _x_ posx[], [0:0], c[0] (n)"))
    assert.are.equal("\\# not a heading", escape.markdown("# not a heading", { line = true }))
    assert.are.equal("``a`b``", escape.md_code("a`b"))
    assert.are.equal("`` `x ``", escape.md_code("`x"))
    assert.are.equal("    a\n    ```\n    \\e", escape.md_block("a\n```\n\27\n"))
    assert.are.equal("x%20%28y%29%3Ajavascript", escape.md_url("x (y):javascript"))
  end)

  it("prefixes a text CSV cell that a spreadsheet would read as a formula, not a number", function()
    assert.are.equal("'=1+1", escape.csv("=1+1"))
    assert.are.equal("'-2+3", escape.csv("-2+3"))
    assert.are.equal('"\'=HYPERLINK(""x"")"', escape.csv('=HYPERLINK("x")'))
    assert.are.equal("-2.5", escape.csv(-2.5))
    assert.are.equal("3", escape.csv(3))
    assert.are.equal("", escape.csv(nil))
    assert.are.equal("plain", escape.csv("plain"))
  end)
end)

describe("clua.svgsafe", function()
  it("keeps clua's own plots whole", function()
    local plot = require("clua.plot").new{ title = "a <b> \"c\"", x = { name = "x" }, y = { name = "y" } }
    plot:add("s", 1, 2, "p", "tip")
    local svg = plot:svg()
    local clean = assert(svgsafe.clean(svg))
    local _, before = svg:gsub("<%a", "")
    local _, after = clean:gsub("<%a", "")
    assert.are.equal(before, after)
  end)

  it("drops scripts, event attributes, foreign objects, links and external references", function()
    local clean = assert(svgsafe.clean([[<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)" width="10"><script>alert(2)</script>
<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject><a href="javascript:alert(4)"><text>a</text></a>
<rect fill="url(http://evil/x)" width="1" onclick="x"/><text x="1">&lt;script&gt; &#60;</text><image href="http://x"/>
<style>@import url(http://x)</style><!-- c --></svg>]]))
    for _, bad in ipairs({ "script>", "onload", "onclick", "foreignObject", "href", "url(", "<a", "image", "style" }) do
      assert.falsy(clean:find(bad, 1, true), bad .. " in " .. clean)
    end
    assert.truthy(clean:find('<text x="1">&lt;script&gt; &lt;</text>', 1, true), clean)
  end)

  it("refuses what is not plain SVG: another file, a DOCTYPE, an entity, a broken tree", function()
    for _, text in ipairs({ "root:x:0:0:root:/root:/bin/bash\n", '<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg>&x;</svg>',
      "<svg><text>&x;</text></svg>", "<svg><g></svg>", "<html><script>alert(1)</script></html>", "<svg/><svg/>",
      "<svg a=1/>" }) do
      local clean, why = svgsafe.clean(text)
      assert.is_nil(clean, text)
      assert.is_string(why)
    end
  end)
end)

describe("clua.jsonin", function()
  it("refuses JSON nested too deep with a message, not a stack overflow", function()
    local ok, err = pcall(jsonin.decode, ("["):rep(200000) .. ("]"):rep(200000), "deep.json")
    assert.is_false(ok)
    assert.matches("^deep%.json: nested deeper than 100 arrays and objects", err)
    assert.are.same({ a = { "[", 1 } }, jsonin.decode('{"a": ["[", 1]}'))
  end)

  it("names the field of the wrong type", function()
    local shape = { type = "object", fields = { rows = { type = "array", items = { type = "object",
      fields = { seconds = "number" } } } } }
    local ok, err = pcall(jsonin.check, jsonin.decode('{"rows": [{"seconds": 1}, {"seconds": "<img>"}]}'), shape, "card")
    assert.is_false(ok)
    assert.are.equal("card.rows[2].seconds: a number expected, found a string", err)
  end)
end)
