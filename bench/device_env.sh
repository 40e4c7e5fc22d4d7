# The preamble of the bench scripts that run on the device machine, sourced (not run) by them
# from the repository root after `set -uo pipefail`: makes $OUT, installs the carried wheels
# (.whl/) into $DEVICE_SITE, puts them and this tree on PYTHONPATH, and records the GPU (and the
# commit the caller gave as POLYCUDA_COMMIT) in $OUT/gpu.txt. A script that runs another tree
# (.old/, .exp/) sets PYTHONPATH to "$DEVICE_SITE:<that tree>" itself.
# shellcheck shell=bash
OUT=${OUT:-out}
mkdir -p "$OUT"
DEVICE_SITE=/tmp/site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
  --target "$DEVICE_SITE" .whl/*.whl || exit 1
export PYTHONPATH=$DEVICE_SITE:$PWD PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
echo "polycuda commit: ${POLYCUDA_COMMIT:-unset (POLYCUDA_COMMIT)}" | tee -a "$OUT/gpu.txt"
