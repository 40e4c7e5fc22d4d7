#!/usr/bin/env bash
# Global-load sectors per request of doitgen's kernels (issue 15's evidence; Shirako et al.
# report 1.0 for theirs, 31.4 for PPCG's), with Nsight Compute when the GPU machine has it.
# Default mapping against the PPCG-like one (isl scheduler, row buffer not expanded).
#   OUT=dir bash bench/ncu_doitgen.sh      (after the wheels are on PYTHONPATH)
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
if [ -z "$NCU" ]; then
  echo "ncu: not found on this machine" | tee "$OUT/ncu-doitgen.txt"; exit 0
fi
sizes="nr=150 nq=140 nk=160"
for config in "default:" "isl-noexpand:--scheduler isl --no-expand-scalars"; do
  name=${config%%:*}; flags=${config#*:}
  # shellcheck disable=SC2086  # flags are words
  python3 -m polycuda.cli compile kernels/c/doitgen.c --target cuda $flags \
    -o "/tmp/doitgen-$name.cu" >/dev/null || exit 1
  nvcc -O3 -arch=sm_90 -DPOLYCUDA_MAIN -o "/tmp/doitgen-$name" "/tmp/doitgen-$name.cu" || exit 1
  # shellcheck disable=SC2086  # sizes are words
  timeout 240 "$NCU" --launch-count 6 --metrics \
    l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,gpu__time_duration.sum \
    "/tmp/doitgen-$name" $sizes > "$OUT/ncu-doitgen-$name.txt" 2>&1
  echo "$name: ncu exit $?" | tee -a "$OUT/ncu-doitgen.txt"
done
