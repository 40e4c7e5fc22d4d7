"""The costs behind `cpu_fallback_per_level="auto"` (Anantpur & Govindarajan 2013, Section
3.5.2, last paragraph: too many levels, run the loop sequentially on the CPU). The threshold,
in iterations per level, is (GPU cost of one level) / (host cost of one iteration):

- one level on the GPU: a property of the GPU (the inspector's pass per level: a memset,
  three launches and a copy that waits for them), measured once per GPU by `measure` (a chain
  of one iteration per level, timed at two lengths) and cached as JSON beside the tuner's
  calibration (calibrate.cache_path, kind "runtime-levels"); without a GPU (target emulate, no
  driver, a failed measurement) the reference H100's value, and the report says so;
- one iteration on the host: the loop's own, measured by the generated fallback each time it
  runs the loop on the host (codegen/executor_cuda.py; kept in the loaded library, so a later
  call of the same kernel decides with it); until then the reference host's value for a small
  loop body (one iteration of the chain's `A[dst[i]] = 0.5 * A[src[i]] + v[i]`, gcc -O3). A
  per-statement constant would pretend to know the body's cost; the loop's own time does.

    python -m polycuda.tune.level_cost      # measure this GPU's level cost and cache it
"""

from __future__ import annotations

import ctypes
import json
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from polycuda.errors import PolycudaError

# bench/results/2026-11-25-nvidia-h100-80gb-hbm3-indirect-executors.json, case move-chain
# (8192 levels of one iteration): executor "levels" time / levels, and sequential_c_s / iterations
REFERENCE_GPU = "NVIDIA H100 80GB HBM3"
REFERENCE_LEVEL_S = 0.22027433776855468 / 8192
REFERENCE_HOST_ITERATION_S = 0.0002595395000071221 / 8192
KIND = "runtime-levels"
# chain lengths of the microbenchmark: the difference of their times is (LONG - SHORT) levels
SHORT, LONG = 256, 2048
CHAIN = """
void chain(int n, int m, double A[m], int src[n], int dst[n], double v[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[dst[i]] = 0.5 * A[src[i]] + v[i];
#pragma endscop
}
"""


@dataclass(frozen=True)
class LevelCost:
    """Seconds of one level on the GPU, and where the number comes from."""

    seconds: float
    measured: bool
    source: str  # e.g. "measured on NVIDIA H100 80GB HBM3 (cache FILE)"


def reference() -> LevelCost:
    return LevelCost(REFERENCE_LEVEL_S, False, f"reference {REFERENCE_GPU}")


def measure(target: str = "cuda", short: int = SHORT, long: int = LONG, repeats: int = 5,
            seed: int = 0) -> float:
    """Seconds per level of the inspector/executor on `target`: the host entry run on chains
    of `short` and `long` levels (one iteration each, the fallback off), median of `repeats`
    calls each after a warm-up; the difference over the extra levels (copies and launches
    that do not grow with the levels cancel).

    Raises:
        PolycudaError: the longer chain was not slower (no cost per level to measure).
    """
    import polycuda

    prog = polycuda.compile(CHAIN, options=polycuda.Options(cpu_fallback_per_level=0.0))
    kernel = prog.kernel(target, runtime_executor="levels")
    rng = np.random.default_rng(seed)

    def median_s(n: int) -> float:
        args = [n, n + 1, rng.uniform(0.5, 1.5, n + 1), np.arange(n, dtype=np.int32),
                np.arange(1, n + 1, dtype=np.int32), rng.uniform(0.5, 1.5, n)]
        kernel(*args)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            kernel(*args)
            times.append(time.perf_counter() - start)
        return statistics.median(times)

    extra = median_s(long) - median_s(short)
    if extra <= 0:
        raise PolycudaError(f"level cost: {long} levels not slower than {short} on {target}")
    return extra / (long - short)


def gpu_level_cost(root: Path | None = None, log=None) -> LevelCost:
    """The cost of one level on this machine's GPU: cached, else measured now and cached,
    else (no GPU, or the measurement failed: said through `log`) the reference H100's."""
    from polycuda.runtime import build, device
    from polycuda.tune.calibrate import cache_path

    log = log or (lambda text: print(text, file=sys.stderr))
    info = device.gpu_info()
    if info is None:
        return reference()
    path = cache_path(info.name, root, KIND)
    if path.is_file():
        try:
            return LevelCost(float(json.loads(path.read_text())["level_s"]), True,
                             f"measured on {info.name} ({path})")
        except (ValueError, KeyError, TypeError):
            log(f"polycuda: {path}: not a level cost, measuring again")
    try:
        seconds = measure("cuda")
    except PolycudaError as err:
        log(f"polycuda: cannot measure the GPU's cost per level ({err}): using the "
            f"reference {REFERENCE_GPU}'s")
        return reference()
    path.parent.mkdir(parents=True, exist_ok=True)
    build.atomic_write(path, json.dumps({"gpu": info.name, "level_s": seconds, "chain_levels":
                                         [SHORT, LONG],
                                         "note": "polycuda.tune.level_cost.measure"},
                                        indent=2) + "\n")
    return LevelCost(seconds, True, f"measured on {info.name} ({path})")


def install(lib: ctypes.CDLL, name: str, target: str) -> LevelCost | None:
    """Give a loaded library with an auto fallback (pc_<name>_level_s) the GPU's level cost:
    measured on target cuda, the reference (its built-in value) on emulate. None: no such
    library."""
    try:
        level_s = ctypes.c_double.in_dll(lib, f"pc_{name}_level_s")
        measured = ctypes.c_longlong.in_dll(lib, f"pc_{name}_level_measured")
    except ValueError:
        return None
    cost = gpu_level_cost() if target == "cuda" else reference()
    level_s.value, measured.value = cost.seconds, int(cost.measured)
    return cost


def main() -> int:
    cost = gpu_level_cost()
    print(f"{cost.seconds * 1e6:.2f} us per level ({cost.source})")
    return 0 if cost.measured else 1


if __name__ == "__main__":
    sys.exit(main())
