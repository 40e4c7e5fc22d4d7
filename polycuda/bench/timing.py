"""Timing primitives of the benchmark: statistics of samples, host and CUDA-event timers, and
the size ladder that predicts a run's time before it is made at full size."""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

ALPHA_RANGE = (0.5, 1.25)  # clamp of the fitted exponent t ~ work^alpha (see extrapolate)


def spread(samples: Sequence[float]) -> dict[str, float | int | None]:
    """Median and spread of timing samples in seconds.

    Returns:
        {"n", "median_s", "min_s", "max_s", "mean_s", "stdev_s"}; None values without samples,
        stdev 0 for one sample.

    Example:
        >>> spread([3.0, 1.0, 2.0])["median_s"]
        2.0
    """
    if not samples:
        return {"n": 0, "median_s": None, "min_s": None, "max_s": None, "mean_s": None,
                "stdev_s": None}
    return {"n": len(samples), "median_s": statistics.median(samples),
            "min_s": min(samples), "max_s": max(samples), "mean_s": statistics.fmean(samples),
            "stdev_s": statistics.stdev(samples) if len(samples) > 1 else 0.0}


def repeats_within(first_s: float, requested: int, budget_s: float | None) -> int:
    """How many timed runs fit in `budget_s` when one run took `first_s` (at least 1)."""
    if budget_s is None or first_s <= 0 or first_s * requested <= budget_s:
        return requested
    return max(1, min(requested, int(budget_s / first_s)))


def time_host(call: Callable[[], None], repeats: int) -> list[float]:
    """Seconds of each of `repeats` calls, by time.perf_counter (host code, no warm-up)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return times


def interleaved(settings: Sequence[str], run: Callable[[str], float], repeats: int,
                seed: int = 0) -> dict[str, list[float]]:
    """Seconds of `repeats` runs of each setting (run(setting) returns one run's seconds), the
    settings in a new shuffled order each round (fixed seed): a drift of the machine falls on
    every setting alike."""
    times: dict[str, list[float]] = {s: [] for s in settings}
    order = list(settings)
    rng = random.Random(seed)
    for _ in range(repeats):
        rng.shuffle(order)
        for setting in order:
            times[setting].append(run(setting))
    return times


def time_events(call: Callable[[], None], repeats: int, cupy: Any) -> list[float]:
    """Seconds of each of `repeats` calls, by CUDA events recorded on CuPy's current stream.

    The interval includes the host time of issuing the work (Python and launches), as a user
    of a library such as CuPy experiences it.
    """
    times = []
    for _ in range(repeats):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        call()
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop) / 1e3)
    return times


def size_ladder(small: Mapping[str, int], target: Mapping[str, int], rungs: int = 4
                ) -> list[dict[str, int]]:
    """`rungs` sizes from `small` towards `target` (excluded), geometric in each parameter.

    Example:
        >>> size_ladder({"n": 10}, {"n": 160}, rungs=4)
        [{'n': 10}, {'n': 20}, {'n': 40}, {'n': 80}]
    """
    ladder: list[dict[str, int]] = []
    for k in range(rungs):
        frac = k / rungs
        sizes = {p: max(1, round(small[p] * (target[p] / small[p]) ** frac)) for p in target}
        if not ladder or sizes != ladder[-1]:
            ladder.append(sizes)
    return ladder


def extrapolate(points: Sequence[tuple[float, float]], work: float) -> float:
    """Seconds predicted at `work` from measured (work, seconds) points: t ~ work^alpha.

    alpha is fitted on the last two points and clamped to ALPHA_RANGE (a fixed code's time
    grows at most a little faster than its work, and overhead-bound runs grow slower); one
    point gives alpha = 1.

    Example:
        >>> extrapolate([(1.0, 0.01), (10.0, 0.1)], 100.0)
        1.0
    """
    if not points:
        raise ValueError("extrapolate needs at least one measured point")
    w_last, t_last = points[-1]
    alpha = 1.0
    if len(points) > 1:
        w_prev, t_prev = points[-2]
        if w_last > w_prev and t_last > 0 and t_prev > 0:
            alpha = math.log(t_last / t_prev) / math.log(w_last / w_prev)
            alpha = min(max(alpha, ALPHA_RANGE[0]), ALPHA_RANGE[1])
    return t_last * (work / w_last) ** alpha if w_last > 0 else t_last
