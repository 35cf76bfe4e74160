--- clua.plot: a sweep (x against one or more series) as a terminal chart that
-- fits 80 columns and as an SVG file with labelled axes, units and a legend.
-- @module clua.plot
local units = require("clua.units")
local options = require("clua.options")
local svg = require("clua.svg")
local esc = svg.esc

local plot = {}

local Plot = {}
Plot.__index = Plot

plot.markers = { "*", "o", "+", "x", "#", "@", "%", "&" }
plot.colors = { "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#9c755f" }

plot.OPTIONS = { "title", "x", "y", "series" }
plot.AXIS = { "name", "unit", "log2", "format", "from" }

--- A new plot (a `Plot`: the methods `Plot:...` below).
-- plot.new{title=, x={name=, unit=, log2=, format=}, y={name=, unit=, format=, from=},
--          series={{name=, points={{x, y}, ...}}, ...}}
-- x.log2 draws x on a log2 scale (size sweeps), y.log2 y (a roofline: both,
-- with ticks at powers of 10 where they fit); x.format/y.format turn a value
-- into a tick label (default: units.format_size when the unit is "bytes",
-- else units.format_number); y.from is the bottom of the y axis (default 0,
-- or the data's minimum when it is negative).
function plot.new(spec)
  options.check(spec, "plot.new", plot.OPTIONS)
  options.check(spec.x, "plot.new: x", plot.AXIS)
  options.check(spec.y, "plot.new: y", plot.AXIS)
  for _, s in ipairs(spec.series or {}) do options.check(s, "plot.new: a series", { "name", "points" }) end
  local p = setmetatable({ title = spec.title or "", x = spec.x or {}, y = spec.y or {},
    series = {} }, Plot)
  for _, s in ipairs(spec.series or {}) do
    for _, pt in ipairs(s.points or {}) do p:add(s.name, pt[1], pt[2]) end
  end
  return p
end

local function series_of(p, name)
  name = tostring(name or "")
  for _, t in ipairs(p.series) do if t.name == name then return t end end
  local s = { name = name, points = {} }
  p.series[#p.series + 1] = s
  return s
end

--- Adds the point (x, y) to the series `name` (created on first use);
-- `label`, when given, is written beside the point in the SVG; `tip`, when
-- given, is what a browser shows when the pointer is on the point (default:
-- the series, x and y). A point that a log2 axis cannot show (x or y not
-- above 0 there) is left out.
function Plot:add(name, x, y, label, tip)
  local s = series_of(self, name)
  if type(x) == "number" and type(y) == "number" and y == y
    and not (self.x.log2 and x <= 0) and not (self.y.log2 and y <= 0) then
    s.points[#s.points + 1] = { x, y, label, tip }
  end
  return self
end

--- How the series `name` is drawn: `{line = false}` for points alone (a
-- scatter of labelled points), `{dashed = true}` for a dashed line (a roof).
function Plot:style(name, style)
  style = options.check(style, "Plot:style", { "line", "dashed" })
  local s = series_of(self, name)
  s.line, s.dashed = style.line, style.dashed
  return self
end

--- A plot from a report's rows: x from column `xcol`, y from `ycol`, one
-- series per distinct value of `bycol` (or a single series named after ycol).
function plot.from_report(t, xcol, ycol, bycol, spec)
  spec = options.check(spec, "plot.from_report", { "title", "x", "y" })
  local xc, yc = t:column(xcol) or {}, t:column(ycol) or {}
  local p = plot.new{ title = spec.title or t.title,
    x = spec.x or { name = xcol, unit = xc.unit }, y = spec.y or { name = ycol, unit = yc.unit } }
  for _, row in ipairs(t.rows) do
    p:add(bycol and row[bycol] or ycol, row[xcol], row[ycol])
  end
  return p
end

local function label_of(axis)
  local extra = {}
  if axis.unit and axis.unit ~= "" then extra[#extra + 1] = axis.unit end
  if axis.log2 then extra[#extra + 1] = "log2 scale" end
  if #extra == 0 then return axis.name or "" end
  return ("%s (%s)"):format(axis.name or "", table.concat(extra, ", "))
end

-- Tick labels: whole numbers as integers, others with three significant digits.
local function tick_number(v)
  if v == math.floor(v) and math.abs(v) < 1e15 then return ("%d"):format(math.tointeger(v)) end
  return ("%.3g"):format(v)
end

local function formatter(axis)
  if axis.format then return axis.format end
  if axis.unit == "bytes" or axis.unit == "B" then return units.format_size end
  return tick_number
end

local function log2(v) return math.log(v, 2) end
local function same(v) return v end

--- Data ranges, with the axes' transforms applied (log2 when asked): tx, ty
-- and the ranges in transformed units.
function Plot:ranges()
  local tx = self.x.log2 and log2 or same
  local ty = self.y.log2 and log2 or same
  local xmin, xmax, ymin, ymax = math.huge, -math.huge, math.huge, -math.huge
  local xs, seen = {}, {}
  for _, s in ipairs(self.series) do
    for _, pt in ipairs(s.points) do
      local x, y = tx(pt[1]), ty(pt[2])
      xmin, xmax = math.min(xmin, x), math.max(xmax, x)
      ymin, ymax = math.min(ymin, y), math.max(ymax, y)
      if not seen[pt[1]] then seen[pt[1]] = true; xs[#xs + 1] = pt[1] end
    end
  end
  if xmin > xmax then xmin, xmax, ymin, ymax = 0, 1, 0, 1 end
  if xmax == xmin then xmin, xmax = xmin - 1, xmax + 1 end
  local lo
  if self.y.log2 then
    lo = math.floor(ymin)
    ymax = math.max(math.ceil(ymax), lo + 1)
  else
    lo = self.y.from or math.min(0, ymin)
    if ymax <= lo then ymax = lo + 1 end
  end
  table.sort(xs)
  return { tx = tx, ty = ty, xmin = xmin, xmax = xmax, ymin = lo, ymax = ymax, xs = xs }
end

-- The y ticks, in transformed units: round values on a linear axis; on a
-- log2 axis the powers of 10 inside the range (powers of 2 where fewer than
-- two fit).
local function y_ticks(self, r, n)
  if not self.y.log2 then return plot.ticks(r.ymin, r.ymax, n) end
  local t = {}
  for k = math.ceil(r.ymin / log2(10) - 1e-9), math.floor(r.ymax / log2(10) + 1e-9) do
    t[#t + 1] = k * log2(10)
  end
  if #t < 2 then
    t = {}
    local step = math.max(1, math.ceil((r.ymax - r.ymin) / n))
    for v = r.ymin, r.ymax, step do t[#t + 1] = v end
  end
  return t
end

--- Round tick positions covering [lo, hi]: about n of them, steps of 1, 2 or 5 x 10^k.
function plot.ticks(lo, hi, n)
  n = n or 5
  local raw = (hi - lo) / n
  local mag = 10 ^ math.floor(math.log(raw, 10))
  local step = mag
  for _, m in ipairs({ 1, 2, 5, 10 }) do
    if m * mag >= raw then step = m * mag; break end
  end
  local t = {}
  local v = math.floor(lo / step + 1e-9) * step
  while v < hi + step * 0.999 do t[#t + 1] = v; v = v + step end
  return t
end

-- The x values to label: the data's x values (all of them if they fit, else
-- an even selection), or round ticks on a linear axis.
local function x_ticks(r, is_log, max)
  if is_log then
    local xs = r.xs
    if #xs <= max then return xs end
    local out, stride = {}, math.ceil(#xs / max)
    for i = 1, #xs, stride do out[#out + 1] = xs[i] end
    return out
  end
  return plot.ticks(r.xmin, r.xmax, math.min(max, 6))
end

--- The width of `text` drawn at `size` px, estimated (no font metrics in
-- Lua): 0.62 em a character, wide enough for DejaVu Sans and its kin.
-- @string text
-- @number size the font size (px)
-- @treturn number
function plot.text_width(text, size)
  return (utf8.len(tostring(text)) or #tostring(text)) * size * 0.62
end

local function is_pow2(v)
  if v <= 0 then return false end
  local e = math.log(v, 2)
  return math.abs(e - math.floor(e + 0.5)) < 1e-9
end

-- The x ticks of the SVG: on a log2 axis the data's x values where they
-- are all powers of 2, or all whole numbers that fit side by side; else the
-- powers of 2 in the range; on a linear axis round steps. Of those, every
-- k-th for the smallest k at which no two labels (`size` px) come closer
-- than 10 px.
local function svg_x_ticks(r, is_log, fx, px, size)
  local function fits(c, k)
    local last
    for i = 1, #c, k do
      local X, w = px(c[i]), plot.text_width(fx(c[i]), size)
      if last and X - w / 2 < last + 10 then return false end
      last = X + w / 2
    end
    return true
  end
  local c
  if is_log then
    local round, pow2 = true, true
    for _, x in ipairs(r.xs) do
      round = round and x == math.floor(x)
      pow2 = pow2 and is_pow2(x)
    end
    c = r.xs
    if not (pow2 or round and fits(c, 1)) then -- whole numbers only where every one fits
      c = {}
      for e = math.ceil(r.xmin - 1e-9), math.floor(r.xmax + 1e-9) do c[#c + 1] = 2 ^ e end
    end
  else
    c = plot.ticks(r.xmin, r.xmax, 6)
  end
  local k = 1
  while k < #c and not fits(c, k) do k = k + 1 end
  local out = {}
  for i = 1, #c, k do out[#out + 1] = c[i] end
  return out
end

-- Where each point's label goes so that no two labels meet and each stays
-- inside `area` {x0, y0, x1, y1}: the first free place of eight around the
-- point, else none (the point keeps its tip). Returns, per item, {x, y,
-- anchor} or false.
local function place_labels(items, area)
  local taken = {}
  local spots = { { 5, -4, "start" }, { 5, 11, "start" }, { -5, -4, "end" }, { -5, 11, "end" },
    { 0, -8, "middle" }, { 0, 16, "middle" }, { 5, -14, "start" }, { -5, 21, "end" } }
  local out = {}
  for i, it in ipairs(items) do
    local w, h = plot.text_width(it.text, it.size), it.size
    out[i] = false
    for _, s in ipairs(spots) do
      local x, y = it.x + s[1], it.y + s[2]
      local x0 = s[3] == "start" and x or s[3] == "end" and x - w or x - w / 2
      local b = { x0 - 1, y - h, x0 + w + 1, y + h * 0.3 }
      local free = b[1] >= area[1] and b[3] <= area[3] and b[2] >= area[2] and b[4] <= area[4]
      for _, o in ipairs(taken) do
        if not free then break end
        free = b[3] <= o[1] or o[3] <= b[1] or b[4] <= o[2] or o[4] <= b[2]
      end
      if free then
        taken[#taken + 1] = b
        out[i] = { x, y, s[3] }
        break
      end
    end
  end
  return out
end

-- The ranges, `ticks` y ticks, the top of the y axis and the x and y label
-- formatters (fy of a tick, fy0 of a value) shared by the text and SVG charts.
local function axes(self, ticks)
  local r = self:ranges()
  local yt = y_ticks(self, r, ticks)
  local fy0 = formatter(self.y)
  local fy = self.y.log2 and function(v) return fy0(2 ^ v) end or fy0
  return r, yt, math.max(r.ymax, yt[#yt]), formatter(self.x), fy, fy0
end

--- The chart as text, `width` columns (default 80) by `height` plot rows (default 16).
function Plot:text(width, height)
  width, height = width or 80, height or 16
  local r, yt, ymax, fx, fy = axes(self, 4)
  local lw = 0
  for _, v in ipairs(yt) do lw = math.max(lw, utf8.len(fy(v))) end
  local w = width - lw - 2
  local grid = {}
  for i = 1, height do grid[i] = {}; for j = 1, w do grid[i][j] = " " end end
  local function col(x) return math.floor((r.tx(x) - r.xmin) / (r.xmax - r.xmin) * (w - 1) + 0.5) + 1 end
  local function row(y) return height - math.floor((y - r.ymin) / (ymax - r.ymin) * (height - 1) + 0.5) end
  for k, s in ipairs(self.series) do
    local m = plot.markers[(k - 1) % #plot.markers + 1]
    for _, pt in ipairs(s.points) do
      local i, j = row(r.ty(pt[2])), col(pt[1])
      if grid[i] and grid[i][j] then grid[i][j] = m end
    end
  end
  local ylabel = {}
  for _, v in ipairs(yt) do ylabel[row(v)] = fy(v) end
  local out = {}
  if self.title ~= "" then out[#out + 1] = self.title end
  out[#out + 1] = label_of(self.y)
  for i = 1, height do
    local l = ylabel[i] or ""
    out[#out + 1] = (" "):rep(lw - utf8.len(l)) .. l .. (ylabel[i] and " +" or " |") .. table.concat(grid[i])
  end
  local axis, labels = {}, {}
  for j = 1, w do axis[j] = "-"; labels[j] = " " end
  local last = -1
  for _, x in ipairs(x_ticks(r, self.x.log2, w // 8)) do
    local j, s = col(x), fx(x)
    axis[j] = "+"
    local a = math.max(1, math.min(j - utf8.len(s) // 2, w - utf8.len(s) + 1))
    if a > last + 1 then
      local k = a
      for _, code in utf8.codes(s) do labels[k] = utf8.char(code); k = k + 1 end
      last = k - 1
    end
  end
  out[#out + 1] = (" "):rep(lw) .. " +" .. table.concat(axis)
  out[#out + 1] = (" "):rep(lw + 2) .. (table.concat(labels):gsub("%s+$", ""))
  local xl = label_of(self.x)
  out[#out + 1] = (" "):rep(lw + 2 + math.max(0, (w - utf8.len(xl)) // 2)) .. xl
  local legend = {}
  for k, s in ipairs(self.series) do
    legend[#legend + 1] = plot.markers[(k - 1) % #plot.markers + 1] .. " " .. s.name
  end
  out[#out + 1] = (" "):rep(lw + 2) .. table.concat(legend, "   ")
  return table.concat(out, "\n") .. "\n"
end

--- The chart as an SVG document (a string).
function Plot:svg(opts)
  opts = options.check(opts, "Plot:svg", { "width", "height" })
  local W, H = opts.width or 760, opts.height or 460
  local r, yt, ymax, fx, fy, fy0 = axes(self, 5)
  -- the left margin holds the widest y label beside the axis's name
  local yw = 0
  for _, v in ipairs(yt) do yw = math.max(yw, plot.text_width(fy(v), 12)) end
  local left, right, top, bottom = math.max(80, math.ceil(yw) + 36), 170, 46, 64
  local pw, ph = W - left - right, H - top - bottom
  local function px(x) return left + (r.tx(x) - r.xmin) / (r.xmax - r.xmin) * pw end
  local function py(y) return top + ph - (r.ty(y) - r.ymin) / (ymax - r.ymin) * ph end
  local function pyt(v) return top + ph - (v - r.ymin) / (ymax - r.ymin) * ph end -- a transformed value
  local add, finish = svg.document(W, H, self.title, left + pw / 2)
  for _, v in ipairs(yt) do
    local y = pyt(v)
    add('<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="#ddd"/>', left, y, left + pw, y)
    add('<text x="%g" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>',
      left - 6, y, esc(fy(v)))
  end
  for _, x in ipairs(svg_x_ticks(r, self.x.log2, fx, px, 12)) do
    local X = px(x)
    add('<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="#333"/>', X, top + ph, X, top + ph + 5)
    add('<text x="%.1f" y="%g" text-anchor="middle">%s</text>', X, top + ph + 18, esc(fx(x)))
  end
  add('<rect x="%g" y="%g" width="%g" height="%g" fill="none" stroke="#333"/>', left, top, pw, ph)
  add('<text x="%g" y="%g" text-anchor="middle">%s</text>', left + pw / 2, H - 18,
    esc(label_of(self.x)))
  add('<text x="16" y="%g" text-anchor="middle" transform="rotate(-90 16 %g)">%s</text>',
    top + ph / 2, top + ph / 2, esc(label_of(self.y)))
  -- the points' labels, placed where no two meet (in the order the series give them)
  local items = {}
  for _, s in ipairs(self.series) do
    for _, pt in ipairs(s.points) do
      if pt[3] then items[#items + 1] = { x = px(pt[1]), y = py(pt[2]), text = pt[3], size = 9, pt = pt } end
    end
  end
  local where = place_labels(items, { left + 1, top + 1, left + pw - 1, top + ph - 1 })
  local at, unplaced = {}, 0
  for i, it in ipairs(items) do
    at[it.pt] = where[i]
    if not where[i] then unplaced = unplaced + 1 end
  end
  for k, s in ipairs(self.series) do
    local color = plot.colors[(k - 1) % #plot.colors + 1]
    local pts = {}
    local sorted = table.move(s.points, 1, #s.points, 1, {})
    table.sort(sorted, function(a, b) return a[1] < b[1] end)
    for i, pt in ipairs(sorted) do pts[i] = ("%.1f,%.1f"):format(px(pt[1]), py(pt[2])) end
    add('<g class="series"><title>%s</title>', esc(s.name))
    if #pts > 1 and s.line ~= false then
      add('<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>', color,
        s.dashed and ' stroke-dasharray="6 4"' or "", table.concat(pts, " "))
    end
    for _, pt in ipairs(sorted) do
      if not s.dashed then
        local tip = pt[4] or ("%s: %s, %s"):format(s.name, fx(pt[1]), fy0(pt[2]))
        add('<circle class="point" cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s</title></circle>', px(pt[1]),
          py(pt[2]), color, esc(tip))
      end
      local spot = at[pt]
      if spot then
        add('<text x="%.1f" y="%.1f" font-size="9" fill="%s"%s>%s</text>', spot[1], spot[2], color,
          spot[3] ~= "start" and (' text-anchor="' .. spot[3] .. '"') or "", esc(pt[3]))
      end
    end
    add('</g>')
    local ly = top + 10 + (k - 1) * 20
    add('<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2"/>',
      left + pw + 14, ly, left + pw + 38, ly, color)
    add('<text x="%g" y="%g" dominant-baseline="middle">%s</text>', left + pw + 44, ly, esc(s.name))
  end
  if unplaced > 0 then
    add('<text x="%g" y="%g" font-size="10" fill="#555">%s</text>', left, H - 4, esc(("%d of %d labels left out "
      .. "where they would cover another (the pointer on a point shows its name)"):format(unplaced, #items)))
  end
  return finish()
end

--- Writes the SVG to a file.
function Plot:write_svg(path, opts)
  require("clua.files").write(path, self:svg(opts))
end

return plot
