"""Measuring one kernel: the sequential oracle, then each candidate (a baseline or a polycuda
configuration) checked against it on the same random inputs and, only if right, timed.

The check is verify.compare at the tolerance of the region's element type (as parsed, so a
`--dtype float` region is checked as float: rtol 2e-4). Measured on jacobi_2d 4096^2, T=20: a
float32 run that differs from the oracle only in rounding order lies within 2e-6 of it; one
stale read in the last step (a violated dependence) lies 8e-4 away.

A candidate is a pair of callables on named arguments (`run` once, `time` n times), so that the
harness can plug in compiled libraries, CuPy code, or (in tests) a deliberately wrong runner.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polycuda.bench import timing
from polycuda.ir.scop import Scop
from polycuda.verify import compare

Args = dict[str, object]  # argument name -> value, in the region's argument order
RUNG_RATIO = 6.0  # work ratio between successive probe sizes
MAX_RUNGS = 10


@dataclass(frozen=True)
class Candidate:
    """Something to time on one kernel.

    role: "baseline" or "config" (a polycuda configuration).
    device: "cpu" (NumPy arguments), "gpu" (CuPy arguments) or "gpu-host" (runs on the GPU
        from NumPy arguments: the drop-in function with its copies).
    timer: "perf_counter" or "cuda-events", as `time` measures.
    run: one call in place on the arguments, finished when it returns.
    time: `time(args, n)` -> n seconds samples of further calls in place.
    failure: why it could not be prepared (build error...): reported FAILED, never run.
    generated: polycuda's code: its time is first predicted on smaller sizes (see probe).
    """

    name: str
    role: str
    device: str
    label: str
    timer: str
    run: Callable[[Args], None] | None = None
    time: Callable[[Args, int], list[float]] | None = None
    failure: str = ""
    generated: bool = False


@dataclass
class Measurement:
    """What became of one candidate on one kernel: status "ok", "FAILED" or "skipped"."""

    name: str
    role: str
    device: str
    label: str
    timer: str
    repeats_requested: int
    status: str = "ok"
    reason: str = ""
    samples_s: list[float] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    max_rel_error: dict[str, float] = field(default_factory=dict)
    probe: list[dict[str, Any]] = field(default_factory=list)
    check_s: float | None = None  # the correctness run (also the warm-up), wall time

    @staticmethod
    def of(cand: Candidate, repeats: int) -> Measurement:
        return Measurement(cand.name, cand.role, cand.device, cand.label, cand.timer, repeats)

    @property
    def ok(self) -> bool:
        return self.status == "ok" and bool(self.samples_s)

    @property
    def median_s(self) -> float | None:
        return timing.spread(self.samples_s)["median_s"]  # type: ignore[return-value]

    def fail(self, reason: str, status: str = "FAILED") -> Measurement:
        self.status, self.reason, self.samples_s = status, reason, []
        return self

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "role": self.role, "device": self.device,
                "label": self.label, "timer": self.timer, "status": self.status,
                "reason": self.reason, "repeats_requested": self.repeats_requested,
                "samples_s": list(self.samples_s), **timing.spread(self.samples_s),
                "check_s": self.check_s, "max_rel_error": dict(self.max_rel_error),
                "notes": list(self.notes), "probe": list(self.probe)}


class HostSide:
    """Arguments of CPU candidates: NumPy copies."""

    def upload(self, args: Args) -> Args:
        return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}

    def download(self, args: Args) -> Args:
        return args

    def sync(self) -> None:
        pass


class GpuSide(HostSide):
    """Arguments of GPU candidates: CuPy arrays (fresh device copies)."""

    def __init__(self, cupy: Any):
        self.cupy = cupy

    def upload(self, args: Args) -> Args:
        return {k: (self.cupy.asarray(v) if isinstance(v, np.ndarray) else v)
                for k, v in args.items()}

    def download(self, args: Args) -> Args:
        return {k: (self.cupy.asnumpy(v) if isinstance(v, self.cupy.ndarray) else v)
                for k, v in args.items()}

    def sync(self) -> None:
        self.cupy.cuda.Device().synchronize()


@dataclass(frozen=True)
class KernelCase:
    """One kernel at its timed sizes: the region, its inputs and its work.

    inputs(sizes) -> fresh named random arguments (never zeros); work(sizes) -> flops of one
    run (the size ladder's measure). check_sizes: where results are checked instead of at
    `sizes`, for a problem ill-posed there (sizes.PPCG_CHECK_SIZES); None checks at `sizes`.
    """

    name: str
    scop: Scop
    sizes: Mapping[str, int]
    small: Mapping[str, int]
    inputs: Callable[[Mapping[str, int]], Args]
    work: Callable[[Mapping[str, int]], float]
    check_sizes: Mapping[str, int] | None = None


@dataclass(frozen=True)
class Limits:
    """repeats: timed runs wanted; sequential_budget_s / entry_budget_s: seconds of timed runs
    beyond which fewer runs are made (said in the notes); max_run_s: polycuda code predicted
    slower than this per run is skipped (None: never)."""

    repeats: int = 10
    sequential_budget_s: float | None = None
    entry_budget_s: float | None = None
    max_run_s: float | None = None


# The clock of one run; a module attribute so that tests can give the probe a counted clock
# instead of the machine's (a test must not depend on how busy the machine is).
clock = time.perf_counter


def _once(cand: Candidate, side: HostSide, args: Args) -> float:
    assert cand.run is not None
    start = clock()
    cand.run(args)
    side.sync()
    return clock() - start


def measure_oracle(case: KernelCase, oracle: Candidate, inputs: Args, limits: Limits,
                   check_inputs: Args | None = None) -> tuple[Measurement, Args | None]:
    """Run the sequential reference on a copy of `check_inputs` (default: `inputs`), the
    expected result, and time it on `inputs`.

    Returns:
        The measurement and the expected arguments (None when the reference failed).
    """
    meas, side = Measurement.of(oracle, limits.repeats), HostSide()
    if oracle.failure:
        return meas.fail(oracle.failure), None
    try:
        expected = side.upload(inputs if check_inputs is None else check_inputs)
        first = _once(oracle, side, expected)
        meas.check_s = first
        count = timing.repeats_within(first, limits.repeats, limits.sequential_budget_s)
        assert oracle.time is not None
        if check_inputs is not None:  # the oracle ran at the check sizes: all timed anew
            meas.samples_s = oracle.time(side.upload(inputs), count)
            meas.notes.append(f"checked at other sizes ({first:.2f} s there); "
                              f"{count} timed run(s) at these")
        elif count == limits.repeats:  # the oracle run was the warm-up
            meas.samples_s = oracle.time(side.upload(inputs), count)
        else:
            meas.samples_s = [first] + oracle.time(side.upload(inputs), count - 1)
            meas.notes.append(f"one sequential run takes {first:.2f} s: {count} timed run(s) "
                              f"instead of {limits.repeats}, the first being the oracle run "
                              "on fresh inputs (no warm-up)")
    except Exception as exc:  # noqa: BLE001 (any failure of the reference is reported)
        return meas.fail(f"{type(exc).__name__}: {exc}"), None
    return meas, expected


def measure_candidate(case: KernelCase, cand: Candidate, inputs: Args, expected: Args,
                      side: HostSide, limits: Limits, check_inputs: Args | None = None
                      ) -> Measurement:
    """Check `cand` against `expected` on fresh copies of `check_inputs` (default: `inputs`,
    then reused for timing); time it on `inputs` if right.

    The correctness run is also the warm-up. A wrong result is FAILED and never timed; an
    exception (build, launch, CUDA error) is FAILED with its message; polycuda code predicted
    slower than limits.max_run_s is "skipped" with the prediction.
    """
    meas = Measurement.of(cand, limits.repeats)
    if cand.failure:
        return meas.fail(cand.failure)
    try:
        if cand.generated and limits.max_run_s is not None and case.sizes != case.small:
            reason = probe(case, cand, side, limits.max_run_s, meas.probe)
            if reason:
                return meas.fail(reason, status="skipped")
        args = side.upload(inputs if check_inputs is None else check_inputs)
        meas.check_s = _once(cand, side, args)
        result = compare(case.scop, cand.name, expected, side.download(args))
        meas.max_rel_error = dict(result.worst)
        if not result.ok:
            return meas.fail(f"wrong result: {result.message.strip()}")
        count = timing.repeats_within(meas.check_s, limits.repeats, limits.entry_budget_s)
        if count < limits.repeats:
            meas.notes.append(f"one run takes {meas.check_s:.2f} s: {count} timed runs "
                              f"instead of {limits.repeats}")
        assert cand.time is not None
        if check_inputs is not None:
            args = side.upload(inputs)
            meas.notes.append("checked at other sizes (the kernel's check_sizes), timed at these")
        meas.samples_s = cand.time(args, count)
    except Exception as exc:  # noqa: BLE001 (a crashing candidate is FAILED, not the bench)
        return meas.fail(f"{type(exc).__name__}: {str(exc).strip()[:500]}")
    return meas


def probe(case: KernelCase, cand: Candidate, side: HostSide, max_run_s: float,
          points_out: list[dict[str, Any]]) -> str:
    """Time one run at each rung of the size ladder; "" if a run at the case's sizes is
    predicted within `max_run_s`, else the reason to skip it (the rungs go to points_out)."""
    points: list[tuple[float, float]] = []
    target_work = case.work(case.sizes)
    ratio = target_work / max(case.work(case.small), 1.0)
    rungs = min(MAX_RUNGS, max(1, math.ceil(math.log(max(ratio, 1.0)) / math.log(RUNG_RATIO))))
    for sizes in timing.size_ladder(case.small, case.sizes, rungs):
        work = case.work(sizes)
        if points and timing.extrapolate(points, work) > max_run_s:
            break
        seconds = _once(cand, side, side.upload(case.inputs(sizes)))
        points.append((work, seconds))
        points_out.append({"sizes": dict(sizes), "seconds": seconds})
    predicted = timing.extrapolate(points, target_work)
    if predicted <= max_run_s:
        return ""
    last = points_out[-1]
    shown = ", ".join(f"{k}={v}" for k, v in last["sizes"].items())
    return (f"a run at {shown} took {last['seconds'] * 1e3:.3g} ms; extrapolated to these "
            f"sizes ({target_work / points[-1][0]:.3g}x the flops): {predicted:.3g} s per run "
            f"> limit {max_run_s:g} s; not run")
