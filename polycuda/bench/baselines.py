"""The candidates of one kernel: the sequential gcc -O3 oracle, OpenMP, naive CuPy, cuBLAS
through CuPy, and polycuda's configurations, each as a measure.Candidate."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from polycuda.bench import timing
from polycuda.bench.builds import REFERENCE_FLAGS, BuildResult
from polycuda.bench.measure import Args, Candidate
from polycuda.ir.scop import Scop
from polycuda.runtime import launch

SEQUENTIAL_LABEL = f"gcc {' '.join(REFERENCE_FLAGS)}, the original C, one thread"


def _ordered(scop: Scop) -> Callable[[Args], list[object]]:
    names = [a.name for a in scop.args]
    return lambda args: [args[n] for n in names]


def _failed(name: str, role: str, device: str, label: str, result: BuildResult) -> Candidate:
    return Candidate(name, role, device, label, "none",
                     failure=f"build failed: {result.error or 'no library'}")


def sequential(scop: Scop, result: BuildResult) -> Candidate:
    """The user's own C function, built with gcc -O3 -march=native: the oracle."""
    return host_library("sequential", "baseline", SEQUENTIAL_LABEL, scop, result, "reference",
                        generated=False)


def host_library(name: str, role: str, label: str, scop: Scop, result: BuildResult,
                 target: str, generated: bool = True) -> Candidate:
    """A library with a host entry (targets reference, c, openmp), timed by perf_counter."""
    if result.path is None:
        return _failed(name, role, "cpu", label, result)
    kernel = launch.load(result.path, scop, target)
    ordered = _ordered(scop)

    def run(args: Args) -> None:
        kernel(*ordered(args))

    def time_runs(args: Args, repeats: int) -> list[float]:
        return timing.time_host(kernel.prepare(*ordered(args)), repeats)

    return Candidate(name, role, "cpu", label, "perf_counter", run, time_runs,
                     generated=generated)


def gpu_library(name: str, role: str, label: str, scop: Scop, result: BuildResult
                ) -> Candidate:
    """Generated CUDA: `pc_<name>_dev` in place on CuPy arrays, timed by CUDA events
    (launch.time_calls; one more warm-up call after the correctness run)."""
    if result.path is None:
        return _failed(name, role, "gpu", label, result)
    kernel = launch.load(result.path, scop, "cuda")
    ordered = _ordered(scop)

    def run(args: Args) -> None:
        kernel(*ordered(args))

    def time_runs(args: Args, repeats: int) -> list[float]:
        return launch.time_calls(kernel, ordered(args), repeats=repeats, warmup=1)

    return Candidate(name, role, "gpu", label, "cuda-events", run, time_runs, generated=True)


def cupy_function(name: str, label: str, fn: Callable[..., None], arg_names: Sequence[str],
                  cupy: Any) -> Candidate:
    """A function of kernels/naive_cupy.py on CuPy arrays, timed by CUDA events around the
    Python call (its launch overhead included, as a CuPy user sees it)."""

    def ordered(args: Args) -> list[object]:
        return [args[n] for n in arg_names]

    def run(args: Args) -> None:
        fn(*ordered(args), xp=cupy)

    def time_runs(args: Args, repeats: int) -> list[float]:
        values = ordered(args)

        def call() -> None:
            fn(*values, xp=cupy)

        call()  # warm-up: CuPy compiles and caches its elementwise kernels on first use
        return timing.time_events(call, repeats, cupy)

    return Candidate(name, "baseline", "gpu", label, "cuda-events", run, time_runs)
