"""Di et al. 2012, Section III-C: parallelism-hindering false dependences (Definition 2) and
their elimination by array copies (Algorithm 2, Figure 7), a Scop -> Scop pass."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import islpy as isl

from polycuda.analysis import dependences
from polycuda.analysis.dependences import Dependence
from polycuda.ir import isl_build
from polycuda.ir.affine import affine_text
from polycuda.ir.expr import Expr, Ref, Var, children, with_children
from polycuda.ir.scop import Array, Scop, Statement
from polycuda.schedule import farkas, pluto


def _polyhedra(dep: Dependence, context: isl.Set) -> list[pluto.Dep]:
    # dep.relation: { S[s] -> T[t] }, split into basic maps within the context
    rel = isl.Map.read_from_str(context.get_ctx(), dep.relation)
    rel = rel.intersect_params(context).align_params(context.get_space())
    return [pluto.Dep(dep.source, dep.sink, b) for b in rel.get_basic_maps() if not b.is_empty()]


def _constraint_sets(scop: Scop, deps: tuple[Dependence, ...], ctx: isl.Context
                     ) -> list[tuple[isl.BasicSet, isl.BasicSet]]:
    """Per dependence: the hyperplane coefficients allowed by eq. (3), and by eqs. (3) + (4).

    # result sets: { [u, w, abs, per statement: neg/pos coefficients, shift] } (pluto.Layout)
    Eq. (4) (strict, k = 1) applies to self dependences only (Theorem 2).
    """
    prob = pluto.problem(scop, ctx, balanced=True)
    lay = pluto.Layout(prob, prob.order)
    space = farkas.ilp_space(ctx, lay.names)
    context = isl_build.context_set(scop, ctx)
    result = []
    for dep in deps:
        rows3: list[farkas.LinRow] = []
        rows4: list[farkas.LinRow] = []
        for poly in _polyhedra(dep, context):
            duals = farkas.dual_rows(poly.relation)
            rows3 += pluto.dep_rows(lay, poly, duals, strict=0, bound=False)
            if dep.source == dep.sink:
                rows4 += pluto.dep_rows(lay, poly, duals, strict=1, bound=False)
        legal = farkas.basic_set(space, rows3)
        result.append((legal, legal.intersect(farkas.basic_set(space, rows4))))
    return result


def hindering(scop: Scop, ctx: isl.Context | None = None) -> tuple[Dependence, ...]:
    """The parallelism-hindering false dependences of `scop` (Di et al. 2012, Definition 2).

    A false (anti or output) dependence e hinders when some constraint it generates by eq. (3)
    or (4) is not redundant with respect to those of E \\ {e}: the hyperplanes legal for all
    other dependences are not all legal for e. Figure 2: only the anti dependence (0, 1).
    """
    ctx = ctx or isl.Context()
    deps = dependences.compute(scop, ctx)
    sets = _constraint_sets(scop, deps, ctx)
    found = []
    for k, dep in enumerate(deps):
        if dep.kind == "flow":
            continue
        others3 = others4 = None
        for j, (legal, strict) in enumerate(sets):
            if j != k:
                others3 = legal if others3 is None else others3.intersect(legal)
                others4 = strict if others4 is None else others4.intersect(strict)
        own3, own4 = sets[k]
        if others3 is None or not (others3.is_subset(own3) and others4.is_subset(own4)):
            found.append(dep)
    return tuple(found)


@dataclass(frozen=True)
class _Copy:
    """Reads of `array` in `stmt` redirected to a copy taken at the start of each iteration of
    the loops outside `level` (1-based depth of the loop that carries the anti dependence, or
    of the first loop the two statements do not share), before the code at that depth."""

    stmt: str
    array: str
    level: int
    ref_ids: tuple[str, ...]


def shared_loops(a: Statement, b: Statement) -> int:
    """How many outer loops the two statements share (equal textual positions)."""
    c = 0
    while c < min(len(a.iterators), len(b.iterators)) and a.beta[:c + 1] == b.beta[:c + 1]:
        c += 1
    return c


def _copy_level(dep: Dependence, scop: Scop, ctx: isl.Context) -> int | None:
    """1 + the number of loops outside the copy: the depth of the shared loop that carries the
    dependence, or one more than the shared loops when it is loop independent on them.
    None when its distance on the shared loops is not constant (a non-uniform dependence).
    """
    src, snk = scop.statement(dep.source), scop.statement(dep.sink)
    if not src.iterators or not snk.iterators:
        return None  # straight-line code: no hyperplane to free
    shared = shared_loops(src, snk)
    # rel: { D[s_0..s_{c-1}] -> D[t_0..t_{c-1}] }, the dependence on the shared loops
    rel = isl.Map.read_from_str(ctx, dep.relation)
    rel = rel.project_out(isl.dim_type.in_, shared, len(src.iterators) - shared)
    rel = rel.project_out(isl.dim_type.out, shared, len(snk.iterators) - shared)
    rel = rel.set_tuple_name(isl.dim_type.in_, "D").set_tuple_name(isl.dim_type.out, "D")
    deltas = rel.deltas()
    deltas = deltas.project_out(isl.dim_type.param, 0, deltas.dim(isl.dim_type.param))
    if deltas.is_empty() or not deltas.is_singleton():
        return None
    point = deltas.sample_point()
    distance = [point.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(shared)]
    return next((k + 1 for k, v in enumerate(distance) if v), shared + 1)


def _copy_is_exact(scop: Scop, deps: tuple[Dependence, ...], stmt: Statement, ref_id: str,
                   level: int, ctx: isl.Context) -> bool:
    """A copy at the start of an iteration of loops 1..level-1 holds what the read would have
    read iff no write inside loop `level` of that same iteration reaches the read (flow)."""
    for dep in deps:
        if dep.kind != "flow" or dep.sink_access != ref_id:
            continue
        writer = scop.statement(dep.source)
        if writer.beta[:level] != stmt.beta[:level]:
            continue  # the writer runs before the copy (or after the read) in each iteration
        # rel: { W[w] -> S[s] : w_k = s_k for the loops outside `level` }
        rel = isl.Map.read_from_str(ctx, dep.relation)
        for k in range(level - 1):
            rel = rel.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
        if not rel.is_empty():
            return False
    return True


def _plans(scop: Scop, ctx: isl.Context) -> list[_Copy]:
    """Algorithm 2, line 1: the hindering anti dependences that an array copy removes."""
    deps = dependences.compute(scop, ctx)
    groups: dict[tuple[str, str, int], list[str]] = {}
    for dep in hindering(scop, ctx):
        level = _copy_level(dep, scop, ctx) if dep.kind == "anti" else None
        if level is None:
            continue  # output dependences need renaming of writes, not copies [43]
        stmt = scop.statement(dep.source)
        if _ref_position(stmt, dep.source_access) is None:
            continue  # the read of a compound assignment's own target
        if _copy_is_exact(scop, deps, stmt, dep.source_access, level, ctx):
            refs = groups.setdefault((dep.source, dep.array, level), [])
            if dep.source_access not in refs:
                refs.append(dep.source_access)
    return [_Copy(s, a, lv, tuple(r)) for (s, a, lv), r in groups.items()]


def _ref_position(stmt: Statement, ref_id: str) -> int | None:
    """Pre-order index among the Refs of stmt.rhs of the read `ref_id` (<stmt>_<k>, k >= 1)."""
    k = int(ref_id.rpartition("_")[2]) - 1 - (stmt.op != "=")
    return k if k >= 0 else None


def _rename_refs(expr: Expr, positions: set[int], array: str, seen: list[int]) -> Expr:
    """expr with the Refs at the given pre-order positions reading `array` instead."""
    here = len(seen)
    if isinstance(expr, Ref):
        seen.append(here)
    kids = tuple(_rename_refs(e, positions, array, seen) for e in children(expr))
    renamed = with_children(expr, kids)
    if isinstance(expr, Ref) and here in positions:
        return Ref(array, renamed.index, expr.loc)
    return renamed


def fresh_name(taken: set[str], base: str) -> str:
    k = 0
    while f"{base}{k}" in taken:
        k += 1
    return f"{base}{k}"


def _footprint(scop: Scop, stmt: Statement, plan: _Copy, name: str, iters: list[str],
               ctx: isl.Context) -> isl.Set:
    """{ C[outer, x] : A[x] is read by the redirected refs in that iteration of the outer loops }

    # access maps: { S[outer, inner] -> A[x] } restricted to the domain of S
    """
    n_outer = plan.level - 1
    result = None
    for acc in isl_build.statement_accesses(scop, stmt):
        if acc.ref_id in plan.ref_ids:
            amap = isl_build.access_map(acc, stmt, ctx, tagged=False)
            flat = amap.wrap().flatten()  # [outer, inner, x]
            flat = flat.project_out(isl.dim_type.set, n_outer, len(stmt.iterators) - n_outer)
            result = flat if result is None else result.union(flat)
    assert result is not None
    # One box-like piece over the footprints: simpler loops, and its extra elements lie in the
    # array too (the caller intersects it with the array's bounds). The simple hull (bounds
    # parallel to the pieces' own constraints, existentials dropped first) and not the convex
    # hull: isl's convex hull wraps facets by linear programs over the existentials of `/`
    # and `%` subscripts, minutes on some programs and unbounded by the work limit.
    result = isl.Set.from_basic_set(result.remove_divs().simple_hull()).set_tuple_name(name)
    for k, it in enumerate(iters):
        result = result.set_dim_name(isl.dim_type.set, k, it)
    return result


def _copy_statement(scop: Scop, plan: _Copy, copy_array: str, name: str, ctx: isl.Context
                    ) -> Statement:
    """Figure 7, S0: copy_array[x] = array[x] over the footprint, before the carrying loop."""
    stmt = scop.statement(plan.stmt)
    n_dims = len(scop.array(plan.array).shape)
    taken = set(scop.params) | {a.name for a in scop.arrays} | set(stmt.iterators)
    xs: list[str] = []
    for _ in range(n_dims):
        xs.append(fresh_name(taken | set(xs), "x"))
    outer = list(stmt.iterators[:plan.level - 1])
    domain = _footprint(scop, stmt, plan, name, outer + xs, ctx)
    # the hull is taken with the parameters as dimensions: at one parameter value its slice
    # can reach past the array (fuzz seed 40027: a copy read B and wrote B0 past their end);
    # only elements inside the array were read, so the copy keeps to its bounds
    domain = domain.intersect(_array_box(scop, plan.array, name, outer + xs, len(outer), ctx))
    beta = stmt.beta[:plan.level] + (0,) * n_dims
    index = tuple(Var(x) for x in xs)
    return Statement(name, tuple(outer + xs), str(domain), beta, Ref(copy_array, index), "=",
                     Ref(plan.array, index), stmt.loc,
                     stmt.loop_directions()[:plan.level - 1] + (1,) * n_dims)


def _array_box(scop: Scop, array: str, name: str, iters: list[str], n_outer: int,
               ctx: isl.Context) -> isl.Set:
    """{ name[outer, x] : 0 <= x_k < extent_k of `array` }"""
    params = set(scop.params)
    xs = iters[n_outer:]
    bounds = [f"0 <= {x} < {affine_text(e, params, 'array extent')}"
              for x, e in zip(xs, scop.array(array).shape)]
    text = (f"{isl_build.param_prefix(scop)} -> {{ {name}[{', '.join(iters)}] : "
            f"{' and '.join(bounds) or '1 = 1'} }}")
    return isl.Set.read_from_str(ctx, text)


def _apply(scop: Scop, plan: _Copy, ctx: isl.Context) -> Scop:
    """Insert the copy before the loop at depth plan.level that holds plan.stmt; redirect.
    The scop unchanged when the copy's domain (the hull of the footprint) is unbounded."""
    stmt = scop.statement(plan.stmt)
    arr = scop.array(plan.array)
    taken = {a.name for a in scop.arrays} | {a.name for a in scop.args}
    copy_arr = Array(fresh_name(taken, arr.name), arr.dtype, arr.shape, local=True)
    copy = _copy_statement(scop, plan, copy_arr.name, fresh_name({s.name for s in scop.statements},
                                                             "copy"), ctx)
    if not isl.Set.read_from_str(ctx, copy.domain).is_bounded():
        return scop  # the hull of the footprint lost a bound (fuzz seed 30038): no copy
    cut = plan.level - 1  # beta index of the carrying loop's position in its parent
    positions = {_ref_position(stmt, r) for r in plan.ref_ids}
    stmts = []
    for s in scop.statements:
        if len(s.iterators) >= cut and s.beta[:cut] == stmt.beta[:cut] and \
                s.beta[cut] >= stmt.beta[cut]:
            s = dataclasses.replace(s, beta=s.beta[:cut] + (s.beta[cut] + 1,) + s.beta[cut + 1:])
        if s.name == stmt.name:
            s = dataclasses.replace(s, rhs=_rename_refs(s.rhs, positions, copy_arr.name, []))
        stmts.append(s)
    stmts.append(copy)
    return dataclasses.replace(scop, arrays=scop.arrays + (copy_arr,), statements=tuple(stmts))


