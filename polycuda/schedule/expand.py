"""Scalar and array expansion of temporaries (a Scop -> Scop pass): privatization.

A scalar written inside a loop nest and read in the same iteration (PolyBench symm's `temp2`:
set to 0, accumulated over k, read at the end of each (i, j) iteration) makes every loop
around it sequential: each iteration overwrites the value the previous one left (anti and
output dependences). Giving each iteration its own cell (temp2 -> temp2_x[i][j]) removes them
exactly when every value read was written in the same iteration of the expanded loops (every
flow dependence has distance 0 on them, and no read sees a value from before the region);
the loops inside may carry its flow (deriche's ym1, reset per row i and carried along j:
ym1 -> ym1_x[i], j stays sequential in each copy). Then the loops are free for the
scheduler, as PPCG's live-range reordering and privatization make them (Verdoolaege and
Janssens, IMPACT 2017); the generated CUDA keeps the cell of a thread in a register where
private promotion applies. A local reused in several live ranges (deriche's ym1 again in its
column pass, per column j) is one variable per range (schedule/live_ranges.py), each
expanded along its own loops, when one variable for all would not do (no shared loop) or
would be expanded along other loops (gramschmidt's nrm reused per column: (k, j), not k).

Expanded: region-local scalars (Array.local with shape ()), whose value is never seen after
the region. Along the innermost MAX_EXPANDED_LOOPS loops shared by all their accesses: an outer
time loop carries the arrays' own flow dependences, so expanding along it costs T times the
memory and frees nothing.

Arrays are expanded the same way (doitgen's row buffer acc[p] -> acc_x[r][q][p]: each (r, q)
iteration builds its row in acc and reads it back, so the r and q loops carry only anti and
output dependences on acc), under more conditions, because an array's copies cost memory:
never along a loop that carries a flow dependence (it stays sequential: adi's time loop
around its row buffers); some expanded loop carries a dependence before and none carries any
afterwards (they become parallel: else the memory buys nothing; the local arrays are first
expanded jointly, so adi's p and q, which free its line loops only together, pass), and the
expanded array may not have more parametric dimensions than the largest argument array
(acc_x[nr][nq][nk] is the size of A[nr][nq][nk]; a buffer expanded along an O(n) loop of a
1-D problem would be quadratic). An argument array is seen after the region: a copy-out
statement after the region writes back, per element written, the cell of the iteration that
wrote it last (arr[x] = arr_x[L(x)][x], L the lexicographic maximum of the writes'
iterations; not expanded when L is not one affine piece).
"""

from __future__ import annotations

import dataclasses

import islpy as isl

from polycuda.analysis import dependences
from polycuda.ir import isl_build
from polycuda.ir.expr import BinOp, Const, Expr, Ref, Var, children, map_refs
from polycuda.ir.scop import Array, Scop, Statement
from polycuda.schedule import live_ranges
from polycuda.schedule.false_deps import carried_by, carried_loops, fresh_name, shared_loops
from polycuda.schedule.live_ranges import Privatized


MAX_EXPANDED_LOOPS = 2


def expand_scalars(scop: Scop) -> Scop:
    """`scop` with every expandable local scalar, then every expandable array, replaced by an
    array indexed by the loops around its accesses (see the module docstring); unchanged when
    none is."""
    return expand_noted(scop)[0]


def expand_noted(scop: Scop, with_removed: bool = False
                 ) -> tuple[Scop, tuple[Privatized, ...]]:
    """expand_scalars(scop), and what was privatized (for `polycuda show deps`; with_removed:
    with the dependences of `scop` that each copy removes, Privatized.removed)."""
    ctx = isl.Context()
    original = scop
    done: list[Privatized] = []
    for arr in scop.arrays:
        if arr.local and not arr.shape:
            scop = _expand_ranges(scop, arr, ctx, done, frozenset())
    # Arrays jointly first: adi's row buffers p and q free the i loop together, not one
    # alone; kept when every loop expanded along is then free, else one array at a time.
    for joint in (True, False):
        result, notes = _expand_arrays(scop, ctx, joint)
        if not joint or all(not carried_loops(result, result.statement(n.statements[0]), ctx)
                            & set(n.depths) for n in notes):
            break
    privatized = tuple(done) + notes
    if with_removed:
        deps = dependences.compute(original, ctx)
        privatized = tuple(dataclasses.replace(p, removed=live_ranges.removed_dependences(
            original, deps, p, ctx)) for p in privatized)
    return result, privatized


