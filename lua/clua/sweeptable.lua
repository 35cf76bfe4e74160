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
-- student columns and then emits the summary (`sweeptable.summary`).
-- @tab R the recipe
-- @tparam clua.report t the sweep's table
-- @tab spec as for `sweeptable.summary`, and `kernel` ("strideCopy")
function sweeptable.emit(R, t, spec)
  local student = rawget(R, "student_label")
  if student then
    t:note(("student: the bandwidth of %s at each %s, same bytes; student speed-up: %s's time / its time")
      :format(student, spec.param, spec.kernel))
  end
  R:emit(t)
  sweeptable.summary(R, spec)
end

--- Assignment mode: the summary of a sweep, emitted: the recipe's kernel
-- and the student's over the whole sweep, ranked by time (R:rank); nothing
-- without a student's kernel. By bandwidth (default): their total or mean
-- time (µs), the first point's bandwidth, the worst point and its
-- bandwidth; with `times`: their total time, the first point's time and
-- the slowest point and its time (µs, the values in ns).
-- @tab R the recipe
-- @tab spec `param` (the points' field that names them: "stride"), `label`
-- (its name in the column, default `param`), `unit` of its values
-- ("floats"), `first` (the first point's column, "stride 1"), `worst` (the
-- worst point's column, default "worst"), `reference` (the recipe's
-- kernel's row, "strideCopy (Listing 3.6)"), `points`, `bytes(point)` (the
-- bytes a run at the point moves; not with `times`), `mean` (true: the mean
-- time of the points and its bandwidth; else their sum), `times`, and the
-- `title`, `id` and `note` of the summary
-- @treturn clua.report|nil the summary
function sweeptable.summary(R, spec)
  local student = rawget(R, "student_label")
  if not student then return nil end
  local points, first, worst_name = spec.points, spec.first, spec.worst or "worst"
  local worst_col = worst_name .. " " .. (spec.label or spec.param)
  local cols
  if spec.times then
    local us = function(v) return ("%.1f"):format(v / 1e3) end
    cols = { { name = "variant", key = true }, { name = "time", unit = "us", format = us, ns = true },
      { name = first, unit = "us", format = us, ns = true }, { name = worst_name, unit = "us", format = us, ns = true },
      { name = worst_col, unit = spec.unit } }
  else
    cols = { { name = "variant", key = true }, { name = "time", unit = "µs", format = "%.1f" },
      { name = first, unit = R.bw_unit, format = "%.1f" }, { name = worst_name, unit = R.bw_unit, format = "%.1f" },
      { name = worst_col, unit = spec.unit } }
    if spec.mean then table.insert(cols, 3, R:bw_column("bandwidth")) end
  end
  local s = R:table{ title = spec.title, id = spec.id, columns = cols }
  for _, v in ipairs{ { spec.reference, "t" }, { student, "st" } } do
    local k, sum, worst, wv = v[2], 0, nil, nil
    for _, p in ipairs(points) do
      local m = p[k].median
      sum = sum + m
      local bad = spec.times and m or -R:bw(spec.bytes(p), m) -- the slowest, or the lowest bandwidth
      if not wv or bad > wv then worst, wv = p, bad end
    end
    local row = { variant = v[1], [worst_col] = worst[spec.param] }
    if spec.times then
      row.time, row[first], row[worst_name] = sum, points[1][k].median, worst[k].median
    else
      local time = spec.mean and sum / #points or sum
      row.time, row[first], row[worst_name] = time / 1e3, R:bw(spec.bytes(points[1]), points[1][k].median), -wv
      row.bandwidth = spec.mean and R:bw(spec.bytes(points[1]), time) or nil
    end
    s:add(row)
  end
  s:note(spec.note)
  R:rank(s, "time")
  R:emit(s)
  return s
end

return sweeptable
