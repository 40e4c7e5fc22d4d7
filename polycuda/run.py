"""`polycuda run`: build, run on random data, verify against the oracle, and time both.

The target and a compiled reference (the C original) are timed alike: the same number of
warm-up calls (the first call of each loads its library; its result is the one verified), then
the same number of timed calls, alternating between the two so that drift affects both, each
on a fresh copy of the inputs (the copy is not timed). The report gives both medians, both
spreads and the ratio of the medians. An interpreted reference (a Python function: minutes
for a 2-D stencil at n = 1024) runs once, its one run both verified and timed, a progress record
(progress.LOG) before it and its time after it.
"""

from __future__ import annotations

import ctypes
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from polycuda import progress
from polycuda.analysis import indirect
from polycuda.api import PYTHON_REFERENCE_NAME
from polycuda.codegen import host_choice
from polycuda.codegen.executor_cuda import EXECUTOR_CODES
from polycuda.pipeline import transform_scop
from polycuda.program import Program
from polycuda.sizes import resolve_sizes
from polycuda.verify import compare, copy_arguments, random_arguments

WARMUP = 1  # calls of each program before timing (library load, first-touch of pages)
# A reference faster than this is work of the size of what a loaded machine's scheduler takes
# from one run (time slices of other processes, frequency changes), so the ratio of two such
# medians says little; the report says so (RunReport.caveat).
MEANINGFUL_S = 0.1
NOISY = 1.5  # slowest / fastest run of one program above this: the runs disagree, said so


@dataclass(frozen=True)
class Fallback:
    """The host fallback of one run-time nest in the last call (codegen/executor_cuda.py):
    its threshold in iterations per level (0: never) and, under "auto", the costs it came
    from (tune/level_cost.py); level_s = 0 for an explicit threshold."""

    threshold: float
    level_s: float = 0.0
    level_measured: bool = False
    host_iteration_s: float = 0.0
    host_measured: bool = False

    def render(self, levels: int, iterations: int, on_host: bool) -> str:
        """'ran on the host: ...' or 'ran on the GPU: ...' with the threshold and its costs."""
        if self.threshold <= 0:
            return "ran on the GPU (host fallback off: --cpu-fallback-per-level 0)"
        per_level = iterations / max(levels, 1)
        if levels <= 1 and not on_host:  # the check runs when a pass finds a further level
            return "ran on the GPU: one level (the host fallback needs two or more)"
        if self.level_s > 0:
            why = (f"GPU level cost {self.level_s * 1e6:.2f} us ["
                   + ("measured" if self.level_measured else "reference H100")
                   + f"], host iteration cost {self.host_iteration_s * 1e9:.1f} ns ["
                   + ("measured on this loop" if self.host_measured else "reference host")
                   + "]")
        else:
            why = "explicit --cpu-fallback-per-level"
        if on_host:  # the inspection stopped: the levels are at least those found
            return (f"ran on the host: at most {per_level:.1f} iterations/level < threshold "
                    f"{self.threshold:.1f} ({why})")
        return (f"ran on the GPU: {per_level:.1f} iterations/level >= threshold "
                f"{self.threshold:.1f} ({why})")


