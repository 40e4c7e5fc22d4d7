#!/usr/bin/env bash
# On the device machine: the suite kernels whose wavefront code changes when the block band of
# a wavefront kernel is built atomic (gpu/wavefront.py tile_and_skew with `k < 3`, run from a
# tree that has it; bench/results/2026-12-03-nvidia-h200-wavefront-blocks-atomic.json),
# `polycuda bench` with the configurations default and pluto, with the tree before the change
# (carried as .exp/, its commit given as $1) and with this tree, alternated twice in one call
# so that the two compare within one run. $KERNELS and $BENCH_ARGS replace the kernels and the
# mode (default --quick; e.g. BENCH_ARGS="--size n=1000 --size m=1000"), $STEP_S the seconds
# of each bench. Output: $OUT/{before,after}_{1,2}.json and one log.
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/device_env.sh
. bench/device_env.sh
echo "before: ${1:-unset}" >> "$OUT/gpu.txt"
kernels=${KERNELS:-cholesky correlation covariance fdtd_2d gramschmidt ludcmp}
mode=${BENCH_ARGS:---quick}
for round in 1 2; do
  for side in before after; do
    root=$PWD
    [ "$side" = before ] && root=$PWD/.exp
    # python -m puts the working directory first on sys.path: run from the tree's own root
    (cd "$root" && PYTHONPATH=$DEVICE_SITE:$root POLYCUDA_CACHE=/tmp/pccache-$side \
      timeout "${STEP_S:-280}" python3 -m polycuda.cli bench $mode --config default,pluto \
      --out "$OUT/${side}_$round.json" $kernels 2>&1 | sed "s/^/$side $round: /" \
      | tee -a "$OUT/log.txt" | tail -12)
  done
done
