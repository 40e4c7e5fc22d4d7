"""Bounded solver calls: a scheduler, the AST build or another isl-heavy step runs in a forked
child under a limit of isl operations (the work bound: same input and options, same outcome on
any machine) and a wall-clock safety net (a compile that reaches it fails; it never changes
the code), and hands back its result as text (or gives up).

What isl counts (isl_ctx_next_operation, checked against the context's max_operations): every
isl_malloc/calloc/realloc and every simplex pivot (isl_tab_pivot), so the quota bounds isl's
own scheduler, lexmin and the AST build inside one long call too. islpy holds the GIL during a
call, so only a separate process lets a clock stop one: the child, killed by the parent.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import islpy as isl

from polycuda.errors import SolverTimeoutError
from polycuda.ir.isl_build import QUOTA_MESSAGE, quota_reached

T = TypeVar("T")

# isl operations of an unbounded helper (analysis/affine_writers.py: set operations on one
# write relation, no scheduler): far above what the suite's kernels need.
MAX_OPERATIONS = 50_000_000


@dataclass(frozen=True)
class Limit:
    """The work limit of one bounded call: isl operations, and the Options field that sets it
    (named in the warning)."""

    operations: int
    option: str


class SolverGaveUp(Exception):
    """A bounded call that ran out of its work limit or failed; internal: the pipeline falls
    back and says so in a PolycudaWarning, this never reaches the user."""

    def __init__(self, what: str, reason: str):
        self.what = what
        self.reason = reason
        super().__init__(f"{what}: {reason}")


class OutOfWork(Exception):
    """Raised by Python-level loops that count their own work (pluto's ILP solves) when they
    reach their limit: the bounded call gives up, as on isl's quota."""


def bounded_context(ctx: isl.Context, operations: int = MAX_OPERATIONS) -> None:
    """Start counting isl operations on `ctx` afresh, up to `operations`."""
    ctx.reset_operations()
    ctx.set_max_operations(operations)


def run_bounded(fn: Callable[[], T], ctx: isl.Context, limit: Limit, what: str,
                timeout_s: float, give_up_on: tuple[type[BaseException], ...] = ()) -> T:
    """fn() computed in a forked child, within `limit` isl operations on `ctx`.

    Args:
        fn: returns a picklable result without isl objects (an isl schedule as text, generated
            source, a Scop); its isl work happens on `ctx` (what the limit counts).
        ctx: the isl context fn works in; its count starts at 0 in the child.
        limit: isl operations allowed, and the Options field that sets them.
        what: names the call in the SolverGaveUp reason ("pluto scheduler").
        timeout_s: the wall-clock safety net (Options.solver_timeout_s): minutes, far above any
            normal compile; reaching it is an error, not a fallback.
        give_up_on: exception types of fn that mean "no result" (turned into SolverGaveUp);
            any other exception is re-raised here as it was raised in the child.
    Returns:
        fn()'s result, as the parent's copy.
    Raises:
        SolverGaveUp: the operation limit ran out, or fn raised OutOfWork or one of
            `give_up_on`: the same on every run of the same input and options.
        SolverTimeoutError: the safety net fired (a machine far too slow, or a limit set far
            too high): the compile fails with a clear message instead of using other code.

    Example:
        text = run_bounded(lambda: str(isl_schedule(scop, ctx, dep_map)), ctx,
                           Limit(options.schedule_operations, "schedule_operations"),
                           "isl scheduler", options.solver_timeout_s)
        schedule = isl.Schedule.read_from_str(ctx, text)
    """
    if not hasattr(os, "fork"):  # no fork (Windows): the work limit alone bounds it
        try:
            return _outcome(_call(fn, ctx, limit, give_up_on), what)
        finally:
            ctx.set_max_operations(0)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, leave without running the parent's atexit code
        os.close(read_fd)
        try:
            _send(write_fd, _call(fn, ctx, limit, give_up_on))
        finally:
            os._exit(0)
    os.close(write_fd)
    data = None  # also when the wait is interrupted (KeyboardInterrupt, a caller's alarm)
    try:
        data = _receive(read_fd, time.monotonic() + timeout_s)
    finally:
        os.close(read_fd)
        if data is None:  # no child is left running behind the caller
            os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    if data is None:
        raise SolverTimeoutError(
            f"{what} ran past the wall-clock safety net of {timeout_s:g} s "
            f"(Options.solver_timeout_s) before reaching its work limit of {limit.operations} "
            f"isl operations (Options.{limit.option}); the compile stops rather than use other "
            "code: raise solver_timeout_s or lower the work limit")
    if not data:
        raise SolverGaveUp(what, "the solver process died without a result")
    return _outcome(pickle.loads(data), what)


def _call(fn: Callable[[], T], ctx: isl.Context, limit: Limit,
          give_up_on: tuple[type[BaseException], ...]) -> tuple:
    bounded_context(ctx, limit.operations)
    out_of_work = ("gave_up", f"isl operation limit of {limit.operations} ran out "
                              f"(Options.{limit.option})")
    try:
        result = fn()
    except isl.Error as err:  # a parser out of quota says "syntax error": asked again
        if QUOTA_MESSAGE in str(err) or quota_reached(ctx):
            return out_of_work
        return ("gave_up", f"isl failed: {err}"[:500])
    except OutOfWork as err:
        return ("gave_up", str(err)[:500])
    except SolverTimeoutError as err:  # a nested call's clock: an error, never a fallback
        return ("raise", err)
    except give_up_on as err:
        if quota_reached(ctx):  # an isl error seen through a PolycudaError
            return out_of_work
        return ("gave_up", f"{type(err).__name__}: {err}"[:500])
    except Exception as err:  # noqa: BLE001 (re-raised in the parent)
        if quota_reached(ctx):  # islpy's wrappers turn some failed calls into None
            return out_of_work
        return ("raise", err)
    return out_of_work if quota_reached(ctx) else ("ok", result)


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
    """Everything the child writes until it closes the pipe; None when the deadline passes with
    the child still silent. Past the deadline, what the child has already written is still
    read: a parent that a loaded machine kept from running until then takes a finished
    result instead of failing (the clock only stops a child that is still computing)."""
    chunks = []
    while True:
        left = max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return None
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
