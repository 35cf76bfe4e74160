--- clua.cardrun: the recipes of a report card, each run in a clua process of
-- its own (recipes/report.lua). Which recipes run and with which options
-- (the card's list, `--recipes`, `--with`), and one run: the recipe with
-- `--json` and `--svg` into the card's folder, under a time limit, its
-- output in a log, its tables read back.
-- @module clua.cardrun
local cardrun = {}

local cl = require("cl")
local files = require("clua.files")
local proc = require("clua.proc")
local escape = require("clua.escape")
local saved = require("clua.saved")

local sh = proc.quote

--- The recipes' own options (the card's with option), each word quoted for the shell.
-- @tparam {string,...} with each `--with` ("peak --target-ms 40")
-- @tparam function fail called with the message where one does not start with a recipe's name
-- @treturn table the options by recipe name, as one string each
function cardrun.given(with, fail)
  local given = {}
  for _, w in ipairs(with) do
    local name, rest = w:match("^%s*([%w_]+)%s*(.-)%s*$")
    if not name then fail(("--with %q: the recipe's name first, then its options"):format(w)) end
    local words = {}
    for x in rest:gmatch("%S+") do words[#words + 1] = x:match("^[%w%-%.,_/:=+]+$") and x or sh(x) end
    given[name] = table.concat(words, " ")
  end
  return given
end

--- The recipes to run: the card's, or those its recipes option names (with
-- the card's finding and options where the card has the recipe).
-- @tparam table card {{name, finding, options},...}
-- @tparam ?string names `--recipes`: comma-separated names
-- @treturn table {{name, finding, options},...}
function cardrun.list(card, names)
  if not names then return card end
  local finding, options, list = {}, {}, {}
  for _, c in ipairs(card) do finding[c[1]], options[c[1]] = c[2], c[3] end
  for name in names:gmatch("[^,%s]+") do list[#list + 1] = { name, finding[name] or "", options[name] } end
  return list
end

--- A runner of the card's recipes: `run(name, finding, options)` runs
-- recipes/NAME.lua once and returns {name, finding, options, exit, tables,
-- svgs, error, seconds}, saying its progress on the standard error. A log
-- that cannot be written ends the card (clua.files.write_or_exit).
-- @tparam table o {here = the recipes' folder, dir = the card's folder, args = the card's options
-- (timeout, quick, device, reps), given = cardrun.given's, count = the recipes to run}
-- @treturn function run
function cardrun.runner(o)
  local clua, args, dir = proc.interpreter(), o.args, o.dir
  local ran, card_start = 0, cl.now() -- for the progress line
  return function(name, finding, options)
    local script = o.here .. "/" .. name .. ".lua"
    local r = { name = name, finding = finding, svgs = {} }
    if not files.readable(script) then
      r.error = "not available: no " .. script
      return r
    end
    local jpath, spath, log = dir .. "/" .. name .. ".json", dir .. "/" .. name .. ".svg", dir .. "/" .. name .. ".log"
    os.remove(jpath)
    os.remove(log) -- a new file, whatever was there (a link to a device would be read back without end)
    files.write_or_exit("report", log, "") -- a log that cannot be written ends the card, not each recipe
    local cmd = { "timeout", tostring(args.timeout), sh(clua), sh(script), "--json", sh(jpath), "--svg", sh(spath) }
    if args.quick then cmd[#cmd + 1] = "--quick" end
    if args.device then cmd[#cmd + 1] = "--device " .. sh(args.device) end
    if args.reps then cmd[#cmd + 1] = "--reps " .. args.reps end
    if o.given[name] then options = o.given[name] elseif args.quick then options = nil end
    if options and options ~= "" then cmd[#cmd + 1] = options else options = nil end
    ran = ran + 1
    io.stderr:write(("report: recipe %d of %d: %s (%.0f s so far)\n"):format(ran, o.count, escape.terminal(name),
      (cl.now() - card_start) / 1e9))
    local t0 = cl.now()
    local ok, _, code = os.execute(table.concat(cmd, " ") .. " > " .. sh(log) .. " 2>&1")
    r.seconds = math.floor((cl.now() - t0) / 1e8 + 0.5) / 10 -- 0.1 s
    r.options = options
    r.exit = ok and 0 or code
    local doc = files.read(jpath)
    if r.exit ~= 0 or not doc then
      local text = files.read(log) or ""
      r.error = ("exit %s: %s"):format(tostring(r.exit), (text:match("recipe [%w_]+: ([^\n]*)") or text:sub(-400)))
      return r
    end
    r.tables = saved.decode(doc).tables
    local ls = io.popen("ls -- " .. sh(dir) .. " 2>/dev/null")
    for f in ls:lines() do
      if f:match("^" .. name:gsub("%p", "%%%0") .. "[%.%w_-]*%.svg$") then r.svgs[#r.svgs + 1] = f end
    end
    ls:close()
    table.sort(r.svgs)
    return r
  end
end

return cardrun