def _expand_arrays(scop: Scop, ctx: isl.Context, joint: bool
                   ) -> tuple[Scop, tuple[Privatized, ...]]:
    """`scop` with its expandable arrays expanded, and what was. Joint: the dependences of
    the local arrays still to be expanded do not count against the one being expanded."""
    candidates = [a for a in scop.arrays if a.shape and a.name in scop.written_arrays()]
    done: list[Privatized] = []
    for k, arr in enumerate(candidates):
        pending = frozenset(a.name for a in candidates[k + 1:] if a.local) if joint else (
            frozenset())
        scop = _expand_ranges(scop, arr, ctx, done, pending)
    return scop, tuple(done)


def _expand_ranges(scop: Scop, arr: Array, ctx: isl.Context, done: list[Privatized],
                   pending: frozenset[str]) -> Scop:
    """`scop` with `arr` expanded: as one variable, unless it is a local reused in several
    live ranges whose own copies are expanded along other loops (deriche's ym1: the row and
    the column pass share no loop; gramschmidt's nrm reused per column j: a copy per (k, j),
    not per k); then each live range as a variable of its own. Appends to `done`.
    `pending`: arrays whose dependences do not count in _frees."""
    users = [s for s in scop.statements if arr.name in _arrays_of(s)]
    ranges = live_ranges.live_ranges(scop, arr, users, ctx) if arr.local else None
    whole = _expand(scop, arr, users, ctx, pending)
    steps = [whole] if whole is not None else []
    if ranges and len(ranges) > 1:
        split: list[tuple[Scop, Privatized]] = []
        for group in ranges:
            expanded = _expand(split[-1][0] if split else scop, arr, group, ctx, pending)
            if expanded is not None:
                split.append(expanded)
        if whole is None or len(split) == len(ranges) and any(
                note.depths != whole[1].depths for _, note in split):
            steps = split
    done.extend(note for _, note in steps)
    return steps[-1][0] if steps else scop


def _expand(scop: Scop, arr: Array, users: list[Statement], ctx: isl.Context,
            pending: frozenset[str] = frozenset()) -> tuple[Scop, Privatized] | None:
    """The scop with the accesses of `users` to `arr` expanded, and what was, or None when
    they cannot be (or it gains nothing). `users`: every statement accessing `arr`, or one
    live range of a local `arr`."""
    if not any(s.lhs.array == arr.name for s in users):
        return None  # read only: no dependence to remove
    shared = min(min(len(s.iterators) for s in users),
                 min(shared_loops(a, b) for a in users for b in users))
    if shared == 0 or any(d < 0 for s in users for d in s.loop_directions()[:shared]):
        return None
    if arr.shape and not _reads_covered(scop, arr, users, shared, ctx):
        return None  # cheap test first: the flow computation below is slow on stencils
    loops = _local_loops(scop, arr, users, shared, ctx)
    if arr.shape:
        # a loop that carries flow stays sequential whatever the copies: a copy per iteration
        # of it (adi's time loop around its row buffers) would only cost memory
        sequential = _flow_carried(scop, users[0], ctx) if loops else set()
        loops = [k for k in loops if k not in sequential]
    if not loops:
        return None
    loops = loops[-MAX_EXPANDED_LOOPS:]
    extents = _extents(scop, users, loops, ctx)
    if extents is None:
        return None
    if arr.shape and _degree(extents + arr.shape) > max(
            (_degree(a.shape) for a in scop.arrays if not a.local), default=0):
        return None
    taken = {a.name for a in scop.arrays} | {a.name for a in scop.args}
    expanded = Array(fresh_name(taken, f"{arr.name}_x"), arr.dtype, extents + arr.shape,
                     local=True)
    statements = tuple(
        rename_array(s, arr.name, expanded.name, tuple(Var(s.iterators[k]) for k in loops))
        if s in users else s for s in scop.statements)
    if arr.shape:
        new = dataclasses.replace(scop, statements=statements,
                                  arrays=scop.arrays + (expanded,))
        if not _frees(scop, new, users[0], loops, ctx, pending):
            return None  # the loops were parallel already, or stay sequential
        if not arr.local:
            copy = _copy_out(scop, arr, expanded.name, users, loops, ctx)
            if copy is None:
                return None
            statements += (copy,)
    note = Privatized(arr.name, expanded.name, tuple(s.name for s in users),
                      tuple(users[0].iterators[k] for k in loops), tuple(loops),
                      array_dims=len(arr.shape))
    return dataclasses.replace(scop, arrays=scop.arrays + (expanded,),
                               statements=statements), note