def renumbered(scop: Scop, ctx: isl.Context) -> Scop:
    """Statements in textual (beta) order, named S0, S1, ... (tuple names of the domains)."""
    ordered = sorted(scop.statements, key=lambda s: s.beta)
    stmts = []
    for k, s in enumerate(ordered):
        name = f"S{k}"
        if s.name != name:
            domain = isl.Set.read_from_str(ctx, s.domain).set_tuple_name(name)
            s = dataclasses.replace(s, name=name, domain=str(domain))
        stmts.append(s)
    return dataclasses.replace(scop, statements=tuple(stmts))


def eliminate_false_deps(scop: Scop, ctx: isl.Context | None = None) -> Scop:
    """Di et al. 2012, Algorithm 2: copy arrays to remove parallelism-hindering anti dependences.

    Each read that is the source of a hindering anti dependence carried at loop depth l
    (uniform distance) reads a local copy instead, taken at the start of every iteration of
    the loops outside l (Figure 7: A0[i] = A[i] before the i loop, S1 reads A0[i+1]). A read is
    redirected only when no write of the same iteration of those loops reaches it, so the copy
    holds exactly the values it read. Statements are renumbered in textual order. One pass:
    the copies bring false dependences of their own (Figure 8), which are not revisited.

    Returns the scop unchanged when nothing can be eliminated. `ctx`: the isl context to work
    in (a new one by default; the pipeline passes one whose operations it counts).
    """
    ctx = ctx or isl.Context()
    original = scop
    for plan in _plans(scop, ctx):
        scop = _apply(scop, plan, ctx)
    return renumbered(scop, ctx) if scop is not original else scop


