"""Print IR expressions as C/CUDA text (fully parenthesized where precedence could bite)."""

from __future__ import annotations

from collections.abc import Callable

from polycuda.ir.expr import BinOp, Call, Cast, Const, Expr, Ref, Ternary, UnaryOp, Var

RefPrinter = Callable[[Ref, Callable[[Expr], str]], str]

_C_FUNCS = {"abs": "abs", "min": "min", "max": "max"}


def subscript_ref(ref: Ref, sub: Callable[[Expr], str]) -> str:
    """A[i][j] (C arrays, VLAs); a written scalar prints as its name."""
    return ref.array + "".join(f"[{sub(i)}]" for i in ref.index)


def const_to_c(value: float, dtype: str) -> str:
    if dtype in ("int", "long") and isinstance(value, int):
        return str(value) if value >= 0 else f"({value})"
    text = repr(float(value))
    if text in ("inf", "-inf", "nan"):
        raise ValueError(f"cannot print non-finite constant {value}")
    text = text if ("e" in text or "." in text) else text + ".0"
    text = text + "f" if dtype == "float" else text
    return text if not text.startswith("-") else f"({text})"


def expr_to_c(expr: Expr, ref_printer: RefPrinter = subscript_ref,
              var_printer: Callable[[str], str] | None = None) -> str:
    """C text of `expr`; `ref_printer` decides how array elements are addressed."""

    def go(e: Expr) -> str:
        if isinstance(e, Const):
            return const_to_c(e.value, e.dtype)
        if isinstance(e, Var):
            return var_printer(e.name) if var_printer else e.name
        if isinstance(e, Ref):
            return ref_printer(e, go)
        if isinstance(e, BinOp):
            return _binop(e, go)
        if isinstance(e, UnaryOp):
            return f"({e.op}{go(e.operand)})"
        if isinstance(e, Call):
            return f"{e.func}({', '.join(go(a) for a in e.args)})"
        if isinstance(e, Ternary):
            return f"({go(e.cond)} ? {go(e.then)} : {go(e.other)})"
        if isinstance(e, Cast):
            return f"(({e.dtype}){go(e.operand)})"
        raise TypeError(f"unknown expression node {e!r}")

    return go(expr)


def _binop(e: BinOp, go: Callable[[Expr], str]) -> str:
    a, b = go(e.lhs), go(e.rhs)
    if e.op == "floordiv":
        return f"pc_floord({a}, {b})"
    if e.op == "ceildiv":
        return f"pc_ceild({a}, {b})"
    if e.op in ("min", "max"):
        return f"pc_{e.op}({a}, {b})"
    return f"({a} {e.op} {b})"


# Helpers every generated C/CUDA file defines (integer floor/ceil division, min, max).
C_HELPERS = """\
#define pc_floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
#define pc_ceild(n, d) pc_floord((n) + (d) - 1, (d))
#define pc_min(a, b) ((a) < (b) ? (a) : (b))
#define pc_max(a, b) ((a) > (b) ? (a) : (b))
"""
