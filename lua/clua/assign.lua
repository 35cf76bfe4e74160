--- clua.assign: assignment mode, a plug-in of the measurement harness. A
-- recipe that declares `student` (the contract a student's kernel must meet,
-- shown by --help) takes `--kernel FILE`: the student's kernel runs under the
-- recipe's contract as one more variant (`R:with_student`), its buffers
-- guarded (clua.guard: a write past an allocation, or into an input, fails
-- naming the buffer and the offset), its outputs checked for ownership by
-- `R:measure` (a write inside a buffer but outside the part the kernel owns
-- fails with the element's index), and its time ranked beside the recipe's
-- own kernels (`R:rank`). The methods below are the recipe's.
-- @module clua.assign
local guard = require("clua.guard")
local optcheck = require("clua.options")

local assign = {}

--- The recipe methods this module gives (installed by clua.recipe).
assign.methods = {}
local Recipe = assign.methods

--- Assignment mode: the student's kernel, or nil.
-- The kernel is given by `--kernel FILE`, built for `R.device` as the
-- recipe's own kernels are (`R:program`: beside the running script, the path
-- as given, else under clua's `kernels/`; a build error raises with the
-- compiler's log), and the kernel taken is `--kernel-name`, else
-- `default_name` when FILE has it (`spec.student_name` when omitted), else
-- FILE's only kernel.
-- @string[opt] default_name the kernel name to look for
-- @tab[opt] defines build defines, as for `R:program`
-- @string[opt] options build options
-- @treturn[1] cl.kernel the kernel
-- @treturn[1] string its label for tables: `"student: NAME (FILE)"`
-- @return[2] nil without `--kernel`
-- @raise `--kernel FILE: no kernel NAME (it has: ...)`, or the build log
function Recipe:student_kernel(default_name, defines, options)
  local file = self.args.kernel
  if not file then return nil end
  default_name = default_name or self.spec.student_name
  local prog = self:program(file, defines, options)
  local names = prog:kernels()
  local has = {}
  for _, k in ipairs(names) do has[k] = true end
  local name = self.args.kernel_name
  if not name then
    if default_name and has[default_name] then name = default_name
    elseif #names == 1 then name = names[1]
    else
      error(("--kernel %s: %s; name one with --kernel-name (it has: %s)"):format(file,
        #names == 0 and "no kernel" or "more than one kernel", table.concat(names, ", ")), 0)
    end
  elseif not has[name] then
    error(("--kernel %s: no kernel %s (it has: %s)"):format(file, name, table.concat(names, ", ")), 0)
  end
  self.student_label = ("student: %s (%s)"):format(name, file:match("[^/]*$"))
  return prog:kernel(name), self.student_label
end

--- The variants to measure: `variants`, and in assignment mode one more, a
-- copy of `like` (default the first variant) with `kernel` the student's
-- (`R:student_kernel(nil, defines)`), `label` its label and `student` true.
-- This is all a recipe adds for assignment mode: the student's variant is
-- then measured, verified and checked under the same contract as the others.
-- @tab variants the recipe's variants (tables), not changed
-- @tab[opt] defines build defines of the student's kernel
-- @tab[opt] like the variant whose launch and contract the student's takes
-- @treturn tab a new list
-- @usage for _, v in ipairs(R:with_student(VARIANTS, defs, VARIANTS[3])) do ... end
function Recipe:with_student(variants, defines, like)
  local list = table.move(variants, 1, #variants, 1, {})
  local k, label = self:student_kernel(nil, defines)
  if k then
    local v = {}
    for key, val in pairs(like or variants[1] or {}) do v[key] = val end
    v.kernel, v.label, v.student, v.id = k, label, true, "student"
    list[#list + 1] = v
  end
  return list
end

--- How `R:measure` runs a variant in clua grade's runs (the option
-- `--grading MODE`, docs/assignments.md): "once" for the recipe's own variants (one run,
-- neither timed nor checked: the grader times the references in a run of
-- their own), "untimed" for the student's under `verify` (checked, one run),
-- "unchecked" for the student's under `time` (timed; a `check` run checked
-- it), nil otherwise (the whole cycle). A variant is the student's when its
-- label holds the student's label (`R:student_kernel`).
-- @param self the recipe
-- @string label the variant's label
-- @treturn string|nil the way
function assign.grading(self, label)
  local mode = self.args.grading
  if not mode then return nil end
  local sl = rawget(self, "student_label")
  if not (sl and tostring(label):find(sl, 1, true)) then return "once" end
  return ({ verify = "untimed", time = "unchecked" })[mode]
end

--- Whether this run checks the student's kernel: true in assignment mode
-- but under `--grading time` (clua grade's timing runs, each after the
-- submission's check run). `R:measure` asks it itself; a recipe asks it
-- before checks of its own making (reduction's first launches, group by
-- group), which a timing run need not repeat.
-- @treturn boolean
function Recipe:checking_student()
  return self.args.kernel ~= nil and self.args.grading ~= "time"
end

--- The note of every table of a grading run: what its figures are (the
-- option `--grading`).
-- @param self the recipe
-- @tparam clua.report t the table
function assign.note_grading(self, t)
  local mode = self.args.grading
  if not mode then return end
  t:note(("--grading %s: the recipe's own variants ran once each, neither timed nor checked (their times are one "
    .. "run's, no figure: clua grade times them in a run of their own); the student's kernel was %s"):format(mode,
    ({ check = "checked and timed", verify = "checked and run once (not timed)",
      time = "timed, not checked (a check run did that)" })[mode]))
end

--- The guard of assignment mode on the recipe's context (made at first use),
-- or nil without `--kernel`.
function assign.guard(self)
  if not self.args.kernel then return nil end
  local g = rawget(self, "guard")
  if not g or g.ctx ~= self.ctx then
    g = guard.new(self.ctx, self.queue)
    self.guard = g
  end
  return g
end

--- Checks every guarded buffer after a kernel ran (zones untouched, inputs
-- unchanged) and raises naming the buffer, offset and bytes, e.g.
-- `student: out: 4 bytes written at offset 1048576, past the end (1048576
-- bytes) (after student: k (k.cl))`. A check that passes found every zone
-- and input as written: nothing to restore for the next kernel. Without
-- `--kernel`, nothing. `R:measure` calls it.
-- @string[opt] when the kernel that ran, for the message
function Recipe:check_student(when)
  local g = rawget(self, "guard")
  if not g then return end
  g:check(when and ("after " .. when))
end

--- Forgets every guarded buffer (no more checks of them), so that a recipe
-- sweeping sizes can let each size's buffers go.
function Recipe:drop_student_buffers()
  self.guard = nil
end

--- Ranks the rows of a table by one column, smallest first (a time), in a
-- new `rank` column (1 = fastest). Rows for which `filter` returns false
-- (references such as a copy kernel) get no rank. When a student's kernel
-- (`R:student_kernel`) is among the rows, a note says where it ranks.
-- @tparam clua.report t the table, its rows already added
-- @string column the column to rank by (smaller is better)
-- @tparam[opt] function filter `filter(row)`: true for the rows to rank
-- @tab[opt] opts `name`: the column that names the best row in the note
-- (default the table's first); `prefix`: the note's start, for ranks within a
-- group of rows (`"tile 16: "`); `student`: the student's row's value that
-- the note looks for (default R.student_label), where its rows name more
-- than the kernel ("work-group scan, student: ...")
-- @treturn {table,...} the ranked rows, best first
function Recipe:rank(t, column, filter, opts)
  opts = optcheck.check(opts, "R:rank", { "name", "prefix", "student" })
  local ranked = {}
  for _, row in ipairs(t.rows) do
    if row[column] ~= nil and (not filter or filter(row)) then ranked[#ranked + 1] = row end
  end
  table.sort(ranked, function(a, b) return a[column] < b[column] end)
  if not t:column("rank") then t.columns[#t.columns + 1] = { name = "rank", format = "%d" } end
  for i, row in ipairs(ranked) do row.rank = i end
  local label = rawget(self, "student_label") and (opts.student or self.student_label)
  if label then
    for i, row in ipairs(ranked) do
      for _, v in pairs(row) do
        if v == label then
          t:note(("%s%s ranks %d of %d by %s%s"):format(opts.prefix or "", label, i, #ranked, column,
            i == 1 and "" or (" (the best: " .. tostring(ranked[1][opts.name or t.columns[1].name]) .. ")")))
        end
      end
    end
  end
  return ranked
end

--- R:rank within each group of rows: the rows whose `group` column holds
-- each of `values` are ranked among themselves, the best named by the `name`
-- column; with more than one group each note starts with its group.
-- @tparam clua.report t the table
-- @string column the column to rank by
-- @string group the column that groups the rows
-- @tparam {any,...} values the groups, in order
-- @string[opt] name the column that names the best row
function Recipe:rank_within(t, column, group, values, name)
  for _, v in ipairs(values) do
    self:rank(t, column, function(row) return row[group] == v end,
      { name = name, prefix = #values > 1 and ("%s %s: "):format(group, tostring(v)) or nil })
  end
end

return assign
