#!/bin/bash
# Final GPU call on a 2-GPU machine: GPU 0 grades a class of 40 (sandboxed, checked under
# Oclgrind) at --quick and at the default size; GPU 1 meanwhile re-runs the specs that the
# whole-suite call cut or that changed since, plain and ASan; then grade_spec and
# grade_time_spec alone (plain on GPU 0 beside ASan on GPU 1).
source "$(dirname "$0")/setup.sh"
cd "$G/.." && tar xJf "$G/bundle.tar.xz" && B="$PWD/bundle"
S=$(date +%s); mkdir -p $OUT/logs $OUT/q $OUT/d /tmp/c
L=${LIMIT:-380}
one() { # kind spec gpu limit
  local b=build/clua; [ $1 = asan ] && b=build/asan/clua
  local s=$(date +%s%N)
  (cd "$B" && CUDA_VISIBLE_DEVICES=$3 timeout $4 ./test $b -- spec/$2.lua > $OUT/logs/$1-$2.log 2>&1)
  local rc=$? e=$(( ($(date +%s%N) - s) / 1000000 ))
  echo "$1 $2 rc=$rc ms=$e $(sed 's/\x1b\[[0-9;]*m//g' $OUT/logs/$1-$2.log | tail -1)" >> $OUT/jobs.txt
}
export -f one; export B OUT
( for n in ${RERUN:-cl_lifetimes_spec cl_cycles_spec bench_spec cl_timeout_spec}; do echo "plain $n"; echo "asan $n"; done \
  | xargs -P 8 -n 2 bash -c 'one "$0" "$1" 1 '$L ) &
"$B/run" "$B/bench/grade_class.lua" /tmp/c/class 40 > /dev/null
cd /tmp/c
for mode in q d; do
  opts=; [ $mode = q ] && opts=--recipe-options=--quick
  s=$(date +%s%N)
  CUDA_VISIBLE_DEVICES=0 timeout $([ $mode = q ] && echo 100 || echo 300) "$B/run" "$B/recipes/grade.lua" --recipe reduction \
    --submissions /tmp/c/class --out $OUT/$mode/book $opts > $OUT/$mode/stdout.txt 2> $OUT/$mode/stderr.txt
  rc=$?; e=$(( ($(date +%s%N) - s) / 1000000 ))
  echo "class $mode: exit $rc, $e ms" | tee -a $OUT/summary.txt
  "$B/run" "$B/bench/grade_class.lua" --check $OUT/$mode/book.csv /tmp/c/expected.csv 2>&1 | tail -12 >> $OUT/summary.txt
done
wait
for n in grade_spec grade_time_spec; do one plain $n 0 90 & one asan $n 1 90 & wait; done
echo "all: $(( $(date +%s) - S )) s" >> $OUT/summary.txt
cd $OUT && tar czf final.tar.gz logs q d jobs.txt summary.txt && rm -rf logs q d
cat summary.txt; sort jobs.txt | cut -c1-160
