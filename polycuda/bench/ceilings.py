"""The GPU's ceilings for the roofline figures: device copy bandwidth (bytes read + written per
second) and the FLOP rates of cuBLAS dgemm and sgemm, measured with CuPy, read from an earlier
run's file, or assumed from DESIGN.md's H100 numbers."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from polycuda.bench.timing import time_events

ASSUMED = {"copy_bytes_per_s": 2.93e12, "dgemm_flops_per_s": 57.4e12,
           "sgemm_flops_per_s": 50.8e12}
ASSUMED_NOTE = "DESIGN.md's H100 80GB HBM3 numbers (not measured on this GPU)"
COPY_BYTES = 1 << 30  # >= 1 GiB copied: far beyond the L2
GEMM_N = 8192
REPEATS = 10


def file_name(gpu_slug: str) -> str:
    return f"ceilings-{gpu_slug}.json"


def _copy_seconds(cupy: Any) -> float:
    src = cupy.random.random(COPY_BYTES // 8, dtype=cupy.float64)
    dst = cupy.empty_like(src)
    return _median_seconds(cupy, lambda: cupy.copyto(dst, src))


def _gemm_seconds(cupy: Any, dtype: Any) -> float:
    a = cupy.random.random((GEMM_N, GEMM_N), dtype=dtype)
    b = cupy.random.random((GEMM_N, GEMM_N), dtype=dtype)
    c = cupy.empty_like(a)
    return _median_seconds(cupy, lambda: cupy.matmul(a, b, out=c))


def _median_seconds(cupy: Any, call: Any, repeats: int = REPEATS) -> float:
    call()  # warm-up (cuBLAS handle, workspace)
    return statistics.median(time_events(call, repeats, cupy))


def measure(cupy: Any) -> dict[str, Any]:
    """Measure the three ceilings on the current GPU (a few seconds, ~3.3 GB of device memory).

    Copy: a 1 GiB float64 device-to-device copy, read + write bytes per second. GEMM: cupy.matmul
    of 8192 x 8192 random matrices, 2 n^3 flops. Medians of 10 runs after a warm-up.
    """
    copy_s = _copy_seconds(cupy)
    rates = {f"{label}_flops_per_s": 2 * GEMM_N**3 / _gemm_seconds(cupy, dtype)
             for label, dtype in (("dgemm", cupy.float64), ("sgemm", cupy.float32))}
    cupy.get_default_memory_pool().free_all_blocks()
    return {"copy_bytes_per_s": 2 * COPY_BYTES / copy_s, **rates, "source": "measured",
            "note": f"copy of {COPY_BYTES >> 20} MiB (read + write bytes); cupy.matmul "
                    f"{GEMM_N}^3; medians of {REPEATS} runs"}


def assumed() -> dict[str, Any]:
    return {**ASSUMED, "source": "assumed", "note": ASSUMED_NOTE}


def save(out_dir: Path, gpu_slug: str, ceilings: dict[str, Any]) -> Path:
    """Write the ceilings where later runs without --ceilings find them."""
    path = Path(out_dir) / file_name(gpu_slug)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(ceilings, indent=1, sort_keys=True) + "\n")
    return path


def load_or_assume(out_dir: Path, gpu_slug: str) -> dict[str, Any]:
    """The ceilings file of an earlier --ceilings run on this GPU in `out_dir`, else assumed."""
    path = Path(out_dir) / file_name(gpu_slug)
    if path.is_file():
        try:
            data = json.loads(path.read_text())
            if all(isinstance(data.get(k), (int, float)) for k in ASSUMED):
                return {**data, "source": f"file {path.name}"}
        except (OSError, ValueError):
            pass
    return assumed()
