#!/usr/bin/env bash
# On the device machine: which kernel parameters may take __restrict__. Runs a tree carried as
# .exp/ whose codegen reads PC_RESTRICT (default: as main; readonly: const __restrict__ on the
# arrays a kernel only reads; all: every array), verifies every suite kernel on the GPU under
# each mode and times the recurrence kernels, all in one call so that they compare within one run.
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/device_env.sh
. bench/device_env.sh
root=$PWD
cd .exp
export PYTHONPATH=$DEVICE_SITE:$PWD
files="$(ls $root/kernels/c/*.c) $root/tests/unit/c_inputs/deriche_polybench.c"
for mode in ${MODES:-readonly all}; do
  echo "== verify $mode" | tee -a "$OUT/verify.txt"
  printf '%s\n' $files | PC_RESTRICT=$mode xargs -P 8 -I{} sh -c \
    'timeout 200 python3 -m polycuda.cli verify {} --targets cuda 2>&1 | grep -v "^polycuda: " | tail -2' \
    >> "$OUT/verify_$mode.txt" 2>&1
  for f in kernels/c/deriche.c tests/unit/c_inputs/deriche_polybench.c; do
    PC_RESTRICT=$mode timeout 200 python3 -m polycuda.cli verify $root/$f --targets cuda --tile-sizes 32 \
      2>&1 | grep -v "^polycuda: " | tail -2 >> "$OUT/verify_$mode.txt"
  done
  grep -c " ok " "$OUT/verify_$mode.txt"; grep -v " ok \|^$" "$OUT/verify_$mode.txt" | head -20
done
run() {  # mode file sizes...
  local mode=$1 f=$2; shift 2
  echo "== $mode $(basename $f) $*" >> "$OUT/times.txt"
  PC_RESTRICT=$mode timeout 120 python3 -m polycuda.cli run $root/$f --target cuda --no-verify \
    --host-fallback never --repeat 5 "$@" 2>&1 | grep -v "^polycuda: " | tail -4 >> "$OUT/times.txt"
}
for rep in 1 2; do
for mode in default readonly all; do
  run $mode kernels/c/adi.c --size T=500 --size n=1000
  run $mode kernels/c/adi.c --size T=100 --size n=2000
  run $mode tests/unit/c_inputs/deriche_polybench.c --size w=4096 --size h=2160
  run $mode kernels/c/durbin.c --size n=2000
  run $mode kernels/c/trisolv.c --size n=2000
  run $mode kernels/c/jacobi_1d.c --size T=500 --size n=2000
  run $mode kernels/c/cholesky.c --size n=2000
  run $mode kernels/c/jacobi_2d.c --size T=500 --size n=1300
  run $mode kernels/c/gramschmidt.c --size m=1200 --size n=1000
done
done
tail -c 6000 "$OUT/times.txt"
