"""Which loops of a region need run-time dependences (indirect subscripts, A[idx[i]]).

Granularity: a top-level loop nest of the region (the statements that share the outermost
loop). It takes the run-time path (inspector/executor, Anantpur & Govindarajan 2013) when one
of its statements accesses through an index array an array that the nest writes: then which
iterations of the outermost loop conflict is known only from the index values. The inner loops
of such a nest run sequentially inside one iteration ("outer loops where inner loops are run
sequentially", Section 3.1). A nest whose indirect accesses only read arrays it does not
write (a gather, y[i] = x[col[i]]) has no unknown dependence inside it and stays on the static
path, as do all affine nests; the static analysis treats every indirect access as a may-access
of the whole extent (ir/isl_build.py), so the order between nests stays sound.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polycuda.errors import SourceLoc
from polycuda.ir import isl_build
from polycuda.ir.affine import affine_text
from polycuda.ir.evaluate import eval_int
from polycuda.ir.expr import BinOp, Const, Expr, Ref, UnaryOp, Var, refs, walk
from polycuda.ir.scop import Scop, Statement


@dataclass(frozen=True)
class RuntimeNest:
    """A top-level loop whose iterations are ordered at run time.

    position: beta[0] of its statements (their textual position in the region).
    iterator: the outermost loop's iterator; its iterations are levelized.
    statements: the statements of the nest, in textual order.
    monitored: every array the nest writes: all accesses to them (affine or indirect) are
        logged by slice functions, so that no conflict inside the nest goes unseen.
    index_arrays: the arrays read in subscripts.
    reason: why, in words (for `polycuda show deps`).
    atomic: arrays that the nest only updates with `+=` / `-=` and never reads otherwise (a
        scatter-add, H[key[i]] += v[i]): on the GPU each update is an atomicAdd, the updates
        commute up to rounding, and the array needs no levels (not in `monitored`).
    """

    position: int
    iterator: str
    statements: tuple[str, ...]
    monitored: tuple[str, ...]
    index_arrays: tuple[str, ...]
    reason: str
    loc: SourceLoc | None = None
    atomic: tuple[str, ...] = ()
    depth: int = 0  # of the levelized loop; the loops outside it run on the host, in order
    # local scalars set at the start of each iteration before any use (SpTRSV's `s = b[i]`):
    # a private variable of the iteration in every kernel, not monitored (private_scalars)
    private: tuple[str, ...] = ()


def top_level_groups(scop: Scop) -> list[tuple[int, tuple[Statement, ...]]]:
    """The statements grouped by their top-level position (beta[0]), in textual order."""
    groups: dict[int, list[Statement]] = {}
    for stmt in scop.statements:
        groups.setdefault(stmt.beta[0], []).append(stmt)
    return [(pos, tuple(stmts)) for pos, stmts in sorted(groups.items())]


def _indirect_tops(stmt: Statement) -> list[Ref]:
    """The references of `stmt` (target first) that have an indirect subscript, or one that
    uses the iterator of a CSR loop (x[k] for k from rowptr[i]: an element known at run time)."""
    tops = [stmt.lhs, *refs(stmt.rhs)]
    csr = set(stmt.csr_iterators())
    return [r for r in tops if any(refs(e) or any(isinstance(v, Var) and v.name in csr
                                                  for v in walk(e)) for e in r.index)]


ATOMIC_OPS = ("+=", "-=")
ATOMIC_DTYPES = ("int", "float", "double")  # atomicAdd of CUDA (sm_60 and later for double)


def atomic_arrays(stmts: tuple[Statement, ...]) -> tuple[str, ...]:
    """The arrays that `stmts` access only as the target of `+=` / `-=` updates whose values
    read none of them (scatter-adds): their updates commute up to floating-point rounding."""
    out = []
    for name in dict.fromkeys(s.lhs.array for s in stmts):
        updates = [s for s in stmts if s.lhs.array == name]
        if not all(s.op in ATOMIC_OPS for s in updates):
            continue
        reads = [r for s in stmts for r in (refs(s.rhs) + s.index_refs()) if r.array == name]
        if not reads:
            out.append(name)
    return tuple(out)


def runtime_nests(scop: Scop, atomic_updates: bool = False) -> tuple[RuntimeNest, ...]:
    """The top-level nests of `scop` that take the run-time path (see the module docstring).
    With `atomic_updates` (Options.allow_reassociation), scatter-add arrays are updated with
    atomics instead of being levelized (RuntimeNest.atomic)."""
    found = []
    for pos, stmts in top_level_groups(scop):
        if not stmts[0].iterators:
            continue  # a statement outside every loop: nothing to parallelize
        written = tuple(dict.fromkeys(s.lhs.array for s in stmts))
        hits = [(s, r) for s in stmts for r in _indirect_tops(s) if r.array in written]
        if not hits:
            continue
        stmt, ref = hits[0]
        index_arrays = tuple(dict.fromkeys(r.array for s in stmts for r in s.index_refs()))
        line = f" (line {stmt.loc.line})" if stmt.loc else ""
        depth = levelized_depth(stmts)
        it = stmts[0].iterators[depth]
        reason = (f"loop '{it}' takes the run-time path: {stmt.name}{line} accesses "
                  f"'{ref.array}', which the loop writes, through index array(s) "
                  f"{', '.join(repr(a) for a in index_arrays)}; which iterations conflict is "
                  "known only at run time (cuda: an inspector puts independent iterations in "
                  "levels, one launch per level; c and openmp: in order)")
        if depth:
            reason += (f"; the loop(s) {', '.join(stmts[0].iterators[:depth])} around it run "
                       "in order on the host, the inspector once per iteration of them")
        atomic = tuple(a for a in atomic_arrays(stmts)
                       if scop.array(a).dtype in ATOMIC_DTYPES) if atomic_updates else ()
        if atomic:
            reason += (f"; {', '.join(repr(a) for a in atomic)} only updated with += / -=: "
                       "atomicAdd on cuda, no levels for them")
        private = private_scalars(scop, stmts, depth)
        if private:
            reason += (f"; {', '.join(repr(a) for a in private)} set first in each iteration: "
                       "private to it, no levels for them")
        monitored = tuple(a for a in written if a not in atomic and a not in private)
        found.append(RuntimeNest(pos, it, tuple(s.name for s in stmts), monitored,
                                 index_arrays, reason, stmt.loc, atomic, depth, private))
    return tuple(found)


def checked_nests(scop: Scop) -> tuple[RuntimeNest, ...]:
    """The top-level loop nests with indirect subscripts or CSR loops (Statement.csr): on
    cuda, a kernel checks their index values before they run (codegen/csr.py), whether they
    take the run-time path or not. As RuntimeNest over the outermost loop, nothing monitored.
    A statement outside every loop is not one (the frontend puts no CSR loop there)."""
    found = []
    for pos, stmts in top_level_groups(scop):
        if not stmts[0].iterators or not any(s.is_indirect() for s in stmts):
            continue
        index_arrays = tuple(dict.fromkeys(r.array for s in stmts for r in s.index_refs()))
        found.append(RuntimeNest(pos, stmts[0].iterators[0], tuple(s.name for s in stmts), (),
                                 index_arrays, "index checks", stmts[0].loc))
    return tuple(found)


def private_scalars(scop: Scop, stmts: tuple[Statement, ...], depth: int) -> tuple[str, ...]:
    """The local scalars of a nest that each iteration of its levelized loop (at `depth`) sets
    before any other use: only the nest accesses them, and the first statement that does
    assigns them (`=`, reading no old value) directly in the levelized loop's body, at every
    iteration where another statement uses them. Each iteration then has its own copy (the
    privatization that lets the inspector ignore them; without it, every iteration would
    conflict on the one cell)."""
    names = {s.name for s in stmts}
    ctx = isl.Context()
    out = []
    for arr in scop.arrays:
        if not arr.local or arr.shape:
            continue
        users = [s for s in scop.statements
                 if arr.name in {s.lhs.array} | {r.array for r in s.read_refs()}]
        if not users or any(s.name not in names for s in users):
            continue
        first = users[0]
        if (first.lhs.array != arr.name or first.op != "=" or first.csr
                or len(first.iterators) != depth + 1
                or any(r.array == arr.name for r in first.read_refs())):
            continue
        if all(_outer(s, depth, ctx).is_subset(_outer(first, depth, ctx)) for s in users[1:]):
            out.append(arr.name)
    return tuple(out)


def _outer(stmt: Statement, depth: int, ctx: isl.Context) -> isl.Set:
    # [params] -> { [i_0..i_depth] : a point of stmt has these outer coordinates }
    dom = isl_build.domain_set(stmt, ctx)
    dom = dom.project_out(isl.dim_type.set, depth + 1, dom.dim(isl.dim_type.set) - depth - 1)
    return dom.reset_tuple_id()


def levelized_depth(stmts: tuple[Statement, ...]) -> int:
    """The depth of the loop to levelize: descending from the outermost loop through a
    perfect nest (a loop whose only child is one loop), the first loop whose iterator
    subscripts an index array (for t: for i: A[idx[i]] += ...: i, with t on the host), else
    the deepest loop reached. The paper levelizes innermost loops and notes that outer ones
    work with the inner loops run sequentially (Section 3.1); a time loop around a scatter
    has no parallelism of its own."""
    used = {v.name for s in stmts for r in s.index_refs() for e in r.index for v in walk(e)
            if isinstance(v, Var)}
    depth = 0
    while stmts[0].iterators[depth] not in used:
        inner = depth + 1
        if not all(len(s.iterators) > inner and s.beta[:inner + 1] == stmts[0].beta[:inner + 1]
                   for s in stmts):
            return depth
        depth = inner
    return depth


def static_indirect_notes(scop: Scop) -> tuple[str, ...]:
    """For `show deps`: the nests with indirect reads only, which stay on the static path."""
    runtime = {n.position for n in runtime_nests(scop)}
    notes = []
    for pos, stmts in top_level_groups(scop):
        arrays = sorted({r.array for s in stmts for r in _indirect_tops(s)})
        if pos in runtime or not arrays:
            continue
        where = (f"loop '{stmts[0].iterators[0]}'" if stmts[0].iterators
                 else f"statement {stmts[0].name}")
        notes.append(f"{where} stays on the static path: it reads {', '.join(arrays)} through "
                     "index arrays but does not write them (a may-read of the whole array)")
    return tuple(notes)


# -- values of index arrays that keep every access in bounds (random inputs, verify.py) -----------
def index_value_ranges(scop: Scop, values: dict[str, int]) -> dict[str, tuple[int, int]]:
    """{index array: (lo, hi)}: values in [lo, hi] keep every subscript that reads the array
    within the extent of the dimension it indexes, at the parameter `values`, for the
    subscript forms `idx[..] + affine` (the remainder's range over the statement's domain is
    taken into account; `row[i] + 1` needs row[i] <= extent - 2). Other forms only bound the
    value itself to the extent; the inspector's bounds check catches the rest at run time."""
    ranges: dict[str, tuple[int, int]] = {}
    for stmt in scop.statements:
        for top in (stmt.lhs, *refs(stmt.rhs)):
            for index, extent in zip(top.index, scop.array(top.array).shape):
                if not refs(index):
                    continue
                size = eval_int(extent, values)
                ref, rest = _split_ref(index)
                if rest is not None and any(isinstance(v, Var) and v.name in stmt.csr_iterators()
                                            for v in walk(rest)):
                    ref, rest = None, None  # x[col[k] + k]: the value alone is bounded
                low_rest, high_rest = (0, 0) if rest is None else _value_range(
                    scop, stmt, rest, values)
                arrays = [ref.array] if ref is not None else [r.array for r in refs(index)]
                for name in arrays:
                    lo, hi = ranges.get(name, (0, 1 << 30))
                    ranges[name] = (max(lo, -low_rest), min(hi, size - 1 - high_rest))
    return {name: (lo, max(lo, hi)) for name, (lo, hi) in ranges.items()}


