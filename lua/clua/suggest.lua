--- clua.suggest: the name a mistyped word was likely meant to be
-- (`clua strde`: "did you mean stride?"), by edit distance.
-- @module clua.suggest
local suggest = {}

--- The edit distance of two strings: the insertions, deletions,
-- substitutions and swaps of two neighbouring characters that turn one into
-- the other (Damerau-Levenshtein, optimal string alignment).
-- @string a
-- @string b
-- @treturn int the distance
function suggest.distance(a, b)
  local d = {}
  for i = 0, #a do d[i] = { [0] = i } end
  for j = 0, #b do d[0][j] = j end
  for i = 1, #a do
    for j = 1, #b do
      local cost = a:sub(i, i) == b:sub(j, j) and 0 or 1
      local v = math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if i > 1 and j > 1 and a:sub(i, i) == b:sub(j - 1, j - 1) and a:sub(i - 1, i - 1) == b:sub(j, j) then
        v = math.min(v, d[i - 2][j - 2] + 1)
      end
      d[i][j] = v
    end
  end
  return d[#a][#b]
end

--- The names closest to `word`: those at the smallest edit distance, when
-- it is at most 2 and less than half the word's length (case ignored);
-- also a name that starts with `word` when nothing is that close.
-- @string word the word as typed
-- @tparam {string,...} names the names it may stand for
-- @treturn {string,...} the likely names, in the order of `names` (none: empty)
function suggest.closest(word, names)
  local w, best, out = word:lower(), math.huge, {}
  for _, n in ipairs(names) do
    local d = suggest.distance(w, n:lower())
    if d <= 2 and d * 2 < #w then
      if d < best then best, out = d, { n } elseif d == best then out[#out + 1] = n end
    end
  end
  if #out == 0 and #w >= 3 then
    for _, n in ipairs(names) do
      if n:lower():sub(1, #w) == w then out[#out + 1] = n end
    end
  end
  return out
end

--- " (did you mean stride?)" for the closest names, or "" when none is close.
-- @string word the word as typed
-- @tparam {string,...} names the names it may stand for
-- @treturn string the hint
function suggest.hint(word, names)
  local c = suggest.closest(word, names)
  if #c == 0 then return "" end
  if #c == 1 then return ("did you mean %s?"):format(c[1]) end
  return ("did you mean %s or %s?"):format(table.concat(c, ", ", 1, #c - 1), c[#c])
end

return suggest
