"""The one place that turns Scop text into isl objects: domains, accesses, original schedule."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import islpy as isl

from polycuda.ir.affine import affine_text, is_indirect
from polycuda.ir.expr import Expr, Ref, Var, walk
from polycuda.ir.quasi_affine import access_map_text, is_piecewise
from polycuda.ir.scop import Access, Scop, Statement


def param_prefix(scop: Scop) -> str:
    return "[" + ", ".join(scop.params) + "]"


def fixed_params(scop: Scop, values: dict[str, int], ctx: isl.Context) -> isl.Set:
    # [params] -> { : p = values[p] for each parameter given a value }
    fixed = " and ".join(f"{p} = {int(values[p])}" for p in scop.params if p in values)
    return isl.Set.read_from_str(ctx, f"{param_prefix(scop)} -> {{ : {fixed or '1 = 1'} }}")


def context_set(scop: Scop, ctx: isl.Context) -> isl.Set:
    # context: [params] -> { : constraints }
    return isl.Set.read_from_str(ctx, scop.context)


def domain_set(stmt: Statement, ctx: isl.Context) -> isl.Set:
    # domain: [params] -> { S[i...] }
    return isl.Set.read_from_str(ctx, stmt.domain)


def domain_union(scop: Scop, ctx: isl.Context) -> isl.UnionSet:
    # { S0[...]; S1[...]; ... } intersected with the parameter context
    result = isl.UnionSet.empty(isl.Space.params_alloc(ctx, 0))
    for stmt in scop.statements:
        result = result.union(isl.UnionSet.from_set(domain_set(stmt, ctx)))
    return result.intersect_params(context_set(scop, ctx))


def statement_accesses(scop: Scop, stmt: Statement) -> tuple[Access, ...]:
    """The write (ref id <stmt>_0) then every read in source order (<stmt>_1, ...). In a
    statement with CSR loops (Statement.csr), a subscript that uses a CSR iterator is a
    may-dimension like an indirect one, and the write is a may-write (the loop may be empty).
    """
    names = set(stmt.iterators) | set(scop.params)
    csr = frozenset(stmt.csr_iterators())
    refs = ((stmt.lhs, True),) + tuple((r, False) for r in stmt.read_refs())
    accesses = []
    for k, (ref, is_write) in enumerate(refs):
        iters = ", ".join(stmt.iterators)
        may = any(_is_may(e, csr) for e in ref.index) or bool(csr and is_write)
        if not may and any(is_piecewise(e) for e in ref.index):
            space = isl.Set(f"{param_prefix(scop)} -> {{ {stmt.name}[{iters}] }}").get_space()
            text = access_map_text(space, ref.array, ref.index)
            accesses.append(Access(f"{stmt.name}_{k}", ref.array, is_write, ref, text))
            continue
        if not may:
            index = ", ".join(affine_text(e, names, "subscript") for e in ref.index)
            text = f"{param_prefix(scop)} -> {{ {stmt.name}[{iters}] -> {ref.array}[{index}] }}"
            accesses.append(Access(f"{stmt.name}_{k}", ref.array, is_write, ref, text))
            continue
        index, bounds = _may_index(scop, ref, names, csr)
        where = f" : {bounds}" if bounds else ""
        text = (f"{param_prefix(scop)} -> {{ {stmt.name}[{iters}] -> {ref.array}[{index}]"
                f"{where} }}")
        accesses.append(Access(f"{stmt.name}_{k}", ref.array, is_write, ref, text, True))
    return tuple(accesses)


def _is_may(index: Expr, csr: frozenset[str]) -> bool:
    """Whether a subscript is known only at run time: it reads an array, or uses the iterator
    of a CSR loop (whose range is read from arrays)."""
    return is_indirect(index) or any(isinstance(e, Var) and e.name in csr for e in walk(index))


def _may_index(scop: Scop, ref: Ref, names: set[str],
               csr: frozenset[str] = frozenset()) -> tuple[str, str]:
    """The output tuple and constraints of an indirect access as a may-access: an indirect
    dimension (or one that uses a CSR iterator) is any index of its extent (the values of
    index arrays are known only at run time; Anantpur & Govindarajan 2013, Section 3.1), an
    affine one is exact.
    # { S[i] -> A[pc_a0, i] : 0 <= pc_a0 < n0 }"""
    dims, bounds = [], []
    for k, (e, extent) in enumerate(zip(ref.index, scop.array(ref.array).shape)):
        if not _is_may(e, csr):
            dims.append(affine_text(e, names, "subscript"))
            continue
        dims.append(f"pc_a{k}")
        bounds.append(f"0 <= pc_a{k} < {affine_text(extent, set(scop.params), 'array size')}")
    return ", ".join(dims), " and ".join(bounds)