def row_pointer_extents(scop: Scop, values: dict[str, int]) -> dict[str, int]:
    """{array: nnz} for the 1-D arrays whose elements bound CSR loops (Statement.csr), nnz the
    extent that the loop's iterator may span: the least over the dimensions it subscripts as
    `k + c` of extent - c (val[k], col[k]: their length); without one, twice the rows. Random
    inputs (verify.py) make such an array a row-pointer array: 0 at the start, nnz at the
    end, non-decreasing."""
    out: dict[str, int] = {}
    for stmt in scop.statements:
        tops = [stmt.lhs, *stmt.csr_bound_refs(), *refs(stmt.rhs)]
        for loop in stmt.csr:
            spans = [eval_int(extent, values) - offset
                     for top in tops for r in [top, *refs(top)]
                     for index, extent in zip(r.index, scop.array(r.array).shape)
                     if (offset := _offset_of(index, loop.iterator)) is not None]
            for name in dict.fromkeys(r.array for r in loop.bound_refs()):
                shape = scop.array(name).shape
                if len(shape) != 1:
                    continue
                rows = max(eval_int(shape[0], values) - 1, 0)
                nnz = max(min(spans) if spans else 2 * rows, 0)
                out[name] = min(out.get(name, nnz), nnz)
    return out


def _offset_of(index: Expr, iterator: str) -> int | None:
    """c when `index` is `iterator + c` (or `iterator - c`, or `iterator`), else None."""
    if isinstance(index, Var):
        return 0 if index.name == iterator else None
    if isinstance(index, BinOp) and index.op in ("+", "-") and isinstance(index.lhs, Var) \
            and index.lhs.name == iterator and isinstance(index.rhs, Const) \
            and isinstance(index.rhs.value, int):
        return index.rhs.value if index.op == "+" else -index.rhs.value
    return None


