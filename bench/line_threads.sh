#!/usr/bin/env bash
# On the device machine: bench/line_threads.py with the tree before the rule (carried as
# .exp/, its commit given as $1) and with this tree, alternated $ROUNDS times (default 2) in
# one call so that the two compare within one run; $STEP_S bounds each side's seconds.
# Output: $OUT/{before,after}_<round>.json and one log.
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/device_env.sh
. bench/device_env.sh
echo "before: ${1:-unset}" >> "$OUT/gpu.txt"
cp bench/line_threads.py .exp/bench/
for round in $(seq 1 "${ROUNDS:-2}"); do
  for side in before after; do
    root=$PWD
    [ "$side" = before ] && root=$PWD/.exp
    (cd "$root" && PYTHONPATH=$DEVICE_SITE:$root POLYCUDA_CACHE=/tmp/pccache-$side \
      timeout "${STEP_S:-140}" python3 bench/line_threads.py --out "$OUT/${side}_$round.json" \
      2>&1 | grep -v "^polycuda: " | sed "s/^/$side $round: /" | tee -a "$OUT/log.txt")
  done
done