@dataclass
class RunReport:
    """Timings (seconds) of the target and the reference, and the verification result."""

    name: str
    target: str
    sizes: dict[str, int]
    times_s: list[float] = field(default_factory=list)
    reference_times_s: list[float] = field(default_factory=list)
    reference_name: str = ""
    warmup: int = WARMUP
    reference_warmup: int = WARMUP  # 0: its one run was timed (an interpreted reference)
    verified: bool | None = None
    message: str = ""
    # run-time nests on cuda (codegen/inspector_cuda.py): (loop, levels, iterations)
    levels: list[tuple[str, int, int]] = field(default_factory=list)
    # per run-time nest, with options beyond the paper's defaults (codegen/executor_cuda.py):
    # executor, levels reused, inspection seconds (host clock), widest level (0: not known)
    executors: list[tuple[str, bool, float, int]] = field(default_factory=list)
    # per run-time nest: the host fallback's decision and its costs (runtime_fallbacks)
    fallbacks: list[Fallback] = field(default_factory=list)
    # cuda: which version of the region the verified call ran (ran_version; "": not known)
    ran: str = ""

    @property
    def ok(self) -> bool:
        return self.verified is not False

    @property
    def reference_s(self) -> float:
        """Median time of the reference (0.0 when it was not timed)."""
        return statistics.median(self.reference_times_s) if self.reference_times_s else 0.0

    def speedup_spread(self) -> tuple[float, float] | None:
        """The least and largest ratio reference / target over the runs timed in pairs (run k
        of each, one after the other: drift of the machine hits both alike); None when the
        reference was not timed as often (an interpreted reference: its one run)."""
        if len(self.times_s) < 2 or len(self.reference_times_s) != len(self.times_s):
            return None
        ratios = [r / t for r, t in zip(self.reference_times_s, self.times_s) if t > 0]
        return (min(ratios), max(ratios)) if ratios else None

    def caveat(self) -> str:
        """Why the speedup means little, in words ("" where nothing says so): the reference
        runs under MEANINGFUL_S, or the runs of either program vary by more than NOISY."""
        why = []
        if 0 < self.reference_s < MEANINGFUL_S:
            why.append(f"the work is small (the reference runs {self.reference_s * 1e3:.1f} ms, "
                       f"under {MEANINGFUL_S * 1e3:.0f} ms)")
        for label, times in (("target", self.times_s), ("reference", self.reference_times_s)):
            if len(times) > 1 and min(times) > 0 and max(times) / min(times) > NOISY:
                why.append(f"the {label}'s runs vary {max(times) / min(times):.1f}x "
                           "(a busy machine)")
        if not why:
            return ""
        return ("; ".join(why) + ": this speedup is not a measurement to quote; time a larger "
                "--size, on an idle machine")

    def render(self) -> str:
        check = {True: "verified", False: f"MISMATCH {self.message}", None: "not verified"}
        where = ("host arrays, copies to and from the GPU included" if self.target == "cuda"
                 else "host arrays")
        lines = [f"{self.name} on {self.target} at {self.sizes}:",
                 _timing_line(self.target, self.times_s, self.warmup, where)]
        if self.reference_times_s:
            lines.append(_timing_line("reference", self.reference_times_s,
                                      self.reference_warmup, self.reference_name))
        else:
            lines.append("  reference  not run (--no-verify)")
        if self.times_s and self.reference_times_s:
            ratio = self.reference_s / statistics.median(self.times_s)
            spread = self.speedup_spread()
            shown = f", {spread[0]:.2f}x to {spread[1]:.2f}x over the paired runs" if spread \
                else ""
            lines.append(f"  speedup    {ratio:10.2f}x  ({self.target} against the "
                         f"{self.reference_name}; medians{shown})")
            caveat = self.caveat()
            if caveat:
                lines.append(f"  caveat     {caveat}")
        for k, (loop, levels, iterations) in enumerate(self.levels):
            if k < len(self.executors) and self.executors[k][0].startswith("syncfree-affine"):
                lines.append(f"  run-time   loop '{loop}': {iterations} iterations; executor: "
                             f"{self.executors[k][0]}; check for reads of later iterations' "
                             f"cells in {self.executors[k][2] * 1e3:.3f} ms")
                continue
            line = (f"  run-time   loop '{loop}': {levels} level(s) for {iterations} "
                    f"iterations, {iterations / max(levels, 1):.1f} per level on average")
            if k < len(self.executors):
                executor, reused, inspect_s, widest = self.executors[k]
                line += f" (widest {widest})" if widest else ""
                line += (f"; executor: {executor}; levels "
                         + ("reused (index arrays unchanged), no inspection" if reused else
                            f"inspected in {inspect_s * 1e3:.3f} ms"))
                if executor.startswith("sequential"):
                    line += f" (inspection stopped after {levels - 1} levels, rest in order)"
                if k < len(self.fallbacks):
                    line += "\n             " + self.fallbacks[k].render(
                        levels, iterations, executor.startswith("sequential"))
            else:
                line += (" (inspection pipelined with execution: bench/indirect_gpu.py times "
                         "them apart)")
            lines.append(line)
        if self.ran:
            lines.append(f"  ran: {self.ran}")
        lines.append(f"  result     {check[self.verified]}")
        return "\n".join(lines)


