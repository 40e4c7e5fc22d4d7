"""The scheduler fallback chain: the requested scheduler, then isl's, then isl's with every
strongly connected component in its own loop nest, then the original program order; each
solver call bounded by a count of its work (budget.py) and its result checked legal before it
is used. A step given up is always reported: a PolycudaWarning and a note for `show schedule`.

The last step, the identity schedule from the statements' 2d+1 positions, is always legal
(every dependence goes forward in the original order) and sequential: it needs no solver.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import islpy as isl

from polycuda.errors import IllegalScheduleError, PolycudaError, PolycudaWarning
from polycuda.ir import isl_build
from polycuda.ir.scop import Scop
from polycuda.options import Options
from polycuda.schedule import budget, isl_scheduler, legality

ORIGINAL_ORDER = "the original program order (sequential)"
DISTRIBUTED = "isl scheduler with distributed SCCs"
SUPERPOSITION = "superposition scheduler"


@dataclass(frozen=True)
class Attempt:
    """One scheduler of the chain: its name in warnings, and the schedule it computes."""

    name: str
    compute: Callable[[Scop, isl.Context, isl.UnionMap], isl.Schedule]
    limit: budget.Limit
    max_constraints: int  # Options.schedule_max_constraints (problem_size)


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

    return pluto.pluto_schedule(scop, balanced=options.balanced_wavefront, ctx=ctx,
                                max_ilp_solves=options.pluto_ilp_solves)


def _distributed(scop: Scop, ctx: isl.Context, dep_map: isl.UnionMap) -> isl.Schedule:
    # each SCC of the dependence graph scheduled on its own, one loop nest after the other;
    # the option changes only this (forked) process's context
    ctx.set_schedule_serialize_sccs(1)
    return isl_scheduler.isl_schedule(scop, ctx, dep_map)


def attempts(options: Options) -> tuple[Attempt, ...]:
    """The solver steps of the chain, in order (the original order follows them)."""
    # every scheduler of the chain gets the whole limit: a fallback runs when the requested one
    # failed, and a smaller share made it fail too where it alone succeeds (Python adi: Pluto
    # out of its limit, isl's scheduler out of a quarter of it, the region left in sequence)
    full = budget.Limit(options.schedule_operations, "schedule_operations")
    size = options.schedule_max_constraints
    chain = [Attempt(requested_name(options),
                     lambda s, c, d: _requested(s, c, d, options), full, size)]
    if options.scheduler in ("pluto", "superposition"):
        chain.append(Attempt("isl scheduler", isl_scheduler.isl_schedule, full, size))
    if options.scheduler != "isl-distributed":
        chain.append(Attempt(DISTRIBUTED, _distributed, full, size))
    return tuple(chain)


def problem_size(dep_map: isl.UnionMap) -> int:
    """The size of the scheduling problem of `dep_map`: the constraints and dimensions of
    every basic map of it, summed (the Farkas duals of these rows are the schedulers' ILP).

    isl counts one operation per pivot, whatever the tableau's size: on a problem of many
    statements and dependences one operation costs far more (the 20-statement 5-deep random
    region: under 2 million operations, minutes of isl's scheduler), so the size is bounded
    too, before any solver runs.

    # dep_map: { S[i] -> T[j] } every dependence
    """
    total = 0
    for dep in isl_build.maps_of(dep_map):
        width = dep.dim(isl.dim_type.in_) + dep.dim(isl.dim_type.out)
        for bmap in dep.get_basic_maps():
            total += len(bmap.get_constraints()) + width
    return total


def bounded_schedule(attempt: Attempt, scop: Scop, ctx: isl.Context, dep_map: isl.UnionMap,
                     timeout_s: float) -> isl.Schedule:
    """attempt's schedule, computed and checked legal within its work limit.

    # dep_map: { S[i] -> T[j] } every dependence, within the context
    Raises:
        budget.SolverGaveUp: out of its work limit, no schedule, or an illegal one.
        SolverTimeoutError: past the wall-clock safety net `timeout_s`.
    """
    size = problem_size(dep_map)
    if size > attempt.max_constraints:
        raise budget.SolverGaveUp(attempt.name, f"its dependences have {size} constraints, above "
                                  f"the limit of {attempt.max_constraints} "
                                  "(Options.schedule_max_constraints)")

    def compute() -> str:
        schedule = attempt.compute(scop, ctx, dep_map)
        legality.check(schedule, dep_map, attempt.name)
        return str(schedule)

    text = budget.run_bounded(compute, ctx, attempt.limit, attempt.name, timeout_s,
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
            schedule = bounded_schedule(attempt, scop, ctx, dep_map, options.solver_timeout_s)
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


def ast_rebuilt(scop: Scop, note: str) -> None:
    """Warn that isl's first AST of region `scop` failed the exactness check and another
    AST build of the same schedule is used (codegen/ast_check.py); `note` says which."""
    warnings.warn(f"region '{scop.name}': {note}", PolycudaWarning, stacklevel=3)


def refused(scop: Scop, name: str, err: IllegalScheduleError) -> None:
    """Warn that the schedule `name` could not be mapped legally (tiling or parallel loops)."""
    give_up(scop, f"the {name}'s mapping", f"refused by the legality check: {str(err)[:300]}")
