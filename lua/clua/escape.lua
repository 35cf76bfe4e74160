--- clua.escape: one escaping rule per output format, used by every writer,
-- so that a name or message from outside (a student's file name, a
-- compiler's log, a saved card's fields, a driver's device name) is shown as
-- text and never acts: no markup or script in HTML and Markdown, no formula
-- in a spreadsheet, no escape code on a terminal, no invalid byte in JSON.
--
--   utf8      valid UTF-8: each byte that is not part of a character is U+FFFD
--   terminal  control characters shown as \e, \r, \n, \t, \xNN, \u{NNNN}
--   html      text and attribute values: & < > " ' as entities
--   markdown  inline text (a cell, a heading, a list item): HTML-significant
--             characters as entities, Markdown's syntax backslash-escaped
--   md_code   inline code (a file name in backticks)
--   md_url    a relative path as a link's target
--   md_block  a block of verbatim lines (a build log): an indented code block
--   csv       one field: a text starting with = + - @ tab or CR gets a ' first
--             (OWASP's advice against formula injection), then RFC 4180 quoting
--   json      JSON text made valid UTF-8
-- @module clua.escape
local escape = {}

local REPLACEMENT = "\u{FFFD}"

--- `s` as valid UTF-8: every byte that does not belong to a well-formed
-- character (a stray continuation byte, a cut sequence, an overlong form, a
-- surrogate) replaced by U+FFFD.
-- @param s any value (tostring)
-- @treturn string
function escape.utf8(s)
  s = tostring(s)
  if utf8.len(s) then return s end
  local out, i, n = {}, 1, #s
  while i <= n do
    local len, bad = utf8.len(s, i)
    if len then out[#out + 1] = s:sub(i); break end
    out[#out + 1] = s:sub(i, bad - 1)
    out[#out + 1] = REPLACEMENT
    i = bad + 1
  end
  return table.concat(out)
end

local NAMED = { ["\a"] = "\\a", ["\b"] = "\\b", ["\t"] = "\\t", ["\n"] = "\\n", ["\v"] = "\\v", ["\f"] = "\\f",
  ["\r"] = "\\r", ["\27"] = "\\e", ["\0"] = "\\0" }

-- The characters that move a terminal's cursor, change its state or the
-- reading order of a line: C0 controls and DEL; C1 controls (U+0080-U+009F,
-- which some terminals read as ESC + a letter); the line and paragraph
-- separators and the bidirectional overrides and isolates (U+2028-U+202E,
-- U+2066-U+2069: text that reads in another order than it runs).
local function visible(c)
  local named = NAMED[c]
  if named then return named end
  if #c == 1 then return ("\\x%02x"):format(c:byte()) end
  return ("\\u{%04x}"):format(utf8.codepoint(c))
end
local C1 = "\xC2[\x80-\x9F]"
local WIDE = "\xE2\x80[\xA8-\xAE]"
local ISOLATE = "\xE2\x81[\xA6-\xA9]"

local function controls(s, keep)
  s = s:gsub("[%c\127]", function(c)
    if keep and keep:find(c, 1, true) then return nil end
    return visible(c)
  end)
  return (s:gsub(C1, visible):gsub(WIDE, visible):gsub(ISOLATE, visible))
end

--- Text for a terminal: valid UTF-8, every control character shown as an
-- escape (`\e`, `\r`, `\n`, `\t`, `\x7f`, `\u{202e}`), so that a name cannot
-- move the cursor, rewrite a line or change the window's title.
-- @param s any value (tostring)
-- @tab[opt] opts `lines` (true: keep line feeds and tabs, for text of several lines)
-- @treturn string
function escape.terminal(s, opts)
  return controls(escape.utf8(s), opts and opts.lines and "\n\t" or nil)
end

local HTML = { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;", ["'"] = "&#39;" }

--- Text for HTML, element content or a quoted attribute value: valid UTF-8,
-- `& < > " '` as entities.
-- @param s any value (tostring)
-- @treturn string
function escape.html(s)
  return (escape.utf8(s):gsub("[&<>\"']", HTML))
end

-- Markdown's inline syntax: code, emphasis, tables, escapes. A link or an
-- image needs a `]` right before a `(` or (a definition) a `:`, or before a
-- `[` (Markdown.pl allows a space between): such a `]` is escaped, and
-- "posx[]", "GPU [0:0]" or "c[0] (local size 64)" stay as they are.
local MD_PUNCT = "[\\`*|~]"

--- Inline Markdown text (a table cell, a heading, a list item, a line): valid
-- UTF-8; control characters shown as escapes (a cell or heading is one line);
-- `&` and `<` as entities, which every Markdown renderer shows as the
-- character and none reads as HTML (a `>` alone opens no tag: "QUEUED ->
-- START" stays readable); `\ ` * | ~`, `_` (but inside a word) and a `]`
-- that would close a link's text backslash-escaped. Text that starts a line
-- of its own (a paragraph: `opts.line`) has a leading `#`, `+`, `-`, `=`,
-- `>` or `1.` escaped too, so that it becomes no heading, list, rule or quote.
-- @param s any value (tostring)
-- @tab[opt] opts `line` (true: the text starts a line)
-- @treturn string
function escape.markdown(s, opts)
  s = controls(escape.utf8(s))
  s = s:gsub("[&<]", HTML):gsub(MD_PUNCT, "\\%0"):gsub("%]([(:])", "\\]%1"):gsub("%]( *%[)", "\\]%1")
  s = s:gsub("()_()", function(i, j)
    local before, after = s:sub(i - 1, i - 1), s:sub(j, j)
    if i > 1 and before:match("%w") and after:match("%w") then return nil end
    return "\\_"
  end)
  if opts and opts.line then s = s:gsub("^(%s*)([#+=>-])", "%1\\%2"):gsub("^(%s*%d+)([.)])", "%1\\%2") end
  return s
end

--- Inline Markdown code (`name`): the text between backticks, as many as it
-- needs (one more than its longest run of backticks) and a space inside
-- where it starts or ends with one; control characters shown as escapes.
-- A code span shows its text as it is: no entity, no HTML, no emphasis.
-- @param s any value (tostring)
-- @treturn string
function escape.md_code(s)
  s = controls(escape.utf8(s))
  local longest = 0
  for run in s:gmatch("`+") do longest = math.max(longest, #run) end
  local fence = ("`"):rep(longest + 1)
  local pad = (s:match("^`") or s:match("`$") or s:match("^ .* $")) and " " or ""
  return fence .. pad .. s .. pad .. fence
end

--- A relative path as the target of a Markdown link or image (`![x](PATH)`):
-- every byte but letters, digits, `-._~/` percent-encoded, so that no space,
-- parenthesis or scheme (`javascript:`) ends or turns the link.
-- @param s any value (tostring)
-- @treturn string
function escape.md_url(s)
  return (tostring(s):gsub("[^%w%-%._~/]", function(c) return ("%%%02X"):format(c:byte()) end))
end

--- Lines of verbatim text as a Markdown code block: each line indented by
-- four spaces (an indented code block, which every Markdown renderer shows
-- as text and no line of it can end); control characters but the line feed
-- shown as escapes, tabs kept.
-- @param s any value (tostring)
-- @treturn string the block (no blank line before or after)
function escape.md_block(s)
  s = controls(escape.utf8(s), "\n\t")
  local out = {}
  for l in (s:gsub("\n$", "") .. "\n"):gmatch("([^\n]*)\n") do out[#out + 1] = "    " .. l end
  return table.concat(out, "\n")
end

--- One CSV field (RFC 4180). A number is written as a number (an integer as
-- it is, a float to 15 significant digits): -2.5 stays a number. A text is
-- made valid UTF-8 and, where it starts with `=`, `+`, `-`, `@`, a tab, a
-- carriage return or a line feed (after any spaces), gets a `'` first, as
-- OWASP advises against CSV injection: a spreadsheet then reads it as text,
-- never as a formula. Quoted where it holds a comma, a quote or a line break.
-- @param v a number, a string, a boolean or nil (an empty field)
-- @treturn string
function escape.csv(v)
  if v == nil then return "" end
  local s
  if type(v) == "number" then
    s = math.type(v) == "integer" and tostring(v) or ("%.15g"):format(v)
  else
    s = escape.utf8(v)
    if s:match("^ *[=+%-@\t\r\n]") then s = "'" .. s end
  end
  if s:find('[,"\r\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
  return s
end

--- JSON text as valid UTF-8 (what a JSON encoder wrote from strings that
-- were not all UTF-8: a file name of Latin-1 bytes): each invalid byte
-- becomes U+FFFD. JSON's own syntax is ASCII, so only strings change.
-- @string s JSON text
-- @treturn string
function escape.json(s)
  return escape.utf8(s)
end

return escape
