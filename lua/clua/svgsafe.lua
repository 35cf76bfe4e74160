--- clua.svgsafe: an SVG file made safe to inline in a web page. The file is
-- read by a strict tokenizer (elements, attributes in quotes, text, the five
-- XML entities and character references; comments and the XML prolog
-- dropped; a DOCTYPE, CDATA, a processing instruction or anything else that
-- is not plain SVG refuses the file) and written again from an allow-list of
-- drawing elements (svg, g, title, desc, rect, circle, ellipse, line,
-- polyline, polygon, path, text, tspan) and their presentation attributes,
-- every value escaped anew. Whatever else is dropped with all it holds: a
-- script, a style sheet, a foreignObject, an image, a link, an animation;
-- so is every event attribute (on...), every href and every value that
-- points elsewhere (url(...), javascript:).
-- @module clua.svgsafe
local escape = require("clua.escape")

local svgsafe = {}

--- The largest SVG file clean accepts, in bytes.
svgsafe.MAX_BYTES = 8 * 1024 * 1024

--- The deepest nesting of elements clean accepts.
svgsafe.MAX_DEPTH = 64

local ELEMENTS = { svg = true, g = true, title = true, desc = true, rect = true, circle = true, ellipse = true,
  line = true, polyline = true, polygon = true, path = true, text = true, tspan = true }

local ATTRIBUTES = {}
for a in ([[class x y x1 y1 x2 y2 cx cy r rx ry dx dy width height viewBox points d transform
  fill fill-opacity fill-rule stroke stroke-width stroke-dasharray stroke-dashoffset stroke-linecap
  stroke-linejoin stroke-opacity opacity font-family font-size font-weight font-style text-anchor
  dominant-baseline alignment-baseline baseline-shift version role aria-label
  preserveAspectRatio]]):gmatch("%S+") do ATTRIBUTES[a] = true end

local ENTITIES = { amp = "&", lt = "<", gt = ">", quot = '"', apos = "'" }

-- Text with its entities and character references read; nil and why where
-- one is no XML entity.
local function unescape(s)
  local bad
  local out = s:gsub("&([^;]*);?", function(name)
    local v = ENTITIES[name]
    if v then return v end
    local code = name:match("^#x(%x+)$")
    code = code and tonumber(code, 16) or tonumber(name:match("^#(%d+)$") or "")
    if code and code > 0 and code <= 0x10FFFF and not (code >= 0xD800 and code <= 0xDFFF) then
      return utf8.char(code)
    end
    bad = bad or ("the entity '&" .. name .. "'")
    return ""
  end)
  if bad then return nil, bad end
  return out
end

