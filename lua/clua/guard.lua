--- clua.guard: buffers with guard zones, for kernels that are not trusted (a
-- student's, in assignment mode). A kernel that writes past its output
-- silently corrupts memory, and a check of the output range alone passes it.
-- Each guarded buffer is a sub-buffer in the middle of a larger one whose
-- zones before and after it hold a pattern; `G:check()`, after each launch,
-- reads the zones back and raises naming the buffer, the offset and the bytes
-- when one changed (`student: out: 4 bytes written at offset 1048576, past the
-- end (1048576 bytes)`), and checks that every input is unchanged. On a
-- device that checks every access itself (Oclgrind: `clua check`, the
-- grader's check) there are no zones: a read or write past the end is then
-- that device's finding, which a zone would hide.
-- @module clua.guard
local cl = require("cl")

local guard = {}

--- The byte the zones hold (0xA5: no small integer, no float of a common value).
guard.PATTERN = 0xA5

--- Whether a device checks every access itself (Oclgrind, the simulator
-- `clua check` runs kernels on): a read or write past an allocation is its
-- finding, with the kernel's line.
-- @tparam cl.device device
-- @treturn bool
function guard.checking(device)
  return (tostring(device.info.name or "")):find("Oclgrind", 1, true) ~= nil
end

--- Bytes of each zone: 4 KiB, or the device's base address alignment if
-- larger; none on a device that checks every access (`guard.checking`),
-- where a zone would only hide a read past the end from its check (a
-- sub-buffer's accesses are checked against the whole allocation).
function guard.zone_bytes(device)
  if guard.checking(device) then return 0 end
  local align = (device.info.mem_base_addr_align or 1024) // 8
  return math.max(4096, align)
end

local Guard = {}
Guard.__index = Guard

--- A set of guarded buffers on a context and queue.
-- @tparam cl.context ctx
-- @tparam cl.queue q
-- @string[opt] who the prefix of messages (default "student")
function guard.new(ctx, q, who)
  return setmetatable({ ctx = ctx, q = q, who = who or "student", zone = guard.zone_bytes(q.device or ctx:devices()[1]),
    buffers = {} }, Guard)
end

--- A guarded buffer of `data` (a cl.array, copied to the device) or of
-- `data` bytes (filled with opts.fill bytes, default 0). With opts.input the
-- kernel must leave it unchanged (its array is kept to compare with).
-- @string name the buffer's name in messages ("out", "in")
-- @param data a cl.array or a byte count
-- @tab[opt] opts `input` (true: checked unchanged), `flags` (as for ctx:buffer)
-- @treturn cl.buffer the sub-buffer to pass to the kernel
function Guard:buffer(name, data, opts)
  opts = opts or {}
  local size = type(data) == "number" and math.tointeger(data) or data.size -- bytes
  assert(size and size > 0, "guard:buffer: a size in bytes > 0 or a non-empty cl.array")
  local z = self.zone
  local parent = self.ctx:buffer(z + size + z, opts.flags)
  self.q:fill(parent, guard.PATTERN, { type = "uchar" })
  local sub = parent:sub(z, size)
  if type(data) ~= "number" then self.q:write(sub, data) end
  if type(data) == "number" and opts.fill then self.q:fill(sub, opts.fill, { type = "uchar" }) end
  self.buffers[#self.buffers + 1] = { name = name, parent = parent, sub = sub, size = size,
    input = opts.input and data or nil }
  return sub
end

-- The changed span of a zone read into `got`: its bytes and first index, or
-- nil. The span runs from the first to the last changed byte, widened to
-- whole 4-byte words: a written value may share a byte or three with the
-- pattern (a float of the pattern's bits, times 4, differs in one byte).
local function changed(got, pattern)
  local ok, _, _, first = got:compare(pattern, 0)
  if ok then return nil end
  local last = first
  for i = #got - 1, first, -1 do
    if got[i] ~= guard.PATTERN then last = i; break end
  end
  first, last = first // 4 * 4, math.min(#got - 1, last // 4 * 4 + 3)
  return last - first + 1, first
end

--- Checks every guarded buffer: its zones hold the pattern still, and an
-- input holds what was written. Raises at the first difference. An input is
-- read back only when `G.unchanged(sub)` (a function the owner may set: true
-- when a check on the device finds the sub-buffer as written) is absent or
-- does not say so.
-- @string[opt] when what ran, for the message ("after launch 1")
function Guard:check(when)
  local z, q = self.zone, self.q
  if z == 0 then return self:check_inputs(when) end
  local got = cl.array("uchar", z)
  local pattern = cl.array("uchar", z):fill(guard.PATTERN)
  local suffix = when and (" (" .. when .. ")") or ""
  for _, b in ipairs(self.buffers) do
    q:read(b.parent, got, { offset = 0 })
    local n, first = changed(got, pattern)
    if n then
      error(("%s: %s: %d bytes written at offset %d, before the start%s"):format(self.who, b.name, n,
        first - z, suffix), 0)
    end
    q:read(b.parent, got, { offset = z + b.size })
    n, first = changed(got, pattern)
    if n then
      error(("%s: %s: %d bytes written at offset %d, past the end (%d bytes)%s"):format(self.who, b.name, n,
        b.size + first, b.size, suffix), 0)
    end
  end
  self:check_inputs(when)
end

--- Checks that every guarded input holds what was written (`Guard:check`
-- without the zones). Raises at the first difference.
-- @string[opt] when what ran, for the message
function Guard:check_inputs(when)
  local suffix = when and (" (" .. when .. ")") or ""
  for _, b in ipairs(self.buffers) do
    if b.input and not (self.unchanged and self.unchanged(b.sub)) then
      local now = cl.array(b.input.type, #b.input)
      self.q:read(b.sub, now)
      local ok, _, _, at, nbad = now:compare(b.input, 0)
      if not ok then
        error(("%s: %s: an input changed: %d of %d elements, the first at index %d (%s, was %s)%s"):format(
          self.who, b.name, nbad, #b.input, at, tostring(now[at]), tostring(b.input[at]), suffix), 0)
      end
    end
  end
end

--- Restores the zones' pattern and the inputs (before the next kernel).
function Guard:reset()
  for _, b in ipairs(self.buffers) do
    if self.zone > 0 then
      self.q:fill(b.parent, guard.PATTERN, { type = "uchar", offset = 0, size = self.zone })
      self.q:fill(b.parent, guard.PATTERN, { type = "uchar", offset = self.zone + b.size, size = self.zone })
    end
    if b.input then self.q:write(b.sub, b.input) end
  end
end

return guard
