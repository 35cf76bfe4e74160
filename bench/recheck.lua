-- bench/recheck.lua: two runs of the recipes, figure by figure. Each folder
-- holds a recipe's --json per file (NAME.json, as bench/recheck.sh writes
-- them); a figure is what the cluster card compares (clua.cluster.figures: a
-- compared column of a table row). For each recipe in both folders: the
-- figures they share, the median ratio NEW / OLD (above 1: NEW better, a
-- time inverted), and how many differ by more than their noise, the larger
-- of either run's spread of repetitions and clua.noise's threshold (10 %).
--
--   clua bench/recheck.lua OLD_DIR NEW_DIR [--list]
--
-- --list names every figure beyond its noise. Exit status 0; 2 on bad use.
local json = require("dkjson")
local cluster = require("clua.cluster")
local noise = require("clua.noise")
local proc = require("clua.proc")
local stats = require("clua.stats")

local dirs, list = {}, false
for _, a in ipairs(arg) do
  if a == "--list" then list = true elseif a:sub(1, 2) ~= "--" then dirs[#dirs + 1] = a else dirs = {} break end
end
if #dirs ~= 2 then
  io.stderr:write("usage: clua bench/recheck.lua OLD_DIR NEW_DIR [--list]\n")
  os.exit(2)
end

-- A recipe's figures from DIR/NAME.json, or nil when it is not there.
local function figures(dir, name)
  local f = io.open(("%s/%s.json"):format(dir, name))
  if not f then return nil end
  local d, _, err = json.decode(f:read("a"))
  f:close()
  if type(d) ~= "table" then error(("bench/recheck.lua: %s/%s.json: %s"):format(dir, name, err or "not a JSON object")) end
  d.name = name
  return cluster.figures({ d })
end

local names = {}
for _, dir in ipairs(dirs) do
  local ls = io.popen("ls " .. proc.quote(dir))
  for file in ls:lines() do
    local name = file:match("^(.+)%.json$")
    if name and not names[name] then names[name], names[#names + 1] = true, name end
  end
  ls:close()
end
table.sort(names)

local shared, beyond_all = 0, 0
print(("%-12s %5s %5s %6s %9s %7s"):format("recipe", "old", "new", "shared", "new/old", "beyond"))
for _, name in ipairs(names) do
  local old, new = figures(dirs[1], name), figures(dirs[2], name)
  if not (old and new) then
    print(("%-12s %5s %5s  in %s only"):format(name, old and #old or "-", new and #new or "-", old and "OLD" or "NEW"))
  else
    local by_id, ratios, beyond, lines = {}, {}, 0, {}
    for _, f in ipairs(old) do by_id[f.id] = f end
    for _, f in ipairs(new) do
      local o = by_id[f.id]
      if o and o.value ~= 0 and f.value ~= 0 then
        local ratio = f.value / o.value
        if f.lower then ratio = 1 / ratio end
        ratios[#ratios + 1] = ratio
        local tol = math.max(f.spread or 0, o.spread or 0, noise.THRESHOLD)
        if math.abs(ratio - 1) * 100 > tol then
          beyond = beyond + 1
          lines[#lines + 1] = ("  %s: %.3f (noise %.0f %%)"):format(f.id, ratio, tol)
        end
      end
    end
    shared, beyond_all = shared + #ratios, beyond_all + beyond
    print(("%-12s %5d %5d %6d %9s %7d"):format(name, #old, #new, #ratios,
      #ratios > 0 and ("%.3f"):format(stats.median(ratios)) or "-", beyond))
    if list then for _, l in ipairs(lines) do print(l) end end
  end
end
print(("%d figures in both, %d beyond their noise (%.1f %%)"):format(shared, beyond_all,
  shared > 0 and beyond_all / shared * 100 or 0))
