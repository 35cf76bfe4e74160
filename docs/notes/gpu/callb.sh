#!/bin/bash
# GPU call B on one GPU, in turn: the full report card (timed), then a class of 40 graded
# sandboxed and checked, --quick then the default size (each within what is left of D s).
source "$(dirname "$0")/setup.sh"
B="$G/bundle-slim"; S=$(date +%s); D=${D:-555}
mkdir -p $OUT/card $OUT/q $OUT/d /tmp/c
"$B/run" "$B/bench/grade_class.lua" /tmp/c/class 40 > /dev/null &
( cd "$B" && s=$(date +%s%N); timeout ${CARD_LIM:-210} ./run recipes/report.lua --out $OUT/card/report-h200 \
    > $OUT/card/stdout.txt 2> $OUT/card/stderr.txt; rc=$?
  echo "card: exit $rc, $(( ($(date +%s%N) - s) / 1000000 )) ms" | tee -a $OUT/summary.txt )
wait
cd /tmp/c
for mode in q d; do
  opts=; [ $mode = q ] && opts=--recipe-options=--quick
  lim=$(( D - ($(date +%s) - S) )); [ $mode = q ] && [ $lim -gt ${LIM_Q:-100} ] && lim=${LIM_Q:-100}
  s=$(date +%s%N)
  timeout $lim "$B/run" "$B/recipes/grade.lua" --recipe reduction \
    --submissions /tmp/c/class --out $OUT/$mode/book $opts > $OUT/$mode/stdout.txt 2> $OUT/$mode/stderr.txt
  rc=$?; e=$(( ($(date +%s%N) - s) / 1000000 ))
  echo "class $mode: exit $rc, $e ms (limit $lim s)" | tee -a $OUT/summary.txt
  "$B/run" "$B/bench/grade_class.lua" --check $OUT/$mode/book.csv /tmp/c/expected.csv 2>&1 | tail -12 >> $OUT/summary.txt
done
cd $OUT && tar czf callb.tar.gz card q d summary.txt 2>/dev/null; rm -rf card q d
cat summary.txt
