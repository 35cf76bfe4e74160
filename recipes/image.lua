-- image: reading through image objects (the texture cache) vs global memory.
-- NVIDIA OpenCL Best Practices Guide 3.2.4 "Texture Memory": image reads are
-- cached, optimised for 2D spatial locality, can avoid uncoalesced loads, and
-- offer fast low-precision linear filtering (Table 3.4); OpenCL slides
-- "Texture Memory" (a read_imagef with CLK_FILTER_LINEAR). Each access
-- pattern runs once from a row-major float buffer and once from a CL_R/CL_FLOAT
-- image2d_t (kernels/image.cl): a copy, a 3x3 average (2D locality), a read
-- shifted by one pixel (misaligned), a transposed read (a column walk) and a
-- scattered read; then bilinear interpolation by hand vs CLK_FILTER_LINEAR.
-- Every kernel is one R:measure (clua.harness) on a small image, verified in
-- full, then one on the measured image, timed and verified: it owns the whole
-- of its output (W x H floats) and moves 2 x 4 bytes a pixel, held against the
-- memory bandwidth (a cache figure when the image and the output fit the caches).
local cl = require("cl")
local recipe = require("clua.recipe")
local units = require("clua.units")
local verify = require("clua.verify")

local R = recipe.new{ name = "image", quick_size = "256KiB", check_size = "4KiB",
  -- clua check: Oclgrind cannot tell whether what an image read returns is defined
  unchecked = { { kind = "uninitialized value", kernels = "_image", why = [[Oclgrind 21.10 does not follow defined
    values through images: its check reads an image's description from its record of the image argument, which
    holds only a pointer's worth, so every read_image result counts as undefined, whatever the image holds
    (out-of-bounds accesses, races and barriers are still checked in the image kernels)]] } },
  description = [[Image (texture) reads vs global reads: 2D locality, misaligned, transposed and scattered
    patterns, and linear filtering by the sampler vs by hand.]],
  seed = "NVIDIA OpenCL Best Practices Guide 3.2.4, Table 3.4; OpenCL slides \"Texture Memory\"",
  options = function(p)
    p:int("--stride", "Pixels between the reads of consecutive work-items in the scattered pattern "
      .. "(taken modulo the image).", "7919", "P")
    p:option("--full-check", "Largest image side checked in full on the CPU for the 3x3 average and the "
      .. "bilinear kernels; larger images are checked on 16 rows (on the CPU) and everywhere against the "
      .. "global-memory kernel.", "512"):argname("N"):convert(require("clua.argcheck").whole)
  end }

local LX, LY = 32, 8  -- work-groups: one warp-wide row of pixels, 8 rows
local DX, DY = 0.3, 0.7 -- the bilinear sample point, in pixels from each output pixel
-- the verification image: odd sides, partial work-groups (with --check-size, smaller)
local VERIFY_SIDES, CHECK_SIDES = { 509, 317 }, { 45, 19 }

local PATTERNS = {
  { id = "copy", label = "copy (row-major)" },
  { id = "avg3", label = "3x3 average (2D locality)" },
  { id = "shift", label = "shifted by 1 pixel (misaligned)" },
  { id = "column", label = "transposed read (column walk)" },
  { id = "scatter", label = "scattered (stride P mod W*H)" },
}
local FILTERS = {
  { id = "bilinear_global", label = "global, bilinear by hand (4 reads)", tol = 1e-3 },
  { id = "bilinear_image_manual", label = "image, bilinear by hand (4 nearest reads)", tol = 1e-3 },
  { id = "bilinear_image_linear", label = "image, CLK_FILTER_LINEAR (1 read)", tol = 1e-2 },
}

local function roundup(a, b) return (a + b - 1) // b * b end

-- The CPU value of pixel (x, y) of `kind` ("avg3" or "bilinear") from rows
-- lo.. of the W x H input, given as a Lua list (1-based, row-major).
local function pixel_fn(kind, rows, W, H, lo)
  local function at(x, y)
    x = x < 0 and 0 or x >= W and W - 1 or x
    y = y < 0 and 0 or y >= H and H - 1 or y
    return rows[(y - lo) * W + x + 1]
  end
  if kind == "avg3" then
    return function(x, y)
      local s = 0
      for dy = -1, 1 do for dx = -1, 1 do s = s + at(x + dx, y + dy) end end
      return s / 9
    end
  end
  return function(x, y)
    local fx, fy = x + DX, y + DY
    local x0, y0 = math.floor(fx), math.floor(fy)
    local a, b = fx - x0, fy - y0
    return (1 - a) * (1 - b) * at(x0, y0) + a * (1 - b) * at(x0 + 1, y0) + (1 - a) * b * at(x0, y0 + 1)
      + a * b * at(x0 + 1, y0 + 1)
  end
end

