--- clua.contract: what a measurement runs (`R:measure`'s `label`, `run`,
-- `queue`, `outputs`, `reads` and `figures`): the buffers the harness made
-- (`R:input`, `R:output`), the part of each output a kernel owns checked
-- against its buffer before anything runs, and every output poisoned, so
-- that what a kernel leaves unwritten shows. What is checked afterwards is
-- clua.checks's; how it is timed, clua.timed's.
-- @module clua.contract
local cl = require("cl")
local units = require("clua.units")

local contract = {}

--- The byte every output is filled with before a measurement (0xA5: a float
-- of -2.9e-16, no small integer): what a kernel does not write keeps it.
-- The guard zones' byte (clua.guard.PATTERN): one poison inside and outside.
contract.POISON = require("clua.guard").PATTERN

--- `R:measure`'s options of what is run.
contract.OPTIONS = { "label", "run", "outputs", "reads", "queue", "figures" }

--- The options of an output (`R:measure`'s `outputs`) that say what it is.
contract.OUTPUT = { "owns", "poison", "name", "queue" }

local sizes = {}
--- Bytes of one element of a cl.array type.
-- @string ty the type ("float", "uint", ...)
-- @treturn int
-- @usage assert(contract.element_size("double") == 8)
function contract.element_size(ty)
  local s = sizes[ty]
  if not s then s = cl.array(ty, 1).size; sizes[ty] = s end
  return s
end
local esize = contract.element_size

--- What the harness knows of the buffers a recipe made (`R:input`,
-- `R:output`), by buffer: `name`, `type`, `n` (elements), `ctx`, an
-- output's `write_only` (no kernel may read it: no device check), and an
-- input's `data` (its host copy) and `pristine` (a device copy). Weak keys:
-- a buffer let go is forgotten.
-- @tab R the recipe
-- @treturn tab buffer -> what it is
-- @usage local out = R:output("out", "uint", 64)
-- assert(contract.known(R)[out].n == 64)
function contract.known(R)
  local k = rawget(R, "known_buffers")
  if not k then k = setmetatable({}, { __mode = "k" }); R.known_buffers = k end
  return k
end

-- The elements a declared expectation holds: a cl.array's or a list's
-- length, nil for a function of the index.
local function expected_length(e)
  if type(e) == "table" then return #e end
  if type(e) == "userdata" then
    local ok, n = pcall(function() return #e end)
    if ok and math.type(n) == "integer" then return n end
  end
end

-- An output's declared writes against its buffer (made by R:output:
-- `info`): `owns` two integers 0 <= lo <= hi <= the buffer's elements;
-- `expect` as many elements as the part owned. Raises, from `who` about
-- `what`, naming the buffer, its size and the range.
local function check_declared(who, what, i, o, info)
  local name = o.name or info.name or "out"
  local size = ("%d %s elements (%s)"):format(info.n, info.type, units.format_size(info.n * esize(info.type)))
  local lo, hi = 0, info.n
  if o.owns ~= nil then
    local r = o.owns
    lo, hi = type(r) == "table" and r[1], type(r) == "table" and r[2]
    if math.type(lo) ~= "integer" or math.type(hi) ~= "integer" or lo < 0 or hi < lo then
      error(("%s %s: outputs[%d] (%s): owns must be {lo, hi}, two integers with 0 <= lo <= hi, got %s"):format(who,
        what, i, name, type(r) == "table" and ("{%s, %s}"):format(tostring(lo), tostring(hi)) or tostring(r)), 0)
    end
    if hi > info.n then
      error(("%s %s: outputs[%d]: the kernel owns %s[%d .. %d), past the end of the buffer %s of %s: make the "
        .. "buffer hold %d elements (R:output) or the range what it holds; the kernel was not launched"):format(who,
        what, i, name, lo, hi, name, size, hi), 0)
    end
  end
  local ne = expected_length(o.expect)
  if ne and ne ~= hi - lo then
    error(("%s %s: outputs[%d]: the expected result has %d elements, the part the kernel owns %s[%d .. %d) %d "
      .. "(the buffer %s holds %s)%s; the kernel was not launched"):format(who, what, i, ne, name, lo, hi, hi - lo,
      name, size, ne > info.n - lo and ": a kernel writing them all would write past its end" or ""), 0)
  end
end

--- Checks what outputs declare a kernel writes against their buffers, before
-- anything runs (`R:check_outputs`): each output made by `R:output` must own
-- a range {lo, hi} with 0 <= lo <= hi <= its elements, and an `expect` list
-- or cl.array must hold hi - lo elements.
-- @tab R the recipe
-- @tab outputs as `R:measure`'s `outputs`
-- @string who the call, for messages
-- @string what the measurement or kernel, for messages
-- @raise naming the buffer, its size and the range
-- @usage local small = R:output("small", "float", 16)
-- local ok, why = pcall(contract.check_outputs, R, { { small, owns = { 0, 32 } } }, "R:measure", "copy")
-- assert(not ok and why:find("past the end of the buffer small of 16 float elements", 1, true))
function contract.check_outputs(R, outputs, who, what)
  local reg = contract.known(R)
  for i, o in ipairs(outputs or {}) do
    local info = type(o) == "table" and reg[o[1]]
    if info and info.type then check_declared(who, what, i, o, info) end
  end
end

--- What a measurement runs, checked before anything runs: each output a
-- table whose first element is its buffer and whose options are known
-- (`contract.OUTPUT` and `extra`), the part each owns within its buffer.
-- Returns the contract: `label`, `queue` (the measurement's), `outputs`,
-- `reads`.
-- @tab R the recipe
-- @tab spec `R:measure`'s options (those of `contract.OPTIONS` are read)
-- @tab[opt] extra the names of the other options an output may have
-- (clua.checks.OUTPUT)
-- @treturn tab the contract
-- @raise `R:measure: outputs[1]: unknown option 'expct' (known: ...)`, at
-- the caller of `R:measure`
-- @usage local out = R:output("out", "float", 1024)
-- local c = contract.check(R, { label = "half", outputs = { { out, owns = { 0, 512 } } } })
-- assert(c.label == "half" and c.outputs[1][1] == out and c.queue == R.queue)
function contract.check(R, spec, extra)
  local label = spec.label or "?"
  local outs = spec.outputs or {}
  local known = {}
  for _, k in ipairs(contract.OUTPUT) do known[k] = true end
  for _, k in ipairs(extra or {}) do known[k] = true end
  for i, o in ipairs(outs) do
    for k in pairs(o) do
      if type(k) ~= "number" and not known[k] then
        local names = table.move(contract.OUTPUT, 1, #contract.OUTPUT, 1, {})
        table.move(extra or {}, 1, #(extra or {}), #names + 1, names)
        error(("R:measure: outputs[%d]: unknown option '%s' (known: %s)"):format(i, tostring(k),
          table.concat(names, ", ")), 3)
      end
    end
    if not o[1] then error(("R:measure: outputs[%d] has no buffer"):format(i), 3) end
    local info = contract.known(R)[o[1]]
    if o.device and info and info.write_only then
      error(("R:measure: outputs[%d] (%s): the device check reads it in a kernel, and it was made write_only "
        .. "(R:output's flags), which no kernel may read: leave write_only out"):format(i, o.name or info.name), 3)
    end
  end
  contract.check_outputs(R, outs, "R:measure", label)
  return { label = label, queue = type(spec.queue) == "userdata" and spec.queue or R.queue, outputs = outs,
    reads = spec.reads or {} }
end

--- Fills every output of a contract with `contract.POISON` (but those of
-- `poison = false`: a buffer the kernel reads too) and waits for it.
-- @tab c the contract (`contract.check`)
-- @bool[opt=true] fill false to only wait for the queues (a run whose
-- results are not checked: `--grading`, clua.assign.grading)
-- @usage local out = R:output("out", "uchar", 16)
-- contract.poison(contract.check(R, { outputs = { { out } } }))
-- local got = cl.array("uchar", 16)
-- R.queue:read(out, got)
-- assert(got[0] == contract.POISON and got[15] == contract.POISON)
function contract.poison(c, fill)
  for _, o in ipairs(c.outputs) do
    if o.poison ~= false and fill ~= false then (o.queue or c.queue):fill(o[1], contract.POISON, { type = "uchar" }) end
    if o.queue then o.queue:finish() end
  end
  c.queue:finish()
end

return contract