def _flow_carried(scop: Scop, stmt: Statement, ctx: isl.Context) -> set[int]:
    """The loops of `stmt` (0-based depths) that carry a flow dependence (of any array, between
    statements inside them): they stay sequential whatever is expanded."""
    return carried_by(scop, stmt, dependences.untagged_union(scop, ctx, ("flow",)))


def _degree(shape: tuple[Expr, ...]) -> int:
    """How many extents of `shape` depend on a parameter."""
    return sum(1 for e in shape if not isinstance(e, Const) and _has_var(e))


def _has_var(expr: Expr) -> bool:
    return isinstance(expr, Var) or any(_has_var(c) for c in children(expr))


def _frees(old: Scop, new: Scop, user: Statement, loops: list[int], ctx: isl.Context,
           pending: frozenset[str] = frozenset()) -> bool:
    """True when some of `loops` (loops of `user`) carries a dependence in `old` and none
    carries any in `new` (but dependences of the arrays `pending`)."""
    if not carried_loops(old, user, ctx) & set(loops):
        return False
    refs = frozenset(a.ref_id for a in isl_build.all_accesses(new) if a.array in pending)
    return not carried_by(new, user, dependences.untagged_union(new, ctx, without_refs=refs)
                          ) & set(loops)


def _copy_out(scop: Scop, arr: Array, expanded: str, users: list[Statement], loops: list[int],
              ctx: isl.Context) -> Statement | None:
    """arr[x] = expanded[L(x)][x] after the region, over the elements x the region writes,
    L(x) the expanded loops' values at the last write of x; None when L is not one affine
    piece without divisions.

    # last: { arr[x] -> [i_0, ..., i_m] } the outer loops (through the last expanded one)
    #       of the last write of arr[x], in the original order (all loops increasing)
    """
    depth = max(loops) + 1
    writes = None
    for stmt, is_write, amap in live_ranges.accesses(scop, arr, users, ctx):
        if is_write:
            rel = amap.reverse().project_out(isl.dim_type.out, depth,
                                             len(stmt.iterators) - depth)
            rel = rel.reset_tuple_id(isl.dim_type.out)
            writes = rel if writes is None else writes.union(rel)
    assert writes is not None
    last = writes.intersect_params(isl_build.context_set(scop, ctx)).lexmax().coalesce()
    taken = set(scop.params) | {a.name for a in scop.arrays}
    xs: list[str] = []
    for _ in arr.shape:
        xs.append(fresh_name(taken | set(xs), "x"))
    index: list[Expr] = []
    pma = isl.PwMultiAff.from_map(last)
    for k in loops:
        pieces = pma.get_pw_aff(k).get_pieces()
        expr = _aff_expr(pieces[0][1], xs) if len(pieces) == 1 else None
        if expr is None:
            return None
        index.append(expr)
    name = fresh_name({s.name for s in scop.statements}, "S")
    domain = last.domain().set_tuple_name(name)
    for k, x in enumerate(xs):
        domain = domain.set_dim_name(isl.dim_type.set, k, x)
    beta = (max(s.beta[0] for s in scop.statements) + 1,) + (0,) * len(xs)
    ref = tuple(Var(x) for x in xs)
    return Statement(name, tuple(xs), str(domain), beta, Ref(arr.name, ref), "=",
                     Ref(expanded, tuple(index) + ref), users[0].loc, (1,) * len(xs))


