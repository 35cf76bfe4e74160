--- clua.html: results tables (clua.tablemodel) as one self-contained web page.
--
-- The same tables as clua.render's text, Markdown, CSV and JSON, rendered
-- as HTML: each table with its units, metadata and
-- notes; the cells whose repetitions spread beyond clua.noise's threshold
-- marked as noise; with a comparison (report.compare), each ratio coloured by
-- whether it is beyond the noise and which way it went. Plots (clua.plot) and
-- timelines (clua.timeline) are inlined as SVG, every point with a tip that
-- a pointer or a tap shows. The page carries its own CSS and a few lines of
-- script (no network, no external scripts or fonts), reads on a phone (the
-- tables scroll sideways, the plots scale) and prints (print styles).
--
-- `html.document` is the page of one recipe (its `--html FILE`);
-- `html.card` the report card's (recipes/report.lua, also from its saved
-- JSON: `report --from-json docs/report-NAME.json`).
-- @module clua.html
local report = require("clua.report")
local noise = require("clua.noise")
local device = require("clua.device")
local roofline = require("clua.roofline")
local glance = require("clua.glance")
local escape = require("clua.escape")
local svgsafe = require("clua.svgsafe")
local jsonin = require("clua.jsonin")
local files = require("clua.files")
local proc = require("clua.proc")

local html = {}

--- Text escaped for HTML (element content and attribute values): clua.escape.html.
-- @param s any value (tostring)
-- @treturn string
function html.esc(s) return escape.html(s) end
local esc = escape.html

-- An id made of letters, digits and dashes.
local function slug(s)
  return (tostring(s or ""):lower():gsub("[^%w]+", "-"):gsub("^%-+", ""):gsub("%-+$", ""))
end

--- A fresh tally of what html.table marks: noisy cells, and compared figures
-- better or worse beyond the noise, within it, or with no spread to judge.
-- @treturn table {noisy=, better=, worse=, changed=, within=, unjudged=}
function html.tally()
  return { noisy = 0, better = 0, worse = 0, changed = 0, within = 0, unjudged = 0 }
end

-- The class and title of a ratio cell: its verdict against the noise and
-- which way the figure went.
local function ratio_class(c, v, verdict)
  if type(v) ~= "number" then return nil end
  if verdict == "within" then return "within", "within the noise of the two runs: not a change" end
  if verdict ~= "beyond" then return "unjudged", "no spread in both runs to judge this ratio against the noise" end
  local up = v > 1
  if c.better == "higher" or c.better == "lower" then
    local better = (c.better == "higher") == up
    return better and "better" or "worse", ("beyond the noise: %s (%s is better)"):format(
      better and "better" or "worse", c.better)
  end
  return "changed", "beyond the noise"
end

