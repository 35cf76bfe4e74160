#!/bin/bash
# GPU suite on two GPUs: every bundled spec file, plain on GPU 0 and ASan on GPU 1,
# each file a job with its own limit and log, longest first (gpu/order.txt: ms, name);
# then the specs that rank timings alone (plain on GPU 0 beside ASan on GPU 1).
source "$(dirname "$0")/setup.sh"
cd "$G/../bundle" || exit 1
J=${J:-26}; L=${LIMIT:-440}; D=${DEADLINE:-560}; P=${P:-450}
mkdir -p $OUT/logs
QUIET=${QUIET:-"grade_spec grade_time_spec"}
one() { # kind spec deadline (epoch seconds)
  local kind=$1 n=$2 lim=$L gpu=0; [ $kind = asan ] && gpu=1
  [ $(( $3 - $(date +%s) )) -lt $lim ] && lim=$(( $3 - $(date +%s) ))
  [ $lim -gt 5 ] || { echo "$kind $n rc=skipped ms=0" >> $OUT/jobs.txt; return; }
  local b=build/clua; [ $kind = asan ] && b=build/asan/clua
  local c="$(dirname $b)/clua-$kind-$n"; cp $b "$c"
  local s=$(date +%s%N)
  CUDA_VISIBLE_DEVICES=$gpu timeout $lim ./test "$c" -- spec/$n.lua > $OUT/logs/$kind-$n.log 2>&1
  local rc=$? e=$(( ($(date +%s%N) - s) / 1000000 ))
  echo "$kind $n rc=$rc ms=$e $(sed 's/\x1b\[[0-9;]*m//g' $OUT/logs/$kind-$n.log | tail -1)" >> $OUT/jobs.txt
  rm -f "$c"
}
START=$(date +%s); export -f one; export L OUT START P
awk '{print $2}' "$G/order.txt" | grep -v -x -E "$(echo $QUIET | tr ' ' '|')" \
  | while read n; do echo "plain $n"; echo "asan $n"; done \
  | xargs -P $J -n 2 bash -c 'one "$0" "$1" $(( START + P ))'
for n in $QUIET; do one plain $n $(( START + D )) & one asan $n $(( START + D )) & wait; done
cd $OUT && tar czf suite-logs.tar.gz logs jobs.txt && rm -rf logs
awk '{ if ($3 != "rc=0") bad++; } END { print NR " jobs, " bad+0 " not rc=0" }' jobs.txt
grep -v 'rc=0' jobs.txt | cut -c1-200 | head -30
awk '{ split($4, a, "="); print a[2] " ms", $1, $2 }' jobs.txt | sort -n -r | head -8
awk '{ for (i=1;i<=NF;i++) if ($i ~ /passed,/) { p += $(i-1); f += $(i+1) } } END { print p " passed, " f " failed (summed over jobs)" }' jobs.txt
