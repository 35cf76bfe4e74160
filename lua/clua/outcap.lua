--- clua.outcap: a run's output kept within a bound. What a submission's run
-- prints (a kernel's `printf` in every work-item, a flood of errors) goes
-- through `outcap.pipe` on its way to the log: the first and the last half of
-- the bound are kept, and what was cut between them is counted and said in
-- one line, where it was cut. The grader starts one per stream:
-- `clua -e 'require("clua.outcap").pipe(PATH, LIMIT)'`.
-- @module clua.outcap
local outcap = {}

--- The bytes of a log kept at most (the rest is counted, not kept).
outcap.LIMIT = 1024 * 1024

local NOTE = "\n[clua grade: %d bytes (%d lines) of output cut here; the first and the last %d bytes are kept]\n"

local function count_lines(s) local _, n = s:gsub("\n", ""); return n end

--- Copies `input` to the file `path`, keeping at most `limit` bytes: the
-- first and the last `limit / 2`, with a line between them that says how many
-- bytes and lines were cut.
-- @string path the log
-- @int[opt] limit the bound (default `outcap.LIMIT`)
-- @tparam[opt] file input what to read (default the standard input)
-- @treturn int the bytes read
-- @treturn int the lines read
-- @treturn int the bytes cut
function outcap.pipe(path, limit, input)
  limit, input = limit or outcap.LIMIT, input or io.stdin
  local half = limit // 2
  local out = assert(io.open(path, "wb"))
  local total, lines, head, head_lines = 0, 0, 0, 0
  local tail, tail_bytes = {}, 0
  while true do
    local chunk = input:read(65536)
    if not chunk then break end
    total, lines = total + #chunk, lines + count_lines(chunk)
    if head < half then
      local take = math.min(half - head, #chunk)
      local part = chunk:sub(1, take)
      out:write(part)
      head, head_lines, chunk = head + take, head_lines + count_lines(part), chunk:sub(take + 1)
    end
    if #chunk > 0 then
      tail[#tail + 1], tail_bytes = chunk, tail_bytes + #chunk
      while tail_bytes - #tail[1] >= half do tail_bytes = tail_bytes - #table.remove(tail, 1) end
    end
  end
  local rest = table.concat(tail)
  local cut = 0
  if total > limit then
    rest = rest:sub(-half)
    cut = total - head - #rest
    out:write(NOTE:format(cut, lines - head_lines - count_lines(rest), half))
  end
  out:write(rest)
  out:close()
  return total, lines, cut
end

--- What a log says of itself: the bytes and lines it was given (cut or not).
-- @string text the log as `outcap.pipe` wrote it
-- @treturn int bytes
-- @treturn int lines
-- @treturn int the bytes cut (0 when none)
function outcap.size(text)
  local cut, cut_lines = text:match("\n%[clua grade: (%d+) bytes %((%d+) lines%) of output cut here;[^\n]*%]\n")
  cut, cut_lines = tonumber(cut) or 0, tonumber(cut_lines) or 0
  local bytes, lines = #text, count_lines(text)
  if cut > 0 then
    local note = text:match("\n%[clua grade: [^\n]*%]\n")
    bytes, lines = bytes - #note + cut, lines - count_lines(note) + cut_lines
  end
  return bytes, lines, cut
end

return outcap
