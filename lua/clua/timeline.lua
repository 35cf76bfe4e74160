--- clua.timeline: the profiled events of a run, one lane per queue, drawn as a
-- terminal Gantt chart and written as Chrome trace JSON (opens in Perfetto,
-- ui.perfetto.dev, or chrome://tracing).
-- @module clua.timeline
local json = require("dkjson")
local units = require("clua.units")
local options = require("clua.options")
local svg = require("clua.svg")
local esc = svg.esc

local timeline = {}

local Timeline = {}
Timeline.__index = Timeline

-- The character drawn for each kind of command.
timeline.marks = { write = ">", read = "<", copy = "=", kernel = "#", other = "." }

local kind_of_command = {
  ndrange_kernel = "kernel", task = "kernel", native_kernel = "kernel",
  write_buffer = "write", write_buffer_rect = "write", unmap_mem_object = "write",
  read_buffer = "read", read_buffer_rect = "read", map_buffer = "read",
  copy_buffer = "copy", copy_buffer_rect = "copy", fill_buffer = "copy",
}

--- A new, empty timeline (a `Timeline`: the methods `Timeline:...` below).
-- timeline.new([title])
function timeline.new(title)
  return setmetatable({ title = title, entries = {}, lanes = {} }, Timeline)
end

--- Records a command: tl:add(lane, kind, label, event) with `event` a cl event
-- (read after the run: profiling times are taken when the timeline is drawn)
-- or a table {start=ns, ["end"]=ns}. `kind` is "write" (host to device),
-- "read" (device to host), "copy", "kernel" or "other"; nil derives it from
-- the event's command. Returns the timeline.
function Timeline:add(lane, kind, label, event)
  lane = tostring(lane)
  if not self.lanes[lane] then
    self.lanes[#self.lanes + 1] = lane
    self.lanes[lane] = #self.lanes
  end
  self.entries[#self.entries + 1] = { lane = lane, kind = kind, label = label, event = event }
  return self
end

--- The entries with times resolved: {lane=, kind=, label=, start=, finish=}
-- (ns, the first start at 0), in order of start.
function Timeline:resolve()
  if self.resolved then return self.resolved end
  local out, t0 = {}, math.huge
  for i, e in ipairs(self.entries) do
    local ev = e.event
    local kind = e.kind or (ev.command and kind_of_command[ev.command]) or "other"
    out[i] = { lane = e.lane, kind = kind, label = e.label or ev.command or kind,
      start = ev.start, finish = ev["end"] }
    if out[i].start < t0 then t0 = out[i].start end
  end
  for _, e in ipairs(out) do e.start, e.finish = e.start - t0, e.finish - t0 end
  table.sort(out, function(a, b) return a.start < b.start end)
  self.resolved = out
  return out
end

--- A Gantt chart that fits `width` columns (default 80): one line per lane,
-- each command drawn with its kind's mark, and a time axis.
function Timeline:text(width)
  width = width or 80
  local ev = self:resolve()
  local label_w = 4
  for _, l in ipairs(self.lanes) do label_w = math.max(label_w, math.min(12, #l)) end
  local w = width - label_w - 3
  local span = 0
  for _, e in ipairs(ev) do if e.finish > span then span = e.finish end end
  span = math.max(span, 1)
  local rows = {}
  for i = 1, #self.lanes do rows[i] = {} ; for c = 1, w do rows[i][c] = " " end end
  local used = {}
  for _, e in ipairs(ev) do
    local row = rows[self.lanes[e.lane]]
    local a = math.floor(e.start / span * w) + 1
    local b = math.max(a, math.ceil(e.finish / span * w))
    local mark = timeline.marks[e.kind] or timeline.marks.other
    used[e.kind] = true
    for c = a, math.min(b, w) do row[c] = mark end
  end
  local out = {}
  if self.title then out[#out + 1] = self.title end
  for i, l in ipairs(self.lanes) do
    out[#out + 1] = ("%-" .. label_w .. "s |%s|"):format(l:sub(1, label_w), table.concat(rows[i]))
  end
  local right = units.format_time(span)
  out[#out + 1] = (" "):rep(label_w + 2) .. "0" .. (" "):rep(math.max(1, w - 1 - utf8.len(right))) .. right
  local legend = {}
  for _, k in ipairs({ "write", "kernel", "read", "copy", "other" }) do
    if used[k] then
      local name = ({ write = "host to device", read = "device to host" })[k] or k
      legend[#legend + 1] = timeline.marks[k] .. " " .. name
    end
  end
  out[#out + 1] = (" "):rep(label_w + 2) .. table.concat(legend, "   ")
  return table.concat(out, "\n") .. "\n"
end

-- The fill of each kind of command in the SVG.
timeline.colors = { write = "#4e79a7", read = "#59a14f", copy = "#b07aa1", kernel = "#f28e2b", other = "#9c9c9c" }

--- The Gantt chart as an SVG document (a string): a lane per queue, a bar
-- (`class="point"`) per command coloured by its kind, whose title (what a
-- browser shows on hover) gives its label, kind, start and duration; a time
-- axis and a legend. opts.width (default 760).
function Timeline:svg(opts)
  opts = options.check(opts, "Timeline:svg", { "width" })
  local ev = self:resolve()
  local W, left, right, top, lane_h = opts.width or 760, 90, 20, 46, 28
  local H = top + #self.lanes * lane_h + 70
  local pw = W - left - right
  local span = 1
  for _, e in ipairs(ev) do if e.finish > span then span = e.finish end end
  local function px(t) return left + t / span * pw end
  local add, finish = svg.document(W, H, self.title or "timeline", left + pw / 2)
  local bottom = top + #self.lanes * lane_h
  for k = 0, 5 do
    local t = span * k / 5
    add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>', px(t), top, px(t), bottom)
    add('<text x="%.1f" y="%d" text-anchor="middle">%s</text>', px(t), bottom + 16, esc(units.format_time(t)))
  end
  for i, l in ipairs(self.lanes) do
    add('<text x="%d" y="%d" text-anchor="end" dominant-baseline="middle">%s</text>', left - 8,
      top + (i - 0.5) * lane_h, esc(l))
  end
  local used = {}
  for _, e in ipairs(ev) do
    local y = top + (self.lanes[e.lane] - 1) * lane_h + 4
    local x = px(e.start)
    used[e.kind] = true
    add('<rect class="point" x="%.2f" y="%d" width="%.2f" height="%d" fill="%s" stroke="white" stroke-width="0.5">'
      .. '<title>%s (%s, %s): %s from %s</title></rect>', x, y, math.max(0.5, px(e.finish) - x), lane_h - 8,
      timeline.colors[e.kind] or timeline.colors.other, esc(e.label), esc(e.kind), esc(e.lane),
      esc(units.format_time(e.finish - e.start)), esc(units.format_time(e.start)))
  end
  add('<rect x="%d" y="%d" width="%g" height="%d" fill="none" stroke="#333"/>', left, top, pw, bottom - top)
  add('<text x="%g" y="%d" text-anchor="middle">time from the first command</text>', left + pw / 2, bottom + 34)
  local lx = left
  for _, k in ipairs({ "write", "kernel", "read", "copy", "other" }) do
    if used[k] then
      local name = ({ write = "host to device", read = "device to host" })[k] or k
      add('<rect x="%d" y="%d" width="14" height="10" fill="%s"/>', lx, bottom + 46, timeline.colors[k])
      add('<text x="%d" y="%d">%s</text>', lx + 18, bottom + 55, esc(name))
      lx = lx + 30 + 7 * #name
    end
  end
  return finish()
end

--- Chrome trace JSON: one "X" (complete) event per command, ts and dur in µs
-- from the first start; pid 1 is the device (opts.process names it), one tid
-- per lane named by a thread_name metadata event.
function Timeline:trace(opts)
  opts = options.check(opts, "Timeline:trace", { "process" })
  local t = { { ph = "M", name = "process_name", pid = 1, tid = 0,
    args = { name = opts.process or self.title or "device" } } }
  for i, l in ipairs(self.lanes) do
    t[#t + 1] = { ph = "M", name = "thread_name", pid = 1, tid = i, args = { name = l } }
    t[#t + 1] = { ph = "M", name = "thread_sort_index", pid = 1, tid = i, args = { sort_index = i } }
  end
  for _, e in ipairs(self:resolve()) do
    t[#t + 1] = { ph = "X", name = e.label, cat = e.kind, pid = 1, tid = self.lanes[e.lane],
      ts = e.start / 1e3, dur = (e.finish - e.start) / 1e3 }
  end
  return json.encode({ traceEvents = t, displayTimeUnit = "ns" }) .. "\n"
end

--- Writes the Chrome trace to a file.
function Timeline:write_trace(path, opts)
  require("clua.files").write(path, self:trace(opts))
end

return timeline
