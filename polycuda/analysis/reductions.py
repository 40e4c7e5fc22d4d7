"""Reduction statements (Shirako et al. 2017, Section 5.3: a loop is a reduction loop when the
only dependences it carries are those of an associative and commutative update of one cell).

Here, from the IR: a statement `X[f] op= e` with op `+=`, `-=` or `*=`, or one spelled
`X = X + e`, `X = e + X`, `X = X - e`, `X = X * e`, `X = e * X` (update_form). Whether a loop of its
instances is a reduction is decided with isl where the loop is mapped (gpu/mapping.py): for
fixed outer loops every instance updates one cell, and the elements of X that e reads there
(ludcmp's back substitution: x[i] -= A[i][j] * x[j], j > i) are never that cell. Then the
instances commute with each other up to floating-point rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polycuda.ir import dtypes, isl_build
from polycuda.ir.expr import BinOp, Expr, Ref, refs
from polycuda.ir.scop import Scop, Statement

# binary operator of `X = X op e` -> the update operator; those that commute also `X = e op X`
_SPELLED = {"+": "+=", "-": "-=", "*": "*="}
_COMMUTING = ("+", "*")

# op -> (the operator that combines partial results, their identity), as C text: the partial
# results of `x -= e` are sums of -e, applied with +=
OPERATIONS = {"+=": ("+", "0"), "-=": ("+", "0"), "*=": ("*", "1")}


@dataclass(frozen=True)
class Update:
    """A statement `X[f] op= e`: op, and the isl maps (text) of the reads of X in e."""

    op: str
    self_reads: tuple[str, ...]


def update_form(stmt: Statement) -> tuple[str, Expr, Ref | None] | None:
    """(op, e, the read of X that the form names) of a statement `X op= e` (op in OPERATIONS;
    no such read: None) or `X = X op e` (op +, -, *) or `X = e op X` (op +, *) where e
    reads no element through the target's reference X; else None. `X = X op e` is then
    `X op= e`: C evaluates `X op= e` as `X = X op (e)`, and + and * of two values commute, so
    a reduction kernel that accumulates e computes what the statement does (gemver:
    w[i] = w[i] + alpha * A[i][j] * x[j])."""
    if stmt.op in OPERATIONS:
        return stmt.op, stmt.rhs, None
    rhs = stmt.rhs
    if stmt.op != "=" or not isinstance(rhs, BinOp) or rhs.op not in _SPELLED:
        return None
    if _same(rhs.lhs, stmt.lhs):
        term, target = rhs.rhs, rhs.lhs
    elif rhs.op in _COMMUTING and _same(rhs.rhs, stmt.lhs):
        term, target = rhs.lhs, rhs.rhs
    else:
        return None
    if any(_same(r, stmt.lhs) for r in refs(term)):
        return None  # x = x + x * a: the term reads the cell itself
    assert isinstance(target, Ref)
    return _SPELLED[rhs.op], term, target


def accumulated(stmt: Statement) -> tuple[str, Expr]:
    """(op, e) of an update statement (update_form): what a reduction kernel accumulates."""
    form = update_form(stmt)
    assert form is not None, f"{stmt.name} is not an update statement"
    return form[0], form[1]


def _same(expr: Expr, target: Ref) -> bool:
    return isinstance(expr, Ref) and expr.array == target.array and expr.index == target.index


def reduction_ops(scop: Scop) -> dict[str, Update]:
    """{statement name: Update} for every update `X[f] op= e` of `scop` (update_form) whose
    subscripts read no element of X (those reads would move with the cell). Its self_reads:
    the reads of X in e (not the read of the cell that the update itself is)."""
    found = {}
    for stmt in scop.statements:
        form = update_form(stmt)
        # an indirect update (H[key[i]] += v[i]) updates no single cell known to isl: the
        # run-time path orders it (analysis/indirect.py)
        if form is None or _subscripts_read(stmt) or stmt.is_indirect():
            continue
        op, term, target = form
        if _truncating(scop, stmt, term) or _without_atomics(scop, stmt):
            continue
        # accesses: the write, then (for op=) the read of the cell, then those of the rhs
        reads = isl_build.statement_accesses(scop, stmt)[1 if target is not None else 2:]
        found[stmt.name] = Update(op, tuple(a.index_map for a in reads
                                            if a.array == stmt.lhs.array and a.ref is not target))
    return found


def _truncating(scop: Scop, stmt: Statement, term: Expr) -> bool:
    """Whether each update converts a floating-point sum to an integer cell (`S[i] += 0.7 *
    A[i][j]`, S of int or char): it truncates toward zero at every step, so the order of the
    updates changes the result. Integer terms are exact in any order: a store into a narrow
    or unsigned cell takes the value modulo 2^bits (C11 6.3.1.3; gcc and nvcc define it so
    for signed cells), and that commutes with + and *."""
    dtype_of = dtypes.scop_dtype_of(scop)
    return (dtype_of(stmt.lhs.array) in dtypes.INTEGER
            and dtypes.c_type_of(term, dtype_of) not in dtypes.INTEGER)


def _without_atomics(scop: Scop, stmt: Statement) -> bool:
    """Whether the cell is a char or a short: CUDA has no atomicAdd of 8- and 16-bit values,
    which the reduction kernels combine their partial results with; such an update keeps its
    order (exact, not parallel)."""
    return scop.array(stmt.lhs.array).dtype in dtypes.NARROW


def _subscripts_read(stmt: Statement) -> bool:
    """Whether an element of the written array appears inside a subscript of the statement."""
    inner = [r for e in stmt.lhs.index for r in refs(e)]
    inner += [r for top in refs(stmt.rhs) for e in top.index for r in refs(e)]
    return any(r.array == stmt.lhs.array for r in inner)


def terms_per_cell(scop: Scop, values: dict[str, int]) -> dict[str, int]:
    """{array: a bound on how many updates of reduction statements (reduction_ops) one cell
    of it receives at the parameter `values`}, for verify's tolerance: a sum of L terms taken
    in another order differs by about L * epsilon relative to the sum of their magnitudes.

    The bound is the product, over the statement's loops, of the span of that loop among
    instances that update one cell (from the deltas of "updates the same cell").

    # same: { S[x] -> S[x'] : S[x] and S[x'] write one cell of X }, at the given values
    """
    ctx = isl.Context()
    context = isl_build.context_set(scop, ctx).intersect(
        isl_build.fixed_params(scop, values, ctx))
    found: dict[str, int] = {}
    for name in reduction_ops(scop):
        stmt = scop.statement(name)
        write = isl_build.statement_accesses(scop, stmt)[0]
        amap = isl_build.access_map(write, stmt, ctx, tagged=False).intersect_params(context)
        if amap.is_empty():
            continue
        deltas = amap.apply_range(amap.reverse()).deltas()
        terms = 1
        for k in range(deltas.dim(isl.dim_type.set)):
            span = deltas.dim_max(k)
            pieces = span.get_pieces()
            if not pieces or not pieces[0][1].is_cst():
                break  # not fixed by the values: no bound, keep the base tolerance
            terms *= 1 + max(int(p[1].get_constant_val().to_python()) for p in pieces)
        else:
            found[stmt.lhs.array] = max(found.get(stmt.lhs.array, 1), terms)
    return found
