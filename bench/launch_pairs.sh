#!/usr/bin/env bash
# bench/launch_pairs.sh: q:launch beside plain C in pairs of new processes
# started by this shell, so that no clua process is alive while they run
# (bench/launch.lua's own process waits on each of its measurements). Each
# round, for a launch with an event and one without, clua's twin
# (bench/launch_clua.lua) and the C program (build/bench/launch) run in an
# order drawn anew; then, for each, the median of the rounds' clua / C
# ratios with its 95% interval (clua.stats.median_ci), and the medians of
# each side's figures. docs/notes/launch.md pools such pairs on the H100.
#
#   bench/launch_pairs.sh [--rounds R] [--seconds S] [--held] [--launcher | --same] [--n N] [--batches B]
#                         [--clua PATH] [--versus PATH] [--csv FILE]
#   bench/launch_pairs.sh --pool FILE... [--clua PATH]
#
# Default: 20 rounds, running, each process's own default of 5 batches of
# 10000 after a warm-up one, build/clua. --held enqueues each batch on a held
# queue on both sides; --n and --batches go to both; --launcher goes to the
# twin, whose launches are then go() of a q:launcher made before its batches. The device is the
# default one (CLUA_DEVICE), given to the C program by name. A line per pair
# as it ends, the summary last. --csv appends each pair to FILE as it ends
# (`held|running,event|none,clua µs,C µs`, the kind `launcher-event` or
# `launcher-none` with --launcher). --same runs the C program on both sides
# (kinds `same-event`, `same-none`, printed as C / C): an A/A run, the ratio
# of two processes that differ in nothing, whose spread is the floor under a
# clua / C figure from as many pairs. --pool measures nothing and
# gives the same summary of the pairs of such files together, for each kind
# of launch they hold, and each file's median ratio under it: runs drift
# apart by more than one run's interval says. --seconds starts no round after the first once S
# seconds have passed since the start, says so, and sums up the rounds done:
# a run that must end within a time limit (a lent machine's) still ends with
# its summary. --versus PATH runs a second clua (another build) as a third
# side of each round, the three in an order drawn anew: two builds weighed in
# the same rounds, where runs of each one after the other would weigh the
# machine's drift between the runs too (on PoCL, 0.1-0.2x; docs/notes/launch.md,
# tenth part). Each of its figures is kept as a kind of its own, `versus-`
# and the clua line's kind (in a CSV file the line after its round's clua
# line), and the summary adds, for each kind of launch, its median ratio to C
# and to clua.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=20 held="" clua=build/clua size=() keep="" pool=() measure="" seconds="" launcher="" same="" versus=""
usage() {
	echo "usage: bench/launch_pairs.sh [--rounds R] [--seconds S] [--held] [--launcher | --same] [--n N] [--batches B] [--clua PATH] [--versus PATH] [--csv FILE]" >&2
	echo "       bench/launch_pairs.sh --pool FILE... [--clua PATH]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--csv) [ $# -ge 2 ] || usage; keep=$2 measure=1; shift 2 ;;
	--pool)
		shift
		while [ $# -gt 0 ] && [[ $1 != --* ]]; do pool+=("$1"); shift; done
		[ ${#pool[@]} -gt 0 ] || usage
		;;
	--rounds) [ $# -ge 2 ] || usage; rounds=$2 measure=1; shift 2 ;;
	--seconds)
		if [ $# -lt 2 ] || ! [[ $2 =~ ^[1-9][0-9]*$ ]]; then usage; fi
		seconds=$2 measure=1
		shift 2
		;;
	--held) held=--held measure=1; shift ;;
	--launcher) launcher=--launcher measure=1; shift ;;
	--same) same=1 measure=1; shift ;;
	--clua) [ $# -ge 2 ] || usage; clua=$2; shift 2 ;;
	--versus) [ $# -ge 2 ] || usage; versus=$2 measure=1; shift 2 ;;
	--n | --batches)
		if [ $# -lt 2 ] || ! [[ $2 =~ ^[1-9][0-9]*$ ]]; then usage; fi
		size+=("$1" "$2")
		measure=1
		shift 2
		;;
	*) usage ;;
	esac
