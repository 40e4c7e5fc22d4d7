"""Progress of long compiles on stderr: each pass's name and time, and which region of a file
is compiling, shown only once the work has run for QUIET_S seconds (fast compiles print
nothing)."""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TextIO, TypeVar

QUIET_S = 2.0  # nothing is printed before a compile (or a file's regions) has run this long

T = TypeVar("T")


@dataclass
class Step:
    """One named pass of a compile: its time and what it did for this program (`note`, set by
    the pass's caller: "kernel0 tiles 64x64", "skipped: no wavefront band")."""

    name: str
    seconds: float = 0.0
    note: str = ""
    candidate: str = ""  # the candidate scheduler it ran for (scheduler "auto"), else ""


class PassTimer:
    """Times the named passes of one region's compile.

    Once the compile has run for more than `quiet_s` seconds, every pass that ends prints
    `polycuda: <region>: <pass> <s> s (<total> s)` on `stream`, and every pass that starts
    prints `polycuda: <region>: <pass> ...`; the passes that ended before are printed then too,
    so the log shows the whole compile. While `candidate` is set (scheduler "auto" trying each
    of its schedulers), the lines say `<region> [<candidate>]`. With show=False
    (Options.progress off) nothing is printed; the steps are kept alike.

    Every pass is kept in `steps` (name, seconds, note), in the order in which they ended.

    Example:
        timer = PassTimer("jacobi_2d")
        with timer.step("dependences") as step:
            dep_map = dependences.untagged_union(scop, ctx)
            step.note = "3 relations"
    """

    def __init__(self, region: str, stream: TextIO | None = None, quiet_s: float = QUIET_S,
                 show: bool = True):
        self.region = region
        self.stream = stream
        self.quiet_s = quiet_s if show else math.inf
        self.start = time.perf_counter()
        self.steps: list[Step] = []
        self.candidate = ""
        self._shown = 0

    @contextmanager
    def trying(self, candidate: str) -> Iterator[None]:
        """The passes of the body run for the candidate scheduler `candidate`."""
        outer, self.candidate = self.candidate, candidate
        try:
            yield
        finally:
            self.candidate = outer

    def _label(self, step: Step | None = None) -> str:
        candidate = step.candidate if step is not None else self.candidate
        return f"{self.region} [{candidate}]" if candidate else self.region

    @contextmanager
    def step(self, name: str) -> Iterator[Step]:
        """Time the pass `name` (the body of the with statement); yields its Step, whose note
        the body may set."""
        begin = time.perf_counter()
        if begin - self.start > self.quiet_s:  # already long: say what runs now
            self._show()
            print(f"polycuda: {self._label()}: {name} ...", file=self.stream or sys.stderr,
                  flush=True)
        step = Step(name, candidate=self.candidate)
        try:
            yield step
        finally:
            step.seconds = time.perf_counter() - begin
            self.steps.append(step)
            self._show()

    def record(self, name: str, seconds: float, note: str = "") -> None:
        """A pass timed elsewhere (in a forked child: schedule/budget.run_bounded)."""
        self.steps.append(Step(name, seconds, note, self.candidate))
        self._show()

    def _show(self) -> None:
        total = time.perf_counter() - self.start
        if total <= self.quiet_s:
            return
        stream = self.stream or sys.stderr
        for step in self.steps[self._shown:]:
            print(f"polycuda: {self._label(step)}: {step.name} {step.seconds:.2f} s "
                  f"({total:.2f} s)",
                  file=stream, flush=True)
        self._shown = len(self.steps)


def regions(items: Iterable[T], name_of, stream: TextIO | None = None,
            quiet_s: float = QUIET_S, show: bool = True) -> Iterator[T]:
    """Yield `items` (a file's regions); once more than `quiet_s` seconds have passed since the
    first, print `polycuda: region k/N <name>` on `stream` before each further one (never with
    show=False)."""
    items = list(items)
    start = time.perf_counter()
    for k, item in enumerate(items, 1):
        if show and time.perf_counter() - start > quiet_s:
            print(f"polycuda: region {k}/{len(items)} {name_of(item)}",
                  file=stream or sys.stderr, flush=True)
        yield item
