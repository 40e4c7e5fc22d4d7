"""The candidates of one kernel: the sequential gcc -O3 oracle, OpenMP, naive CuPy, cuBLAS
through CuPy, and polycuda's configurations (on device arrays, or as the whole drop-in function
from host arrays), each as a measure.Candidate."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from polycuda.bench import timing
from polycuda.bench.builds import REFERENCE_FLAGS, BuildResult
from polycuda.bench.measure import Args, Candidate
from polycuda.ir.scop import Scop
from polycuda.runtime import launch

SEQUENTIAL_LABEL = f"gcc {' '.join(REFERENCE_FLAGS)}, the original C, one thread"
WHOLE_FUNCTION_LABEL = ("whole function from host pointers (copies in and out, kernels; device "
                        "buffers allocated and freed per call, or kept from the previous call "
                        "under the default host_buffers=reuse; copies page-locked under the "
                        "default host_copies=register and overlapped with the kernels under "
                        "the default host_overlap)")


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
                 target: str, generated: bool = True, *, device: str = "cpu",
                 warmup: int = 0) -> Candidate:
    """A library's host-pointer entry (`pc_<name>`, or the reference's `pc_ref_<name>`) called
    on NumPy arrays, timed by perf_counter around each call after `warmup` untimed calls.

    Targets reference, c and openmp run on the CPU; target cuda's host entry allocates device
    memory, copies in, runs every kernel, copies out and frees (see whole_function). `device`
    names where it runs in the results ("cpu", "gpu-host"); its arguments are NumPy arrays.
    """
    if result.path is None:
        return _failed(name, role, device, label, result)
    kernel = launch.load(result.path, scop, target)
    ordered = _ordered(scop)

    def run(args: Args) -> None:
        kernel(*ordered(args))

    def time_runs(args: Args, repeats: int) -> list[float]:
        return launch.time_calls(kernel, ordered(args), repeats=repeats, warmup=warmup)

    return Candidate(name, role, device, label, "perf_counter", run, time_runs,
                     generated=generated)


def whole_function(name: str, role: str, label: str, scop: Scop, result: BuildResult,
                   target: str = "cuda") -> Candidate:
    """Generated code's drop-in function `pc_<name>` on host (NumPy) arrays, as PPCG's was
    timed (DESIGN.md, the peer section): each call allocates device memory, copies the arrays
    in, runs every kernel, copies the results out and frees. One warm-up call right before the
    timed ones (the correctness run, earlier, made the first); perf_counter around each call,
    which returns after the copies out. `target` "c" runs the same path on the CPU (tests)."""
    return host_library(name, role, f"{label}, {WHOLE_FUNCTION_LABEL}", scop, result, target,
                        device="gpu-host" if target == "cuda" else "cpu", warmup=1)


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
