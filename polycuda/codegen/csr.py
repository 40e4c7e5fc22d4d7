"""Loops whose bounds read index arrays (CSR: `for k = rowptr[i] .. rowptr[i+1] - 1`): their C
loops around a statement, and the run-time checks of their ranges and subscripts.

Design (issue 17): such a loop is kept inside its statement (ir.scop.CsrLoop), a black box for
the static machinery, rather than a dimension of the domain. isl never sees the loop: the
statement's domain is over its affine loops only; a subscript that uses the CSR iterator is
a may-access of the whole extent of its dimension, as an indirect one, and the statement's
write is a may-write (the loop may be empty; ir/isl_build.py). This over-approximates the
iterator's range by the extent of what it indexes (0..nnz-1) without a new parameter or
dimension, so every scheduler, the mapping, the bounds check and the AST build work unchanged,
and code generation prints the real bounds (rowptr[i] .. rowptr[i+1] - 1) as a C loop where
the statement is printed. The alternatives (the bounds as extra parameters, or the iterator as
a domain dimension bounded by the over-approximation) need isl's AST build to keep a bound that
depends on an outer iterator below that iterator's loop, which it does not promise (it hoists
conditions on parameters), or an O(n * nnz) guarded scan. The cost: several statements in one
CSR loop are distributed into loops of their own (the frontend refuses it where a statement
writes what another one accesses), and affine loops or conditions inside one are refused.

Checks (before any write of the region part they guard; never a wild access): per point of the
statement's domain, each CSR range must not decrease (lower <= upper + 1: a row pointer that
decreases is an error, not an empty row), every subscript affine in the CSR iterator must stay
in its extent at both ends of the range (the row pointers within [0, nnz]), and every indirect
subscript at every iteration (x[col[k]]), innermost first (Anantpur & Govindarajan 2013,
Section 3.3.1: the slice functions read only index arrays, so the check has no side effects).
"""

from __future__ import annotations

from collections.abc import Callable

from polycuda.ir.c_expr import expr_to_c
from polycuda.ir.expr import Expr, Ref, Var, refs, substitute, walk
from polycuda.ir.scop import Scop, Statement

# the C statement run when a check fails, given the error code: the array's number in
# scop.arrays for an index out of its extent, len(scop.arrays) + the number of the array
# that a CSR loop's bounds read for a bad range (codegen/abi.py INDEX_ERROR_BASE)
Fail = Callable[[int], str]


def csr_name(iterator: str) -> str:
    """The C name of a CSR iterator in generated code (never a name of the AST's)."""
    return f"pc_csr_{iterator}"


def loop_headers(stmt: Statement, text: Callable[[Expr], str]) -> list[str]:
    """The C `for` headers of `stmt`'s CSR loops, outermost first (`text` prints the bounds)."""
    heads = []
    for loop in stmt.csr:
        it, lo, hi = csr_name(loop.iterator), text(loop.lower), text(loop.upper)
        if loop.direction > 0:
            heads.append(f"for (long long {it} = {lo}; {it} <= {hi}; {it}++)")
        else:
            heads.append(f"for (long long {it} = {hi}; {it} >= {lo}; {it}--)")
    return heads


def wrap(stmt: Statement, text: Callable[[Expr], str], body: str) -> str:
    """`body` (one C statement) inside `stmt`'s CSR loops, on one line."""
    return " ".join(loop_headers(stmt, text) + [body])


def uses_csr(stmt: Statement, expr: Expr) -> bool:
    """Whether `expr` (a reference of `stmt`) uses one of its CSR iterators."""
    names = set(stmt.csr_iterators())
    return any(isinstance(v, Var) and v.name in names for v in walk(expr))


def _dims(stmt: Statement) -> list[tuple[Ref, Expr, int, int]]:
    """(ref, subscript, its dimension, nesting depth) of every subscript of every array
    element `stmt` accesses (its bounds' reads included), without repeats."""
    seen: dict[tuple[str, tuple[Expr, ...]], int] = {}
    out: list[tuple[Ref, Expr, int, int]] = []

    def visit(ref: Ref, depth: int) -> None:
        key = (ref.array, ref.index)
        if key in seen:
            return
        seen[key] = depth
        for k, index in enumerate(ref.index):
            for inner in refs(index):
                visit(inner, depth + 1)
            out.append((ref, index, k, depth))

    tops = [stmt.lhs, *stmt.csr_bound_refs(), *refs(stmt.rhs)]
    for top in tops:
        visit(top, 0)
    return out


def check_lines(scop: Scop, stmt: Statement, text: Callable[[Expr], str], fail: Fail
                ) -> list[str]:
    """C lines that check, at one point of `stmt`'s domain (`text` prints its iterators), its
    CSR ranges and every subscript known only at run time (module docstring); `fail(code)` is
    run at the first violation. Subscripts affine in the iterators and parameters alone are
    left to the isl bounds check before the call (analysis/bounds.py)."""
    ids = {a.name: n for n, a in enumerate(scop.arrays)}
    count = len(scop.arrays)
    iters = stmt.csr_iterators()

    def level(e: Expr) -> int:
        return max((iters.index(v.name) for v in walk(e) if isinstance(v, Var)
                    and v.name in iters), default=-1)

    dims = _dims(stmt)
    indirect = sorted([d for d in dims if refs(d[1])], key=lambda d: -d[3])
    affine = [d for d in dims if not refs(d[1])]

    def in_extent(ref: Ref, k: int, value: str, code: int) -> str:
        extent = expr_to_c(scop.array(ref.array).shape[k])
        return f"if (!(0 <= ({value}) && ({value}) < ({extent}))) {fail(code)}"

    def per_point(j: int) -> list[str]:
        # indirect subscripts whose deepest CSR iterator is loop j's (-1: none), innermost first
        return [in_extent(ref, k, text(index), ids[ref.array])
                for ref, index, k, _ in indirect if level(index) == j]

    def emit(j: int) -> list[str]:
        loop = stmt.csr[j]
        blame = count + ids[loop.bound_refs()[0].array]
        lo, hi = f"pc_lo{j}", f"pc_hi{j}"
        lines = [f"{{ const long long {lo} = {text(loop.lower)}, {hi} = {text(loop.upper)};",
                 f"  if ({lo} > {hi} + 1) {fail(blame)}",
                 f"  if ({lo} <= {hi}) {{"]
        for ref, index, k, _ in affine:
            if level(index) != j:
                continue
            for end in (lo, hi):
                value = text(substitute(index, {loop.iterator: Var(end)}))
                line = "    " + in_extent(ref, k, value, blame)
                if line not in lines:  # val[k] and col[k]: one extent, one check
                    lines.append(line)
        deeper = j + 1 < len(stmt.csr)
        inner = per_point(j)
        if inner or deeper:
            it = csr_name(loop.iterator)
            lines.append(f"    for (long long {it} = {lo}; {it} <= {hi}; {it}++) {{")
            lines += ["      " + line for line in inner]
            if deeper:
                lines += ["      " + line for line in emit(j + 1)]
            lines.append("    }")
        lines += ["  }", "}"]
        return lines

    return per_point(-1) + (emit(0) if stmt.csr else [])