def _timing_line(label: str, times: list[float], warmup: int, note: str) -> str:
    if not times:
        return f"  {label:10s} not timed"
    runs = (f"{len(times)} runs after {warmup} warm-up" if warmup else
            f"{len(times)} run{'s' if len(times) > 1 else ''}, the verified one")
    return (f"  {label:10s} median {statistics.median(times) * 1e3:10.3f} ms  "
            f"min-max [{min(times) * 1e3:.3f}, {max(times) * 1e3:.3f}] ms  "
            f"({runs}; {note})")


def run_and_time(prog: Program, sizes: dict[str, int], repeats: int = 10,
                 verify: bool = True, seed: int = 0) -> RunReport:
    """Verify the target against the reference, then time both (`repeats` runs each after
    WARMUP untimed runs; an interpreted reference: its one run, verified and timed). With
    verify=False the reference neither runs nor is timed."""
    values = resolve_sizes(prog.scop, sizes)
    target = prog.resolve_target(None)
    report = RunReport(prog.name, target, values, reference_name=prog.reference_name)
    inputs = random_arguments(prog.scop, values, seed)
    kernel = prog.kernel(target)
    ordered = [a.name for a in prog.scop.args]

    def run_target(args: dict[str, object]) -> None:
        kernel(*[args[n] for n in ordered])

    programs: dict[str, Callable[[dict[str, object]], None]] = {"target": run_target}
    if verify:
        programs["reference"] = prog._reference
    results = {"target": _warm_up(run_target, inputs)}
    interpreted = verify and prog.reference_name == PYTHON_REFERENCE_NAME
    if interpreted:  # one run, timed: the counted cap on a reference that may take minutes
        report.reference_warmup = 0
        results["reference"], once_s = _reference_once(prog, inputs)
        report.reference_times_s = [once_s]
        del programs["reference"]
    elif verify:
        results["reference"] = _warm_up(prog._reference, inputs)
    report.ran = ran_version(prog, kernel)
    report.levels = runtime_levels(prog, kernel, target)
    report.executors = runtime_executors(prog, kernel, len(report.levels))
    report.fallbacks = runtime_fallbacks(prog, kernel, len(report.levels))
    if verify:
        result = compare(prog.scop, target, results["reference"], results["target"])
        report.verified, report.message = result.ok, result.message
    times: dict[str, list[float]] = {name: [] for name in programs}
    for _ in range(repeats):
        for name, run in programs.items():
            times[name].append(_timed(run, inputs))
    report.times_s = times["target"]
    report.reference_times_s = times.get("reference", report.reference_times_s)
    return report


def _reference_once(prog: Program, inputs: dict[str, object]) -> tuple[dict[str, object], float]:
    """The interpreted reference's one run on a copy of `inputs`: its result and seconds, said
    before and after at INFO on progress.LOG (unless Options.progress is off)."""
    say = prog.options.progress
    if say:
        progress.LOG.info("%s: running the reference once (%s; it may take minutes; "
                          "--no-verify skips it) ...", prog.name, prog.reference_name)
    args = copy_arguments(inputs)
    start = time.perf_counter()
    prog._reference(args)
    seconds = time.perf_counter() - start
    if say:
        progress.LOG.info("%s: the reference took %.2f s", prog.name, seconds)
    return args, seconds


def _warm_up(run: Callable[[dict[str, object]], None], inputs: dict[str, object]
             ) -> dict[str, object]:
    """WARMUP untimed calls, each on a fresh copy of the inputs; returns the first's result."""
    first = copy_arguments(inputs)
    run(first)
    for _ in range(WARMUP - 1):
        run(copy_arguments(inputs))
    return first


def _timed(run: Callable[[dict[str, object]], None], inputs: dict[str, object]) -> float:
    args = copy_arguments(inputs)
    start = time.perf_counter()
    run(args)
    return time.perf_counter() - start


