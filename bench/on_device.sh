#!/usr/bin/env bash
# Runs on the GPU machine of the device tool (see ../shared/DESIGN.md and README's bench
# section): installs the carried wheels (.whl/), then one step. Results land in $OUT.
#   bash bench/on_device.sh smoke      GPU tests + quick bench (a few minutes)
#   bash bench/on_device.sh full       a small all-configuration check, then the full bench
#   bash bench/on_device.sh paper ...  Di et al. Table II stencils (extra bench arguments)
#   bash bench/on_device.sh ppcg ...   as PPCG was measured (DESIGN.md), against its times
#                                      (--dtype float: deriche, whose PPCG time is float)
#   bash bench/on_device.sh ppcg1|ppcg2 ...  the double kernels in two parts (sizes.PPCG_PARTS),
#                                      each tagged; `bench --report` merges their JSON files
#   bash bench/on_device.sh fuzz ...   a differential fuzz campaign (python -m tests.fuzz
#                                      arguments; --jobs, --json "$OUT/..." and --minutes)
# Results are written after every kernel, so a run cut short keeps what it measured. The
# measured ceilings in bench/results are copied to $OUT so that the bench finds them.
set -uo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/device_env.sh
. bench/device_env.sh
cp bench/results/ceilings-*.json "$OUT"/ 2>/dev/null
step=${1:-smoke}
shift || true
case "$step" in
  smoke)
    timeout 240 python3 -m pytest -m gpu -q -x -p no:cacheprovider --durations=10 \
      tests 2>&1 | tee "$OUT/gpu_tests.txt" | tail -25
    timeout 300 python3 -m polycuda.cli bench --quick --ceilings --out "$OUT" "$@" 2>&1 \
      | tee "$OUT/bench_quick.txt" | tail -60
    ;;
  full)
    timeout 90 python3 -m polycuda.cli bench --small jacobi_2d sor_2d gemm --config \
      isl,pluto,intra,inter --dtype float --tiles "4,8;8,8" --tag check --out "$OUT" 2>&1 \
      | tail -12
    python3 -m polycuda.cli bench --out "$OUT" "$@" 2>&1 | tee "$OUT/bench_full.txt" | tail -80
    ;;
  paper)
    python3 -m polycuda.cli bench --paper --out "$OUT" "$@" 2>&1 \
      | tee "$OUT/bench_paper.txt" | tail -80
    ;;
  ppcg)
    python3 -m polycuda.cli bench --ppcg --out "$OUT" "$@" 2>&1 \
      | tee "$OUT/bench_ppcg.txt" | tail -90
    ;;
  ppcg1|ppcg2)
    part=${step#ppcg}
    kernels=$(python3 -c "from polycuda.bench.sizes import PPCG_PARTS
print(' '.join(PPCG_PARTS[$part - 1]))") || exit 1
    # shellcheck disable=SC2086  # one word per kernel
    python3 -m polycuda.cli bench --ppcg --tag "part$part" --out "$OUT" $kernels "$@" 2>&1 \
      | tee "$OUT/bench_ppcg_part$part.txt" | tail -90
    ;;
  fuzz)
    timeout 590 python3 -m tests.fuzz "$@" 2>&1 | tee "$OUT/fuzz.txt" | tail -60
    ;;
  *)
    echo "unknown step $step" >&2; exit 2 ;;
esac
