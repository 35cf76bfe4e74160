#!/usr/bin/env bash
# bench/launch_layers.sh: clua's layer over OpenCL beside PyOpenCL's, the
# issue's other yardstick (clua's layer should cost a fifth of PyOpenCL's).
# Each round runs, in an order drawn anew, three processes on the default
# device, each enqueueing the empty kernel with an event (PyOpenCL returns
# one from every enqueue): the C program (build/bench/launch --event), clua's
# twin (bench/launch_clua.lua --event) and PyOpenCL
# (bench/launch_pyopencl.py). Then each side's median in µs per launch,
# and the median over the rounds, with its 95% interval (clua.stats), of
# clua / C and of clua's share of PyOpenCL's layer, (clua - C) / (PyOpenCL - C).
#
#   bench/launch_layers.sh [--rounds R] [--n N] [--batches B] [--clua PATH] [--python PATH]
#
# Default: 20 rounds of 5 batches of 10000 after a warm-up batch, build/clua,
# /usr/bin/python3 with Debian's python3-pyopencl (not installed by make
# setup). PyOpenCL takes the first device of the first platform: the script
# stops when that is not clua's default device.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=20 n=10000 batches=5 clua=build/clua python=/usr/bin/python3
usage() {
	echo "usage: bench/launch_layers.sh [--rounds R] [--n N] [--batches B] [--clua PATH] [--python PATH]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--rounds | --n | --batches)
		if [ $# -lt 2 ] || ! [[ $2 =~ ^[1-9][0-9]*$ ]]; then usage; fi
		case $1 in --rounds) rounds=$2 ;; --n) n=$2 ;; --batches) batches=$2 ;; esac
		shift 2
		;;
	--clua) [ $# -ge 2 ] || usage; clua=$2; shift 2 ;;
	--python) [ $# -ge 2 ] || usage; python=$2; shift 2 ;;
	*) usage ;;
	esac
done
cprog=build/bench/launch
[ -x "$cprog" ] || { echo "bench/launch_layers.sh: build $cprog first: make -f bench/Makefile" >&2; exit 1; }
name=$("$clua" -e 'print(require("cl").device().name)')
pyname=$("$python" bench/launch_pyopencl.py 1 1 2>&1) || { echo "bench/launch_layers.sh: $pyname" >&2; exit 1; }
pyname=$(sed -n 's/^device: \(.*\) (PyOpenCL .*)$/\1/p' <<<"$pyname")
if [ "$pyname" != "$name" ]; then
	echo "bench/launch_layers.sh: PyOpenCL's first device is '$pyname', clua's default device '$name'" >&2
	exit 1
fi
csv=$(mktemp)
trap 'rm -f "$csv"' EXIT

# One process: its median µs per launch.
one() { # side
	local out
	case $1 in
	C) out=$("$cprog" --device "$name" --kernels "$PWD/kernels" --n "$n" --batches "$batches" --event 2>&1) ;;
	clua) out=$("$clua" bench/launch_clua.lua --n "$n" --batches "$batches" --event 2>&1) ;;
	PyOpenCL) out=$("$python" bench/launch_pyopencl.py "$n" "$batches" 2>&1) ;;
	esac || { echo "$out" >&2; return 1; }
	awk '/^(launch_event|pyopencl_launch)_us / { print $2 }' <<<"$out"
}

echo "empty-kernel launches with an event: the C program, clua's twin and PyOpenCL, each round a process each in an order drawn anew: µs per launch"
echo "device: $name"
printf '%-6s %10s %10s %10s %12s  %s\n' round C clua PyOpenCL "clua share" order
for r in $(seq 1 "$rounds"); do
	declare -A v=()
	order=$(printf 'C\nclua\nPyOpenCL\n' | shuf | paste -sd ' ')
	for side in $order; do
		v[$side]=$(one "$side")
		[ -n "${v[$side]}" ] || { echo "bench/launch_layers.sh: $side gave no figure" >&2; exit 1; }
	done
	echo "${v[C]},${v[clua]},${v[PyOpenCL]}" >>"$csv"
	printf '%-6s %10s %10s %10s %12s  %s\n' "$r" "${v[C]}" "${v[clua]}" "${v[PyOpenCL]}" \
		"$(awk -v c="${v[C]}" -v l="${v[clua]}" -v p="${v[PyOpenCL]}" 'BEGIN { printf "%.3f", (l - c) / (p - c) }')" "$order"
	unset v
done

CSV=$csv "$clua" -e '
local stats = require "clua.stats"
local C, clua, py, ratio, share = {}, {}, {}, {}, {}
for line in io.lines(os.getenv("CSV")) do
  local c, l, p = line:match("^([%d.]+),([%d.]+),([%d.]+)$")
  c, l, p = tonumber(c), tonumber(l), tonumber(p)
  C[#C + 1], clua[#clua + 1], py[#py + 1], ratio[#ratio + 1] = c, l, p, l / c
  share[#share + 1] = (l - c) / (p - c)
end
local function line(label, v, fmt)
  local lo, hi, cover = stats.median_ci(v)
  print(("%-40s median " .. fmt .. " over %d rounds, %s"):format(label, stats.median(v), #v,
    cover >= 0.95 and ("95%% CI " .. fmt .. "–" .. fmt .. " (coverage %.0f%%)"):format(lo, hi, cover * 100)
      or ("too few rounds for a 95%% interval (%d; 6 or more)"):format(#v)))
end
print()
print(("medians: C %.3f µs, clua %.3f µs, PyOpenCL %.3f µs"):format(stats.median(C), stats.median(clua), stats.median(py)))
line("clua / C", ratio, "%.3f×")
line("(clua - C) / (PyOpenCL - C)", share, "%.3f")'
