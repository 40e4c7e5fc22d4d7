"""isl's own scheduler (the PPCG-like baseline), behind the scheduler interface."""

from __future__ import annotations

import islpy as isl

from polycuda.analysis import dependences
from polycuda.ir import isl_build
from polycuda.ir.scop import Scop


def new_context() -> isl.Context:
    """A private isl context with the scheduler options PPCG uses (outer loops parallel), and
    AST loops whose iterators are the schedule's values: isl's AST build otherwise divides a
    loop of constant stride by it (ast_build_scale_strides), and the CUDA printer, which maps
    a point loop's value to threadIdx and private registers to the thread that owns them,
    then ran some instances on other threads than the schedule says (fuzz seed 63056: 2 * (j
    mod 128) printed as j in one AST copy, so a register of thread 2j missed the updates of
    element j made there by thread j: a wrong result)."""
    ctx = isl.Context()
    ctx.set_schedule_outer_coincidence(1)
    ctx.set_schedule_maximize_band_depth(1)
    ctx.set_ast_build_scale_strides(0)
    return ctx


def isl_schedule(scop: Scop, ctx: isl.Context, dep_map: isl.UnionMap | None = None
                 ) -> isl.Schedule:
    """Schedule tree from isl_schedule_constraints_compute_schedule.

    validity = proximity = coincidence = every dependence (flow, anti, output), as PPCG does
    without live-range reordering.
    """
    # dep_map: { S[i] -> T[j] }
    if dep_map is None:
        dep_map = dependences.untagged_union(scop, ctx)
    domain = isl_build.domain_union(scop, ctx)
    sc = isl.ScheduleConstraints.on_domain(domain)
    sc = sc.set_context(isl_build.context_set(scop, ctx))
    sc = sc.set_validity(dep_map).set_proximity(dep_map).set_coincidence(dep_map)
    return sc.compute_schedule()


def original_schedule_tree(scop: Scop, ctx: isl.Context) -> isl.Schedule:
    """The textual order as a schedule tree (sequential reference code, no parallelism)."""
    domain = isl_build.domain_union(scop, ctx)
    smap = isl_build.original_schedule(scop, ctx)
    schedule = isl.Schedule.from_domain(domain)
    mupa = isl.MultiUnionPwAff.from_union_map(smap)
    return schedule.insert_partial_schedule(mupa)
