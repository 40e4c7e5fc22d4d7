"""Bounded solver calls: a scheduler or AST build runs in a forked child under a wall-clock
budget and an isl operation quota, and hands back its result as text (or gives up).

isl checks its operation quota (and isl_ctx_abort) only when it allocates, not inside the
simplex of its own scheduler, and islpy holds the GIL during a call, so neither the quota nor a
timer thread bounds one long call; a child process that the parent kills does.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import time
from collections.abc import Callable
from typing import TypeVar

import islpy as isl

T = TypeVar("T")

# isl operations (basic set/map allocations) one bounded call may make: far above what the
# suite's kernels need, it stops set-operation blow-ups deterministically, before the clock.
MAX_OPERATIONS = 50_000_000


class SolverGaveUp(Exception):
    """A bounded call that ran out of its budget or failed; internal: the pipeline falls back
    and says so in a PolycudaWarning, this never reaches the user."""

    def __init__(self, what: str, reason: str):
        self.what = what
        self.reason = reason
        super().__init__(f"{what}: {reason}")


def bounded_context(ctx: isl.Context) -> None:
    """Start counting isl operations on `ctx` afresh, up to MAX_OPERATIONS."""
    ctx.reset_operations()
    ctx.set_max_operations(MAX_OPERATIONS)


def run_bounded(fn: Callable[[], T], budget_s: float, what: str,
                give_up_on: tuple[type[BaseException], ...] = ()) -> T:
    """fn() computed in a forked child within `budget_s` seconds of wall-clock time.

    Args:
        fn: returns a picklable result without isl objects (an isl schedule as text, generated
            source, a Scop); it should call bounded_context() on the isl context it works in.
        budget_s: wall-clock seconds; the child is killed when they run out.
        what: names the call in the SolverGaveUp reason ("pluto scheduler").
        give_up_on: exception types of fn that mean "no result" (turned into SolverGaveUp);
            any other exception is re-raised here as it was raised in the child.
    Returns:
        fn()'s result, as the parent's copy.
    Raises:
        SolverGaveUp: the budget ran out, the isl operation quota ran out, or fn raised one
            of `give_up_on`.

    Example:
        text = run_bounded(lambda: str(isl_schedule(scop, ctx, dep_map)), 5.0, "isl scheduler")
        schedule = isl.Schedule.read_from_str(ctx, text)
    """
    if not hasattr(os, "fork"):  # no fork (Windows): only the operation quota bounds it
        return _outcome(_call(fn, give_up_on), what)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, leave without running the parent's atexit code
        os.close(read_fd)
        try:
            _send(write_fd, _call(fn, give_up_on))
        finally:
            os._exit(0)
    os.close(write_fd)
    try:
        data = _receive(read_fd, time.monotonic() + budget_s)
    finally:
        os.close(read_fd)
        if data is None:
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    if data is None:
        raise SolverGaveUp(what, f"wall-clock budget of {budget_s:g} s ran out "
                                 "(Options.schedule_budget_s)")
    if not data:
        raise SolverGaveUp(what, "the solver process died without a result")
    return _outcome(pickle.loads(data), what)


def _call(fn: Callable[[], T], give_up_on: tuple[type[BaseException], ...]) -> tuple:
    try:
        return ("ok", fn())
    except isl.Error as err:
        return ("gave_up", _isl_reason(err))
    except give_up_on as err:
        return ("gave_up", f"{type(err).__name__}: {err}"[:500])
    except Exception as err:  # noqa: BLE001 (re-raised in the parent)
        return ("raise", err)


def _isl_reason(err: isl.Error) -> str:
    text = str(err)
    if "maximal number of operations" in text:
        return f"isl operation quota of {MAX_OPERATIONS} ran out"
    return f"isl failed: {text}"[:500]


def _outcome(result: tuple, what: str):
    kind, value = result
    if kind == "ok":
        return value
    if kind == "gave_up":
        raise SolverGaveUp(what, value)
    raise value


def _send(fd: int, result: tuple) -> None:
    try:
        data = pickle.dumps(result)
    except Exception as err:  # noqa: BLE001 (an exception that does not pickle)
        data = pickle.dumps(("raise", RuntimeError(f"{type(err).__name__}: {err}")))
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _receive(fd: int, deadline: float) -> bytes | None:
    """Everything the child writes until it closes the pipe; None when the deadline passes."""
    chunks = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return None
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
