#!/bin/bash
# bench/recheck.sh: every recipe's --quick run by two builds of clua on the
# same device, in turn, for bench/recheck.lua to compare figure by figure.
#
#   bench/recheck.sh OLD_BUNDLE NEW_BUNDLE OUT [ROUNDS]
#
# OLD_BUNDLE and NEW_BUNDLE are bundles (make bundle; each has ./run); OUT
# gets R/old/NAME.json and R/new/NAME.json for rounds R = 1..ROUNDS (default
# 2), the logs in OUT/log. Odd rounds run the old build first, even rounds the
# new, recipe by recipe, so that drift falls on both alike. Recipes that only
# one build has run there alone; report, grade and check (which need more
# than a name) are left out. Each run is allowed 60 s. Then, with clua at hand:
#   clua bench/recheck.lua OUT/1/old OUT/1/new
set -u
if [ $# -lt 3 ]; then
  echo "usage: bench/recheck.sh OLD_BUNDLE NEW_BUNDLE OUT [ROUNDS]" >&2
  exit 2
fi
old=$(cd "$1" && pwd) new=$(cd "$2" && pwd) || exit 2
mkdir -p "$3/log" && out=$(cd "$3" && pwd) || exit 2
rounds=${4:-2}
one() { # round side bundle recipe
  [ -f "$3/recipes/$4.lua" ] || return 0
  mkdir -p "$out/$1/$2"
  (cd "$3" && timeout 60 ./run "recipes/$4.lua" --quick --json "$out/$1/$2/$4.json" > "$out/log/$4.$1.$2.txt" 2>&1) \
    || echo "round $1 $2 $4: exit $?" | tee -a "$out/failed.txt" >&2
}
names=$(for f in "$new"/recipes/*.lua "$old"/recipes/*.lua; do basename "$f" .lua; done | sort -u)
for r in $(seq 1 "$rounds"); do
  for name in $names; do
    case $name in report|grade|check) continue ;; esac
    if [ $((r % 2)) = 1 ]; then one "$r" old "$old" "$name"; one "$r" new "$new" "$name"
    else one "$r" new "$new" "$name"; one "$r" old "$old" "$name"; fi
  done
done