# pc_<name>_ran after a call (codegen/host_choice.py: RAN_GPU, RAN_HOST)
RAN = {host_choice.RAN_GPU: "gpu", host_choice.RAN_HOST: "host (sequential)"}


def ran_version(prog: Program, kernel: Callable) -> str:
    """Which version of the region the last call of `kernel` ran: "gpu" or "host
    (sequential)" (Options.host_fallback, codegen/host_choice.py); "" where the library has
    no host version (not CUDA, host_fallback "never", a serial region, run-time nests)."""
    lib = getattr(kernel, "lib", None)
    if lib is None:
        return ""
    try:
        flag = ctypes.c_int.in_dll(lib, f"pc_{prog.name}_ran").value
    except ValueError:
        return ""
    return RAN.get(flag, "")


def runtime_levels(prog: Program, kernel: Callable, target: str) -> list[tuple[str, int, int]]:
    """(loop iterator, levels, iterations) of each run-time nest in the last call of `kernel`
    (targets cuda and emulate; the counters pc_<name>_levels/_iterations of the library)."""
    if target not in ("cuda", "emulate"):
        return []
    options = prog.options.replace(target="cuda")
    nests = indirect.runtime_nests(transform_scop(prog.scop, options),
                                   options.allow_reassociation)
    lib = getattr(kernel, "lib", None)
    if not nests or lib is None:
        return []
    array = ctypes.c_longlong * len(nests)
    levels = array.in_dll(lib, f"pc_{prog.name}_levels")
    iterations = array.in_dll(lib, f"pc_{prog.name}_iterations")
    return [(n.iterator, int(levels[k]), int(iterations[k])) for k, n in enumerate(nests)]


def runtime_executors(prog: Program, kernel: Callable, count: int
                      ) -> list[tuple[str, bool, float, int]]:
    """(executor, reused, inspection seconds, widest level) of each run-time nest in the last
    call, from a library built with options beyond the paper's defaults (else [])."""
    lib = getattr(kernel, "lib", None)
    if not count or lib is None:
        return []
    try:
        kinds = (ctypes.c_longlong * count).in_dll(lib, f"pc_{prog.name}_executor")
    except ValueError:
        return []  # the paper's code: levels, inspected every call
    reused = (ctypes.c_longlong * count).in_dll(lib, f"pc_{prog.name}_reused")
    widest = (ctypes.c_longlong * count).in_dll(lib, f"pc_{prog.name}_widest")
    seconds = (ctypes.c_double * count).in_dll(lib, f"pc_{prog.name}_inspect_s_wall")
    return [(EXECUTOR_CODES[int(kinds[k])], bool(reused[k]), float(seconds[k]), int(widest[k]))
            for k in range(count)]


def runtime_fallbacks(prog: Program, kernel: Callable, count: int) -> list[Fallback]:
    """The host fallback of each run-time nest in the last call (threshold and, under auto,
    its costs), from a library built with a fallback (else [])."""
    lib = getattr(kernel, "lib", None)
    if not count or lib is None:
        return []
    name = prog.name
    try:
        below = (ctypes.c_double * count).in_dll(lib, f"pc_{name}_fallback_below")
    except ValueError:
        return [Fallback(0.0)] * count if runtime_executors(prog, kernel, count) else []
    try:
        level_s = ctypes.c_double.in_dll(lib, f"pc_{name}_level_s").value
    except ValueError:  # an explicit threshold
        return [Fallback(float(below[k])) for k in range(count)]
    level_measured = bool(ctypes.c_longlong.in_dll(lib, f"pc_{name}_level_measured").value)
    # the host cost decided on: threshold = level cost / host cost (the fallback may have
    # measured a new one for the next call since)
    measured = (ctypes.c_longlong * count).in_dll(lib, f"pc_{name}_host_used_measured")
    return [Fallback(float(below[k]), level_s, level_measured,
                     level_s / float(below[k]) if below[k] > 0 else 0.0, bool(measured[k]))
            for k in range(count)]
