--- clua.csvread: a CSV file read into rows, as RFC 4180 writes it and as
-- spreadsheets and course systems export it: cells in double quotes may hold
-- the separator, line breaks and doubled quotes (`"say ""hi"""`); lines end
-- in CRLF or LF; a UTF-8 byte-order mark at the start is dropped; the
-- separator is the one of `,`, `;` (a spreadsheet in a locale with decimal
-- commas) or a tab that the first line holds most of, outside quotes. A
-- blank line is no row. Anything else is an error naming the line: a quote
-- inside an unquoted cell, text after a closing quote, a quote left open,
-- bytes that are not UTF-8.
-- Debian 12 packages no CSV reader for Lua (Penlight's `pl.data` reads a
-- line at a time, so a quoted line break splits a row, and reads an empty
-- cell as 0).
-- @module clua.csvread
local csvread = {}

local BOM = "\239\187\191"

-- The separator the first line holds most of, outside quotes (',' on a tie or none).
local function separator(text)
  local counts, quoted = { [","] = 0, [";"] = 0, ["\t"] = 0 }, false
  for i = 1, #text do
    local c = text:sub(i, i)
    if c == '"' then quoted = not quoted
    elseif not quoted and (c == "\n" or c == "\r") then break
    elseif not quoted and counts[c] then counts[c] = counts[c] + 1 end
  end
  local best = ","
  for _, s in ipairs({ ";", "\t" }) do if counts[s] > counts[best] then best = s end end
  return best
end

--- The rows of a CSV text, each a list of its cells (strings).
-- @string text the file's contents
-- @tab[opt] opts `sep` (the separator; default: found from the first line),
-- `where` (the name for messages, e.g. the file's path; default "csv")
-- @treturn {{string,...},...} the rows, blank lines left out
-- @treturn string the separator used
-- @treturn {int,...} the line each row starts on
-- @raise `WHERE line N: ...` on a malformed file
function csvread.rows(text, opts)
  opts = opts or {}
  local where = opts.where or "csv"
  if type(text) ~= "string" then error(where .. ": no text", 2) end
  if text:sub(1, 3) == BOM then text = text:sub(4) end
  if not utf8.len(text) then
    local _, bad = utf8.len(text)
    local line = select(2, text:sub(1, bad):gsub("\n", "")) + 1
    error(("%s line %d: not UTF-8 (byte %d); save the file as CSV UTF-8"):format(where, line, bad), 0)
  end
  local sep = opts.sep or separator(text)
  local rows, lines, row, i, n, line, first = {}, {}, {}, 1, #text, 1, 1
  local function fail(msg) error(("%s line %d: %s"):format(where, line, msg), 0) end
  local function end_row()
    if not (#row == 1 and row[1] == "") then
      lines[#rows + 1] = first
      rows[#rows + 1] = row
    end
    row = {}
  end
  while i <= n + 1 do
    local c = text:sub(i, i)
    if #row == 0 then first = line end
    if c == '"' then
      -- a quoted cell: up to the quote that is not doubled
      local start_line, buf, j = line, {}, i + 1
      while true do
        local q = text:find('"', j, true)
        if not q then line = start_line; fail("a quoted cell is not closed") end
        local part = text:sub(j, q - 1)
        buf[#buf + 1] = part
        line = line + select(2, part:gsub("\n", ""))
        if text:sub(q + 1, q + 1) == '"' then buf[#buf + 1] = '"'; j = q + 2
        else i = q + 1; break end
      end
      row[#row + 1] = table.concat(buf)
      c = text:sub(i, i)
      if c == "\r" and text:sub(i + 1, i + 1) == "\n" then i = i + 1; c = "\n" end
      if c == sep then i = i + 1
      elseif c == "\n" or c == "\r" then line = line + 1; end_row(); i = i + 1
      elseif c == "" then end_row(); break
      else fail(("text after a quoted cell's closing quote: '%s'"):format(text:match("^[^\r\n]*", i):sub(1, 20))) end
    else
      -- an unquoted cell: up to the separator or the end of the line
      local j = i
      while j <= n do
        local d = text:sub(j, j)
        if d == sep or d == "\n" or d == "\r" then break end
        if d == '"' then fail("a quote inside an unquoted cell (quote the whole cell and double the quote)") end
        j = j + 1
      end
      row[#row + 1] = text:sub(i, j - 1)
      local d = text:sub(j, j)
      if d == "\r" and text:sub(j + 1, j + 1) == "\n" then j = j + 1; d = "\n" end
      if d == sep then
        i = j + 1
        if i > n then row[#row + 1] = ""; end_row(); break end
      elseif d == "\n" or d == "\r" then line = line + 1; end_row(); i = j + 1
      else end_row(); break end
    end
    if i > n then break end
  end
  if #row > 0 then end_row() end
  return rows, sep, lines
end

--- The records of a CSV text with a header: each row as a table from the
-- header's names to its cells (a cell past the header's width is an error;
-- a short row's missing cells are nil).
-- @string text the file's contents
-- @tab[opt] opts as for `csvread.rows`
-- @treturn {string,...} the header
-- @treturn {table,...} the records, in order
-- @raise as `csvread.rows`, and `WHERE: no header`, `WHERE line N: K cells, the header has M`,
-- `WHERE: the header names 'X' twice`
function csvread.records(text, opts)
  opts = opts or {}
  local where = opts.where or "csv"
  local rows, _, lines = csvread.rows(text, opts)
  local head = rows[1]
  if not head then error(where .. ": no header (the file is empty)", 0) end
  local seen = {}
  for i, h in ipairs(head) do
    head[i] = h:match("^%s*(.-)%s*$")
    if seen[head[i]] and head[i] ~= "" then error(("%s: the header names '%s' twice"):format(where, head[i]), 0) end
    seen[head[i]] = true
  end
  local out = {}
  for r = 2, #rows do
    local cells, rec = rows[r], {}
    if #cells > #head then
      local extra = false
      for k = #head + 1, #cells do if cells[k] ~= "" then extra = true end end
      if extra then error(("%s line %d: %d cells, the header has %d"):format(where, lines[r], #cells, #head), 0) end
    end
    for k, h in ipairs(head) do if h ~= "" then rec[h] = cells[k] end end
    out[#out + 1] = rec
  end
  return head, out
end

return csvread