def _split_ref(index: Expr) -> tuple[Ref | None, Expr | None]:
    """(r, rest) when `index` is `r + rest`, `rest + r` or `r - rest` with r an array element
    and rest free of array reads (rest None when index is r alone); else (None, None)."""
    if isinstance(index, Ref):
        return index, None
    if isinstance(index, BinOp) and index.op in ("+", "-"):
        lhs, rhs = index.lhs, index.rhs
        if isinstance(lhs, Ref) and not refs(rhs):
            return lhs, rhs if index.op == "+" else UnaryOp("-", rhs)
        if index.op == "+" and isinstance(rhs, Ref) and not refs(lhs):
            return rhs, lhs
    return None, None


def _value_range(scop: Scop, stmt: Statement, rest: Expr, values: dict[str, int]
                 ) -> tuple[int, int]:
    """(min, max) of the affine `rest` over `stmt`'s domain at the parameter `values`.
    # image: { [v] : v = rest(i), i in domain, params = values }"""
    ctx = isl.Context()
    text = affine_text(rest, set(stmt.iterators) | set(scop.params), "subscript")
    amap = isl.Map.read_from_str(ctx, f"{isl_build.param_prefix(scop)} -> "
                                      f"{{ {stmt.name}[{', '.join(stmt.iterators)}] -> [{text}] }}")
    amap = amap.intersect_params(isl_build.fixed_params(scop, values, ctx))
    image = amap.intersect_domain(isl.Set.read_from_str(ctx, stmt.domain)).range()
    if image.is_empty():
        return 0, 0
    low = image.lexmin().sample_point().get_coordinate_val(isl.dim_type.set, 0).to_python()
    high = image.lexmax().sample_point().get_coordinate_val(isl.dim_type.set, 0).to_python()
    return int(low), int(high)
