"""Evaluate integer expressions of the parameters (array shapes, bounds) in Python."""

from __future__ import annotations

from polycuda.ir.expr import BinOp, Cast, Const, Expr, UnaryOp, Var


def eval_int(expr: Expr, env: dict[str, int]) -> int:
    """Value of an integer expression (C semantics for '/' and '%', floor for floordiv)."""
    if isinstance(expr, Const):
        return int(expr.value)
    if isinstance(expr, Var):
        if expr.name not in env:
            raise KeyError(f"no value for parameter '{expr.name}'")
        return int(env[expr.name])
    if isinstance(expr, UnaryOp) and expr.op == "-":
        return -eval_int(expr.operand, env)
    if isinstance(expr, Cast):
        return eval_int(expr.operand, env)
    if isinstance(expr, BinOp):
        a, b = eval_int(expr.lhs, env), eval_int(expr.rhs, env)
        ops = {
            "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
            "/": lambda: c_quotient(a, b), "%": lambda: a - b * c_quotient(a, b),
            "floordiv": lambda: a // b, "ceildiv": lambda: -((-a) // b),
            "min": lambda: min(a, b), "max": lambda: max(a, b),
        }
        if expr.op in ops:
            return ops[expr.op]()
    raise ValueError(f"not an integer parameter expression: {expr!r}")


def c_quotient(a: int, b: int) -> int:
    """C's a / b on integers: rounded toward zero, exact at any size (a float quotient,
    int(a / b), loses the last digits past 2^53)."""
    if b == 0:
        return _zero_div()
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _zero_div() -> int:
    raise ZeroDivisionError("division by zero in a parameter expression")
