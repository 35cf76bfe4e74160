--- clua.bankconflict: the model of local-memory bank conflicts that the
-- banks, aat and transpose recipes print beside their times. Local memory
-- has `banks` banks of 32-bit words (word w in bank w % banks) and serves
-- the work-items in requests of `banks` consecutive ones (a warp of 32 on
-- NVIDIA since Fermi; the half-warp of 16 on the guide's compute capability
-- 1.x); a request takes as many passes as the most distinct words one bank
-- must give (work-items reading the same word count once: a broadcast).
-- @module clua.bankconflict
local bankconflict = {}

--- The conflict of one access by work-items 0 .. n-1.
-- @func word_of `word_of(lid)`: the word work-item `lid` reads or writes
-- @int n the work-items
-- @int banks the banks (and work-items a request)
-- @treturn int the worst request's degree (1: no conflict)
-- @treturn number the mean degree over the requests
function bankconflict.degree(word_of, n, banks)
  local worst, total, requests = 1, 0, 0
  for first = 0, n - 1, banks do
    local words, per, most = {}, {}, 1
    for lid = first, math.min(first + banks, n) - 1 do words[word_of(lid)] = true end
    for w in pairs(words) do
      local b = w % banks
      per[b] = (per[b] or 0) + 1
      if per[b] > most then most = per[b] end
    end
    if most > worst then worst = most end
    total, requests = total + most, requests + 1
  end
  return worst, total / math.max(1, requests)
end

--- The worst conflict of a T x T tile accessed down its columns: work-item
-- (x, y) = (lid % T, lid // T), x fastest, at word x * pitch + y (pitch T:
-- the plain tile; T + 1: the padded one).
-- @int T the tile's side
-- @int pitch words a row of the tile
-- @int banks the banks
-- @treturn int the n-way conflict
function bankconflict.tile(T, pitch, banks)
  return (bankconflict.degree(function(lid) return (lid % T) * pitch + lid // T end, T * T, banks))
end

--- The note of a table's column of the model's figures.
-- @string what the column and the access it models ("tile read: the bank
-- conflict of the tile's column read")
-- @int banks the banks
-- @treturn string `WHAT by the model: 32 banks of 32-bit words serving requests of 32 work-items (...)`
function bankconflict.note(what, banks)
  return ("%s by the model: %d banks of 32-bit words serving requests of %d work-items (--banks 16: the guide's "
    .. "half-warps)"):format(what, banks, banks)
end

--- Adds the model's banks option (banks of 32-bit words, default 32) to a
-- recipe's lua-argparse parser, read as `R.args.banks`.
-- @tab p the parser (recipe.new's `options` gets it)
function bankconflict.option(p)
  p:option("--banks", "Local-memory banks of the conflict model (32-bit words), each request serving as "
    .. "many work-items (16 for the guide's compute capability 1.x).", "32"):argname("B"):convert(math.tointeger)
end

return bankconflict