def carried_loops(scop: Scop, stmt: Statement, ctx: isl.Context) -> set[int]:
    """The loops of `stmt` (0-based depths) that carry a dependence of `scop` (any kind,
    between any two statements inside that loop)."""
    return carried_by(scop, stmt, dependences.untagged_union(scop, ctx))


def carried_by(scop: Scop, stmt: Statement, dep_map: isl.UnionMap) -> set[int]:
    """carried_loops() of the dependences `dep_map` of `scop` (a subset of them).

    # dep_map: { S[i] -> T[j] } dependences of any kind
    """
    deps = dep_map.intersect_params(isl_build.context_set(scop, dep_map.get_ctx()))
    carried = set()
    for dep in isl_build.maps_of(deps):
        src = scop.statement(dep.get_tuple_name(isl.dim_type.in_))
        snk = scop.statement(dep.get_tuple_name(isl.dim_type.out))
        same_outer = dep
        for k in range(min(shared_loops(src, stmt), shared_loops(snk, stmt),
                           shared_loops(src, snk))):
            if k not in carried and not same_outer.is_subset(
                    same_outer.equate(isl.dim_type.in_, k, isl.dim_type.out, k)):
                carried.add(k)
            same_outer = same_outer.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
    return carried


def copy_original_reads(scop: Scop) -> Scop:
    """Reads that see only values from before their loop nest read a copy taken there.

    Algorithm 2 of Di et al. 2012 at level 1 (Figure 7 with no loop outside the copy): there
    the copy needs no uniform distance, because it is taken once. PolyBench trmm reads B[k][j]
    (k > i) before iteration k overwrites it: the i loop carries only those anti dependences
    (distance k - i, not uniform); read from a copy of B, i is parallel like j. A copy is kept
    only when the loops carrying a dependence around the reading statement become fewer.
    """
    ctx = isl.Context()
    deps = dependences.compute(scop, ctx)
    groups: dict[tuple[str, str], list[str]] = {}
    for dep in deps:
        stmt = scop.statement(dep.source)
        if dep.kind != "anti" or not stmt.iterators or \
                shared_loops(stmt, scop.statement(dep.sink)) == 0 or \
                _ref_position(stmt, dep.source_access) is None:
            continue
        if _copy_is_exact(scop, deps, stmt, dep.source_access, 1, ctx):
            refs = groups.setdefault((dep.source, dep.array), [])
            if dep.source_access not in refs:
                refs.append(dep.source_access)
    result = scop
    maps = dependences.dependence_maps(scop, ctx)  # (flow, false), tagged
    redirected: frozenset[str] = frozenset()
    for (name, array), refs in groups.items():
        candidate = _apply(result, _Copy(name, array, 1, tuple(refs)), ctx)
        if candidate is result:
            continue
        # The loops carrying a dependence around `name` in `candidate`, from the dependences
        # of `scop` (computed once, not once per candidate): a copy taken outside every loop
        # shares no loop with any statement, so its own dependences carry none of them; the
        # redirected reads lose theirs; every other read keeps its flow (last write before
        # it) and anti (first write after it) dependences, and the writes their output ones,
        # since the copies write only new arrays and keep the statements' relative order.
        stmt = scop.statement(name)
        fewer = redirected | frozenset(refs)
        if len(carried_by(scop, stmt, dependences.untag(*maps, without_refs=fewer))) < len(
                carried_by(scop, stmt, dependences.untag(*maps, without_refs=redirected))):
            result, redirected = candidate, fewer
    return renumbered(result, ctx) if result is not scop else scop

