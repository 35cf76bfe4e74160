#!/usr/bin/env bash
# bench/launch_perf.sh: where the time of empty-kernel launches goes, clua's
# q:launch beside plain C (build/bench/launch), by perf's sampling profile
# on the software clock (cpu-clock: it needs no hardware counters, which
# virtual machines often lack). For each side, with and without an event:
# the share of samples per process and library, then the hottest symbols.
#
#   bench/launch_perf.sh [CLUA] [N]        (default build/clua, 100000 launches twice)
#
# BATCHES=B runs B batches of N on each side instead of one (the twin and the
# C program time each batch apart; a held batch is N commands queued behind
# a user event, so keep N at what the driver queues: 10000 on NVIDIA).
#
# PERF names the perf binary (default: perf on the PATH; Debian: linux-perf;
# on a machine with none, make bundle-perf and PERF=$PWD/perf-run in bundle/).
# HELD=1 enqueues each batch on a held queue on both sides (--held: the
# enqueue's own cost, nothing running meanwhile). Each line gives the samples
# (at 20 kHz) beside the share: a process's total includes its start-up.
# The device is the default one (CLUA_DEVICE), given to the C program by
# name. Prints to stdout; the perf data files are removed.
set -euo pipefail
cd "$(dirname "$0")/.."
clua=$(realpath "${1:-build/clua}")
n=${2:-100000}
perf=${PERF:-perf}
cprog=$(realpath build/bench/launch)
command -v "$perf" >/dev/null || { echo "launch_perf: no perf (apt-get install linux-perf, or set PERF)" >&2; exit 1; }
[ -x "$cprog" ] || { echo "launch_perf: build $cprog first: make -f bench/Makefile" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The clua side: bench/launch_clua.lua, the C program's twin (same options).
twin=$PWD/bench/launch_clua.lua
name=$("$clua" -e 'print(require("cl").device().name)')
echo "sampling profile of 2 x ${BATCHES:-1} x $n empty-kernel launches$([ "${HELD:-0}" = 1 ] && echo " on a held queue") (perf record -e cpu-clock); device: $name"
for mode in noevent event; do
	copt=()
	[ "$mode" = event ] && copt+=(--event)
	[ "${HELD:-0}" = 1 ] && copt+=(--held)
	for side in clua C; do
		if [ "$side" = clua ]; then
			cmd=("$clua" "$twin" --n "$n" --batches "${BATCHES:-1}" "${copt[@]}")
		else
			cmd=("$cprog" --device "$name" --n "$n" --batches "${BATCHES:-1}" --kernels "$PWD/kernels" "${copt[@]}")
		fi
		(cd "$tmp" && "$perf" record -q -e cpu-clock -F 20000 -o "$tmp/perf.data" -- "${cmd[@]}" >"$tmp/out.txt" 2>&1) ||
			{ cat "$tmp/out.txt" >&2; exit 1; }
		echo
		echo "== $side, $([ "$mode" = event ] && echo "an event each" || echo "no event"): samples by process and library"
		"$perf" report -i "$tmp/perf.data" --stdio --no-children -n --sort comm,dso 2>/dev/null | grep '%' | grep -v '^#' | head -8 || true
		echo "-- the hottest symbols"
		"$perf" report -i "$tmp/perf.data" --stdio --no-children -n --sort dso,sym 2>/dev/null | grep '%' | grep -v '^#' | head -12 || true
	done
done
