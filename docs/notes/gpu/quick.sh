#!/bin/bash
# One GPU: a class of 40 graded sandboxed and checked at --quick, nothing else running; then
# again with --jobs 16 while time is left.
source "$(dirname "$0")/setup.sh"
cd "$G/.." && tar xJf "$G/bundle.tar.xz" && B="$PWD/bundle"
S=$(date +%s); mkdir -p $OUT/q $OUT/q16 /tmp/c
"$B/run" "$B/bench/grade_class.lua" /tmp/c/class 40 > /dev/null
cd /tmp/c
for mode in q q16; do
  opts=; [ $mode = q16 ] && opts="--jobs 16"
  lim=$(( ${D:-185} - ($(date +%s) - S) )); [ $lim -gt 95 ] && lim=95; [ $lim -gt 10 ] || break
  s=$(date +%s%N)
  timeout $lim "$B/run" "$B/recipes/grade.lua" --recipe reduction --submissions /tmp/c/class --out $OUT/$mode/book \
    --recipe-options=--quick $opts > $OUT/$mode/stdout.txt 2> $OUT/$mode/stderr.txt
  rc=$?; e=$(( ($(date +%s%N) - s) / 1000000 ))
  echo "class $mode: exit $rc, $e ms (limit $lim s)" | tee -a $OUT/summary.txt
  "$B/run" "$B/bench/grade_class.lua" --check $OUT/$mode/book.csv /tmp/c/expected.csv 2>&1 | tail -3 >> $OUT/summary.txt
done
cd $OUT && tar czf quick.tar.gz q q16 summary.txt && rm -rf q q16
cat summary.txt
