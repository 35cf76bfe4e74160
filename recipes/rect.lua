-- rect: pitched 2-D arrays. OpenCL optimisation slides, "Padding 2D arrays
-- to avoid unaligned accesses": a 7x7 host block written with
-- clEnqueueWriteBufferRect into an 8x8 device array; then large pitched
-- transfers and copies (write_rect / read_rect / copy_rect against a plain
-- contiguous transfer of the same bytes), and a kernel over the rows of an
-- array whose row pitch is, or is not, padded to an aligned multiple
-- (width 1000 floats: pitch 1000 vs 1024).
-- Every figure is one R:measure (clua.harness): a transfer or kernel owns the
-- rows it writes (the device padding between them, and after the last, must
-- still hold the harness's poison), a read checks its host destination and
-- that its source is unchanged; transfers between host and device are held
-- against the PCIe bound, device copies and kernels against the memory
-- bandwidth.
local cl = require("cl")
local recipe = require("clua.recipe")
local harness = require("clua.harness")

local R = recipe.new{
  name = "rect",
  description = [[Pitched 2-D arrays: clEnqueue{Write,Read,Copy}BufferRect and row kernels with and without a
    padded row pitch.]],
  seed = "OpenCL optimisation slides, \"Padding 2D arrays to avoid unaligned accesses\", clEnqueueWriteBufferRect",
  size = "64MiB", quick_size = "1MiB", check_size = "32KiB", size_share = 8,
  options = function(p)
    p:int("--width", "Row width of the large arrays, in floats.", "1000")
    p:int("--align", "Alignment of a padded row, in bytes.", "128", "BYTES")
    p:int("--pitch", "Padded row pitch, in floats (default: the width rounded up to --align).")
    p:int("--local", "Work-group width of the row kernels (capped by the device's maximum).", "256")
  end,
}

-- The harness's poison (every byte 0xA5) as a float: what padding holds.
local POISON = harness.POISON_FLOAT

R:main(function(R, dev, info)
  local q = R.queue

  -- 1. The slides' example: 7x7 host floats into an 8x8 device array.
  local host = cl.array("float", 49):random(1, -1, 1)
  local dsmall = R:output("8x8", "float", 64)
  local back = cl.array("float", 49):fill(POISON)
  local region7 = { region = { 7 * 4, 7, 1 }, buffer_row_pitch = 8 * 4, blocking = false }
  -- write_rect owns the 7 rows of 7 (elements 0 .. 55 of the 8x8 array, the
  -- padding between them still poison); the rest must be poison too
  local function slide(i) return i % 8 < 7 and host[i // 8 * 7 + i % 8] or POISON end
  local small
  local tw = R:measure{ label = "7x7 write_rect", bytes = 49 * 4, bound = "pcie",
    run = function() return q:write_rect(dsmall, host, region7) end,
    outputs = { { dsmall, owns = { 0, 55 }, check = function(got)
      R:verify("8x8 device array after write_rect of the 7x7 block", got, slide, { exact = true })
      small = got
    end } } }
  local tr = R:measure{ label = "7x7 read_rect", bytes = 49 * 4, bound = "pcie",
    run = function() return q:read_rect(dsmall, back, region7) end,
    outputs = { { dsmall, owns = { 0, 55 }, poison = false, check = function(got)
      R:verify("8x8 device array unchanged by read_rect", got, slide, { exact = true })
      R:verify("7x7 host block read back with read_rect", back, host, { exact = true })
    end } } }

  local ex = R:table{
    title = "The slides' example: a 7x7 host block in an 8x8 device array",
    id = "example",
    columns = { { name = "operation", key = true }, { name = "region" }, { name = "host pitch", unit = "bytes" },
      { name = "device pitch", unit = "bytes" }, { name = "checked", unit = "elements" },
      R:time_columns("µs", { compare = false }) },
  }
  for _, r in ipairs({ { tw, "write_rect 7x7 -> 8x8", 64 }, { tr, "read_rect 8x8 -> 7x7", 49 } }) do
    R:add_row(ex, r[1], { operation = r[2], region = "28 B x 7 x 1", ["host pitch"] = 28, ["device pitch"] = 32,
      checked = r[3] })
  end
  ex:note("the device array after write_rect (D: the host's value, checked; .: padding, still poison):")
  for y = 0, 7 do
    local cells = {}
    for x = 0, 7 do cells[#cells + 1] = (y * 8 + x >= 55 or small[y * 8 + x] == POISON) and "." or "D" end
    ex:note("  " .. table.concat(cells, " "))
  end
  ex:note("the slide's region {7, 7, 0} counts elements and has depth 0; OpenCL wants bytes and depth >= 1: "
    .. "{7 * sizeof(float), 7, 1}")

  -- 2. Large pitched transfers and copies against contiguous ones.
  local align = math.max(4, R.args.align)
  local W = math.max(1, R.args.width)
  local P = R.args.pitch or ((W * 4 + align - 1) // align * align) // 4
  if P < W then error(("--pitch %d is less than --width %d"):format(P, W)) end
  local bytes = math.min(math.tointeger(R.size), info.max_mem_alloc_size, info.global_mem_size // 8)
  local H = bytes // (P * 4)
  if H < 1 then error(("--size %d is too small for one row of %d floats"):format(bytes, P)) end

  local configs = { { W, W }, { W, P }, P ~= W and { P, P } or nil }

  local tt = R:table{
    title = ("Pitched transfers and copies, %d rows"):format(H),
    id = "transfers",
    columns = { { name = "operation", key = true }, { name = "width", unit = "floats", key = true },
      { name = "pitch", unit = "floats", key = true }, { name = "data", unit = "MiB", format = "%.2f" },
      R:time_columns("µs", { compare = false }), R:bw_column("bandwidth", { theoretical = false }),
      { name = "vs contiguous", unit = "%", format = "%.1f" } },
  }

  local seen = {}
  local function measure_transfers(w, p)
    local n = w * H
    local src = cl.array("float", n):random(2, -1, 1)
    -- the pitched image of src: its rows, then poison to the pitch
    local exp = p == w and src or cl.array("float", p * H):fill(POISON)
    for y = 0, p == w and -1 or H - 1 do exp:slice(y * p, w):copy(src:slice(y * w, w)) end
    local gotc = cl.array("float", n)
    local label = ("%d/%d"):format(w, p)
    local dc, dc2 = R:output("contiguous", "float", n), R:output("contiguous copy", "float", n)
    local dp, dp2 = R:output("pitched", "float", p * H), R:output("pitched copy", "float", p * H)
    -- a pitched write owns the rows up to the last one's end; the padding
    -- between them must still be poison, and the rest after them
    local owned = (H - 1) * p + w
    local pexp = exp:slice(0, owned)
    local region = { w * 4, H, 1 }
    local function rect(o) o.region, o.blocking = region, false; return o end
    -- a write (held against the PCIe bound) or a copy (read + write: against
    -- the memory bandwidth) into buf
    local function write(name, buf, f, want, own, copy)
      return R:measure{ label = name .. " " .. label, run = f, bytes = (copy and 2 or 1) * n * 4,
        bound = not copy and "pcie" or nil, outputs = { { buf, owns = own, expect = want, exact = true } } }
    end
    local function read(name, buf, f, want)
      gotc:fill(POISON)
      return R:measure{ label = name .. " " .. label, run = f, bytes = n * 4, bound = "pcie",
        outputs = { { buf, poison = false, check = function(got)
          R:verify(name .. " " .. label .. ": the source unchanged", got, want, { exact = true })
          R:verify(name .. " " .. label, gotc, src, { exact = true })
        end } } }
    end
    local rows = {
      -- contiguous: write, read, copy of the same bytes
      write = write("contiguous write", dc, function() return q:write(dc, src, { blocking = false }) end, src),
      read = read("contiguous read", dc, function() return q:read(dc, gotc, { blocking = false }) end, src),
      copy = write("contiguous copy", dc2, function() return q:copy(dc, dc2) end, src, nil, true),
      -- pitched: host rows of w floats, device rows of p floats
      write_rect = write("write_rect", dp, function()
        return q:write_rect(dp, src, rect{ buffer_row_pitch = p * 4 }) end, pexp, { 0, owned }),
      read_rect = read("read_rect", dp, function()
        return q:read_rect(dp, gotc, rect{ buffer_row_pitch = p * 4 }) end, exp),
      copy_rect = write("copy_rect", dp2, function()
        return q:copy_rect(dp, dp2, { region = region, src_row_pitch = p * 4, dst_row_pitch = p * 4 }) end,
        pexp, { 0, owned }, true),
    }
    for _, op in ipairs({ "write", "write_rect", "read", "read_rect", "copy", "copy_rect" }) do
      local r = rows[op]
      if op:match("_rect$") or not seen[w] then
        R:add_row(tt, r, { operation = op, width = w, pitch = op:match("_rect$") and p or w, data = n * 4 / 2 ^ 20,
          ["vs contiguous"] = 100 * rows[op:gsub("_rect$", "")].median / r.median })
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
  tt:note("bytes: the region's for write/read (held against the PCIe bound), twice that for copies (read + "
    .. "write, against the memory bandwidth); vs contiguous: the plain write/read/copy of the same bytes, as % "
    .. "of its speed")
  tt:note("every result checked element by element, device padding included (still poison); a read's source "
    .. "checked unchanged")

  -- 3. A kernel over the rows: unpadded vs padded row pitch.
  local kcheck = R:kernel("rect.cl", "rowCopy")
  local kpad = R:kernel("rect.cl", "rowCopyPadded")
  local kcopy = R:kernel("rect.cl", "linearCopy")
  local L = math.max(1, math.min(R.args["local"], info.max_work_group_size))
  local Lp = L -- the padded launch needs a work-group width that divides the pitch
  while P % Lp ~= 0 do Lp = Lp // 2 end
  local gx = (W + L - 1) // L * L
  local n, src = W * H, srcW
  -- padded input: src's rows, padding filled with data too (copied by the kernel without the check)
  local inP = cl.array("float", P * H):random(3, -1, 1)
  for y = 0, H - 1 do inP:slice(y * P, W):copy(src:slice(y * W, W)) end
  local dinU, doutU = R:input("in", src), R:output("out", "float", n)
  local dinP, doutP = R:input("in (padded)", inP), R:output("out (padded)", "float", P * H)
  local owned = (H - 1) * P + W -- the padded rows with the edge check: up to the last row's end
  local variants = {
    { name = "contiguous 1-D copy", pitch = W, global = n, ["local"] = (n % 256 == 0) and math.min(256,
      info.max_work_group_size) or nil, k = kcopy, args = { doutU, dinU }, out = { doutU, expect = src } },
    { name = "unpadded rows, edge check", pitch = W, global = { gx, H }, ["local"] = { L, 1 }, k = kcheck,
      args = { doutU, dinU, W, W }, out = { doutU, expect = src } },
    { name = "padded rows, edge check", pitch = P, global = { gx, H }, ["local"] = { L, 1 }, k = kcheck,
      args = { doutP, dinP, W, P }, out = { doutP, owns = { 0, owned }, expect = expP:slice(0, owned) } },
    { name = "padded rows, no edge check", pitch = P, global = { P, H }, ["local"] = { Lp, 1 }, k = kpad,
      args = { doutP, dinP, P }, out = { doutP, expect = inP } },
  }
  if P == W then table.remove(variants, 4); table.remove(variants, 3) end
  local kt = R:table{
    title = ("A kernel over the rows: %d x %d floats, row pitch %d vs %d"):format(H, W, W, P),
    id = "kernel",
    columns = { { name = "variant", key = true }, { name = "pitch", unit = "floats" },
      { name = "row start", unit = "aligned" }, { name = "global" }, { name = "local" },
      R:time_columns("µs", { compare = false }), R:bw_column("bandwidth"),
      { name = "vs contiguous", unit = "%", format = "%.1f" } },
  }
  local base
  local function dims(d) return type(d) == "table" and table.concat(d, "x") or tostring(d or "driver") end
  for i, v in ipairs(variants) do
    v.k:args(table.unpack(v.args))
    v.out.exact = true
    local res = R:measure{ label = v.name, run = function() return q:launch(v.k, v.global, v["local"]) end,
      reads = { v.args[2] }, outputs = { v.out }, bytes = 2 * 4 * n }
    base = base or res.median
    R:add_row(kt, res, { variant = v.name, pitch = v.pitch,
      ["row start"] = i == 1 and "-" or ((v.pitch * 4) % align == 0 and "yes" or "no"),
      global = dims(v.global), ["local"] = dims(v["local"]), ["vs contiguous"] = 100 * base / res.median })
  end
  kt:note(("bytes = 2 x 4 x %d x %d (the useful data, read + written) for every variant; row start aligned: "
    .. "pitch x 4 a multiple of %d bytes"):format(W, H, align))
  kt:note("every output element checked, padding included: poison where the kernel must not write, the input's "
    .. "padding where it copies it; the inputs checked unchanged")

  for _, t in ipairs({ ex, tt, kt }) do R:emit(t) end
end)
