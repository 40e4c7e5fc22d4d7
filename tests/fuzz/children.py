"""Each fuzz program in its own forked child process, killed when it passes its time limit.

harness.time_limit (SIGALRM) interrupts Python code only: a child stuck inside one long islpy
call never sees it, so the parent watches every time-limited step the child announces
(harness.Watch) and kills the child's process group a grace period after the step's limit. The
step that hung is recorded as a timeout of its (configuration, target); the targets after it
run again in a fresh child. Outcomes come back over a pipe as they are known.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait

from tests.fuzz.harness import Outcome, Watch, run_program
from tests.fuzz.tree import FuzzProgram

KILL_GRACE_S = 5.0  # past a step's own limit: its SIGALRM had the chance to end it cleanly
Pairs = tuple[tuple[str, ...], tuple[str, ...]]  # (configurations, targets)
Runner = Callable[..., list[Outcome]]  # run_program's signature


@dataclass(frozen=True)
class _Task:
    prog: FuzzProgram
    config: str
    targets: tuple[str, ...]


class _PipeWatch(Watch):
    def __init__(self, conn: Connection) -> None:
        self.conn = conn

    def step(self, config: str, target: str, what: str, seconds: float) -> None:
        self.conn.send(("step", target, what, seconds))

    def outcome(self, out: Outcome) -> None:
        self.conn.send(("outcome", out))


def _child(conn: Connection, task: _Task, time_limit_s: float, runner: Runner) -> None:
    os.setpgid(0, 0)  # its own group: a kill also ends the compilers and programs it started
    runner(task.prog, (task.config,), task.targets, time_limit_s, watch=_PipeWatch(conn))
    conn.send(("end",))
    conn.close()


@dataclass
class _Running:
    task: _Task
    proc: multiprocessing.process.BaseProcess
    conn: Connection
    step: tuple[str, str, float] = ("", "compile", 0.0)  # (target, what, seconds)
    deadline: float = float("inf")
    outcomes: list[Outcome] = field(default_factory=list)
    ended: bool = False


def _start(task: _Task, time_limit_s: float, runner: Runner) -> _Running:
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(child, task, time_limit_s, runner), daemon=True)
    proc.start()
    child.close()
    try:
        os.setpgid(proc.pid, proc.pid)  # also here: a kill may come before the child runs
    except OSError:
        pass  # the child did it first, or has already exited
    run = _Running(task, proc, parent)
    run.deadline = time.monotonic() + time_limit_s + KILL_GRACE_S
    return run


def _receive(run: _Running) -> None:
    """Read what the child sent so far; mark it ended once its pipe closes."""
    try:
        while run.conn.poll():
            msg = run.conn.recv()
            if msg[0] == "step":
                run.step = msg[1:]
                run.deadline = time.monotonic() + msg[3] + min(KILL_GRACE_S, msg[3])
            elif msg[0] == "outcome":
                run.outcomes.append(msg[1])
    except (EOFError, OSError):
        run.ended = True


def _kill(run: _Running) -> None:
    try:
        os.killpg(run.proc.pid, signal.SIGKILL)
    except OSError:
        run.proc.kill()
    run.proc.join()
    run.conn.close()


def _finish(run: _Running) -> tuple[list[Outcome], _Task | None]:
    """The outcomes of a child that ended or was killed, and the task left to run again."""
    done = {o.target for o in run.outcomes}
    left = tuple(t for t in run.task.targets if t not in done)
    if not left:
        return run.outcomes, None
    prog, config = run.task.prog, run.task.config
    target, what, seconds = run.step
    if run.proc.exitcode is not None and run.proc.exitcode != -signal.SIGKILL:
        lost = [Outcome(seed=prog.seed, config=config, target=t, status="crash",
                        crash_class=f"other: child exit {run.proc.exitcode}",
                        message=f"the child died with exit code {run.proc.exitcode} in {what}")
                for t in left]
        return run.outcomes + lost, None
    # killed: the step that hung times out; a compile takes every target with it
    hung = left if not target else (target,)
    message = f"timeout after {seconds:g} s (in {what}; killed: SIGALRM did not end it)"
    cls = "run-timeout" if what == "run" else "timeout"
    killed = [Outcome(seed=prog.seed, config=config, target=t, status="crash",
                      crash_class=cls, message=message, compile_s=seconds) for t in hung]
    rest = tuple(t for t in left if t not in hung)
    return run.outcomes + killed, (_Task(prog, config, rest) if rest else None)


def run_isolated(progs: Iterable[FuzzProgram], pairs: Callable[[FuzzProgram], Pairs], *,
                 time_limit_s: float, jobs: int = 1, stop: Callable[[], bool] = lambda: False,
                 runner: Runner | None = None) -> Iterator[tuple[FuzzProgram, list[Outcome]]]:
    """(program, outcomes) per program in the order of `progs`, configuration-major as
    run_program's; one forked child per (program, configuration), `jobs` at a time. No new
    program starts once `stop()` is true; the ones started finish. `runner` stands in for
    run_program (tests)."""
    runner = runner or run_program
    source = iter(progs)
    pending: deque[_Task] = deque()
    order: deque[tuple[FuzzProgram, Pairs]] = deque()
    results: dict[int, list[Outcome]] = {}
    open_tasks: dict[int, int] = {}
    running: list[_Running] = []
    while True:
        while len(running) < jobs:
            if not pending:
                prog = None if stop() else next(source, None)
                if prog is None:
                    break
                configs, targets = pairs(prog)
                order.append((prog, (configs, targets)))
                results[prog.seed], open_tasks[prog.seed] = [], len(configs)
                pending.extend(_Task(prog, c, targets) for c in configs)
            running.append(_start(pending.popleft(), time_limit_s, runner))
        while order and not open_tasks[order[0][0].seed]:
            prog, (configs, targets) = order.popleft()
            outs = sorted(results.pop(prog.seed), key=lambda o: (
                configs.index(o.config), targets.index(o.target)))
            yield prog, outs
        if not running:
            return
        wait([r.conn for r in running],
             timeout=max(0.0, min(r.deadline for r in running) - time.monotonic()))
        for run in list(running):
            _receive(run)
            if run.ended:
                run.proc.join()
                run.conn.close()
            elif time.monotonic() >= run.deadline:
                _kill(run)
            else:
                continue
            running.remove(run)
            outs, again = _finish(run)
            results[run.task.prog.seed] += outs
            if again is not None:
                pending.appendleft(again)
            else:
                open_tasks[run.task.prog.seed] -= 1
