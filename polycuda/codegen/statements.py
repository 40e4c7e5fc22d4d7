"""Statement bodies at AST leaves: `lhs op rhs;` with iterators replaced by AST expressions."""

from __future__ import annotations

from collections.abc import Callable

import islpy as isl

from polycuda.ir.ast_expr import ast_expr_to_c
from polycuda.codegen import csr
from polycuda.ir.c_expr import RefPrinter, expr_to_c
from polycuda.ir.expr import Expr, Ref
from polycuda.ir.scop import Scop, Statement

# A statement after a write (user_statement's after_write), given the statement and the
# printer of its expressions (iterators replaced by the AST's)
AfterWrite = Callable[[Statement, Callable[[Expr], str]], str]


def flat_ref_printer(scop: Scop, wide: bool = False
                     ) -> Callable[[Ref, Callable[[Expr], str]], str]:
    """A[i][j] -> A[((i) * (d1) + (j))]; a 0-d (scalar cell) array prints as A[0]. wide: the
    element number in 64 bits (the first subscript cast to long long)."""

    def printer(ref: Ref, sub: Callable[[Expr], str]) -> str:
        return f"{ref.array}[{flat_index(scop, ref, sub, wide)}]"

    return printer


def flat_index(scop: Scop, ref: Ref, sub: Callable[[Expr], str], wide: bool = False) -> str:
    """The row-major element number of `ref` as C text (subscripts printed by `sub`; wide:
    computed in 64 bits)."""
    arr = scop.array(ref.array)
    if not ref.index:
        return "0"
    flat = sub(ref.index[0])
    if wide and len(ref.index) > 1:
        flat = f"(long long)({flat})"
    for dim, index in zip(arr.shape[1:], ref.index[1:]):
        flat = f"({flat}) * ({expr_to_c(dim)}) + ({sub(index)})"
    return flat


def statement_parts(scop: Scop, call: isl.AstExpr, refp: RefPrinter | None = None
                    ) -> tuple[Statement, Callable[[Expr], str]]:
    """The statement of an AST user node `S0(e0, e1, ...)` and the printer of its expressions
    (iterators replaced by the call's arguments; flat array indexing, or `refp`)."""
    name = call.get_op_arg(0).get_id().get_name()
    stmt = scop.statement(name)
    env = {it: ast_expr_to_c(call.get_op_arg(k + 1)) for k, it in enumerate(stmt.iterators)}
    env.update({it: csr.csr_name(it) for it in stmt.csr_iterators()})
    refp = refp or flat_ref_printer(scop)

    def var(v: str) -> str:
        return env.get(v, v)

    return stmt, lambda e: expr_to_c(e, refp, var)


def user_statement(scop: Scop, call: isl.AstExpr, refp: RefPrinter | None = None,
                   after_write: AfterWrite | None = None) -> str:
    """The C statement of an AST user node `S0(e0, e1, ...)` (flat array indexing, or
    `refp`); `after_write` may add a statement after it."""
    stmt, text = statement_parts(scop, call, refp)
    lhs, rhs = text(stmt.lhs), text(stmt.rhs)
    extra = after_write(stmt, text) if after_write else ""
    body = f"{{ {lhs} {stmt.op} {rhs}; {extra} }}" if extra else f"{lhs} {stmt.op} {rhs};"
    # a loop whose bounds read index arrays, inside the statement (codegen/csr.py)
    return csr.wrap(stmt, text, body) if stmt.csr else body