def all_accesses(scop: Scop) -> tuple[Access, ...]:
    return tuple(a for stmt in scop.statements for a in statement_accesses(scop, stmt))


def access_map(access: Access, stmt: Statement, ctx: isl.Context, tagged: bool) -> isl.Map:
    """{ S[i] -> A[f(i)] }, or tagged { [S[i] -> ref[]] -> A[f(i)] }, restricted to the domain."""
    amap = isl.Map.read_from_str(ctx, access.index_map).intersect_domain(domain_set(stmt, ctx))
    if not tagged:
        return amap
    # tag_map: { S[i] -> [S[i] -> ref[]] }
    tag_map = isl.Map.read_from_str(
        ctx, f"{{ {stmt.name}[{', '.join(stmt.iterators)}] -> "
             f"[{stmt.name}[{', '.join(stmt.iterators)}] -> {access.ref_id}[]] }}")
    return tag_map.reverse().apply_range(amap)


def accesses_union(scop: Scop, ctx: isl.Context, writes: bool, tagged: bool = False,
                   indirect: bool | None = None) -> isl.UnionMap:
    """Every write (or every read) of the scop: { S[i] -> A[f(i)] }, or tagged
    { [S[i] -> ref[]] -> A[f(i)] } (access_map); with `indirect` True or False, only the
    indirect (may-) accesses or only the others."""
    result = isl.UnionMap.empty(isl.Space.params_alloc(ctx, 0))
    for stmt in scop.statements:
        for acc in statement_accesses(scop, stmt):
            if acc.is_write == writes and indirect in (None, acc.indirect):
                result = result.union(isl.UnionMap.from_map(access_map(acc, stmt, ctx, tagged)))
    return result


def original_schedule(scop: Scop, ctx: isl.Context) -> isl.UnionMap:
    """The 2d+1 textual-order schedule { S[i, j] -> [b0, i, b1, j, b2] } padded to one depth."""
    depth = max((len(s.iterators) for s in scop.statements), default=0)
    result = isl.UnionMap.empty(isl.Space.params_alloc(ctx, 0))
    for stmt in scop.statements:
        dims: list[str] = []
        for k, it in enumerate(stmt.iterators):
            dims += [str(stmt.beta[k]), it if stmt.loop_directions()[k] > 0 else f"-{it}"]
        dims.append(str(stmt.beta[len(stmt.iterators)]))
        dims += ["0"] * (2 * (depth - len(stmt.iterators)))
        iters = ", ".join(stmt.iterators)
        text = f"{param_prefix(scop)} -> {{ {stmt.name}[{iters}] -> [{', '.join(dims)}] }}"
        smap = isl.Map.read_from_str(ctx, text).intersect_domain(domain_set(stmt, ctx))
        result = result.union(isl.UnionMap.from_map(smap))
    return result


def textual_order_tree(scop: Scop, ctx: isl.Context, reverse: bool = False) -> isl.Schedule:
    """The order of original_schedule() as a schedule tree for isl's dataflow analysis: a
    sequence node per beta position, a one-dimensional band per loop; `reverse` runs every
    loop and every sequence backwards (the order in which the first write after a read is the
    last one before it).

    isl's dataflow analysis splits its work at the tree's sequence nodes, so statements in
    different loops are never compared: a flat schedule map makes it compare every pair.
    (Code of the original order is generated from isl_scheduler.original_schedule_tree, one
    band of the flat map, whose AST the golden files hold.)
    """
    return _tree_level(scop, ctx, list(scop.statements), 0, reverse)


