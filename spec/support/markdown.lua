-- Markdown rendered to HTML as a course system would, by a Markdown library:
-- Debian's lua-markdown (markdown.lua, for Lua 5.1; the package .ci/setup
-- installs for LDoc), loaded into clua's Lua 5.4 with the two things it needs
-- of 5.1 (setfenv for its module table, unpack). It passes raw HTML through,
-- as Markdown.pl and `cmark-gfm --unsafe` do: whatever HTML a writer lets
-- into its Markdown comes out active.
--
-- Not a spec (no _spec in the name). M.render(text) -> HTML, or nil where
-- lua-markdown is not installed; M.active(html) -> a list of what in it would
-- act in a browser (an element that runs or fetches, an event attribute, a
-- javascript: link).
local M = {}

M.PATH = "/usr/share/lua/5.1/markdown.lua"

local render

local function open_library()
  local f = io.open(M.PATH)
  if not f then return nil end
  local src = f:read("a")
  f:close()
  local env = setmetatable({ unpack = table.unpack, arg = false }, { __index = _G })
  env._G = env
  local chunk
  -- 5.1's setfenv(1, M) sets the chunk's globals; in 5.4 its functions share
  -- one _ENV, so M stays it (its restore to _G is skipped, and the one
  -- global it sets after locking M is made beforehand)
  env.setfenv = function(level, t)
    assert(level == 1, "markdown.lua: setfenv of another level")
    if t == env then return end
    rawset(t, "markdown", false)
    debug.setupvalue(chunk, 1, t)
  end
  chunk = assert(load(src, "@" .. M.PATH, "t", env))
  return chunk()
end

--- HTML of `text`, or nil where lua-markdown is not installed.
function M.render(text)
  if render == nil then render = open_library() or false end
  return render and render(text) or nil
end

--- What in `html` would act in a browser: a list of the pieces found.
function M.active(html)
  local found = {}
  local lower = html:lower()
  for _, pat in ipairs({ "<script", "<iframe", "<object", "<embed", "<img", "<svg", "<style", "<link",
    "<meta", "<form", "<input", "<button", "<video", "<audio", "<base" }) do
    if lower:find(pat, 1, true) then found[#found + 1] = pat end
  end
  for tag in lower:gmatch("<[%a][^>]*>") do
    if tag:match("%son%a+%s*=") or tag:match("javascript:") then found[#found + 1] = tag end
  end
  return found
end

return M