done
[ ${#pool[@]} -eq 0 ] || [ -z "$measure" ] || usage # --pool measures nothing
[ -z "$same" ] || [ -z "$launcher$versus" ] || usage # --same runs no clua
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench/launch_pairs.sh: --rounds takes a positive integer" >&2; exit 2; }
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT

# The summary, by clua.stats, of the pairs in the files named in $CSV (one a
# line): for each kind of launch, the median of the pairs' clua / C ratios
# and its 95% interval; with pairs from several files (--pool), each file's
# median too, as runs drift apart by more than a run's interval says.
summary() {
	"$clua" -e '
local stats = require "clua.stats"
local fig, n, files = {}, 0, {}
for name in os.getenv("CSV"):gmatch("[^\n]+") do files[#files + 1] = name end
for run, name in ipairs(files) do
 local fh, why = io.open(name)
 if not fh then io.stderr:write("bench/launch_pairs.sh: ", why, "\n") os.exit(1) end
 local prev
 for line in fh:lines() do
  local mode, kind, c, C = line:match("^(%a+),([%a-]+),([%d.]+),([%d.]+)$")
  if not mode then io.stderr:write("bench/launch_pairs.sh: not a pair: ", line, "\n") os.exit(1) end
  local f = fig[mode .. "," .. kind] or { clua = {}, C = {}, A = {}, run = {} }
  fig[mode .. "," .. kind] = f
  f.clua[#f.clua + 1], f.C[#f.C + 1], f.run[#f.run + 1], n = tonumber(c), tonumber(C), run, n + 1
  local base = kind:match("^versus%-([%a-]+)$")
  if base then -- the clua line of its round comes just before it
    local pm, pk, pc = (prev or ""):match("^(%a+),([%a-]+),([%d.]+),")
    if pm ~= mode or pk ~= base then
      io.stderr:write("bench/launch_pairs.sh: a versus line not after its clua line: ", line, "\n") os.exit(1)
    end
    f.A[#f.A + 1] = tonumber(pc)
  end
  prev = line
 end
 fh:close()
end
if n == 0 then io.stderr:write("bench/launch_pairs.sh: no pairs\n") os.exit(1) end
print()
for _, mode in ipairs { "running", "held" } do
  for _, kind in ipairs { "event", "none", "launcher-event", "launcher-none", "same-event", "same-none",
    "versus-event", "versus-none", "versus-launcher-event", "versus-launcher-none" } do
    local f = fig[mode .. "," .. kind]
    -- one line: the median of the ratios of side a to side b, named so
    local function line(an, a, bn, b)
      local ratios = {}
      for i = 1, #a do ratios[i] = a[i] / b[i] end
      local lo, hi, cover = stats.median_ci(ratios)
      print(("%-28s %-8s: median %.3f× over %d pairs, %s; medians %s %.3f µs, %s %.3f µs"):format(
        (mode == "held" and "held, " or "") .. (kind:match("launcher") and "go(), " or "")
          .. (kind:match("^versus") and "versus, " or "") .. (kind:match("event$") and "with an event" or "without"),
        an .. " / " .. bn, stats.median(ratios), #ratios,
        cover >= 0.95 and ("95%% CI %.3f–%.3f× (coverage %.0f%%)"):format(lo, hi, cover * 100)
          or ("too few pairs for a 95%% interval (%d; 6 or more)"):format(#ratios),
        an, stats.median(a), bn, stats.median(b)))
      local by, meds, text = {}, {}, {}
      for i = 1, #ratios do
        by[f.run[i]] = by[f.run[i]] or {}
        table.insert(by[f.run[i]], ratios[i])
      end
      for run = 1, #files do
        if by[run] then
          meds[#meds + 1] = stats.median(by[run])
          text[#text + 1] = ("%.3f×"):format(meds[#meds])
        end
      end
      if #meds > 1 then
        local lo, hi = math.min(table.unpack(meds)), math.max(table.unpack(meds))
        print(("%-28s %-8s  each file: %s (from %.3f× to %.3f×)"):format("", "", table.concat(text, ", "), lo, hi))
      end
    end
    if f and kind:match("^versus") then
      line("versus", f.clua, "C", f.C)
      line("versus", f.clua, "clua", f.A)
    elseif f then
      line(kind:match("^same") and "C" or "clua", f.clua, "C", f.C)
    end
  end
end'
}

if [ ${#pool[@]} -gt 0 ]; then
	CSV=$(printf '%s\n' "${pool[@]}")
	export CSV
	echo "empty-kernel launches, clua's twin and the C program in pairs of new processes: the pairs of ${#pool[@]} file(s) together"
	summary
	exit
fi

cprog=build/bench/launch
[ -x "$cprog" ] || { echo "bench/launch_pairs.sh: build $cprog first: make -f bench/Makefile" >&2; exit 1; }
name=$("$clua" -e 'print(require("cl").device().name)')

# One process: its median µs per launch.
one() { # side kind
	local extra=$held out
	[ "$2" = event ] && extra="--event $held"
	local twin=$clua
	[ "$1" = versus ] && twin=$versus
	# shellcheck disable=SC2086 # $extra: the options, split on purpose
	if [ "$1" = versus ] || { [ "$1" = clua ] && [ -z "$same" ]; }; then out=$("$twin" bench/launch_clua.lua "${size[@]}" $extra $launcher 2>&1) || { echo "$out" >&2; return 1; }
	else out=$("$cprog" --device "$name" --kernels "$PWD/kernels" "${size[@]}" $extra 2>&1) || { echo "$out" >&2; return 1; }; fi
	awk '/^launch[a-z_]*_us / { print $2 }' <<<"$out"
}

echo "empty-kernel launches, $([ -n "$same" ] && echo "the C program on both sides (A/A: clua's column a second C process)" || echo "clua's twin$([ -n "$launcher" ] && echo " (q:launcher)") and the C program") in pairs of new processes, the order drawn each round$([ -n "$held" ] && echo ", on a held queue"): µs per launch"
echo "device: $name"
[ -z "$versus" ] || echo "versus: $versus, a third side each round (its lines: versus, and its ratio to C)"
printf '%-6s %-14s %10s %10s %8s  %s\n' round launch clua C clua/C first
mode=$([ -n "$held" ] && echo held || echo running)
for r in $(seq 1 "$rounds"); do
	if [ -n "$seconds" ] && [ "$r" -gt 1 ] && [ "$SECONDS" -ge "$seconds" ]; then
		echo "--seconds $seconds: stopped after $((r - 1)) of $rounds rounds"
		break
	fi
	for kind in event none; do
		if [ -n "$versus" ]; then order=$(shuf -e clua C versus | tr '\n' ' ')
		elif [ $((RANDOM % 2)) = 0 ]; then order="clua C"; else order="C clua"; fi
		declare -A v=()
		for side in $order; do
			v[$side]=$(one "$side" "$kind")
			[ -n "${v[$side]}" ] || { echo "bench/launch_pairs.sh: $side gave no figure" >&2; exit 1; }
		done
		echo "$mode,${launcher:+launcher-}${same:+same-}$kind,${v[clua]},${v[C]}" >>"$csv"
		[ -z "$versus" ] || echo "$mode,versus-${launcher:+launcher-}$kind,${v[versus]},${v[C]}" >>"$csv"
		[ -z "$keep" ] || tail -n "$([ -n "$versus" ] && echo 2 || echo 1)" "$csv" >>"$keep"
		printf '%-6s %-14s %10s %10s %7.3f×  %s\n' "$r" "$([ $kind = event ] && echo "with an event" || echo "without")" \
			"${v[clua]}" "${v[C]}" "$(awk -v a="${v[clua]}" -v b="${v[C]}" 'BEGIN { print a / b }')" "${order%% *}"
		[ -z "$versus" ] || printf '%-6s %-14s %10s %10s %7.3f×\n' "" "versus" "${v[versus]}" "${v[C]}" \
			"$(awk -v a="${v[versus]}" -v b="${v[C]}" 'BEGIN { print a / b }')"
		unset v
	done
done

# The summary, once every measurement has ended.
export CSV=$csv
summary
