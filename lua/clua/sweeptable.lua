--- clua.sweeptable: the tables of a copy kernel swept over one parameter
-- (stride's strides, offset's offsets): the bandwidth of each point with its
-- slowest and fastest run, and in assignment mode the student's kernel
-- beside the recipe's at every point and both over the whole sweep, ranked.
-- A sweep's results are a list of points `{ [param] = value, t = res, st =
-- res }`: `t` the recipe's kernel and `st` the student's (`R:measure`'s).
-- @module clua.sweeptable
local sweeptable = {}

--- The columns of a point's figures: bandwidth (the median's), min and max
-- (the bandwidths of the slowest and fastest run), time (µs) and its spread.
-- @tab R the recipe
-- @treturn tab a list of columns, which `R:table` takes among the others
function sweeptable.columns(R)
  return { R:bw_column("bandwidth"), { name = "min", unit = R.bw_unit, format = "%.1f" },
    { name = "max", unit = R.bw_unit, format = "%.1f" }, { name = "time", unit = "µs", format = "%.1f" },
    R:spread_column() }
end

--- The cells of a point for `sweeptable.columns` and, in assignment mode,
-- `sweeptable.student_columns`, added to `fields`.
-- @tab R the recipe
-- @tab point the point (`t`, and `st` in assignment mode)
-- @int bytes the bytes one run moves
-- @tab fields the row's other cells
-- @treturn tab fields
function sweeptable.fields(R, point, bytes, fields)
  local t, st = point.t, point.st
  fields.min, fields.max, fields.time = R:bw(bytes, t.max), R:bw(bytes, t.min), t.median / 1e3
  if st then
    fields.student, fields["student spread"], fields["student speed-up"] = st.bw, st.spread, t.median / st.median
  end
  return fields
end

--- Assignment mode: the student's columns, appended to `t` (its bandwidth,
-- spread and speed-up against the recipe's kernel at each point).
-- @tab R the recipe
-- @tparam clua.report t the sweep's table
function sweeptable.student_columns(R, t)
  table.move({ R:bw_column("student"), R:spread_column("student spread"),
    { name = "student speed-up", unit = "x", format = "%.2f" } }, 1, 3, #t.columns + 1, t.columns)
end

--- Declares the sweep's `--local` option (the work-group size; 0 lets the
-- driver choose), default 256.
-- @param p the recipe's argparse parser (recipe.new's `options`)
function sweeptable.local_option(p)
  p:option("--local", "Work-group size (0: let the driver choose; capped by the device's maximum).", "256")
    :argname("N"):convert(require("clua.argcheck").whole)
end

--- The work-group size the option asks for, capped by the device's
-- maximum, or nil when it is 0 (the driver chooses).
-- @tab R the recipe, its device chosen
-- @treturn int|nil the size, or nil
function sweeptable.local_size(R)
  local l = R.args["local"] or 0
  return l > 0 and math.min(l, R.device.info.max_work_group_size) or nil
end

--- The sweep's table: `R:table(spec)` and, in assignment mode, the
-- student's columns after the others (`sweeptable.student_columns`).
-- @tab R the recipe
-- @tab spec as for R:table
-- @treturn clua.report the table
function sweeptable.table(R, spec)
  local t = R:table(spec)
  if R.args.kernel then sweeptable.student_columns(R, t) end
  return t
end

--- One point of the sweep: `measure(v)` for each variant (R:with_student's
-- list), its result kept as `point.t` (the recipe's kernel) or `point.st`
-- (the student's).
-- @tab point the point's values (`{ stride = 4 }`)
-- @tab variants the variants
-- @func measure one variant's measurement (R:measure's result)
-- @treturn tab point
function sweeptable.point(point, variants, measure)
  for _, v in ipairs(variants) do point[v.student and "st" or "t"] = measure(v) end
  return point
end

--- Emits the sweep's table `t` and, in assignment mode, first notes its
-- student columns and then emits the summary: the recipe's kernel and the
-- student's over the whole sweep (their total or mean time, the first
-- point's bandwidth, the worst point and its bandwidth), ranked by time.
-- @tab R the recipe
-- @tparam clua.report t the sweep's table
-- @tab spec `param` ("stride"), `unit` of its values ("floats"), `first`
-- (the first point's column, "stride 1"), `reference` (the recipe's
-- kernel's row, "strideCopy (Listing 3.6)"), `kernel` ("strideCopy"),
-- `points`, `bytes(point)` (the bytes a run at the point moves), `mean`
-- (true: the mean time of the points and its bandwidth; else their sum),
-- `title`, `id` and `note` of the summary
function sweeptable.emit(R, t, spec)
  local student = rawget(R, "student_label")
  if student then
    t:note(("student: the bandwidth of %s at each %s, same bytes; student speed-up: %s's time / its time")
      :format(student, spec.param, spec.kernel))
  end
  R:emit(t)
  if not student then return end
  local points, first = spec.points, spec.first
  local cols = { { name = "variant", key = true }, { name = "time", unit = "µs", format = "%.1f" },
    { name = first, unit = R.bw_unit, format = "%.1f" }, { name = "worst", unit = R.bw_unit, format = "%.1f" },
    { name = "worst " .. spec.param, unit = spec.unit } }
  if spec.mean then table.insert(cols, 3, R:bw_column("bandwidth")) end
  local s = R:table{ title = spec.title, id = spec.id, columns = cols }
  for _, v in ipairs{ { spec.reference, "t" }, { student, "st" } } do
    local sum, worst, wbw = 0, nil, nil
    for _, p in ipairs(points) do
      sum = sum + p[v[2]].median
      local bw = R:bw(spec.bytes(p), p[v[2]].median)
      if not wbw or bw < wbw then worst, wbw = p, bw end
    end
    local time = spec.mean and sum / #points or sum
    s:add{ variant = v[1], time = time / 1e3, bandwidth = spec.mean and R:bw(spec.bytes(points[1]), time) or nil,
      [first] = R:bw(spec.bytes(points[1]), points[1][v[2]].median), worst = wbw,
      ["worst " .. spec.param] = worst[spec.param] }
  end
  s:note(spec.note)
  R:rank(s, "time")
  R:emit(s)
end

return sweeptable
