"""Progress of long compiles, through Python's logging (logger "polycuda.progress"): each pass's
name and time, and which region of a file is compiling. At INFO only once the work has run for
QUIET_S seconds (fast compiles say nothing), at DEBUG every pass from the start. The library
makes the records; where they go is logging's configuration: the command line shows them on
stderr (`--quiet`: not, `--verbose`: DEBUG too), the Python API nowhere until it is configured.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

QUIET_S = 2.0  # no INFO record before a compile (or a file's regions) has run this long
LOG = logging.getLogger("polycuda.progress")
# The clock of the passes; a module attribute so that tests can count time instead of reading
# the machine's (no test may depend on how busy the machine is).
clock = time.perf_counter

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

    Once the compile has run for more than `quiet_s` seconds (None: QUIET_S), every pass that
    ends logs `<region>: <pass> <s> s (<total> s)` at INFO on LOG, and every pass that starts
    `<region>: <pass> ...`; the passes that ended before are logged then too, so the log shows
    the whole compile. Before that, each pass that ends is logged at DEBUG where LOG is enabled
    for DEBUG (`polycuda --verbose`). While `candidate` is set (scheduler "auto" trying each of
    its schedulers), the lines say `<region> [<candidate>]`. With show=False (Options.progress
    off) nothing is logged; the steps are kept alike.

    Every pass is kept in `steps` (name, seconds, note), in the order in which they ended.

    Example:
        timer = PassTimer("jacobi_2d")
        with timer.step("dependences") as step:
            dep_map = dependences.untagged_union(scop, ctx)
            step.note = "3 relations"
    """

    def __init__(self, region: str, quiet_s: float | None = None, show: bool = True):
        self.region = region
        self.quiet_s = QUIET_S if quiet_s is None else quiet_s
        self.show = show
        self.start = clock()
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
        begin = clock()
        if self.show and begin - self.start > self.quiet_s:  # already long: say what runs now
            self._show()
            LOG.info("%s: %s ...", self._label(), name)
        step = Step(name, candidate=self.candidate)
        try:
            yield step
        finally:
            step.seconds = clock() - begin
            self.steps.append(step)
            self._show()

    def record(self, name: str, seconds: float, note: str = "") -> None:
        """A pass timed elsewhere (in a forked child: schedule/budget.run_bounded)."""
        self.steps.append(Step(name, seconds, note, self.candidate))
        self._show()

    def _show(self) -> None:
        total = clock() - self.start
        level = logging.INFO if total > self.quiet_s else logging.DEBUG
        if not self.show or not LOG.isEnabledFor(level):
            return
        for step in self.steps[self._shown:]:
            LOG.log(level, "%s: %s %.2f s (%.2f s)", self._label(step), step.name,
                    step.seconds, total)
        self._shown = len(self.steps)


def regions(items: Iterable[T], name_of, quiet_s: float | None = None,
            show: bool = True) -> Iterator[T]:
    """Yield `items` (a file's regions); log `region k/N <name>` before each: at INFO once more
    than `quiet_s` seconds (None: QUIET_S) have passed since the first, else at DEBUG (never
    with show=False)."""
    items = list(items)
    quiet_s = QUIET_S if quiet_s is None else quiet_s
    start = clock()
    for k, item in enumerate(items, 1):
        if show:
            late = clock() - start > quiet_s
            LOG.log(logging.INFO if late else logging.DEBUG, "region %d/%d %s", k, len(items),
                    name_of(item))
        yield item
