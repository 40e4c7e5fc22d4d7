"""The scheduler fallback chain: the requested scheduler, then isl's, then isl's with every
strongly connected component in its own loop nest, then the original program order; each
solver call bounded (budget.py) and its result checked legal before it is used.

The last step, the identity schedule from the statements' 2d+1 positions, is always legal
(every dependence goes forward in the original order) and sequential: it needs no solver.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import islpy as isl

from polycuda.errors import IllegalScheduleError, PolycudaError, PolycudaWarning
from polycuda.ir.scop import Scop
from polycuda.options import Options
from polycuda.schedule import budget, isl_scheduler, legality

FALLBACK_SHARE = 0.25  # of Options.schedule_budget_s, for each fallback scheduler
ORIGINAL_ORDER = "the original program order (sequential)"
DISTRIBUTED = "isl scheduler with distributed SCCs"
SUPERPOSITION = "superposition scheduler"


@dataclass(frozen=True)
class Attempt:
    """One scheduler of the chain: its name in warnings, and the schedule it computes."""

    name: str
    compute: Callable[[Scop, isl.Context, isl.UnionMap], isl.Schedule]
    budget_s: float


def requested_name(options: Options) -> str:
    """The requested scheduler as warnings name it ("pluto (balanced wavefronts)")."""
    if options.scheduler == "isl":
        return "isl scheduler"
    if options.scheduler == "isl-distributed":
        return DISTRIBUTED
    if options.scheduler == "superposition":
        return SUPERPOSITION
    return "pluto scheduler" + (" (balanced wavefronts)" if options.balanced_wavefront else "")


def _requested(scop: Scop, ctx: isl.Context, dep_map: isl.UnionMap, options: Options
               ) -> isl.Schedule:
    if options.scheduler == "isl":
        return isl_scheduler.isl_schedule(scop, ctx, dep_map)
    if options.scheduler == "isl-distributed":
        return _distributed(scop, ctx, dep_map)
    if options.scheduler == "superposition":
        from polycuda.schedule import superposition

        return superposition.superposition_schedule(scop, ctx, dep_map, options.max_mapped_dims)
    from polycuda.schedule import pluto

    return pluto.pluto_schedule(scop, balanced=options.balanced_wavefront, ctx=ctx)


def _distributed(scop: Scop, ctx: isl.Context, dep_map: isl.UnionMap) -> isl.Schedule:
    # each SCC of the dependence graph scheduled on its own, one loop nest after the other;
    # the option changes only this (forked) process's context
    ctx.set_schedule_serialize_sccs(1)
    return isl_scheduler.isl_schedule(scop, ctx, dep_map)


def attempts(options: Options) -> tuple[Attempt, ...]:
    """The solver steps of the chain, in order (the original order follows them)."""
    full, share = options.schedule_budget_s, options.schedule_budget_s * FALLBACK_SHARE
    chain = [Attempt(requested_name(options),
                     lambda s, c, d: _requested(s, c, d, options), full)]
    if options.scheduler in ("pluto", "superposition"):
        chain.append(Attempt("isl scheduler", isl_scheduler.isl_schedule, share))
    if options.scheduler != "isl-distributed":
        chain.append(Attempt(DISTRIBUTED, _distributed, share))
    return tuple(chain)


def bounded_schedule(attempt: Attempt, scop: Scop, ctx: isl.Context, dep_map: isl.UnionMap
                     ) -> isl.Schedule:
    """attempt's schedule, computed and checked legal within its budget.

    # dep_map: { S[i] -> T[j] } every dependence, within the context
    Raises:
        budget.SolverGaveUp: out of budget, no schedule, or an illegal one.
    """
    def compute() -> str:
        budget.bounded_context(ctx)
        schedule = attempt.compute(scop, ctx, dep_map)
        legality.check(schedule, dep_map, attempt.name)
        return str(schedule)

    text = budget.run_bounded(compute, attempt.budget_s, attempt.name,
                              give_up_on=(PolycudaError,))
    return isl.Schedule.read_from_str(ctx, text)


def schedules(scop: Scop, options: Options, ctx: isl.Context, dep_map: isl.UnionMap,
              notes: list[str] | None = None) -> Iterator[tuple[str, isl.Schedule]]:
    """(name, schedule) for each step of the chain that yields a legal schedule, best first,
    ending with the original order; a step that gives up is skipped with a PolycudaWarning.
    The caller takes the first one it can use and asks for the next when it cannot
    (e.g. when the GPU mapping of a schedule is refused). `notes`, when given, gets "<step>
    given up (<reason>)" for each step skipped (what `show schedule` reports).

    # dep_map: { S[i] -> T[j] } every dependence, within the context
    """
    for attempt in attempts(options):
        try:
            schedule = bounded_schedule(attempt, scop, ctx, dep_map)
        except budget.SolverGaveUp as gave_up:
            give_up(scop, gave_up.what, gave_up.reason)
            if notes is not None:
                notes.append(f"{gave_up.what} given up ({gave_up.reason})")
            continue
        yield attempt.name, schedule
    yield ORIGINAL_ORDER, isl_scheduler.original_schedule_tree(scop, ctx)


def give_up(scop: Scop, what: str, reason: str) -> None:
    """Warn that `what` was given up for region `scop` because of `reason`."""
    warnings.warn(f"region '{scop.name}': {what} given up ({reason}); trying a simpler "
                  "schedule", PolycudaWarning, stacklevel=3)


def refused(scop: Scop, name: str, err: IllegalScheduleError) -> None:
    """Warn that the schedule `name` could not be mapped legally (tiling or parallel loops)."""
    give_up(scop, f"the {name}'s mapping", f"refused by the legality check: {str(err)[:300]}")
