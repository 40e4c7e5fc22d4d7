"""Reduction statements (Shirako et al. 2017, Section 5.3: a loop is a reduction loop when the
only dependences it carries are those of an associative and commutative update of one cell).

Here, from the IR: a statement `X[f] op= e` with op `+=`, `-=` or `*=`. Whether a loop of its
instances is a reduction is decided with isl where the loop is mapped (gpu/mapping.py): for
fixed outer loops every instance updates one cell, and the elements of X that e reads there
(ludcmp's back substitution: x[i] -= A[i][j] * x[j], j > i) are never that cell. Then the
instances commute with each other up to floating-point rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polycuda.ir import isl_build
from polycuda.ir.expr import refs
from polycuda.ir.scop import Scop, Statement

# op -> (the operator that combines partial results, their identity), as C text: the partial
# results of `x -= e` are sums of -e, applied with +=
OPERATIONS = {"+=": ("+", "0"), "-=": ("+", "0"), "*=": ("*", "1")}


@dataclass(frozen=True)
class Update:
    """A statement `X[f] op= e`: op, and the isl maps (text) of the reads of X in e."""

    op: str
    self_reads: tuple[str, ...]


def reduction_ops(scop: Scop) -> dict[str, Update]:
    """{statement name: Update} for every `X[f] op= e` of `scop` (op in OPERATIONS) whose
    subscripts read no element of X (those reads would move with the cell)."""
    found = {}
    for stmt in scop.statements:
        # an indirect update (H[key[i]] += v[i]) updates no single cell known to isl: the
        # run-time path orders it (analysis/indirect.py)
        if stmt.op in OPERATIONS and not _subscripts_read(stmt) and not stmt.is_indirect():
            reads = tuple(a.index_map for a in isl_build.statement_accesses(scop, stmt)[2:]
                          if a.array == stmt.lhs.array)
            found[stmt.name] = Update(stmt.op, reads)
    return found


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