def _tree_level(scop: Scop, ctx: isl.Context, stmts: list[Statement], k: int,
                reverse: bool) -> isl.Schedule:
    # stmts share their first k loops; grouped by their position beta[k] inside the k-th
    groups: dict[int, list[Statement]] = {}
    for stmt in stmts:
        groups.setdefault(stmt.beta[k], []).append(stmt)
    parts = []
    for position in sorted(groups, reverse=reverse):
        group = groups[position]
        if len(group[0].iterators) == k:  # a statement at this depth has a position of its own
            assert len(group) == 1, f"two statements at beta {group[0].beta}"
            parts.append(isl.Schedule.from_domain(
                isl.UnionSet.from_set(domain_set(group[0], ctx))))
            continue
        band = []
        for stmt in group:
            forward = stmt.loop_directions()[k] > 0
            sign = "" if forward != reverse else "-"
            iters = ", ".join(stmt.iterators)
            band.append(f"{stmt.name}[{iters}] -> [({sign}{stmt.iterators[k]})]")
        mupa = isl.MultiUnionPwAff.from_union_map(isl.UnionMap.read_from_str(
            ctx, f"{param_prefix(scop)} -> {{ {'; '.join(band)} }}"))
        parts.append(_tree_level(scop, ctx, group, k + 1, reverse).insert_partial_schedule(mupa))
    if not parts:
        return isl.Schedule.from_domain(isl.UnionSet.empty(isl.Space.params_alloc(ctx, 0)))
    tree = parts[0]
    for part in parts[1:]:
        tree = tree.sequence(part)
    return tree


def named_id(ctx: isl.Context, name: str) -> isl.Id:
    """The isl id `name` with no user pointer: the one id isl's parser makes for that name.

    islpy's isl.Id(name, context=ctx) attaches a Python object as the user pointer, so two of
    them with one name are different ids: they print with the address (`n@0x...`, text that
    changes from run to run) and do not align with the same name read from text.
    """
    space = isl.Space.params_alloc(ctx, 1).set_dim_name(isl.dim_type.param, 0, name)
    return space.get_dim_id(isl.dim_type.param, 0)


def space_key(space: isl.Space) -> str:
    """A sort key of a space that is the same in every run.

    isl keeps the pieces of a union map in a hash table keyed by the addresses of its ids, so
    the order foreach_map reports them in changes with the allocation history (Python's hash
    seed, what was imported first). Everything that builds code from those pieces takes them in
    the order of this key instead: the printed space, whose ids carry no address (named_id).
    """
    return str(space)


def id_list(ctx: isl.Context, prefix: str, count: int) -> isl.IdList:
    """The ids prefix0 .. prefix{count - 1} (named_id), e.g. the iterator names of an AST build."""
    ids = isl.IdList.alloc(ctx, count)
    for k in range(count):
        ids = ids.add(named_id(ctx, f"{prefix}{k}"))
    return ids


def maps_of(umap: isl.UnionMap) -> list[isl.Map]:
    """The maps of a union map, one per pair of spaces, in space_key order."""
    maps: list[isl.Map] = []
    umap.foreach_map(maps.append)
    return sorted(maps, key=lambda m: space_key(m.get_space()))


def sets_of(uset: isl.UnionSet) -> list[isl.Set]:
    """The sets of a union set, one per space, in space_key order."""
    sets: list[isl.Set] = []
    uset.foreach_set(sets.append)
    return sorted(sets, key=lambda s: space_key(s.get_space()))


def statement_names(domain: isl.UnionSet) -> list[str]:
    """The tuple names (statement names) of the sets of a union set, in space_key order."""
    return [s.get_tuple_name() for s in sets_of(domain)]


_T = TypeVar("_T")

QUOTA_MESSAGE = "maximal number of operations exceeded"


def quota_reached(ctx: isl.Context) -> bool:
    """Whether `ctx`'s operation quota is spent: one more allocation fails. Some isl functions
    turn an inner error into a weaker answer instead of failing, so a result computed while
    the quota ran out is not trusted."""
    try:
        isl.Set.universe(isl.Space.set_alloc(ctx, 0, 0))
    except isl.Error as err:
        return QUOTA_MESSAGE in str(err)
    return False


def within_operations(ctx: isl.Context, max_operations: int, compute: Callable[[], _T],
                      fallback: Callable[[], _T]) -> _T:
    """compute(), or fallback() when isl needs more than `max_operations` steps for it.

    For refinements (tighter bounds, simpler expressions) whose cost isl cannot predict: the
    fallback must be correct on its own. (islpy does not say which isl error was raised; an
    exceeded quota surfaces as whatever call it interrupted, so every isl error falls back.)
    A result computed while the quota ran out is not used either: some isl steps (the AST
    expression builder) turn an inner failure into a weaker answer, and which answer that is
    would depend on how close the count came to the limit.
    """
    ctx.set_max_operations(max_operations)
    ctx.reset_operations()
    try:
        result = compute()
        if not quota_reached(ctx):
            return result
    except isl.Error:
        pass
    finally:
        ctx.set_max_operations(0)
        ctx.reset_operations()
    return fallback()
