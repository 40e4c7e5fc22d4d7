#!/usr/bin/env bash
# Runs on the GPU machine of the device tool (see ../shared/DESIGN.md and README's bench
# section): installs the carried wheels (.whl/), then one step. Results land in $OUT.
#   bash bench/on_device.sh smoke      GPU tests + quick bench (a few minutes)
#   bash bench/on_device.sh full       the full bench (issue evidence)
#   bash bench/on_device.sh stencils   Di et al. configurations on the stencils
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-out}
mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
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
    python3 -m polycuda.cli bench --out "$OUT" "$@" 2>&1 | tee "$OUT/bench_full.txt" | tail -80
    ;;
  stencils)
    python3 -m polycuda.cli bench --out "$OUT" "$@" 2>&1 | tee "$OUT/bench_stencils.txt" \
      | tail -80
    ;;
  *)
    echo "unknown step $step" >&2; exit 2 ;;
esac
