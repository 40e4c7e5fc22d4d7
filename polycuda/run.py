"""`polycuda run`: build, run on random data, verify against the oracle, and time."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field

from polycuda.program import Program
from polycuda.sizes import resolve_sizes
from polycuda.verify import compare, copy_arguments, random_arguments


@dataclass
class RunReport:
    name: str
    target: str
    sizes: dict[str, int]
    times_s: list[float] = field(default_factory=list)
    reference_s: float = 0.0
    reference_name: str = ""
    verified: bool | None = None
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.verified is not False

    def render(self) -> str:
        med = statistics.median(self.times_s) if self.times_s else float("nan")
        spread = (f"[{min(self.times_s) * 1e3:.3f}, {max(self.times_s) * 1e3:.3f}]"
                  if self.times_s else "")
        check = {True: "verified", False: f"MISMATCH {self.message}", None: "not verified"}
        lines = [f"{self.name} on {self.target} at {self.sizes}:",
                 (f"  {self.target:10s} median {med * 1e3:10.3f} ms  min/max {spread} ms "
                  f"({len(self.times_s)} runs, host arrays, copies included)"),
                 f"  reference  {self.reference_s * 1e3:10.3f} ms  ({self.reference_name})"]
        if self.times_s and self.reference_s:
            lines.append(f"  speedup    {self.reference_s / med:10.2f}x")
        lines.append(f"  result     {check[self.verified]}")
        return "\n".join(lines)


def run_and_time(prog: Program, sizes: dict[str, int], repeats: int = 10,
                 verify: bool = True, seed: int = 0) -> RunReport:
    """One reference run and `repeats` timed runs of the target (after one warm-up run)."""
    values = resolve_sizes(prog.scop, sizes)
    target = prog.resolve_target(None)
    report = RunReport(prog.name, target, values, reference_name=prog.reference_name)
    inputs = random_arguments(prog.scop, values, seed)
    kernel = prog.kernel(target)
    ordered = [a.name for a in prog.scop.args]
    actual = copy_arguments(inputs)
    kernel(*[actual[n] for n in ordered])  # warm-up, and the run that is verified
    if verify:
        expected = copy_arguments(inputs)
        start = time.perf_counter()
        prog._reference(expected)
        report.reference_s = time.perf_counter() - start
        result = compare(prog.scop, target, expected, actual)
        report.verified, report.message = result.ok, result.message
    for _ in range(repeats):
        args = copy_arguments(inputs)
        start = time.perf_counter()
        kernel(*[args[n] for n in ordered])
        report.times_s.append(time.perf_counter() - start)
    return report
