"""Run a generated program through scheduler configurations and targets; classify outcomes.

Each (configuration, target) pair compiles the program with polycuda and compares it with
the original C (Program.verify: random inputs, parallel loops shuffled on c and openmp, the
CUDA code emulated on the CPU). A crash is classified by its message, so that known scheduler
limitations are counted apart from new failures.
"""

from __future__ import annotations

import re
import signal
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import polycuda
from polycuda.options import Options
from polycuda.program import CPU_TARGETS
from tests.fuzz.tree import FuzzProgram

CONFIGS: dict[str, Options] = {
    "isl": Options(scheduler="isl"),
    "pluto": Options(scheduler="pluto"),
    "pluto-balanced": Options(scheduler="pluto", balanced_wavefront=True),
    "false-deps": Options(eliminate_false_deps=True),
    # the third candidate of the default "auto" on cuda (one nest per SCC)
    "isl-distributed": Options(scheduler="isl-distributed"),
    # Shirako et al.'s block and thread schedules (with its inner loops merged into the band)
    "superposition": Options(scheduler="superposition"),
    # isl's host loops (time loops, sequential outer loops) each in one cooperative launch,
    # whatever their length (codegen/fused_loops.py; on the emulator)
    "grid-loops": Options(scheduler="isl", host_loops="grid"),
}
TARGETS = ("c", "openmp", "emulate")
RUN_LIMIT_S = 300.0  # building and running one target (gcc/g++ and the emulator)

# (class, pattern of the message): the first match names a crash; known ones are expected now
CRASH_CLASSES = (
    ("pluto-local-vars", r"isl_set_coefficients failed: input set not allowed to have local"),
    ("tiled-illegal", r"tiled schedule violates dependences"),
    ("schedule-illegal", r"schedule violates dependences"),
    ("parallel-race", r"runs dependent instances in parallel"),
    ("pluto-no-hyperplane", r"pluto: no legal hyperplane"),
    ("timeout", r"^timeout after"),
    ("build-error", r"^build failed"),
    ("frontend-rejects", r"error: "),
)
# Scheduler limitations being fixed now (Pluto's parity dependences, legality refusals after
# tiling, scheduling time) and Pluto's refusal to schedule (a clear error, not wrong code).
KNOWN_CLASSES = frozenset({"pluto-local-vars", "tiled-illegal", "schedule-illegal",
                           "parallel-race", "timeout", "pluto-no-hyperplane"})


@dataclass(frozen=True)
class Outcome:
    """One (program, configuration, target) run: "ok", "mismatch" or "crash"."""

    seed: int
    config: str
    target: str
    status: str
    crash_class: str = ""
    message: str = ""
    compile_s: float = 0.0  # polycuda's own time (schedule to generated text), no compiler

    @property
    def known(self) -> bool:
        return self.status == "crash" and self.crash_class in KNOWN_CLASSES


class Watch:
    """What run_program tells an observer (the parent of a forked child, tests/fuzz/children.py):
    each time-limited step before it starts, and each outcome once it is known."""

    def step(self, config: str, target: str, what: str, seconds: float) -> None:
        """`what` ("compile", "generate" or "run") of (config, target) starts, limited to
        `seconds`; target is "" for the compile, which every target of `config` shares."""

    def outcome(self, out: Outcome) -> None:
        """`out` is final."""


class Timeout(Exception):
    """Raised inside a run that passed its time limit."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise Timeout after `seconds` (SIGALRM: main thread only; interrupts Python code only)."""
    def fire(signum: int, frame: object) -> None:
        raise Timeout(f"timeout after {seconds:g} s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def classify(exc: BaseException) -> str:
    """The crash class of an exception, by its message ("other: <type>" when none matches)."""
    text = str(exc)
    for name, pattern in CRASH_CLASSES:
        if re.search(pattern, text, re.MULTILINE):
            return name
    return f"other: {type(exc).__name__}"


def run_program(prog: FuzzProgram, configs: tuple[str, ...], targets: tuple[str, ...],
                time_limit_s: float = 60.0, watch: Watch | None = None) -> list[Outcome]:
    """Every (configuration, target) outcome of `prog`, configuration-major."""
    watch = watch or Watch()
    outcomes = []
    for config in configs:
        start = time.perf_counter()
        watch.step(config, "", "compile", time_limit_s)
        try:  # the front end and the scop transformations count against the limit too
            with time_limit(time_limit_s):
                program = polycuda.compile(prog.source, options=CONFIGS[config],
                                           filename="fuzz.c")
        except Timeout as exc:
            for target in targets:
                outcomes.append(Outcome(seed=prog.seed, config=config, target=target,
                                        status="crash", crash_class="timeout", message=str(exc),
                                        compile_s=time.perf_counter() - start))
                watch.outcome(outcomes[-1])
            continue
        for target in targets:
            outcomes.append(_run_one(prog, program, config, target, time_limit_s, watch))
            watch.outcome(outcomes[-1])
    return outcomes


def _run_one(prog: FuzzProgram, program: polycuda.Program, config: str, target: str,
             time_limit_s: float, watch: Watch) -> Outcome:
    base = dict(seed=prog.seed, config=config, target=target)
    start = time.perf_counter()
    compile_s = 0.0
    try:
        # the limit is on polycuda's own time; the same Options as verify's (cached there)
        watch.step(config, target, "generate", time_limit_s)
        with time_limit(time_limit_s):
            program.generate(target, shuffle_parallel=target in CPU_TARGETS)
        compile_s = time.perf_counter() - start
        watch.step(config, target, "run", RUN_LIMIT_S)
        with time_limit(RUN_LIMIT_S):  # builds and runs: a hang here is a finding
            results = program.verify(prog.sizes, targets=(target,), seed=prog.seed,
                                     raise_on_mismatch=False)
    except Timeout as exc:
        cls = "timeout" if not compile_s else "run-timeout"
        return Outcome(**base, status="crash", crash_class=cls, message=str(exc),
                       compile_s=time.perf_counter() - start)
    except Exception as exc:  # noqa: BLE001 -- every crash is an outcome to count
        message = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=-3)}"
        return Outcome(**base, status="crash", crash_class=classify(exc), message=message,
                       compile_s=time.perf_counter() - start)
    bad = [r for r in results if not r.ok]
    if bad:
        return Outcome(**base, status="mismatch", message=bad[0].message, compile_s=compile_s)
    return Outcome(**base, status="ok", compile_s=compile_s)


def report(prog: FuzzProgram, outcome: Outcome) -> str:
    """A failure with what reproduces it: seed, configuration, target, sizes and the source."""
    return (f"seed {prog.seed}: {outcome.config} / {outcome.target}: {outcome.status}"
            f"{' (' + outcome.crash_class + ')' if outcome.crash_class else ''}\n"
            f"{outcome.message.strip()}\n"
            f"reproduce: python -m tests.fuzz --profile {prog.profile} --seed {prog.seed} "
            f"--count 1 --configs {outcome.config} --targets {outcome.target}\n"
            f"sizes: {prog.sizes}\n{prog.source}")