--- A table (a clua.report) as HTML: a heading, the table (a header of names
-- and units; numbers right-aligned; a cell whose spread is above the noise
-- threshold marked "noisy"; a ratio to a saved run marked better, worse,
-- within the noise or unjudged), its metadata and notes.
-- @param t a clua.report table
-- @tab[opt] opts `id` (the section's id, default the table's), `tally` (from html.tally: counts added)
-- @treturn string
function html.table(t, opts)
  opts = opts or {}
  local tally = opts.tally or html.tally()
  local cols, d = t:resolved_columns(), t:data()
  local numeric, verdict_of = {}, {}
  for j, c in ipairs(cols) do
    for _, row in ipairs(d.rows) do
      local v = row[c.name]
      if v ~= nil then numeric[j] = type(v) == "number"; break end
    end
    if c.verdict then verdict_of[c.verdict] = c.name end
  end
  local o = {}
  local function add(s) o[#o + 1] = s end
  add(('<section class="table" id="%s">'):format(esc(opts.id or slug(t.id))))
  if t.title ~= "" then add("<h3>" .. esc(t.title) .. "</h3>") end
  add('<div class="scroll"><table><thead><tr>')
  for j, c in ipairs(cols) do
    add(('<th%s>%s%s</th>'):format(numeric[j] and ' class="num"' or "", esc(c.name),
      (c.unit and c.unit ~= "") and ('<span class="unit">' .. esc(c.unit) .. "</span>") or ""))
  end
  add("</tr></thead><tbody>")
  for i, row in ipairs(d.rows) do
    local cells, row_noisy = {}, false
    for j, c in ipairs(cols) do
      local text, v = d.cells[i][j], row[c.name]
      local class, title = {}, nil
      if numeric[j] then class[#class + 1] = "num" end
      if c.spread and (noise.noisy(v) or text:match(" !$")) or (not c.spread and c.name == "spread"
        and text:match(" !$")) then
        class[#class + 1] = "noisy"
        title = ("repetitions spread more than %d%%: noise, not a finding"):format(noise.THRESHOLD)
        row_noisy = true
        tally.noisy = tally.noisy + 1
      end
      if c.ratio then
        local verdict = verdict_of[c.name] and row[verdict_of[c.name]]
        local k, why = ratio_class(c, v, verdict)
        if k then
          class[#class + 1] = k
          title = why
          tally[k] = tally[k] + 1
        end
      end
      if c.verdict and (v == "beyond" or v == "within") then class[#class + 1] = "verdict-" .. v end
      cells[j] = ("<td%s%s>%s</td>"):format(#class > 0 and (' class="' .. table.concat(class, " ") .. '"') or "",
        title and (' title="' .. esc(title) .. '"') or "", esc(text))
    end
    add((row_noisy and '<tr class="noisy">' or "<tr>") .. table.concat(cells) .. "</tr>")
  end
  add("</tbody></table></div>")
  local m = {}
  for _, kv in ipairs(t:meta_list()) do m[#m + 1] = esc(kv[1]) .. ": " .. esc(kv[2]) end
  if #m > 0 then add('<p class="meta">' .. table.concat(m, "; ") .. "</p>") end
  if #t.notes > 0 then
    add('<ul class="notes">')
    for _, n in ipairs(t.notes) do
      add((tostring(n):match("^! ") and '<li class="noise">' or "<li>") .. esc(n) .. "</li>")
    end
    add("</ul>")
  end
  add("</section>")
  return table.concat(o, "\n")
end

--- An SVG document (a plot's or a timeline's, or a file a recipe wrote) as a
-- figure of the page: read and written anew by clua.svgsafe (drawing
-- elements only: no script, event attribute, foreign object or link; a file
-- that is not plain SVG is named as refused, not inlined), the size left to
-- the page (the drawing scales to the width, up to its own), every data point
-- marked `class="point"` (a circle of clua.plot, a bar of clua.timeline) and
-- counted in the figure's `data-points`, which the browser check compares
-- with what it finds drawn.
-- @string svg the SVG text
-- @tab[opt] opts `caption`, `id`, `name` (the file's, for a refusal)
-- @treturn string
function html.figure(svg, opts)
  opts = opts or {}
  local clean, why = svgsafe.clean(svg)
  if not clean then
    return ('<p class="failed">Plot %snot shown: %s</p>'):format(opts.name and (esc(opts.name) .. " ") or "", esc(why))
  end
  svg = clean
  local width
  svg = svg:gsub("^(<svg[^>]-) width=\"([%d.]+)\" height=\"[%d.]+\"", function(head, w)
    width = w
    return head
  end, 1)
  -- the circles of an SVG file from before points had classes and tips: the series' name as tip
  svg = svg:gsub('(<g class="series"><title>(.-)</title>)(.-)(</g>)', function(head, name, body, tail)
    return head .. body:gsub("<circle ([^>]*)/>", function(attrs)
      return ('<circle class="point" %s><title>%s</title></circle>'):format(attrs, name)
    end) .. tail
  end)
  svg = svg:gsub("<circle ([^>]*)>", function(attrs)
    if not attrs:find("class=", 1, true) then return '<circle class="point" ' .. attrs .. ">" end
  end)
  local _, points = svg:gsub('class="point"', "")
  local title = svg:match("<text[^>]*font%-weight=\"bold\">(.-)</text>")
  -- the title as svgsafe wrote it: its text escaped, quotes included
  svg = svg:gsub("^<svg ", ('<svg role="img"%s '):format(title and (' aria-label="' .. title:gsub("%%", "%%%%") .. '"')
    or ""), 1)
  return ('<figure class="plot"%s data-points="%d"%s>\n%s%s</figure>'):format(
    opts.id and (' id="' .. esc(opts.id) .. '"') or "", points,
    width and (' style="max-width:' .. esc(width) .. 'px"') or "", svg,
    opts.caption and ("<figcaption>" .. esc(opts.caption) .. "</figcaption>") or "")
end

html.CSS = [[
:root{--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;--head:#f6f8fa;--noisy:#fff1c2;--noisy-fg:#6d4500;
--better:#d3f3da;--better-fg:#0d4a1f;--worse:#fddcda;--worse-fg:#86181d;--within:#eceff2}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);
background:#fff}
header,main,footer{max-width:1120px;margin:0 auto;padding:0 16px}
footer{color:var(--muted);font-size:.85em;padding-bottom:2em}
h1{font-size:1.7em;line-height:1.2;margin:.7em 0 .3em}
h2{font-size:1.35em;border-bottom:1px solid var(--line);padding-bottom:.2em;margin:2em 0 .5em}
h3{font-size:1.02em;margin:1.4em 0 .4em}
code{font:.92em ui-monospace,"DejaVu Sans Mono",monospace;background:var(--head);padding:0 3px;border-radius:3px}
.made,.meta,.notes,figcaption{color:var(--muted);font-size:.86em}
.finding{border-left:3px solid var(--line);padding-left:10px;font-style:italic}
.failed{background:var(--worse);color:var(--worse-fg);padding:6px 10px;border-radius:6px}
.summary{background:var(--head);border:1px solid var(--line);border-radius:8px;padding:8px 14px}
.summary p{margin:.3em 0}
nav.toc ol{columns:3 14em;margin:.4em 0;padding-left:1.4em}
nav.toc a{color:inherit}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 18px;margin:.5em 0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;border:1px solid var(--line);border-radius:6px;max-width:100%}
table{border-collapse:collapse;font-size:.88em;font-variant-numeric:tabular-nums;min-width:100%}
th,td{padding:4px 10px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
tbody tr:last-child td{border-bottom:none}
th{background:var(--head);font-weight:600;white-space:nowrap}
th .unit{display:block;font-weight:400;color:var(--muted);font-size:.85em}
.num{text-align:right}
td.num{white-space:nowrap}
td.noisy{background:var(--noisy);color:var(--noisy-fg);font-weight:600}
td.noisy::after{content:" noise";font-size:.75em;font-weight:400}
td.better{background:var(--better);color:var(--better-fg);font-weight:600}
td.worse{background:var(--worse);color:var(--worse-fg);font-weight:600}
td.changed{background:#dde7f7;font-weight:600}
td.within{background:var(--within);color:var(--muted)}
td.verdict-beyond{font-weight:600}
td.verdict-within{color:var(--muted)}
ul.notes{margin:.3em 0;padding-left:1.2em}
ul.notes li.noise{color:var(--noisy-fg)}
.key span{display:inline-block;padding:0 6px;border-radius:4px;margin:2px 4px 2px 0}
.key .noisy{background:var(--noisy);color:var(--noisy-fg)}
.key .better{background:var(--better);color:var(--better-fg)}
.key .worse{background:var(--worse);color:var(--worse-fg)}
.key .within{background:var(--within);color:var(--muted)}
figure.plot{margin:1.2em 0}
figure.plot svg{display:block;width:100%;height:auto}
.point{cursor:pointer}
circle.point:hover,circle.point.on{stroke:#111;stroke-width:2}
rect.point:hover,rect.point.on{stroke:#111;stroke-width:1.5}
#tip{position:fixed;z-index:9;display:none;max-width:22em;background:#1b1f24;color:#fff;font-size:13px;
line-height:1.35;padding:6px 9px;border-radius:6px;white-space:pre-line;pointer-events:none;
box-shadow:0 2px 8px rgba(0,0,0,.25)}
@media (max-width:640px){
body{font-size:14px}
header,main,footer{padding:0 10px}
h1{font-size:1.35em}
h2{font-size:1.2em}
dl.facts{grid-template-columns:1fr}
dl.facts dd{margin:0 0 6px}
th,td{padding:3px 6px}
nav.toc ol{columns:2 8em}
figure.plot{overflow-x:auto;-webkit-overflow-scrolling:touch}
figure.plot svg{min-width:560px}
}
@media print{
@page{margin:14mm}
body{font-size:9.5pt}
header,main,footer{max-width:none;padding:0}
nav.toc,#tip{display:none}
.scroll{overflow:visible;border:none}
table{font-size:7.5pt;width:100%}
td.num{white-space:normal}
th,td{padding:2px 4px}
h2,h3{break-after:avoid}
figure.plot{max-width:13cm!important;margin:.6em auto}
figure.plot,tr,dl.facts,.summary{break-inside:avoid}
td,.key span,.summary{-webkit-print-color-adjust:exact;print-color-adjust:exact}
a{color:inherit;text-decoration:none}
}
]]

-- The tip: a pointer on a point, or a tap, shows its title in a box (the
-- title moves to data-tip, so that the browser's own tooltip is not shown too).
html.SCRIPT = [[
(function(){
var tip=document.getElementById("tip"),on=null;
document.querySelectorAll(".point").forEach(function(p){
var t=p.querySelector("title");if(t){p.setAttribute("data-tip",t.textContent);t.remove();}});
function hide(){tip.style.display="none";if(on){on.classList.remove("on");on=null;}}
function show(p,x,y){hide();on=p;p.classList.add("on");tip.textContent=p.getAttribute("data-tip")||"";
tip.style.display="block";var w=tip.offsetWidth,h=tip.offsetHeight;
tip.style.left=Math.max(4,Math.min(x+14,innerWidth-w-4))+"px";
tip.style.top=(y+14+h>innerHeight?Math.max(4,y-h-14):y+14)+"px";}
function at(e){var p=e.target.closest?e.target.closest(".point"):null;
if(p&&p.hasAttribute("data-tip"))show(p,e.clientX,e.clientY);else hide();}
document.addEventListener("mouseover",at);document.addEventListener("click",at);
addEventListener("scroll",hide,{passive:true});
})();
]]

--- A whole page around `body`: the head (charset, viewport, title, the CSS),
-- the tip's box and its script.
-- @tab opts `title`, `body` (HTML)
-- @treturn string
function html.page(opts)
  return table.concat({
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="generator" content="clua">',
    "<title>" .. esc(opts.title or "clua") .. "</title>",
    "<style>", html.CSS, "</style>",
    "</head>",
    "<body>",
    opts.body or "",
    '<div id="tip" role="tooltip"></div>',
    "<script>", html.SCRIPT, "</script>",
    "</body>",
    "</html>",
  }, "\n") .. "\n"
end

-- What the colours of a page mean.
local function colour_key(compared)
  local k = { ('<p class="key"><span class="noisy">23.4 ! noise</span> the repetitions of this figure spread '
    .. "more than %d%% ((max - min) / median): noise, not a finding"):format(noise.THRESHOLD) }
  if compared then
    k[#k + 1] = '<br><span class="better">1.12</span><span class="worse">0.87</span> a ratio to the saved run, '
      .. 'better or worse beyond the noise of the two runs; <span class="within">1.01</span> within it (no change); '
      .. "uncoloured: no spread to judge it by"
  end
  return table.concat(k) .. "</p>"
end

--- The page of one recipe's run (what its option html writes): its tables, plots and
-- timelines.
-- @tparam {clua.report,...} tables
-- @tab[opt] opts `title` (the recipe), `meta` (recipe, date, clua, options), `plots`, `timelines`
-- @treturn string
function html.document(tables, opts)
  opts = opts or {}
  local title = opts.title or (tables[1] and tables[1].title) or "clua"
  local meta, compared = opts.meta or {}, false
  for _, t in ipairs(tables) do
    for _, c in ipairs(t.columns) do compared = compared or c.ratio ~= nil end
  end
  local b = { "<header>", "<h1>" .. esc(title) .. "</h1>" }
  local made = {}
  if meta.recipe then made[#made + 1] = ("clua recipes/%s.lua %s"):format(meta.recipe,
    table.concat(type(meta.options) == "table" and meta.options or {}, " ")) end
  if meta.date then made[#made + 1] = "on " .. tostring(meta.date) end
  if meta.clua then made[#made + 1] = "with clua " .. tostring(meta.clua) end
  if #made > 0 then b[#b + 1] = '<p class="made">Made by ' .. esc(table.concat(made, " ")) .. "</p>" end
  b[#b + 1] = colour_key(compared)
  b[#b + 1] = "</header><main>"
  for _, t in ipairs(tables) do b[#b + 1] = html.table(t) end
  for i, p in ipairs(opts.plots or {}) do b[#b + 1] = html.figure(p:svg(), { id = "plot-" .. i }) end
  for i, tl in ipairs(opts.timelines or {}) do b[#b + 1] = html.figure(tl:svg(), { id = "timeline-" .. i }) end
  b[#b + 1] = "</main>"
  return html.page{ title = title, body = table.concat(b, "\n") }
end

--- The most rows a saved card may hold, all its tables together (the H100
-- card has 630): a card is drawn whole, so its size bounds the work.
html.MAX_CARD_ROWS = 20000

local VALUE = { "number", "string", "boolean" }
local TABLE = { type = "object", required = { "columns", "rows" }, fields = {
  id = "string", title = "string", notes = { type = "array", items = "string" }, meta = { "object", "array" },
  columns = { type = "array", items = { type = "object", required = { "name" }, fields = {
    name = "string", unit = "string", display_unit = "string", key = "boolean", compare = "boolean",
    spread = "boolean" } } },
  rows = { type = "array", items = { type = { "object", "array" }, values = VALUE } },
  cells = { type = "array", items = { type = "array", items = "string" } },
} }
local COUNT, SIZE = { type = "integer", min = 0 }, { type = "number", min = 0 }

--- The shape of a saved card that html.card reads (clua.jsonin.check):
-- schema/card-1.json's fields, each of the type it says.
html.CARD = { type = "object", required = { "device" }, fields = {
  schema = "string", report = "string", clua = "string", date = "string", quick = "boolean", seconds = SIZE,
  device = { type = "object", required = { "name" }, fields = {
    name = "string", type = "string", index = "string", vendor = "string", platform = "string", driver = "string",
    version = "string", unknown_why = "string", compute_capability = { "string", "number" },
    compute_units = COUNT, clock_mhz = SIZE, global_mem = SIZE, global_mem_cache = SIZE, local_mem = SIZE,
    constant_mem = SIZE, max_alloc = SIZE, max_work_group_size = COUNT, warp_size = COUNT,
    max_work_item_sizes = { type = "array", items = COUNT, max = 16 }, timer_resolution_ns = SIZE,
    memory_bps = SIZE, pcie_bps = SIZE, memory_clock_mhz = SIZE, bus_width = COUNT, pcie_gen = COUNT,
    pcie_width = COUNT } },
  recipes = { type = "array", items = { type = "object", required = { "name" }, fields = {
    name = "string", finding = "string", options = "string", exit = "integer", error = "string", seconds = SIZE,
    tables = { type = "array", items = TABLE }, svgs = { type = "array", items = "string" } } } },
  roofline = TABLE,
} }

-- Why a card's table cannot be drawn as it stands (beyond its types), or nil.
local function table_fault(d)
  for i, c in ipairs(d.cells or {}) do
    if #c ~= #d.columns then return ("cells[%d] holds %d cells for %d columns"):format(i, #c, #d.columns) end
  end
  if d.cells and #d.cells ~= #d.rows then return ("%d rows of cells for %d rows"):format(#d.cells, #d.rows) end
end

--- A saved report card: its decoded JSON and the folder of its files.
-- `path` is the card's JSON (docs/report-h100.json, its files in
-- docs/report-h100-files) or that folder (the JSON beside it). The file is
-- read as clua.jsonin reads JSON (its size and nesting bounded), must be a
-- card of the schema version this clua reads (report.check_schema, as
-- --compare checks a saved run: a recipe's JSON or a card of another version
-- is refused), of html.CARD's shape, and hold at most html.MAX_CARD_ROWS rows.
-- @string path
-- @string[opt="render"] purpose what the card is read for, for a refusal ("compare with")
-- @treturn table the card
-- @treturn string the folder of its SVG files
-- @raise "FILE: ..." naming the field at fault
function html.load_card(path, purpose)
  path = path:gsub("/+$", "")
  local stem = path:match("^(.*)%-files$")
  local file, dir = path, (path:gsub("%.json$", "")) .. "-files"
  if stem then file, dir = stem .. ".json", path end
  local function fail(msg) error(msg, 0) end
  local ok, doc = pcall(jsonin.read, file)
  if not ok then fail(doc) end
  local fits, why = report.check_schema(doc, "card")
  if not fits then fail(("refusing to %s %s: %s"):format(purpose or "render", file, why)) end
  ok, why = pcall(jsonin.check, doc, html.CARD, "card")
  if not ok then fail(file .. ": " .. why) end
  local rows = #(doc.roofline and doc.roofline.rows or {})
  if doc.roofline then
    local bad = table_fault(doc.roofline)
    if bad then fail(("%s: roofline: %s"):format(file, bad)) end
  end
  for i, r in ipairs(doc.recipes or {}) do
    for j, d in ipairs(r.tables or {}) do
      rows = rows + #d.rows
      local bad = table_fault(d)
      if bad then fail(("%s: recipes[%d].tables[%d]: %s"):format(file, i, j, bad)) end
    end
  end
  -- a card written before clua's JSON named its schema: each table compared says so (report.load)
  for _, r in ipairs(doc.schema_note and doc.recipes or {}) do
    for _, x in ipairs(r.tables or {}) do x.schema_note = doc.schema_note end
  end
  if rows > html.MAX_CARD_ROWS then
    fail(("%s: %d rows, more than the %d a card may hold (html.MAX_CARD_ROWS)"):format(file, rows,
      html.MAX_CARD_ROWS))
  end
  return doc, dir
end

--- Whether `name` may name a file of a card's folder: a plain file name (no
-- folder, no `..`, not hidden) ending in .svg.
-- @string name
-- @treturn boolean
function html.figure_name_ok(name)
  return type(name) == "string" and name:match("^[%w_][%w%._%-]*%.svg$") ~= nil and not name:find("..", 1, true)
end

-- A saved figure of the card's folder: its text, or nil and why not. Only a
-- plain name is looked up (html.figure_name_ok), and only a regular file
-- that is no symbolic link is read, to at most svgsafe.MAX_BYTES.
local function read_figure(dir, name)
  if not html.figure_name_ok(name) then return nil, "not a file name of the card's folder" end
  local path = dir .. "/" .. name
  if os.execute(("test -f %s && test ! -L %s"):format(proc.quote(path), proc.quote(path))) ~= true then
    return nil, "no such file in " .. dir
  end
  local f = io.open(path, "rb")
  if not f then return nil, "cannot read it" end
  local text = f:read(svgsafe.MAX_BYTES + 1)
  f:close()
  return text or ""
end

local function positive(v) return type(v) == "number" and v > 0 and v < math.huge end

-- The saved tables of a recipe, for report.compare.
local function saved_of(saved, name)
  for _, r in ipairs(saved and saved.recipes or {}) do
    if r.name == name and r.tables then
      local dev = saved.device and saved.device.name
      if dev and saved.device.index then dev = ("%s [%s]"):format(dev, saved.device.index) end
      return { tables = r.tables, meta = { device = dev, date = saved.date } }
    end
  end
end

--- The report card (recipes/report.lua's JSON document) as one page: the
-- device's facts, each recipe's finding, tables and plots (read from the
-- card's folder of SVG files), every kernel on the roofline (a tip on each
-- point: kernel, intensity, throughput, % of the roof) and its table, and a
-- summary of the noise flags and, with `saved`, of the comparison.
-- @tab doc the card: {device=, date=, clua=, quick=, recipes={...}, roofline=}
-- @tab[opt] opts `dir` (the folder of the SVG files), `saved` (an earlier card's decoded JSON),
--   `compare_file` (its name), `note` (a sentence for the top), `command` (how the card was made)
-- @treturn string
function html.card(doc, opts)
  opts = opts or {}
  local facts = device.from_data(doc.device)
  local tally = html.tally()
  local name = facts.name or "device"
  local b = {}
  local function add(s) b[#b + 1] = s end
  local main = {}
  local function put(s) main[#main + 1] = s end

  -- the recipes, each in its section
  local roofs_rows
  local toc = {}
  for _, r in ipairs(doc.recipes or {}) do
    local id = "recipe-" .. slug(r.name)
    toc[#toc + 1] = ('<li><a href="#%s">%s</a>%s</li>'):format(id, esc(r.name),
      r.error and " (did not run)" or "")
    put(('<section class="recipe" id="%s">'):format(id))
    put("<h2>" .. esc(r.name) .. "</h2>")
    if r.finding and r.finding ~= "" then
      put('<p class="finding">The seed: ' .. esc(r.finding) .. ".</p>")
    end
    if r.error then
      put('<p class="failed"><strong>Did not run:</strong> ' .. esc(r.error) .. "</p>")
    else
      put(("<p class=\"made\"><code>clua recipes/%s.lua%s</code>%s</p>"):format(esc(r.name),
        doc.quick and " --quick" or "", r.seconds and (" (" .. esc(r.seconds) .. " s)") or ""))
      local old = saved_of(opts.saved, r.name)
      for _, d in ipairs(r.tables or {}) do
        if r.name == "roofline" and d.id == "roofs" then roofs_rows = d.rows end
        if d.id ~= roofline.ID then
          local t = report.without_empty(report.from_data(d)) -- no column of "-" only
          if old then t = report.compare(t, old, { file = opts.compare_file }) end
          put(html.table(t, { id = slug(r.name .. "-" .. (d.id or "table")), tally = tally }))
        end
      end
      for _, svg in ipairs(r.svgs or {}) do
        local text, why
        if opts.dir then text, why = read_figure(opts.dir, svg) else why = "no folder of figures" end
        if text then
          put(html.figure(text, { id = slug("figure-" .. svg:gsub("%.svg$", "")), name = svg }))
        else
          put('<p class="failed">Missing plot: ' .. esc(svg) .. " (" .. esc(why) .. ")</p>")
        end
      end
    end
    put("</section>")
  end

  -- every kernel on the roofline
  if doc.roofline and doc.roofline.rows and #doc.roofline.rows > 0 then
    toc[#toc + 1] = '<li><a href="#roofline-all">every kernel on the roofline</a></li>'
    put('<section class="recipe" id="roofline-all">')
    put("<h2>The seed experiments on the roofline</h2>")
    -- a saved card's rows as the plot needs them: roofs and points of numbers
    local good_roofs, points = {}, {}
    for _, r in ipairs(roofs_rows or {}) do
      if type(r.type) == "string" and positive(r.bandwidth) and positive(r.peak) then good_roofs[#good_roofs + 1] = r end
    end
    for _, pt in ipairs(doc.roofline.rows) do
      if positive(pt.intensity) and positive(pt.throughput) and type(pt.kernel) == "string" and type(pt.type) == "string"
        and (pt.recipe == nil or type(pt.recipe) == "string") then points[#points + 1] = pt end
    end
    local roofs = roofline.roofs(good_roofs)
    if not roofs_rows then
      put("<p>No roofs: recipes/roofline.lua was not part of this run, so the points stand alone.</p>")
    end
    local p = #points > 0 and roofline.plot(points, roofs, "The seed experiments on the roofline of " .. name)
    if p then put(html.figure(p:svg({ width = 980, height = 620 }), { id = "figure-roofline-experiments",
      caption = "Every kernel that has operations (a copy or a transpose has none: see the table). "
        .. "Point at a kernel, or tap it, for its intensity, throughput and share of the roof." })) end
    put(html.table(report.without_empty(report.from_data(doc.roofline)), { id = "roofline-placed", tally = tally }))
    put("</section>")
  end

  -- the page: header, summary, device, recipes
  add("<header>")
  add("<h1>Device report: " .. esc(name) .. "</h1>")
  add(('<p class="made">Made by <code>%s</code> on %s with clua %s.</p>'):format(
    esc(opts.command or ("clua recipes/report.lua" .. (doc.quick and " --quick" or ""))),
    esc(doc.date or "?"), esc(doc.clua or "?")))
  if opts.note then add("<p>" .. esc(opts.note) .. "</p>") end
  -- the answer first: the run's headline figures, each with its bound (clua.glance)
  local at_a_glance = glance.table(doc)
  if at_a_glance then
    at_a_glance.title = ""
    add('<section id="glance"><h2>At a glance</h2>')
    add(html.table(at_a_glance, { id = "glance-table" }))
    add("</section>")
  end
  local failed = 0
  for _, r in ipairs(doc.recipes or {}) do
    if r.error and not r.error:match("^not available") then failed = failed + 1 end
  end
  add('<div class="summary">')
  add(("<p><strong>%d recipes, %d ran, %d failed.</strong> %d figures flagged as noise.</p>"):format(
    #(doc.recipes or {}), #(doc.recipes or {}) - failed, failed, tally.noisy))
  if opts.saved then
    add(("<p>Compared with <code>%s</code> (%s, %s): %d better and %d worse beyond the noise, %d changed "
      .. "(no better way known), %d within the noise, %d with no spread to judge.</p>"):format(
      esc(opts.compare_file or "a saved card"), esc(opts.saved.device and opts.saved.device.name or "?"),
      esc(opts.saved.date or "?"), tally.better, tally.worse, tally.changed, tally.within, tally.unjudged))
  end
  add(colour_key(opts.saved ~= nil))
  add("</div>")
  add('<nav class="toc"><ol><li><a href="#device">the device</a></li>' .. table.concat(toc) .. "</ol></nav>")
  add("</header>")
  add("<main>")
  add('<section id="device"><h2>The device</h2><dl class="facts">')
  for _, kv in ipairs(facts:lines()) do add(("<dt>%s</dt><dd>%s</dd>"):format(esc(kv[1]), esc(kv[2]))) end
  add("</dl>")
  if facts.type == "CPU" then
    add("<p>This device is a CPU (an OpenCL implementation running on the host's cores): its figures are "
      .. "CPU figures.</p>")
  end
  add("</section>")
  for _, s in ipairs(main) do add(s) end
  add("</main>")
  add(("<footer><p>%d recipes, %d ran, %d failed. One file: no network, no external scripts or fonts.</p></footer>")
    :format(#(doc.recipes or {}), #(doc.recipes or {}) - failed, failed))
  return html.page{ title = "Device report: " .. name, body = table.concat(b, "\n") }
end

--- Writes `text` to the file `path` (raises when it cannot).
-- @string path
-- @string text
function html.write(path, text)
  local ok, err = pcall(files.write, path, text)
  if not ok then error("html: " .. err, 2) end
end

return html