def _arrays_of(stmt: Statement) -> set[str]:
    return {stmt.lhs.array} | {r.array for r in stmt.read_refs()}


def _reads_covered(scop: Scop, arr: Array, users: list[Statement], shared: int,
                   ctx: isl.Context) -> bool:
    """Whether every element of `arr` read in an iteration of the shared loops is also
    written in it (necessary for every read to have its source in the same iteration).

    # footprints: { [i_0, ..., i_{shared-1}] -> arr[x] } read / written per iteration
    """
    footprints = {True: None, False: None}
    for stmt, is_write, amap in live_ranges.accesses(scop, arr, users, ctx):
        rel = amap.project_out(isl.dim_type.in_, shared, len(stmt.iterators) - shared)
        rel = rel.reset_tuple_id(isl.dim_type.in_)
        old = footprints[is_write]
        footprints[is_write] = rel if old is None else old.union(rel)
    reads, writes = footprints[False], footprints[True]
    if reads is None or writes is None:
        return writes is not None
    context = isl_build.context_set(scop, ctx)
    return reads.intersect_params(context).is_subset(writes.intersect_params(context))


def _local_loops(scop: Scop, arr: Array, users: list[Statement], shared: int,
                 ctx: isl.Context) -> list[int]:
    """The shared loops 0..shared-1 on which every flow dependence of `arr` among `users` has
    distance 0, if every read of `arr` in `users` has a source in them (else [], nothing is
    expanded). Inner loops may carry flow (deriche's ym1 along j): each copy is private to
    an iteration of the expanded loops, and its values flow along the loops inside them.

    # dep_map: { S[i] -> T[j] } last write of arr before each read, in the original order
    """
    dep_map = live_ranges.flow(scop, arr, users, ctx)
    if dep_map is None:
        return []  # some read sees the value from before the region (or an uninitialized one)
    local = list(range(shared))
    for dep in isl_build.maps_of(dep_map):
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


def _aff_expr(aff: isl.Aff, dims: list[str] | None = None) -> Expr | None:
    """The affine function `aff` of the parameters (and of its input dimensions, named `dims`)
    as an Expr (None: rational or with divs)."""
    if aff.dim(isl.dim_type.div) or not aff.get_denominator_val().is_one():
        return None
    expr: Expr | None = None
    terms = [(isl.dim_type.param, k, aff.get_dim_name(isl.dim_type.param, k))
             for k in range(aff.dim(isl.dim_type.param))]
    terms += [(isl.dim_type.in_, k, name) for k, name in enumerate(dims or [])]
    for kind, k, name in terms:
        coefficient = aff.get_coefficient_val(kind, k).to_python()
        if coefficient:
            term: Expr = Var(name) if coefficient == 1 else BinOp("*", Const(coefficient),
                                                                 Var(name))
            expr = term if expr is None else BinOp("+", expr, term)
    constant = aff.get_constant_val().to_python()
    if expr is None:
        return Const(constant)
    return BinOp("+" if constant > 0 else "-", expr, Const(abs(constant))) if constant else expr


def rename_array(stmt: Statement, old: str, new: str, index: tuple[Expr, ...]) -> Statement:
    """`stmt` with every reference old[x] (written or read) made a reference new[index][x]."""
    def ref(r: Ref) -> Ref:
        return Ref(new, index + r.index, r.loc) if r.array == old else r

    lhs = ref(stmt.lhs)
    return dataclasses.replace(stmt, lhs=lhs, rhs=map_refs(stmt.rhs, ref))
