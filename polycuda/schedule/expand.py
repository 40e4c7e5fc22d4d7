"""Scalar expansion of region-local temporaries (a Scop -> Scop pass).

A scalar written inside a loop nest and read in the same iteration (PolyBench symm's `temp2`:
set to 0, accumulated over k, read at the end of each (i, j) iteration) makes every loop
around it sequential: each iteration overwrites the value the previous one left (anti and
output dependences). Giving each iteration its own cell (temp2 -> temp2_x[i][j]) removes them
exactly when every value read was written in the same iteration of the expanded loops (every
flow dependence has distance 0 on them, and no read sees a value from before the region).
Then the loops are free for the scheduler, as PPCG's live-range reordering and privatization
make them (Verdoolaege and Janssens, IMPACT 2017); the generated CUDA keeps the cell of a
thread in a register where private promotion applies.

Expanded: region-local scalars (Array.local with shape ()), whose value is never seen after
the region. Along the innermost MAX_EXPANDED_LOOPS loops shared by all their accesses: an outer
time loop carries the arrays' own flow dependences, so expanding along it costs T times the
memory and frees nothing.
"""

from __future__ import annotations

import dataclasses

import islpy as isl

from polycuda.ir import isl_build
from polycuda.ir.expr import BinOp, Const, Expr, Ref, Var, map_refs
from polycuda.ir.scop import Array, Scop, Statement
from polycuda.schedule.false_deps import fresh_name, shared_loops

MAX_EXPANDED_LOOPS = 2


def expand_scalars(scop: Scop) -> Scop:
    """`scop` with every expandable local scalar replaced by an array indexed by the loops
    around its accesses (see the module docstring); unchanged when none is."""
    ctx = isl.Context()
    for arr in scop.arrays:
        if arr.local and not arr.shape:
            scop = _expand(scop, arr, ctx) or scop
    return scop


def _expand(scop: Scop, arr: Array, ctx: isl.Context) -> Scop | None:
    """The scop with `arr` expanded, or None when it cannot be (or gains nothing)."""
    users = [s for s in scop.statements if arr.name in _arrays_of(s)]
    if not any(s.lhs.array == arr.name for s in users):
        return None  # read only: no dependence to remove
    shared = min(min(len(s.iterators) for s in users),
                 min(shared_loops(a, b) for a in users for b in users))
    if shared == 0 or any(d < 0 for s in users for d in s.loop_directions()[:shared]):
        return None
    loops = _local_loops(scop, arr, users, shared, ctx)
    if not loops:
        return None
    loops = loops[-MAX_EXPANDED_LOOPS:]
    extents = _extents(scop, users, loops, ctx)
    if extents is None:
        return None
    taken = {a.name for a in scop.arrays} | {a.name for a in scop.args}
    expanded = Array(fresh_name(taken, f"{arr.name}_x"), arr.dtype, extents, local=True)
    statements = tuple(
        rename_array(s, arr.name, expanded.name, tuple(Var(s.iterators[k]) for k in loops))
        if s in users else s for s in scop.statements)
    return dataclasses.replace(scop, arrays=scop.arrays + (expanded,), statements=statements)


def _arrays_of(stmt: Statement) -> set[str]:
    return {stmt.lhs.array} | {r.array for r in stmt.read_refs()}


