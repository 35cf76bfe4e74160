-- rect: pitched 2-D arrays. OpenCL optimisation slides, "Padding 2D arrays
-- to avoid unaligned accesses": a 7x7 host block written with
-- clEnqueueWriteBufferRect into an 8x8 device array; then large pitched
-- transfers and copies (write_rect / read_rect / copy_rect against a plain
-- contiguous transfer of the same bytes), and a kernel over the rows of an
-- array whose row pitch is, or is not, padded to an aligned multiple
-- (width 1000 floats: pitch 1000 vs 1024).
local cl = require "cl"
local recipe = require "clua.recipe"

local R = recipe.new{
  name = "rect",
  description = "Pitched 2-D arrays: clEnqueue{Write,Read,Copy}BufferRect and row kernels with and without a "
    .. "padded row pitch.",
  seed = "OpenCL optimisation slides, \"Padding 2D arrays to avoid unaligned accesses\", clEnqueueWriteBufferRect",
  size = "64MiB", quick_size = "1MiB", quick_reps = 3,
  options = function(p)
    p:option("--width", "Row width of the large arrays, in floats.", "1000"):argname("N"):convert(math.tointeger)
    p:option("--align", "Alignment of a padded row, in bytes.", "128"):argname("BYTES"):convert(math.tointeger)
    p:option("--pitch", "Padded row pitch, in floats (default: the width rounded up to --align).")
      :argname("N"):convert(math.tointeger)
    p:option("--local", "Work-group width of the row kernels (capped by the device's maximum).", "256")
      :argname("N"):convert(math.tointeger)
  end,
}

local POISON = -999.25 -- the inputs are in [-1, 1): never a copied value

