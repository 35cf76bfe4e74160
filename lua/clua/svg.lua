--- clua.svg: the frame of the SVG documents clua writes (clua.plot's charts,
-- clua.timeline's Gantt charts): the document, its white background and
-- centred title, and text escaped for XML.
-- @module clua.svg
local svg = {}

--- Text escaped for XML (element content and attribute values).
-- @param s any value (tostring)
-- @treturn string
function svg.esc(s)
  return (tostring(s):gsub("[&<>\"']", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
    ['"'] = "&quot;", ["'"] = "&apos;" }))
end

--- A new SVG document of `width` x `height` (sans-serif, 12 px), a white
-- background and `title` in bold, centred at `title_x`, 24 px from the top.
-- @int width
-- @int height
-- @param title the title (escaped here)
-- @number title_x
-- @treturn function add(fmt, ...): appends a line, `fmt:format(...)`
-- @treturn function finish(): closes the document and returns it (a string)
-- @usage local add, finish = svg.document(760, 460, "bandwidth", 380)
-- add('<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="#333"/>', 0, 0, 10, 10)
-- local text = finish()
function svg.document(width, height, title, title_x)
  local o = {}
  local function add(fmt, ...) o[#o + 1] = fmt:format(...) end
  add('<?xml version="1.0" encoding="UTF-8"?>')
  add('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
    .. 'font-family="sans-serif" font-size="12">', width, height, width, height)
  add('<rect width="%d" height="%d" fill="white"/>', width, height)
  add('<text x="%g" y="24" text-anchor="middle" font-size="15" font-weight="bold">%s</text>', title_x,
    svg.esc(title))
  return add, function()
    add('</svg>')
    return table.concat(o, "\n") .. "\n"
  end
end

return svg