def _local_loops(scop: Scop, arr: Array, users: list[Statement], shared: int,
                 ctx: isl.Context) -> list[int]:
    """The shared loops 0..shared-1 on which every flow dependence of `arr` has distance 0,
    if every read of `arr` has a source in the region (else [], nothing is expanded).

    # flow: { S[i] -> T[j] } last write of arr before each read, in the original order
    """
    context = isl_build.context_set(scop, ctx)
    reads = isl.UnionMap.empty(isl.Space.params_alloc(ctx, 0))
    writes = reads
    for stmt in users:
        for acc in isl_build.statement_accesses(scop, stmt):
            if acc.array == arr.name:
                amap = isl.UnionMap.from_map(isl_build.access_map(acc, stmt, ctx, tagged=False))
                reads, writes = (reads, writes.union(amap)) if acc.is_write else (
                    reads.union(amap), writes)
    info = isl.UnionAccessInfo.from_sink(reads).set_must_source(writes)
    flow = info.set_schedule_map(isl_build.original_schedule(scop, ctx)).compute_flow()
    if not flow.get_may_no_source().intersect_params(context).is_empty():
        return []  # some read sees the value from before the region (or an uninitialized one)
    local = list(range(shared))
    for dep in isl_build.maps_of(flow.get_may_dependence().intersect_params(context)):
        local = [k for k in local
                 if dep.is_subset(dep.equate(isl.dim_type.in_, k, isl.dim_type.out, k))]
    return local


def _extents(scop: Scop, users: list[Statement], loops: list[int], ctx: isl.Context
             ) -> tuple[Expr, ...] | None:
    """Per expanded loop: max(0, 1 + its largest value) as an affine Expr of the parameters,
    or None when a loop can go below 0 or its largest value is not one affine expression.

    # iterations: [params] -> { [i_0, ..., i_{n-1}] } of the expanded loops, every user's
    """
    context = isl_build.context_set(scop, ctx)
    iterations = None
    for stmt in users:
        dom = isl_build.domain_set(stmt, ctx).intersect_params(context)
        dims = len(stmt.iterators)
        for k in reversed(range(dims)):
            if k not in loops:
                dom = dom.project_out(isl.dim_type.set, k, 1)
        dom = dom.reset_tuple_id()
        for k in range(len(loops)):
            dom = dom.set_dim_name(isl.dim_type.set, k, f"e{k}")
        iterations = dom if iterations is None else iterations.union(dom)
    assert iterations is not None
    extents = []
    for k in range(len(loops)):
        low, high = iterations.dim_min(k), iterations.dim_max(k)
        if not low.is_empty() and not low.ge_set(_zero(low)).is_equal(low.domain()):
            return None
        pieces = high.get_pieces()
        if len(pieces) != 1:
            return None if pieces else tuple(Const(0) for _ in loops)
        expr = _aff_expr(pieces[0][1].add_constant_val(isl.Val.one(ctx)))
        if expr is None:
            return None
        extents.append(BinOp("max", expr, Const(0)))
    return tuple(extents)


def _zero(pw: isl.PwAff) -> isl.PwAff:
    return isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(pw.domain().get_space()))


def _aff_expr(aff: isl.Aff) -> Expr | None:
    """The affine function of the parameters `aff` as an Expr (None: rational or with divs)."""
    if aff.dim(isl.dim_type.div) or not aff.get_denominator_val().is_one():
        return None
    expr: Expr | None = None
    for k in range(aff.dim(isl.dim_type.param)):
        coefficient = aff.get_coefficient_val(isl.dim_type.param, k).to_python()
        if coefficient:
            name = aff.get_dim_name(isl.dim_type.param, k)
            term: Expr = Var(name) if coefficient == 1 else BinOp("*", Const(coefficient),
                                                                 Var(name))
            expr = term if expr is None else BinOp("+", expr, term)
    constant = aff.get_constant_val().to_python()
    if expr is None:
        return Const(constant)
    return BinOp("+" if constant > 0 else "-", expr, Const(abs(constant))) if constant else expr


def rename_array(stmt: Statement, old: str, new: str, index: tuple[Expr, ...]) -> Statement:
    """`stmt` with every reference to `old` (written or read) made a reference new[index]."""
    def ref(r: Ref) -> Ref:
        return Ref(new, index, r.loc) if r.array == old else r

    lhs = ref(stmt.lhs)
    return dataclasses.replace(stmt, lhs=lhs, rhs=map_refs(stmt.rhs, ref))