-- References computed in C: copy, shift (a gather), column (a transpose),
-- scatter (gathers along the stride, one per wrap around the image).
local function c_reference(id, src, W, H, P)
  local n = W * H
  local ref = cl.array("float", n)
  if id == "copy" then
    ref:copy(src)
  elseif id == "shift" then
    ref:slice(0, n - 1):gather(src, 1)
    for y = 0, H - 1 do ref[y * W + W - 1] = src[y * W + W - 1] end
  elseif id == "column" then
    ref:transpose(src, H, W)
  elseif id == "scatter" then
    local i = 0
    while i < n do
      local j = i * P % n
      local count = math.min((n - 1 - j) // P + 1, n - i)
      ref:slice(i, count):gather(src, j, P)
      i = i + count
    end
  end
  return ref
end

R:main(function(R, dev)
  local info, q, ctx = dev.info, R.queue, R.ctx
  local VERIFY_W, VERIFY_H = table.unpack(R.check_size and CHECK_SIDES or VERIFY_SIDES)
  local P, full_check = R.args.stride, R.args.full_check
  local bytes = math.min(math.tointeger(R.size or (info.type == "GPU" and 64 or 4) * 2 ^ 20), info.max_mem_alloc_size, info.global_mem_size // 4)
  local side = math.floor(math.sqrt(bytes / 4))
  side = math.min(side, info.image2d_max_width or side, info.image2d_max_height or side) // LX * LX
  if side < LX then error(("--size %d is too small: at least %d bytes"):format(bytes, LX * LX * 4)) end

  local function sampler(filter) return ctx:sampler{ normalized = false, address = "clamp_to_edge", filter = filter } end
  local nearest, linear = sampler("nearest"), sampler("linear")

  -- One input of W x H: the host array, a buffer and an image of it, an output buffer.
  local function setup(W, H, seed)
    local s = { W = W, H = H, n = W * H }
    s.src = cl.array("float", s.n):random(seed, 0, 1)
    s.buf = R:input("in", s.src)
    s.img = ctx:image2d{ width = W, height = H, format = "float", flags = "read_only", data = s.src }
    s.out = R:output("out", "float", s.n)
    -- the image as written reads back bit for bit (the setup, not a result)
    local back = cl.array("float", s.n)
    q:read_image(s.img, back)
    verify.arrays(("image %dx%d read back"):format(W, H), back, s.src, { exact = true })
    return s
  end

  -- Kernel `name` (global or image) on s, as one R:measure: its output
  -- checked by `expect` (exactly) or `check`; the bytes `moved` for the timed
  -- ones (the untimed small image runs once).
  local function measure(s, name, label, extra, out, moved)
    local k = R:kernel("image.cl", name)
    local input = name:match("_global$") and s.buf or s.img
    local args = { s.out, s.W, s.H, table.unpack(extra or {}) }
    if input == s.img then table.insert(args, 1, name:match("linear$") and linear or nearest) end
    k:args(input, table.unpack(args))
    local g, l
    if name:match("^scatter") then g, l = roundup(s.n, LX * LY), LX * LY
    elseif name:match("^column") then g, l = { roundup(s.H, LX), roundup(s.W, LY) }, { LX, LY }
    else g, l = { roundup(s.W, LX), roundup(s.H, LY) }, { LX, LY } end
    out[1], out.exact = s.out, out.expect and true or nil
    return R:measure{ label = label, run = function() return q:launch(k, g, l) end, reads = { s.buf },
      outputs = { out }, bytes = moved, footprint = moved, reps = not moved and 1 or nil, warmup = not moved and 0 or nil }
  end

  -- Checks `got` for `kind` against the CPU: every pixel when `full`, else 16
  -- rows. Returns the largest absolute error seen and what was checked.
  local function check_cpu(s, got, kind, name, tol, full)
    local W, H = s.W, s.H
    local rows, seen, rng = {}, {}, 4242 + W
    local function add(y) if not seen[y] then seen[y] = true; rows[#rows + 1] = y end end
    for y = 0, full and H - 1 or -1 do add(y) end -- every row, or 16: the edges, the middle, a seeded few
    for _, y in ipairs(full and {} or { 0, 1, H // 2, H - 2, H - 1 }) do add(y) end
    while #rows < math.min(16, H) do rng = (rng * 1103515245 + 12345) % 2147483648; add(rng % H) end
    local worst, whole = 0, full and pixel_fn(kind, s.src:totable(), W, H, 0) or nil
    for _, y in ipairs(rows) do
      local lo, hi = math.max(0, y - 1), math.min(H - 1, y + 1) -- the rows pixel row y reads
      local f = whole or pixel_fn(kind, s.src:slice(lo * W, (hi - lo + 1) * W):totable(), W, H, lo)
      local r = verify.arrays(("%s, row %d"):format(name, y), got:slice(y * W, W), function(x) return f(x, y) end, { tol = tol })
      worst = math.max(worst, r.max_abs or 0)
    end
    return worst, full and "full" or (#rows .. " rows + all vs global")
  end

  local measured = setup(side, side, 1)
  local small = setup(VERIFY_W, VERIFY_H, 2)
  local moved = 2 * 4 * measured.n
  local small_label = " " .. VERIFY_W .. "x" .. VERIFY_H

  -- The contracts of a kernel checked against the CPU: on the small image
  -- every pixel; at the measured size every pixel up to --full-check, else 16
  -- rows, and every pixel against the first kernel of its group (`first`).
  -- The row `r` gets the largest error and what was checked.
  local function against_cpu(kind, tol, label, r, first)
    r.worst = 0
    return { check = function(got)
      r.worst = math.max(r.worst, (check_cpu(small, got, kind, label .. small_label, tol, true)))
    end }, { check = function(got)
      local w
      w, r.checked = check_cpu(measured, got, kind, label, tol, side <= full_check)
      r.worst = math.max(r.worst, w)
      if first.out then verify.arrays(label .. " vs global", got, first.out, { tol = tol }) else first.out = got end
    end }
  end

  -- The access patterns: verified in full on the small image, then timed and
  -- verified on the measured one (exactly against a C reference; the 3x3
  -- average against the CPU).
  local results, filters = {}, {}
  for _, pat in ipairs(PATTERNS) do
    local extra, first = pat.id == "scatter" and { P } or nil, {}
    local ref_small = pat.id ~= "avg3" and c_reference(pat.id, small.src, small.W, small.H, P)
    local ref = pat.id ~= "avg3" and c_reference(pat.id, measured.src, side, side, P)
    for _, mem in ipairs({ "global", "image" }) do
      local name, what = pat.id .. "_" .. mem, ("%s (%s)"):format(pat.label, mem)
      local r = { pat = pat, mem = mem, checked = "full" }
      local os, om = { expect = ref_small }, { expect = ref }
      if not ref then os, om = against_cpu("avg3", 1e-5, what, r, first) end
      measure(small, name, what .. small_label, extra, os)
      r.res = measure(measured, name, what, extra, om, moved)
      -- image speed-up: the global kernel of the pattern ran just before
      r.speedup = mem == "image" and results[#results].res.median / r.res.median or nil
      results[#results + 1] = r
    end
  end

  -- Linear filtering: by hand from global memory and from an image, and by the sampler.
  local first = {}
  for _, f in ipairs(FILTERS) do
    local extra, r = { cl.float(DX), cl.float(DY) }, { f = f }
    local os, om = against_cpu("bilinear", f.tol, f.label, r, first)
    measure(small, f.id, f.label .. small_label, extra, os)
    r.res = measure(measured, f.id, f.label, extra, om, moved)
    filters[#filters + 1] = r
  end

  -- Everything verified: the figures.
  local t = R:table{ title = ("Image vs global reads, %dx%d floats (%s)"):format(side, side, units.format_size(4 * measured.n)),
    id = "image", columns = { { name = "pattern", key = true }, { name = "memory", key = true }, R:time_columns("µs"),
      R:bw_column("bandwidth", { compare = false }), { name = "image speed-up", unit = "x", format = "%.2f" }, { name = "checked" } } }
  for _, r in ipairs(results) do
    R:add_row(t, r.res, { pattern = r.pat.label, memory = r.mem == "global" and "__global" or "image2d_t",
      ["image speed-up"] = r.speedup, checked = r.checked })
  end
  t:note("bandwidth: one read and one write of every pixel (2 x 4 bytes x W x H) / time")
  t:note("image speed-up: __global time / image2d_t time for the same pattern")
  t:note(("image: CL_R, CL_FLOAT, read_only, sampler unnormalized/clamp_to_edge/nearest; work-groups %dx%d; "
    .. "scattered: work-item i reads pixel (i x %d) mod (W x H)"):format(LX, LY, P))
  t:note(("checked: each kernel in full on a %dx%d image (exactly, or against the CPU in double); at this size "
    .. "copy, shift, column and scatter exactly against references built in C, the 3x3 average against the CPU "
    .. "(every pixel up to side %d, else 16 rows and every pixel against the global kernel)"):format(VERIFY_W,
    VERIFY_H, full_check))
  R:emit(t)

  local ft = R:table{ title = ("Bilinear interpolation at (x + %.1f, y + %.1f), %dx%d floats"):format(DX, DY, side, side),
    id = "filter", columns = { { name = "variant", key = true }, R:time_columns("µs"), R:bw_column("bandwidth", { compare = false }),
      { name = "speed-up", unit = "x", format = "%.2f" }, { name = "max error", format = "%.2e" },
      { name = "tolerance", format = "%.0e" }, { name = "checked" } } }
  for _, r in ipairs(filters) do
    R:add_row(ft, r.res, { variant = r.f.label, ["speed-up"] = filters[1].res.median / r.res.median,
      ["max error"] = r.worst, tolerance = r.f.tol, checked = r.checked })
  end
  ft:note("max error: largest |result - CPU bilinear in double| over the pixels checked (inputs in [0, 1))")
  ft:note("speed-up: vs the first row; CLK_FILTER_LINEAR: unnormalized coordinates, clamp_to_edge, read at +0.5")
  ft:note(("checked: every pixel on a %dx%d image; at this size every pixel up to side %d, else 16 rows, "
    .. "and every pixel against the first row within the tolerance"):format(VERIFY_W, VERIFY_H, full_check))
  R:emit(ft)
end)
