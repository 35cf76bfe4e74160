--- clua.cardpage: the report card's Markdown page and JSON document, from
-- the results of its recipes (clua.cardrun): the device, the answer at a
-- glance, each recipe's tables (beside a saved card's with `--compare`) and
-- plots, the experiments on the roofline, and the count of recipes that ran.
-- Every text from outside (a name, a note, a message, the device's facts) is
-- escaped for Markdown (clua.escape): none acts as HTML or Markdown syntax.
-- The card's web page is clua.html's.
-- @module clua.cardpage
local cardpage = {}

local cl = require("cl")
local escape = require("clua.escape")
local files = require("clua.files")
local glance = require("clua.glance")
local recipe = require("clua.recipe")
local render = require("clua.render")
local roofline = require("clua.roofline")
local saved = require("clua.saved")
local schema = require("clua.schema")
local tablemodel = require("clua.tablemodel")


--- Text from outside on one line, escaped for Markdown.
-- @param s anything (tostring'd)
-- @tparam ?table opts escape.markdown's options
-- @treturn string
function cardpage.text(s, opts) return escape.markdown((tostring(s):gsub("[\r\n]+", " ")), opts) end
local text = cardpage.text

--- A namer of devices: where two devices of one name meet (another device of
-- this machine, or the saved card's device), each is named with its P:D index.
-- @tparam table facts the card's device facts (clua.device.facts)
-- @param dev the card's device (cl.device)
-- @tparam ?table old the saved card (`--compare`)
-- @treturn function label(name, index)
function cardpage.namer(facts, dev, old)
  local same_name = old and old.device and old.device.name == facts.name
  for _, d in ipairs(cl.devices()) do
    if d ~= dev and d.name == facts.name then same_name = true end
  end
  return function(name, idx)
    if same_name and name == facts.name then return ("%s [%s]"):format(name, idx or "?") end
    return name
  end
end

-- The saved card's tables of recipe `name`, as saved.compare takes them, or nil.
local function saved_tables(old, name, label)
  for _, r in ipairs(old and old.recipes or {}) do
    if r.name == name and r.tables then
      return { tables = r.tables, meta = { device = old.device and label(old.device.name, old.device.index) } }
    end
  end
end

--- The command that made the card (with its quick and device options).
-- @tparam table o {quick, device}
-- @treturn string
function cardpage.command(o)
  return "clua recipes/report.lua" .. (o.quick and " --quick" or "") .. (o.device and (" --device " .. o.device) or "")
end

--- The card's Markdown page. The roofline figure is written into dir: where
-- it cannot be, the card ends (clua.files.write_or_exit).
-- @tparam table results the recipes' results (clua.cardrun)
-- @tparam table o {facts, index, label (cardpage.namer's), quick, device, note, compare (the saved
-- card's file), saved (its document), dir (the card's folder), mpi ({rank, size, host, apart, shared_by}),
-- t0 (cl.now() when the card began)}
-- @treturn string the page
-- @treturn ?table the experiments on the roofline (a clua.tablemodel table), or nil
-- @treturn number the card's seconds
function cardpage.markdown(results, o)
  local md, facts = {}, o.facts
  local function add(s) md[#md + 1] = s end
  add("# Device report: " .. text(o.label(facts.name, o.index)))
  add("")
  add(("Made by %s on %s with clua %s."):format(escape.md_code(cardpage.command(o)), os.date("!%Y-%m-%d %H:%M UTC"), text(recipe.version())))
  if o.note then
    add("")
    add(text(o.note, { line = true }))
  end
  local m = o.mpi
  if m then
    add("")
    add(("Rank %d of %d on %s, its host's GPU %s; the ranks ran each recipe %s.%s"):format(m.rank, m.size,
      text(m.host), o.index, m.apart and "one after another" or "at once",
      m.shared_by > 1 and (" %d ranks of this host share this device."):format(m.shared_by) or ""))
  end
  if facts.type == "CPU" then
    add("")
    add("This device is a CPU (an OpenCL implementation running on the host's cores): its figures are CPU figures.")
  end
  -- The answer first: the run's headline figures, each with its bound.
  local at_a_glance = glance.table({ recipes = results })
  if at_a_glance then
    add("")
    add("## At a glance")
    add("")
    add((render.markdown(at_a_glance):gsub("^### [^\n]*\n\n", "")))
  end
  add("")
  add("## The device")
  add("")
  add(escape.md_block(facts:text()))
  for _, r in ipairs(results) do
    add("")
    add("## " .. text(r.name))
    add("")
    if r.finding and r.finding ~= "" then add("*The seed:* " .. text(r.finding) .. ".") add("") end
    if r.error then
      add("**Did not run:** " .. text(r.error))
    else
      add(("%s (%.1f s)"):format(escape.md_code(("clua recipes/%s.lua%s%s"):format(r.name, o.quick and " --quick" or "",
        r.options and (" " .. r.options) or "")), r.seconds))
      for _, d in ipairs(r.tables) do
        if d.id ~= roofline.ID then -- gathered in the roofline section
          local t = tablemodel.without_empty(tablemodel.from_data(d)) -- no column of "-" only
          local old = saved_tables(o.saved, r.name, o.label)
          if old then t = saved.compare(t, old, { file = o.compare }) end
          add("")
          add(render.markdown(t))
        end
      end
      for _, svg in ipairs(r.svgs) do
        add("")
        add(("![%s](%s)"):format(text(svg), escape.md_url((o.dir:match("[^/]*$")) .. "/" .. svg)))
      end
    end
  end
  local placed = cardpage.roofline(results, o, add)
  local failed = cardpage.failed(results)
  add("")
  local seconds = (cl.now() - o.t0) / 1e9
  local per = {} -- each recipe's wall time, for a table of the card's time
  for _, r in ipairs(results) do per[#per + 1] = text(r.name) .. (r.seconds and (" %.1f s"):format(r.seconds) or " not run") end
  add(("%d recipes, %d ran, %d failed, in %.0f s: %s."):format(#results, #results - failed, failed, seconds,
    table.concat(per, ", ")))
  return table.concat(md, "\n") .. "\n", placed, seconds
end

--- The card's section "The seed experiments on the roofline": the points
-- the recipes declared, under the roofs recipes/roofline.lua measured (this
-- run, else none), with its plot written into the card's folder.
-- @tparam table results the recipes' results
-- @tparam table o cardpage.markdown's options (facts, dir)
-- @tparam function add adds a line to the page
-- @treturn ?table the experiments on the roofline, or nil where no recipe declared one
function cardpage.roofline(results, o, add)
  local points, roof_rows = {}, nil
  for _, r in ipairs(results) do
    for _, d in ipairs(r.tables or {}) do
      if d.id == roofline.ID then
        for _, row in ipairs(d.rows) do
          local pt = {}
          for k, v in pairs(row) do pt[k] = v end
          pt.recipe = r.name
          points[#points + 1] = pt
        end
      elseif r.name == "roofline" and d.id == "roofs" then
        roof_rows = d.rows
      end
    end
  end
  if #points == 0 then return nil end
  local roofs = roofline.roofs(roof_rows)
  local placed = roofline.place(points, roofs, { cache_roof = glance.cache_roof({ recipes = results }) })
  add("")
  add("## The seed experiments on the roofline")
  add("")
  if not roof_rows then
    add("No roofs: recipes/roofline.lua was not part of this run, so the points stand alone.")
    add("")
  end
  add(render.markdown(placed))
  if roof_rows then
    local svg = "roofline-experiments.svg"
    files.write_or_exit("report", o.dir .. "/" .. svg, roofline.plot(points, roofs,
      "The seed experiments on the roofline of " .. o.facts.name):svg({ width = 980, height = 620 }))
    add("")
    add(("![every experiment on the roofline](%s)"):format(escape.md_url(o.dir:match("[^/]*$") .. "/" .. svg)))
  end
  return placed
end

--- The recipes that failed (one that is not available does not count).
-- @tparam table results the recipes' results
-- @treturn int
function cardpage.failed(results)
  local failed = 0
  for _, r in ipairs(results) do if r.error and not r.error:match("^not available") then failed = failed + 1 end end
  return failed
end

--- The card's JSON document (a clua.card/1): the device facts and every recipe's tables.
-- @tparam table results the recipes' results
-- @tparam table o {facts, index, quick, seconds (the card's), placed (cardpage.markdown's second result)}
-- @treturn table the document
function cardpage.doc(results, o)
  local fdata = {}
  for k, v in pairs(o.facts) do if type(v) ~= "function" then fdata[k] = v end end
  fdata.index = o.index
  local doc = { report = "clua device report", clua = recipe.version(), date = os.date("!%Y-%m-%dT%H:%M:%SZ"),
    schema = schema.name("card"), quick = o.quick or false, seconds = math.floor(o.seconds * 10 + 0.5) / 10,
    device = fdata, recipes = {} }
  for i, r in ipairs(results) do
    doc.recipes[i] = { name = r.name, finding = r.finding, options = r.options, exit = r.exit, error = r.error,
      seconds = r.seconds, tables = r.tables, svgs = r.svgs }
  end
  doc.roofline = o.placed and o.placed:data() or nil
  return doc
end

return cardpage
