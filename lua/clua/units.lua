--- clua.units: bandwidth, sizes and times, parsed and printed one way everywhere.
-- Times are integer nanoseconds (as cl.now() and event profiling give them);
-- bandwidth is bytes per second divided by a stated divisor (10^9 or 2^30).
-- @module clua.units
local units = {}

units.GB = 1e9        -- the default divisor: GB/s
units.GiB = 2 ^ 30    -- on request (--gib): GiB/s

--- Effective bandwidth of `bytes` (read + written) moved in `ns` nanoseconds,
-- in units of `divisor` bytes per second (default units.GB).
function units.gbps(bytes, ns, divisor)
  return bytes / ns * 1e9 / (divisor or units.GB)
end

--- "GB/s" or "GiB/s".
function units.bw_unit(divisor)
  return (divisor or units.GB) == units.GiB and "GiB/s" or "GB/s"
end

--- The unit with its divisor stated: "GB/s (10^9 B/s)" or "GiB/s (2^30 B/s)".
function units.bw_header(divisor)
  if (divisor or units.GB) == units.GiB then return "GiB/s (2^30 B/s)" end
  return "GB/s (10^9 B/s)"
end

local multipliers = {
  [""] = 1, b = 1,
  k = 2 ^ 10, m = 2 ^ 20, g = 2 ^ 30, t = 2 ^ 40,
  kib = 2 ^ 10, mib = 2 ^ 20, gib = 2 ^ 30, tib = 2 ^ 40,
  kb = 1e3, mb = 1e6, gb = 1e9, tb = 1e12,
}

--- Bytes from "4096", "1e6", "1K" (binary: K M G T are powers of 1024),
-- "256 MiB", "64MiB", "1.5GiB", "10 MB" (decimal: kB MB GB TB).
-- Returns an integer, or nil and a message (so it serves as an argparse convert).
function units.parse_size(s)
  if type(s) == "number" then s = tostring(s) end
  if type(s) ~= "string" then return nil, "size expected, got " .. type(s) end
  local num, suffix = s:match("^%s*([%d%.]+[eE]?[%+%-]?%d*)%s*(%a*)%s*$")
  local x, mult = tonumber(num), multipliers[(suffix or ""):lower()]
  if not x or not mult then
    return nil, ("bad size '%s' (try 4096, 1e6, 64K, 256 MiB, 1.5GiB)"):format(s)
  end
  local bytes = x * mult
  if bytes ~= math.floor(bytes) or bytes < 0 then
    return nil, ("size '%s' is not a whole number of bytes"):format(s)
  end
  if bytes >= 2 ^ 63 then return nil, ("size '%s' is too large"):format(s) end
  return math.tointeger(bytes)
end

-- Three significant digits, never in exponent form for 0.01 <= v < 1000.
local function sig3(v)
  local a = math.abs(v)
  local s
  if a >= 100 then s = ("%.0f"):format(v)
  elseif a >= 10 then s = ("%.1f"):format(v)
  else s = ("%.2f"):format(v) end
  return s
end

--- "512 B", "1 KiB", "1.5 KiB", "256 MiB", "80 GiB".
function units.format_size(bytes)
  local names = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" }
  local i, v = 1, bytes
  while math.abs(v) >= 1024 and i < #names do v, i = v / 1024, i + 1 end
  if v == math.floor(v) then return ("%d %s"):format(math.tointeger(v) or v, names[i]) end
  return ("%s %s"):format((("%.2f"):format(v):gsub("0+$", ""):gsub("%.$", "")), names[i])
end

--- "850 ns", "12.3 µs", "4.07 ms", "1.25 s" (three significant digits).
function units.format_time(ns)
  if ns ~= ns then return "nan" end
  local steps = { { 1, "ns" }, { 1e3, "µs" }, { 1e6, "ms" }, { 1e9, "s" } }
  local a, i = math.abs(ns), 1
  while i < #steps and a >= steps[i + 1][1] do i = i + 1 end
  if i == 1 then return ("%.0f ns"):format(ns) end
  local s = sig3(ns / steps[i][1])
  if s:match("^%-?1000") and i < #steps then s = sig3(ns / steps[i + 1][1]); i = i + 1 end
  return s .. " " .. steps[i][2]
end

--- A number for a table cell: integers as is, others with about four significant digits.
function units.format_number(v)
  if type(v) ~= "number" then return tostring(v) end
  if math.type(v) == "integer" then return tostring(v) end
  if v ~= v then return "nan" end
  local a = math.abs(v)
  if a == math.huge then return v > 0 and "inf" or "-inf" end
  if a >= 1000 then return ("%.0f"):format(v) end
  if a >= 100 then return ("%.1f"):format(v) end
  if a >= 10 then return ("%.2f"):format(v) end
  if a >= 0.001 or a == 0 then return ("%.3f"):format(v) end
  return ("%.3g"):format(v)
end

return units
