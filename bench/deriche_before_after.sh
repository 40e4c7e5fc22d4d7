#!/usr/bin/env bash
# On the device machine: PolyBench-form deriche (tests/unit/c_inputs/deriche_polybench.c) at
# PolyBench LARGE (W=4096, H=2160), `polycuda run` with the tree before privatization per live
# range (carried as .old/, the commit given as $1) and with this tree, in one call, so that
# the two compare within one run. Output: $OUT/deriche_{before,after}.txt.
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/device_env.sh
. bench/device_env.sh
file=$PWD/tests/unit/c_inputs/deriche_polybench.c
for side in before after; do
  root=$PWD
  [ "$side" = before ] && root=$PWD/.old
  # python -m puts the working directory first on sys.path: run from the tree's own root
  (cd "$root" && PYTHONPATH=$DEVICE_SITE:$root timeout 250 python3 -m polycuda.cli run "$file" \
    --target cuda --size w=4096 --size h=2160 --repeat 5 2>&1 | grep -v "^polycuda: deriche" \
    | tee "$OUT/deriche_$side.txt" | tail -15)
done
