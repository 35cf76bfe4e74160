#!/bin/bash
# GPU call A: every bundled spec, plain and ASan, each spec file a job of its own (its own
# time limit, its own log). The pool runs J jobs at once; then the specs that rank
# timings (QUIET) run one at a time, alone.
if [ -n "${NOSETUP:-}" ]; then G=$(cd "$(dirname "$0")" && pwd); else source "$(dirname "$0")/setup.sh"; fi
cd "$G/../bundle" || exit 1
J=${J:-12}; L=${LIMIT:-420}; D=${DEADLINE:-500}; P=${P:-380}
mkdir -p $OUT/logs
ls spec/*_spec.lua | grep -v -E "spec/(lint|doc|setup|module|deb|repl|tutorial)_spec.lua" > /tmp/all
[ -z "${ONLY:-}" ] || { grep -E "$ONLY" /tmp/all > /tmp/all2; mv /tmp/all2 /tmp/all; }
QUIET=${QUIET:-"grade_spec grade_time_spec"}
one() { # kind spec gpus deadline (epoch seconds)
  local kind=$1 f=$2 n lim=$L; n=$(basename $2 .lua)
  [ $(( $4 - $(date +%s) )) -lt $lim ] && lim=$(( $4 - $(date +%s) ))
  [ $lim -gt 5 ] || { echo "$kind $n rc=skipped ms=0" >> $OUT/jobs.txt; return; }
  local b=build/clua; [ $kind = asan ] && b=build/asan/clua
  local c="$(dirname $b)/clua-$kind-$n"; cp $b "$c"
  local s=$(date +%s%N)
  CUDA_VISIBLE_DEVICES=$3 timeout $lim ./test "$c" -- "$f" > $OUT/logs/$kind-$n.log 2>&1
  local rc=$? e=$(( ($(date +%s%N) - s) / 1000000 ))
  echo "$kind $n rc=$rc ms=$e $(sed 's/\x1b\[[0-9;]*m//g' $OUT/logs/$kind-$n.log | tail -1)" >> $OUT/jobs.txt
  rm -f "$c"
}
START=$(date +%s); export -f one; export L OUT START P
# the pool first (the slow families first), within P seconds
grep -v -E "/($(echo $QUIET | tr ' ' '|'))\.lua" /tmp/all | awk '{ p = ($0 ~ /bench_spec/) ? 0 : ($0 ~ /(grade|hostile|check|assignment|recipe_report|html|cl_bad|cl_lifetimes|progress)/) ? 1 : 2; print p, $0 }' \
  | sort -s -k1,1n | cut -d' ' -f2 | while read f; do echo "plain $f"; echo "asan $f"; done \
  | xargs -P $J -n 2 bash -c 'one "$0" "$1" 0 $(( START + P ))'
# then the quiet line alone: the specs that rank timings, one at a time, plain then ASan
for k in plain asan; do for n in $QUIET; do [ -f spec/$n.lua ] || continue
  one $k spec/$n.lua 0 $(( START + D )); done; done
cd $OUT && tar czf suite-logs.tar.gz logs jobs.txt && rm -rf logs
awk '{ if ($3 != "rc=0") bad++; } END { print NR " jobs, " bad+0 " not rc=0" }' jobs.txt
grep -v 'rc=0' jobs.txt | head -30
awk '{ split($4, a, "="); print a[2] " ms", $1, $2 }' jobs.txt | sort -n -r | head -8
awk '{ for (i=1;i<=NF;i++) if ($i ~ /passed,/) { p += $(i-1); f += $(i+1) } } END { print p " passed, " f " failed (summed over jobs)" }' jobs.txt