local XML = { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&#39;" }
local function xml(s) return (s:gsub("[&<>\"']", XML)) end

-- Whether an attribute value points anywhere (a URL, a script, a style sheet).
local function foreign(v)
  local flat = v:lower():gsub("[%s%c]", "")
  return flat:find("url(", 1, true) or flat:find("javascript:", 1, true) or flat:find("expression(", 1, true)
    or flat:find("@import", 1, true)
end

local NAME = "[%a_][%w_.:-]*"

-- The attributes of a start tag ("name='v' name2=\"w\""): a list of {name, value}, or nil and why.
local function attributes(s)
  local list, pos = {}, 1
  while true do
    pos = s:match("^%s*()", pos)
    if pos > #s then return list end
    local name, q, stop = s:match("^(" .. NAME .. ")%s*=%s*([\"'])()", pos)
    if not name then return nil, ("an attribute that is not name=\"value\" near '%s'"):format(s:sub(pos, pos + 20)) end
    local close = s:find(q, stop, true)
    if not close then return nil, "an attribute value without its closing quote" end
    local value = s:sub(stop, close - 1)
    if value:find("<", 1, true) then return nil, "a '<' in an attribute value" end
    local v, why = unescape(value)
    if not v then return nil, why end
    list[#list + 1] = { name, v }
    pos = close + 1
    if pos <= #s and not s:sub(pos, pos):match("%s") then return nil, "attributes not separated by a space" end
  end
end

--- An SVG document as clean SVG: the drawing elements and attributes of the
-- allow-list, re-escaped; the rest dropped with its content.
-- @string text the SVG file's text
-- @treturn string|nil the clean SVG (its root an svg element), or nil
-- @treturn string why the file was refused (not SVG, or not plain XML)
function svgsafe.clean(text)
  if type(text) ~= "string" then return nil, "no text" end
  if #text > svgsafe.MAX_BYTES then return nil, ("larger than %d bytes"):format(svgsafe.MAX_BYTES) end
  text = escape.utf8(text) -- a byte that is no UTF-8: U+FFFD
  local out, stack, skip = {}, {}, 0 -- skip: the depth inside a dropped element
  local pos, n, root_done = 1, #text, false
  while pos <= n do
    local lt = text:find("<", pos, true)
    local chunk = text:sub(pos, (lt or n + 1) - 1)
    if chunk:find(">", 1, true) and #stack > 0 then return nil, "a '>' outside a tag" end
    if #stack == 0 then
      if chunk:find("%S") then return nil, "text outside the svg element" end
    elseif skip == 0 then
      local t, why = unescape(chunk)
      if not t then return nil, why end
      out[#out + 1] = xml(t)
    end
    if not lt then break end
    if text:sub(lt, lt + 3) == "<!--" then
      local e = text:find("-->", lt + 4, true)
      if not e then return nil, "a comment without its end" end
      pos = e + 3
    elseif text:sub(lt, lt + 1) == "<?" then
      local e = text:find("?>", lt + 2, true)
      if not e or lt ~= (text:find("%S") or 0) or not text:sub(lt, e):match("^<%?xml[%s?]") then
        return nil, "a processing instruction other than the XML prolog"
      end
      pos = e + 2
    elseif text:sub(lt, lt + 1) == "<!" then
      return nil, "a DOCTYPE or CDATA section (plain SVG has neither)"
    else
      local gt = text:find(">", lt + 1, true)
      if not gt then return nil, "a tag without its '>'" end
      local tag = text:sub(lt + 1, gt - 1)
      pos = gt + 1
      local closing = tag:match("^/(" .. NAME .. ")%s*$")
      if closing then
        local top = stack[#stack]
        if top ~= closing then
          return nil, ("</%s> where <%s> is open"):format(closing, tostring(top))
        end
        stack[#stack] = nil
        if skip > 0 then skip = skip - 1
        else out[#out + 1] = "</" .. closing .. ">" end
        if #stack == 0 then root_done = true end
      else
        local name, rest = tag:match("^(" .. NAME .. ")(.-)$")
        if not name then return nil, ("a tag that is not an element: <%s>"):format(tag:sub(1, 30)) end
        local empty = rest:match("/%s*$") ~= nil
        if empty then rest = rest:gsub("/%s*$", "") end
        if rest ~= "" and not rest:match("^%s") then return nil, ("a tag that is not an element: <%s>"):format(tag:sub(1, 30)) end
        local attrs, why = attributes(rest)
        if not attrs then return nil, why end
        if #stack == 0 then
          if root_done then return nil, "a second root element" end
          if name ~= "svg" then return nil, ("the root element is <%s>, not <svg>"):format(name) end
        end
        if #stack >= svgsafe.MAX_DEPTH then return nil, ("elements nested deeper than %d"):format(svgsafe.MAX_DEPTH) end
        if skip > 0 or not ELEMENTS[name] then
          if not empty then skip = skip + 1 end
        else
          local o = { "<", name }
          for _, a in ipairs(attrs) do
            local an, av = a[1], a[2]
            if an == "xmlns" and av == "http://www.w3.org/2000/svg" or ATTRIBUTES[an] and not foreign(av) then
              o[#o + 1] = (' %s="%s"'):format(an, xml(av))
            end
          end
          o[#o + 1] = empty and "/>" or ">"
          out[#out + 1] = table.concat(o)
        end
        if not empty then stack[#stack + 1] = name
        elseif #stack == 0 then root_done = true end
      end
    end
  end
  if #stack > 0 then return nil, ("<%s> is not closed"):format(stack[#stack]) end
  if not root_done then return nil, "no svg element" end
  return table.concat(out) .. "\n"
end

return svgsafe
