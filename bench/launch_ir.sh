#!/usr/bin/env bash
# bench/launch_ir.sh: what one empty-kernel launch costs the enqueuing
# thread, in instructions, clua's q:launch beside plain C
# (build/bench/launch) on the default device, under valgrind's callgrind.
# Instruction counts repeat to a few in 10^4 from run to run, where times on
# a small shared CPU move by 2x (docs/notes/launch.md), so each change to the hot
# path can be weighed exactly. Each side runs twice, with N1 and N2 launches
# after the same start-up; the difference over the difference in launches is
# the cost of one launch (start-up, kernel build and exit cancel out).
#
#   bench/launch_ir.sh [CLUA] [N1 N2]        (default build/clua, 1000 6000)
#
# Prints instructions per launch of the enqueuing thread, with and without an
# event, clua and C, the ratios, and where clua's instructions go (callgrind's
# inclusive counts per launch of clua's own functions). Needs valgrind and
# build/bench/launch (make -f bench/Makefile). Slow: about a minute on PoCL.
set -euo pipefail
cd "$(dirname "$0")/.."
clua=$(realpath "${1:-build/clua}")
n1=${2:-1000} n2=${3:-6000}
cprog=$(realpath build/bench/launch)
command -v valgrind >/dev/null || { echo "launch_ir: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
[ -x "$cprog" ] || { echo "launch_ir: build $cprog first: make -f bench/Makefile" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The clua side: bench/launch_clua.lua, the C program's twin (same options).
twin=$PWD/bench/launch_clua.lua

# Instructions of the run's first thread (the one that enqueues).
ir() { # name command...
	local name=$1
	shift
	(cd "$tmp" && valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$tmp/$name.%p" "$@" \
		>"$tmp/$name.log" 2>&1) || { cat "$tmp/$name.log" >&2; exit 1; }
	local f
	f=$(ls "$tmp/$name".*-01)
	mv "$f" "$tmp/$name.out"
	rm -f "$tmp/$name".[0-9]*
	sed -n 's/^summary: //p' "$tmp/$name.out"
}
per() { echo $((($2 - $1) / (2 * (n2 - n1)))); }
# Inclusive instructions of a function in a callgrind output.
fn() { # file function
	{ callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null || true; } |
		awk -v f="$2" '!done && $0 ~ ":" f " \\[" { gsub(",", "", $1); print $1; done = 1 }'
}

for mode in event noevent; do
	copt=""
	[ "$mode" = event ] && copt=--event
	c1=$(ir "c-$mode-$n1" "$cprog" --n "$n1" --batches 1 $copt)
	c2=$(ir "c-$mode-$n2" "$cprog" --n "$n2" --batches 1 $copt)
	l1=$(ir "clua-$mode-$n1" "$clua" "$twin" --n "$n1" --batches 1 $copt)
	l2=$(ir "clua-$mode-$n2" "$clua" "$twin" --n "$n2" --batches 1 $copt)
	declare "c_$mode=$(per "$c1" "$c2")" "l_$mode=$(per "$l1" "$l2")"
done

echo "instructions per empty-kernel launch, enqueuing thread (callgrind; N = $n1 and $n2, twice each)"
echo "device: $("$clua" -e 'print(require("cl").device().name)')"
printf '%-44s %8s %8s %7s\n' "" clua C ratio
printf '%-44s %8d %8d %6.2fx\n' "q:launch(k, 1) / with an event" "$l_event" "$c_event" \
	"$(echo "$l_event $c_event" | awk '{ print $1 / $2 }')"
printf '%-44s %8d %8d %6.2fx\n' "q:launch(k, 1, nil, {event = false}) / none" "$l_noevent" "$c_noevent" \
	"$(echo "$l_noevent $c_noevent" | awk '{ print $1 / $2 }')"
echo
echo "where clua's go, per launch with an event (inclusive; the collector's step falls in lua_newuserdatauv, and in it hook_alloc, which releases the events whose memory Lua frees):"
for f in clua_queue_launch clEnqueueNDRangeKernel clua_event_new lua_newuserdatauv luaC_step hook_alloc clReleaseEvent; do
	a=$(fn "$tmp/clua-event-$n1.out" "$f")
	b=$(fn "$tmp/clua-event-$n2.out" "$f")
	printf '  %-28s %6d\n' "$f" $(((${b:-0} - ${a:-0}) / (2 * (n2 - n1))))
done