R:main(function(R, dev)
  local info = dev.info
  local q, ctx = R.queue, R.ctx
  local us = function(v) return ("%.1f"):format(v / 1e3) end

  ---------------------------------------------------------------------------
  -- 1. The slides' example: 7x7 host floats into an 8x8 device array.
  ---------------------------------------------------------------------------
  local host = cl.array("float", 49)
  host:random(1, -1, 1)
  local dsmall = ctx:buffer(64 * 4)
  local small = cl.array("float", 64)
  local back = cl.array("float", 49)
  local wopts = { region = { 7 * 4, 7, 1 }, buffer_row_pitch = 8 * 4, host_row_pitch = 0, blocking = false }
  q:fill(dsmall, POISON, { type = "float" })
  q:finish()
  local tw = R:time(function() return q:write_rect(dsmall, host, wopts) end, { label = "7x7 write_rect" })
  q:read(dsmall, small)
  local expect = cl.array("float", 64)
  expect:fill(POISON)
  for y = 0, 6 do for x = 0, 6 do expect[y * 8 + x] = host[y * 7 + x] end end
  R:corrupt_one(small, 3 * 8 + 3)
  R:verify("8x8 device array after write_rect of the 7x7 block", small, expect, { exact = true })
  back:fill(POISON)
  local ropts = { region = { 7 * 4, 7, 1 }, buffer_row_pitch = 8 * 4, host_row_pitch = 0, blocking = false }
  local tr = R:time(function() return q:read_rect(dsmall, back, ropts) end, { label = "7x7 read_rect" })
  q:finish()
  R:verify("7x7 host block read back with read_rect", back, host, { exact = true })

  local ex = R:table{
    title = "The slides' example: a 7x7 host block in an 8x8 device array",
    id = "example",
    columns = { { name = "operation", key = true }, { name = "region" }, { name = "host pitch", unit = "bytes" },
      { name = "device pitch", unit = "bytes" }, { name = "checked", unit = "elements" },
      { name = "time", unit = "µs", format = us, ns = true }, { name = "min", unit = "µs", format = us, ns = true } },
  }
  ex:add{ operation = "write_rect 7x7 -> 8x8", region = "28 B x 7 x 1", ["host pitch"] = 28,
    ["device pitch"] = 32, checked = 64, time = tw.median, min = tw.min }
  ex:add{ operation = "read_rect 8x8 -> 7x7", region = "28 B x 7 x 1", ["host pitch"] = 28,
    ["device pitch"] = 32, checked = 49, time = tr.median, min = tr.min }
  ex:note("the device array after write_rect (D: the host's value, checked; .: padding, still poison):")
  for y = 0, 7 do
    local cells = {}
    for x = 0, 7 do cells[#cells + 1] = small[y * 8 + x] == POISON and "." or "D" end
    ex:note("  " .. table.concat(cells, " "))
  end
  ex:note("the slide's region {7, 7, 0} counts elements and has depth 0; OpenCL wants bytes and depth >= 1: "
    .. "{7 * sizeof(float), 7, 1}")

  ---------------------------------------------------------------------------
  -- 2. Large pitched transfers and copies against contiguous ones.
  ---------------------------------------------------------------------------
  local align = math.max(4, R.args.align)
  local W = math.max(1, R.args.width)
  local P = R.args.pitch or ((W * 4 + align - 1) // align * align) // 4
  if P < W then error(("--pitch %d is less than --width %d"):format(P, W)) end
  local bytes = math.min(math.tointeger(R.size), info.max_mem_alloc_size, info.global_mem_size // 8)
  local H = bytes // (P * 4)
  if H < 1 then error(("--size %d is too small for one row of %d floats"):format(bytes, P)) end

  local configs = { { W, W }, { W, P } }
  if P ~= W then configs[#configs + 1] = { P, P } end

  local tt = R:table{
    title = ("Pitched transfers and copies, %d rows"):format(H),
    id = "transfers",
    columns = { { name = "operation", key = true }, { name = "width", unit = "floats", key = true },
      { name = "pitch", unit = "floats", key = true }, { name = "data", unit = "MiB", format = "%.2f" },
      { name = "time", unit = "µs", format = us, ns = true }, { name = "min", unit = "µs", format = us, ns = true },
      { name = "max", unit = "µs", format = us, ns = true }, R:bw_column("bandwidth", { theoretical = false }),
      { name = "vs contiguous", unit = "%", format = "%.1f" } },
  }

  local seen = {}
  local function measure_transfers(w, p)
    local n = w * H
    local src = cl.array("float", n)
    src:random(2, -1, 1)
    local exp = src
    if p ~= w then -- the pitched image of src: its rows, then poison to the pitch
      exp = cl.array("float", p * H)
      exp:fill(POISON)
      for y = 0, H - 1 do exp:slice(y * p, w):copy(src:slice(y * w, w)) end
    end
    local got, gotc = cl.array("float", p * H), cl.array("float", n)
    local dp, dp2 = ctx:buffer(p * H * 4), ctx:buffer(p * H * 4)
    local dc, dc2 = ctx:buffer(n * 4), ctx:buffer(n * 4)
    local region = { w * 4, H, 1 }
    local label = ("%d/%d"):format(w, p)
    local rows = {}

    -- contiguous: write, read, copy of the same bytes
    q:fill(dc, POISON, { type = "float" })
    local t = R:time(function() return q:write(dc, src, { blocking = false }) end, { label = "write " .. label })
    gotc:fill(0)
    q:read(dc, gotc)
    R:verify("contiguous write " .. label, gotc, src, { exact = true })
    rows.write = t
    gotc:fill(POISON)
    t = R:time(function() return q:read(dc, gotc, { blocking = false }) end, { label = "read " .. label })
    q:finish()
    R:verify("contiguous read " .. label, gotc, src, { exact = true })
    rows.read = t
    q:fill(dc2, POISON, { type = "float" })
    t = R:time(function() return q:copy(dc, dc2) end, { label = "copy " .. label })
    gotc:fill(0)
    q:read(dc2, gotc)
    R:verify("contiguous copy " .. label, gotc, src, { exact = true })
    rows.copy = t

    -- pitched: host rows of w floats, device rows of p floats
    q:fill(dp, POISON, { type = "float" })
    t = R:time(function()
      return q:write_rect(dp, src, { region = region, buffer_row_pitch = p * 4, blocking = false })
    end, { label = "write_rect " .. label })
    got:fill(0)
    q:read(dp, got)
    if w == W and p == P then R:corrupt_one(got, (H // 2) * p + w // 2) end
    R:verify("write_rect " .. label .. " (device rows and padding)", got, exp, { exact = true })
    rows.write_rect = t
    gotc:fill(POISON)
    t = R:time(function()
      return q:read_rect(dp, gotc, { region = region, buffer_row_pitch = p * 4, blocking = false })
    end, { label = "read_rect " .. label })
    q:finish()
    R:verify("read_rect " .. label, gotc, src, { exact = true })
    rows.read_rect = t
    q:fill(dp2, POISON, { type = "float" })
    t = R:time(function()
      return q:copy_rect(dp, dp2, { region = region, src_row_pitch = p * 4, dst_row_pitch = p * 4 })
    end, { label = "copy_rect " .. label })
    got:fill(0)
    q:read(dp2, got)
    R:verify("copy_rect " .. label .. " (device rows and padding)", got, exp, { exact = true })
    rows.copy_rect = t

    local mib = n * 4 / 2 ^ 20
    for _, op in ipairs({ "write", "write_rect", "read", "read_rect", "copy", "copy_rect" }) do
      local r = rows[op]
      if op:match("_rect$") or not seen[w] then
      local moved = (op:match("^copy") and 2 or 1) * n * 4
      local plain = rows[op:gsub("_rect$", "")]
      tt:add{ operation = op, width = w, pitch = op:match("_rect$") and p or w, data = mib, time = r.median,
        min = r.min, max = r.max, bandwidth = R:bw(moved, r.median),
        ["vs contiguous"] = 100 * plain.median / r.median }
      end
    end
    seen[w] = true
    for _, b in ipairs({ dp, dp2, dc, dc2 }) do b:release() end
    return src, exp
  end

  local srcW, expP
  for _, c in ipairs(configs) do
    -- each config measures its own contiguous transfers (its ratios use them); they are shown once per width
    local src, exp = measure_transfers(c[1], c[2])
    if c[1] == W and c[2] == P then srcW, expP = src, exp end
  end
  tt:note("host arrays are contiguous (host row pitch = width); device rows are `pitch` floats apart")
  tt:note("bytes: the region's for write/read, twice that for copies (read + write); vs contiguous: the plain "
    .. "write/read/copy of the same bytes, as % of its speed")
  tt:note("every result checked element by element, device padding included (still poison)")

  ---------------------------------------------------------------------------
  -- 3. A kernel over the rows: unpadded vs padded row pitch.
  ---------------------------------------------------------------------------
  local kcheck = R:kernel("rect.cl", "rowCopy")
  local kpad = R:kernel("rect.cl", "rowCopyPadded")
  local kcopy = R:kernel("rect.cl", "linearCopy")
  local L = math.max(1, math.min(R.args["local"], info.max_work_group_size))
  local Lp = L -- the padded launch needs a work-group width that divides the pitch
  while P % Lp ~= 0 do Lp = Lp // 2 end
  local gx = (W + L - 1) // L * L
  local n = W * H
  local src = srcW
  -- padded input: src's rows, padding filled with data too (copied by the kernel without the check)
  local inP = cl.array("float", P * H)
  inP:random(3, -1, 1)
  for y = 0, H - 1 do inP:slice(y * P, W):copy(src:slice(y * W, W)) end
  local dinU, doutU = ctx:buffer(src, "read_only"), ctx:buffer(n * 4, "write_only")
  local dinP, doutP = ctx:buffer(inP, "read_only"), ctx:buffer(P * H * 4, "write_only")
  local gotU, gotP = cl.array("float", n), cl.array("float", P * H)
  local moved = 2 * 4 * n
  local variants = {
    { name = "contiguous 1-D copy", pitch = W, global = n, ["local"] = (n % 256 == 0) and math.min(256,
      info.max_work_group_size) or nil, k = kcopy, args = { doutU, dinU }, out = doutU, got = gotU,
      expect = src },
    { name = "unpadded rows, edge check", pitch = W, global = { gx, H }, ["local"] = { L, 1 }, k = kcheck,
      args = { doutU, dinU, W, W }, out = doutU, got = gotU, expect = src },
    { name = "padded rows, edge check", pitch = P, global = { gx, H }, ["local"] = { L, 1 }, k = kcheck,
      args = { doutP, dinP, W, P }, out = doutP, got = gotP, expect = expP },
    { name = "padded rows, no edge check", pitch = P, global = { P, H }, ["local"] = { Lp, 1 }, k = kpad,
      args = { doutP, dinP, P }, out = doutP, got = gotP, expect = inP },
  }
  if P == W then table.remove(variants, 4); table.remove(variants, 3) end
  local kt = R:table{
    title = ("A kernel over the rows: %d x %d floats, row pitch %d vs %d"):format(H, W, W, P),
    id = "kernel",
    columns = { { name = "variant", key = true }, { name = "pitch", unit = "floats" },
      { name = "row start", unit = "aligned" }, { name = "global" }, { name = "local" },
      { name = "time", unit = "µs", format = us, ns = true }, { name = "min", unit = "µs", format = us, ns = true },
      { name = "max", unit = "µs", format = us, ns = true }, R:bw_column("bandwidth"),
      { name = "vs contiguous", unit = "%", format = "%.1f" } },
  }
  local base
  for i, v in ipairs(variants) do
    q:fill(v.out, POISON, { type = "float" })
    q:finish()
    v.k:args(table.unpack(v.args))
    local t = R:time(function() return q:launch(v.k, v.global, v["local"]) end, { label = v.name })
    v.got:fill(0)
    q:read(v.out, v.got)
    if i == 2 then R:corrupt_one(v.got) end
    R:verify(v.name, v.got, v.expect, { exact = true })
    base = base or t.median
    local function dims(d) return type(d) == "table" and table.concat(d, "x") or tostring(d or "driver") end
    kt:add{ variant = v.name, pitch = v.pitch,
      ["row start"] = i == 1 and "-" or ((v.pitch * 4) % align == 0 and "yes" or "no"),
      global = dims(v.global), ["local"] = dims(v["local"]), time = t.median, min = t.min, max = t.max,
      bandwidth = R:bw(moved, t.median), ["vs contiguous"] = 100 * base / t.median }
  end
  kt:note(("bytes = 2 x 4 x %d x %d (the useful data, read + written) for every variant; row start aligned: "
    .. "pitch x 4 a multiple of %d bytes"):format(W, H, align))
  kt:note("every output element checked, padding included: poison where the kernel must not write, the input's "
    .. "padding where it copies it")

  R:emit(ex)
  R:emit(tt)
  R:emit(kt)
end)
