--- clua.similarity: a hint that two submissions are the same code, found as
-- MOSS finds it (Schleimer, Wilkerson and Aiken, "Winnowing: local algorithms
-- for document fingerprinting", SIGMOD 2003). Each kernel is read as C tokens
-- with its comments and whitespace gone and every name the student chose
-- (variables, arguments, helper functions) replaced by one placeholder, so
-- that renaming and reformatting change nothing; keywords, types, OpenCL's
-- built-ins, numbers and operators are kept. Every run of K tokens is hashed
-- and the hashes are winnowed (the smallest of each W in a row kept), so that
-- a kernel is a set of fingerprints and any passage of K + W - 1 tokens that
-- two kernels share gives both a fingerprint. What was handed out (the base)
-- and what more than a share of the class writes are not the student's own and
-- count for nothing; two kernels score 2 S / (|a| + |b|) over the rest (S the
-- fingerprints they share; 1.00: the same code). Pairs are found through an
-- index from fingerprint to kernels, so the work grows with the class's
-- tokens, not with their square. A hint for the instructor, never a verdict.
-- @module clua.similarity
local similarity = {}

--- Tokens in a hashed passage.
similarity.K = 6
--- Hashes in a winnowing window: a shared passage of K + W - 1 tokens is always found.
similarity.W = 5

local KEEP = {}
for w in ([[auto break case char const continue default do double else enum extern float for goto if
  inline int long register restrict return short signed sizeof static struct switch typedef union unsigned
  void volatile while bool half size_t ptrdiff_t uint uchar ushort ulong
  float2 float3 float4 float8 float16 int2 int4 int8 uint2 uint4 double2 double4
  __kernel kernel __global global __local local __constant constant __private private __read_only
  __write_only read_only write_only __attribute__ reqd_work_group_size
  barrier mem_fence read_mem_fence write_mem_fence work_group_barrier CLK_LOCAL_MEM_FENCE CLK_GLOBAL_MEM_FENCE
  get_global_id get_local_id get_group_id get_global_size get_local_size get_num_groups get_work_dim
  get_global_offset min max clamp mad fma sqrt rsqrt exp log pow fabs floor ceil select dot
  vload2 vload4 vload8 vstore2 vstore4 vstore8 atomic_add atomic_inc atomic_xchg atomic_cmpxchg
  sub_group_reduce_add work_group_reduce_add]]):gmatch("%S+") do KEEP[w] = true end
local PREFIXES = {}
for w in ("native_ half_ atomic_ atom_ convert_ as_ vload vstore"):gmatch("%S+") do PREFIXES[#PREFIXES + 1] = w end

local function kept(w)
  if KEEP[w] then return true end
  for _, p in ipairs(PREFIXES) do if w:sub(1, #p) == p then return true end end
  return false
end

local OPS = {}
for op in ("<<= >>= << >> <= >= == != += -= *= /= %= &= |= ^= ++ -- && || ->"):gmatch("%S+") do OPS[op] = true end

local find, sub, byte = string.find, string.sub, string.byte

-- Calls f(token) for each normalised token of src, in order.
local function each_token(src, f)
  src = src:gsub("/%*.-%*/", " "):gsub("//[^\n]*", " "):gsub("\\\n", " ")
  local i, seen = find(src, "%S"), {}
  while i do
    local b = byte(src, i)
    local _, e
    if b == 95 or (b >= 65 and b <= 90) or (b >= 97 and b <= 122) then -- a name
      _, e = find(src, "^[%w_]*", i + 1)
      local w = sub(src, i, e)
      local t = seen[w]
      if not t then t = kept(w) and w or "$"; seen[w] = t end
      f(t)
    elseif b >= 48 and b <= 57 or (b == 46 and find(src, "^%.%d", i)) then -- a number
      _, e = find(src, "^%.?%d[%w.]*", i)
      f(sub(src, i, e):lower())
    else
      e = (OPS[sub(src, i, i + 2)] and i + 2) or (OPS[sub(src, i, i + 1)] and i + 1) or i
      f(sub(src, i, e))
    end
    i = e + 1
    b = byte(src, i)
    if not b then break end
    if b == 32 or (b >= 9 and b <= 13) then i = find(src, "%S", i) end
  end
end

--- The normalised tokens of a kernel's source: comments and whitespace gone,
-- every name the student chose `$`.
-- @string src the source
-- @treturn {string,...}
function similarity.tokens(src)
  local out = {}
  each_token(src, function(t) out[#out + 1] = t end)
  return out
end

local MAXH = math.maxinteger
local B = 0x100000001B3 -- the rolling hash's base (odd)

-- splitmix64's finaliser: spreads a k-gram's hash over all 64 bits, so that
-- the window's minimum is a fair pick.
local function mix(z)
  z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
  z = (z ~ (z >> 27)) * 0x94D049BB133111EB
  return z ~ (z >> 31)
end

--- The fingerprints of a kernel's source: the winnowed hashes of its runs of
-- K tokens (the rightmost smallest of every W in a row), as a set; with
-- `all`, every run's hash.
-- @string src the source
-- @tparam[opt] tab ids token ids: fingerprints compare only when made with the same table
-- @tparam[opt] tab opts `all` (every hash, not winnowed), `over` (a function
-- asked every 65536 tokens: when it returns true the work stops), `k`, `w`
-- @treturn tab|nil a set (hash = true), nil when `over` stopped it
-- @treturn int the number of tokens
function similarity.fingerprints(src, ids, opts)
  ids, opts = ids or {}, opts or {}
  local k, w, all, over = opts.k or similarity.K, opts.w or similarity.W, opts.all, opts.over
  local Bk = 1 -- B^(k-1)
  for _ = 2, k do Bk = Bk * B end
  local grams, n, h = {}, 0, 0 -- the last k token ids (a ring), the tokens so far, their rolling hash
  local win, r, m = {}, 0, 0 -- the last w hashes (a ring), the newest's slot, the selected minimum's slot
  for i = 0, w - 1 do win[i] = MAXH end
  local set, stopped = {}, false
  each_token(src, function(t)
    if stopped then return end
    local id = ids[t]
    if not id then id = (ids[0] or 0) + 1; ids[0] = id; ids[t] = id end
    n = n + 1
    if n & 0xFFFF == 0 and over and over() then stopped = true; return end
    local slot = n % k
    if n > k then h = h - grams[slot] * Bk end
    h = h * B + id
    grams[slot] = id
    if n < k then return end
    local x = mix(h)
    if all then set[x] = true; return end
    r = (r + 1) % w
    win[r] = x
    if m == r then -- the minimum left the window: the rightmost smallest of those in it
      local j = (r - 1) % w
      while j ~= r do
        if win[j] < win[m] then m = j end
        j = (j - 1) % w
      end
      set[win[m]] = true
    elseif x <= win[m] then
      m = r
      set[x] = true
    end
  end)
  if stopped then return nil, n end
  return set, n
end

--- The pairs of submissions whose kernels score at least `threshold`, most
-- alike first: {a=, b=, score=}. The base's passages are removed from every
-- kernel, and so is what more than `common` of the class has (what everyone
-- writes; never a passage only two kernels have); a kernel with nothing left
-- pairs with none.
-- @tparam {{name=,source=},...} subs the submissions with a source
-- @tparam[opt] tab opts `threshold` (0 to 1, default 0.95), `base` (a list of
-- sources handed out), `common` (0 to 1, default 0.5), `over` (a function
-- asked as the work goes: when it returns true the work stops)
-- @treturn tab|nil the pairs, nil when `over` stopped the work
function similarity.pairs(subs, opts)
  opts = opts or {}
  local threshold, common, over = opts.threshold or 0.95, opts.common or 0.5, opts.over
  if over and over() then return nil end
  local ids, based = {}, {}
  for _, src in ipairs(opts.base or {}) do
    local f = similarity.fingerprints(src, ids, { all = true, over = over })
    if not f then return nil end
    for x in pairs(f) do based[x] = true end
  end
  -- the index: a fingerprint to the kernels that hold it, in their order
  local index, N = {}, #subs
  for i, s in ipairs(subs) do
    local f = similarity.fingerprints(s.source, ids, { over = over })
    if not f or (over and over()) then return nil end
    for x in pairs(f) do
      if not based[x] then
        local l = index[x]
        if l then l[#l + 1] = i else index[x] = { i } end
      end
    end
  end
  local cutoff = math.max(2, common * N)
  local size, shared, seen = {}, {}, 0
  for i = 1, N do size[i] = 0 end
  for _, l in pairs(index) do
    local c = #l
    if c <= cutoff then
      for a = 1, c do
        local ia = l[a]
        size[ia] = size[ia] + 1
        for b = a + 1, c do
          local key = ia * (N + 1) + l[b]
          shared[key] = (shared[key] or 0) + 1
        end
      end
      seen = seen + c * c
      if seen > 0xFFFF then
        if over and over() then return nil end
        seen = 0
      end
    end
  end
  local found = {}
  for key, s in pairs(shared) do
    local i, j = key // (N + 1), key % (N + 1)
    local sc = 2 * s / (size[i] + size[j])
    if sc >= threshold then found[#found + 1] = { a = subs[i].name, b = subs[j].name, score = sc } end
  end
  table.sort(found, function(x, y)
    if x.score ~= y.score then return x.score > y.score end
    if x.a ~= y.a then return x.a < y.a end
    return x.b < y.b
  end)
  return found
end

return similarity
