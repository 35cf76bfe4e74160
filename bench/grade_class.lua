-- A held-out-style class for the reduction assignment: N submissions (40 by
-- default) written from the lecture's tree-reduction skeleton, each with its
-- own names, comments and small changes, and the verdict each must get.
--
--   clua bench/grade_class.lua DIR [N]
--
-- writes DIR/NAME.cl for every student and DIR/../expected.csv (student,
-- verdict); a class is graded with
--
--   clua grade --recipe reduction --submissions DIR --out BOOK
--
-- and bench/grade_class.lua --check BOOK.csv EXPECTED.csv compares the
-- gradebook's verdicts with the expected ones (exit 1 on any difference).
-- The mix: correct kernels (sequential and interleaved addressing), a race
-- (no barrier between the tree's steps), a barrier inside a branch, a read
-- past the input (no bounds check), wrong sums, kernels that do not build
-- and an empty file.

local function write(path, s)
  local f = assert(io.open(path, "wb"))
  assert(f:write(s))
  assert(f:close())
end

-- The skeleton's names, renamed per student.
local NAMES = {
  { tid = "tid", L = "L", i = "i", x = "x", s = "s", sdata = "sdata" },
  { tid = "lid", L = "lsz", i = "gi", x = "acc", s = "stride", sdata = "scratch" },
  { tid = "t", L = "wg", i = "idx", x = "v", s = "off", sdata = "buf" },
  { tid = "me", L = "n_local", i = "g", x = "sum", s = "hop", sdata = "tile" },
  { tid = "local_id", L = "group_size", i = "global_i", x = "value", s = "step", sdata = "shared" },
}

-- Kernel bodies by family: %-names are replaced by the student's names.
local FAMILIES = {
  correct = [[
    uint %tid = get_local_id(0);
    uint %L = get_local_size(0);
    size_t %i = get_group_id(0) * 2 * %L + %tid;
    float %x = %i < n ? in[%i] : 0.0f;
    if (%i + %L < n) %x += in[%i + %L];
    %sdata[%tid] = %x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint %s = %L / 2; %s > 0; %s >>= 1) {
        if (%tid < %s) %sdata[%tid] += %sdata[%tid + %s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (%tid == 0) out[get_group_id(0)] = %sdata[0];
]],
  interleaved = [[
    uint %tid = get_local_id(0);
    uint %L = get_local_size(0);
    size_t %i = get_group_id(0) * 2 * %L + %tid;
    float %x = %i < n ? in[%i] : 0.0f;
    if (%i + %L < n) %x += in[%i + %L];
    %sdata[%tid] = %x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint %s = 1; %s < %L; %s *= 2) {
        if (%tid %% (2 * %s) == 0) %sdata[%tid] += %sdata[%tid + %s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (%tid == 0) out[get_group_id(0)] = %sdata[0];
]],
  race = [[
    uint %tid = get_local_id(0);
    uint %L = get_local_size(0);
    size_t %i = get_group_id(0) * 2 * %L + %tid;
    float %x = %i < n ? in[%i] : 0.0f;
    if (%i + %L < n) %x += in[%i + %L];
    %sdata[%tid] = %x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint %s = %L / 2; %s > 0; %s >>= 1) {
        if (%tid < %s) %sdata[%tid] += %sdata[%tid + %s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (%tid == 0) out[get_group_id(0)] = %sdata[0];
]],
  divergent = [[
    uint %tid = get_local_id(0);
    uint %L = get_local_size(0);
    size_t %i = get_group_id(0) * 2 * %L + %tid;
    float %x = %i < n ? in[%i] : 0.0f;
    if (%i + %L < n) %x += in[%i + %L];
    %sdata[%tid] = %x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint %s = %L / 2; %s > 0; %s >>= 1) {
        if (%tid < %s) {
            %sdata[%tid] += %sdata[%tid + %s];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
    if (%tid == 0) out[get_group_id(0)] = %sdata[0];
]],
  unbounded = [[
    uint %tid = get_local_id(0);
    uint %L = get_local_size(0);
    size_t %i = get_group_id(0) * 2 * %L + %tid;
    float %x = in[%i] + in[%i + %L];
    %sdata[%tid] = %x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint %s = %L / 2; %s > 0; %s >>= 1) {
        if (%tid < %s) %sdata[%tid] += %sdata[%tid + %s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (%tid == 0) out[get_group_id(0)] = %sdata[0];
]],
  wrong = [[
    uint %tid = get_local_id(0);
    uint %L = get_local_size(0);
    size_t %i = get_group_id(0) * 2 * %L + %tid;
    float %x = %i < n ? in[%i] : 0.0f;
    %sdata[%tid] = %x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint %s = %L / 2; %s > 0; %s >>= 1) {
        if (%tid < %s) %sdata[%tid] += %sdata[%tid + %s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (%tid == 0) out[get_group_id(0)] = %sdata[0];
]],
  broken = [[
    uint %tid = get_local_id(0)
    %sdata[%tid] = in[%tid];
    if (%tid == 0) out[get_group_id(0)] = %sdata[0];
]],
}

-- The class: family, how many, the verdict each must get.
local MIX = {
  { "correct", 20, "correct" }, { "interleaved", 6, "correct" }, { "race", 3, "unsafe" },
  { "divergent", 3, "unsafe" }, { "unbounded", 2, "unsafe" }, { "wrong", 3, "wrong" },
  { "broken", 2, "did not build" }, { "empty", 1, "did not build" },
}

local function kernel(family, names, k)
  if family == "empty" then return "" end
  local body = FAMILIES[family]:gsub("%%(%a+)", function(w) return names[w] end):gsub("%%%%", "%%")
  local comment = ({ "/* reduction, lab 3 */\n", "// my reduction\n", "", "/* sum of the input, one partial sum a group */\n" })[k % 4 + 1]
  return comment .. "__kernel void reduce(__global const float *in, __global float *out, uint n, __local float *"
    .. names.sdata .. ")\n{\n" .. body .. "}\n"
end

local function generate(dir, n)
  assert(os.execute("mkdir -p -- '" .. dir:gsub("'", "'\\''") .. "'"))
  local total = 0
  for _, m in ipairs(MIX) do total = total + m[2] end
  local expected, k = { "student,verdict" }, 0
  for _, m in ipairs(MIX) do
    for _ = 1, math.max(1, math.floor(m[2] * n / total + 0.5)) do
      k = k + 1
      if k > n then break end
      local name = ("s%02d_%s"):format(k, m[1])
      write(dir .. "/" .. name .. ".cl", kernel(m[1], NAMES[k % #NAMES + 1], k))
      expected[#expected + 1] = name .. "," .. m[3]
    end
  end
  local parent = dir:match("^(.*)/[^/]+/?$") or "."
  write(parent .. "/expected.csv", table.concat(expected, "\n") .. "\n")
  print(("%d submissions in %s, the verdicts each must get in %s/expected.csv"):format(k, dir, parent))
end

-- Compares a gradebook CSV's verdicts with expected.csv.
local function check(book, expected)
  local want, got = {}, {}
  for line in io.lines(expected) do
    local s, v = line:match("^([^,]+),(.+)$")
    if s and s ~= "student" then want[s] = v end
  end
  local f = assert(io.open(book, "rb"))
  local _, records = require("clua.csvread").records(f:read("a"), { where = book })
  f:close()
  for _, r in ipairs(records) do got[r.student] = r.verdict and r.verdict:gsub("^'", "") end
  local bad, n = 0, 0
  local names = {}
  for s in pairs(want) do names[#names + 1] = s end
  table.sort(names)
  for _, s in ipairs(names) do
    local v = want[s]
    n = n + 1
    local g = got[s] and got[s]:gsub(",.*", "")
    if g ~= v then bad = bad + 1; print(("%s: graded %s, expected %s"):format(s, tostring(got[s]), v)) end
  end
  print(("%d of %d verdicts as expected"):format(n - bad, n))
  os.exit(bad == 0 and 0 or 1)
end

if arg[1] == "--check" then check(arg[2], arg[3])
elseif arg[1] then generate(arg[1], tonumber(arg[2]) or 40)
else io.stderr:write("usage: clua bench/grade_class.lua DIR [N] | --check BOOK.csv EXPECTED.csv\n"); os.exit(2) end
