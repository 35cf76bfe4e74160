--- clua.classhint: what a class's results say about the grading rather than
-- about the students. When most of a class is wrong by one factor (every
-- first wrong element about 4 times what was expected), the students are
-- rarely all wrong the same way: the grader was likely run with an option
-- other than the one they wrote for (the reduction's `--kernel-per`, the
-- elements a work-item sums). The hint names the recipe's assignment option
-- whose value, times the factor, is a whole number.
-- @module clua.classhint
local classhint = {}

--- got / expected at a wrong outcome's first wrong element, or nil (not
-- wrong, no first wrong element, or a value that is no finite number).
-- @tab o an outcome (clua.gradebook.outcome)
-- @treturn number|nil the ratio
function classhint.ratio(o)
  local fw = o.first_wrong
  if o.verdict ~= "wrong" or not fw then return nil end
  local got, exp = tonumber(fw.got), tonumber(fw.expected)
  if not got or not exp or exp == 0 or got ~= got or math.abs(got) == math.huge then return nil end
  return got / exp
end

-- The value an option has in an options string, else nil.
local function given(opts, name)
  local pat = name:gsub("%-", "%%-")
  local v = (" " .. (opts or "") .. " "):match("%s" .. pat .. "[%s=]+([^%s]+)")
  return tonumber(v)
end

--- The recipe's assignment options, read from its help text: those whose
-- help starts "Assignment mode:" and that have a numeric default.
-- @string help the recipe's --help text
-- @treturn {{name=string, default=number},...} the options
function classhint.options(help)
  local out = {}
  for l in (help or ""):gmatch("[^\n]+") do
    local name, def = l:match("^%s+(%-%-[%w%-]+)%s+%S+%s+Assignment mode:.-%(default: ([^)]+)%)%s*$")
    if name and tonumber(def) and name ~= "--kernel" then out[#out + 1] = { name = name, default = tonumber(def) } end
  end
  return out
end

--- A note when most of a class is wrong by one factor, else nil.
-- "Most": at least two submissions, and more than half of those that built,
-- whose got / expected at the first wrong element lie within 10% of one
-- another, the factor not within 10% of 1.
-- @tab entries the assignment's entries ({student=, outcome=})
-- @tab[opt] options the recipe's assignment options (`classhint.options`)
-- @string[opt] opts the recipe options the class was graded with
-- @treturn string|nil the note
-- @treturn number|nil the factor
function classhint.same_factor(entries, options, opts)
  local ratios, built = {}, 0
  for _, e in ipairs(entries) do
    if e.outcome.built then built = built + 1 end
    local r = classhint.ratio(e.outcome)
    if r and r > 0 then ratios[#ratios + 1] = r end
  end
  local best, center = 0, nil
  for _, c in ipairs(ratios) do
    local n, sum = 0, 0
    for _, r in ipairs(ratios) do
      if math.abs(r / c - 1) <= 0.1 then n, sum = n + 1, sum + r end
    end
    if n > best then best, center = n, sum / n end
  end
  if not center or best < 2 or best * 2 <= built or math.abs(center - 1) <= 0.1 then return nil end
  local points = {}
  for _, o in ipairs(options or {}) do
    local now = given(opts, o.name) or o.default
    for _, v in ipairs({ now * center, now / center }) do
      local whole = math.floor(v + 0.5)
      if whole >= 1 and whole ~= now and math.abs(v / whole - 1) <= 0.05 then
        points[#points + 1] = ("%s %d (graded with %s)"):format(o.name, whole, ("%g"):format(now))
        break
      end
    end
  end
  local head = ("%d of %d submissions that built are wrong by one factor: got / expected = %.2f at their first "
    .. "wrong element. A class wrong by one factor points to the grading's options, not to the students"):format(best,
    built, center)
  if #points > 0 then
    return head .. ": it points to " .. table.concat(points, " or ") .. " (--recipe-options, or the course file's options)",
      center
  end
  return head .. ": check that --recipe-options (or the course file's options) are those the students wrote for", center
end

return classhint
