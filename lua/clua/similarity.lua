--- clua.similarity: a hint that two submissions are the same code. Each
-- kernel is read as C tokens with its comments and whitespace gone and every
-- name the student chose (variables, arguments, helper functions) replaced
-- by one placeholder, so that renaming and reformatting change nothing;
-- keywords, types, OpenCL's built-ins, numbers and operators are kept. Two
-- token lists score 2 L / (|a| + |b|), L their longest common subsequence
-- (1.00: the same code). A hint for the instructor, never a verdict.
-- @module clua.similarity
local similarity = {}

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
for w in ("native_ half_ atomic_ atom_ convert_ as_ vload vstore"):gmatch("%S+") do KEEP[#KEEP + 1] = w end

local function kept(w)
  if KEEP[w] then return true end
  for _, p in ipairs(KEEP) do if w:sub(1, #p) == p then return true end end
  return false
end

--- The normalised tokens of a kernel's source.
-- @string src the source
-- @treturn {string,...}
function similarity.tokens(src)
  src = src:gsub("/%*.-%*/", " "):gsub("//[^\n]*", " "):gsub("\\\n", " ")
  local out, i, n = {}, 1, #src
  while i <= n do
    local s, e = src:find("^%s+", i)
    if s then i = e + 1
    else
      local w = src:match("^[%a_][%w_]*", i)
      if w then
        out[#out + 1] = kept(w) and w or "$"
        i = i + #w
      else
        local num = src:match("^%d[%w.]*", i) or src:match("^%.%d[%w.]*", i)
        if num then out[#out + 1] = num:lower(); i = i + #num
        else
          local op = src:match("^[<>]>?=", i) or src:match("^<<", i) or src:match("^>>", i)
            or src:match("^[%+%-%*/%%&|%^!=]=", i) or src:match("^%+%+", i) or src:match("^%-%-", i)
            or src:match("^&&", i) or src:match("^||", i) or src:match("^%->", i) or src:sub(i, i)
          out[#out + 1] = op
          i = i + #op
        end
      end
    end
  end
  return out
end

--- 2 L / (|a| + |b|) of two token lists (L: their longest common subsequence).
function similarity.score(a, b)
  local na, nb = #a, #b
  if na + nb == 0 then return 1 end
  local prev, cur = {}, {}
  for j = 0, nb do prev[j] = 0 end
  for i = 1, na do
    cur[0] = 0
    local ai = a[i]
    for j = 1, nb do
      if ai == b[j] then cur[j] = prev[j - 1] + 1
      else local x, y = prev[j], cur[j - 1]; cur[j] = x > y and x or y end
    end
    prev, cur = cur, prev
  end
  return 2 * prev[nb] / (na + nb)
end

--- The pairs of submissions whose kernels score at least `threshold`, most
-- alike first: {a=, b=, score=}.
-- @tparam {{name=,source=},...} subs the submissions with a source
-- @number[opt=0.9] threshold
function similarity.pairs(subs, threshold)
  threshold = threshold or 0.9
  local toks = {}
  for i, s in ipairs(subs) do toks[i] = similarity.tokens(s.source) end
  local found = {}
  for i = 1, #subs do
    for j = i + 1, #subs do
      local a, b = toks[i], toks[j]
      -- the score is at most 2 min / (|a| + |b|): skip pairs that cannot reach it
      if 2 * math.min(#a, #b) / math.max(1, #a + #b) >= threshold then
        local sc = similarity.score(a, b)
        if sc >= threshold then found[#found + 1] = { a = subs[i].name, b = subs[j].name, score = sc } end
      end
    end
  end
  table.sort(found, function(x, y)
    if x.score ~= y.score then return x.score > y.score end
    return x.a .. x.b < y.a .. y.b
  end)
  return found
end

return similarity
