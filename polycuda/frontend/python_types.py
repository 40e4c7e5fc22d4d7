"""Python frontend, part 2: typed expressions (Python numeric semantics in C terms)."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from polycuda.errors import (
    SourceLoc,
    UserError,
)
from polycuda.ir.expr import (
    BinOp,
    Call,
    Cast,
    Const,
    Expr,
    Ternary,
    UnaryOp,
)

_RANK = {"bool": 0, "int": 1, "long": 2, "float": 3, "double": 4}


# -- typed expressions -----------------------------------------------------------------------
@dataclass(frozen=True)
class _Typed:
    """An expression and its Python-level type: "bool", "int", "long", "float" or "double"."""

    expr: Expr
    dtype: str
    # the NumPy type of a value computed with NumPy's integer rules (python_ints), when its
    # dtype alone does not tell it from a Python int
    np_kind: str | None = None


def _is_int(dtype: str) -> bool:
    return dtype in ("bool", "int", "long")


def _join(*dtypes: str) -> str:
    return max(dtypes, key=_RANK.__getitem__)


def _arith_dtype(*dtypes: str) -> str:
    """Type of + - * on these operands: bools count as int, as in Python."""
    joined = _join(*dtypes)
    return "int" if joined == "bool" else joined


def _cast(t: _Typed, dtype: str) -> Expr:
    return t.expr if t.dtype == dtype else Cast(dtype, t.expr, t.expr.loc)


def _const_value(expr: Expr) -> int | None:
    if isinstance(expr, Const) and isinstance(expr.value, int):
        return expr.value
    return None


def _int_const(value: int, loc: SourceLoc) -> _Typed:
    dtype = "int" if -2**31 <= value < 2**31 else "long"
    return _Typed(Const(value, dtype, loc), dtype)


def _shift(expr: Expr, k: int) -> Expr:
    """expr + k, pushed into min/max so that bound terms stay separable."""
    if isinstance(expr, BinOp) and expr.op in ("min", "max"):
        return BinOp(expr.op, _shift(expr.lhs, k), _shift(expr.rhs, k), expr.loc)
    return BinOp("+" if k > 0 else "-", expr, Const(abs(k)), expr.loc)


def _int_floordiv(a: Expr, b: Expr, loc: SourceLoc) -> Expr:
    """Python's a // b on integers (rounds toward -inf).

    A constant divisor gives the affine "floordiv" (negated operands for a negative one);
    otherwise C's truncating "/" corrected by one when the remainder is non-zero and the
    signs differ.
    """
    c = _const_value(b)
    if c == 0:
        raise UserError("integer division by zero", loc)
    if c is not None:
        if c > 0:
            return BinOp("floordiv", a, b, loc)
        return BinOp("floordiv", UnaryOp("-", a, loc), Const(-c, loc=loc), loc)
    q = BinOp("/", a, b, loc)
    inexact = BinOp("!=", BinOp("%", a, b, loc), Const(0), loc)
    signs = BinOp("!=", BinOp("<", a, Const(0), loc), BinOp("<", b, Const(0), loc), loc)
    return Ternary(BinOp("&&", inexact, signs, loc), BinOp("-", q, Const(1), loc), q, loc)


def _int_mod(a: Expr, b: Expr, loc: SourceLoc) -> Expr:
    """Python's a % b on integers (the sign of the divisor).

    A constant divisor c gives a - c * (a // c), which stays affine; otherwise C's "%"
    corrected by adding b when the remainder is non-zero and its sign differs from b's.
    """
    c = _const_value(b)
    if c is not None:
        return BinOp("-", a, BinOp("*", Const(c, loc=loc), _int_floordiv(a, b, loc), loc), loc)
    r = BinOp("%", a, b, loc)
    signs = BinOp("!=", BinOp("<", r, Const(0), loc), BinOp("<", b, Const(0), loc), loc)
    fix = BinOp("&&", BinOp("!=", r, Const(0), loc), signs, loc)
    return Ternary(fix, BinOp("+", r, b, loc), r, loc)


def _float_mod(x: Expr, y: Expr, dtype: str, loc: SourceLoc) -> Expr:
    """Python's x % y on floats (CPython's float_rem, numpy's npy_divmod): fmod, plus y when
    the remainder is non-zero and its sign differs from y's; a zero remainder takes y's sign.
    Not x - y * floor(x / y), which rounds (5.3 % 0.1 gave a negative remainder)."""
    zero = Const(0.0, "double", loc)
    r = _as(Call("fmod", (x, y), loc), dtype)
    signs = BinOp("!=", BinOp("<", r, zero, loc), BinOp("<", y, zero, loc), loc)
    nonzero = Ternary(signs, BinOp("+", r, y, loc), r, loc)
    return Ternary(BinOp("!=", r, zero, loc), nonzero,
                   _as(Call("copysign", (zero, y), loc), dtype), loc)


def _float_floordiv(x: Expr, y: Expr, dtype: str, loc: SourceLoc) -> Expr:
    """Python's x // y on floats (CPython's _float_div_mod): (x - fmod(x, y)) / y, less one
    when the remainder's sign differs from y's, snapped to the nearest integer; a zero quotient
    takes the sign of x / y. Not floor(x / y): 1.0 // 0.1 is 9.0, floor(1.0 / 0.1) is 10.0."""
    zero, one = Const(0.0, "double", loc), Const(1.0, "double", loc)
    m = _as(Call("fmod", (x, y), loc), dtype)
    div = BinOp("/", BinOp("-", x, m, loc), y, loc)
    signs = BinOp("!=", BinOp("<", y, zero, loc), BinOp("<", m, zero, loc), loc)
    fix = BinOp("&&", BinOp("!=", m, zero, loc), signs, loc)
    div = Ternary(fix, BinOp("-", div, _as(one, dtype), loc), div, loc)
    low = _as(Call("floor", (div,), loc), dtype)
    half = Const(0.5, "double", loc)
    snapped = Ternary(BinOp(">", BinOp("-", div, low, loc), half, loc),
                      BinOp("+", low, _as(one, dtype), loc), low, loc)
    signed_zero = _as(Call("copysign", (zero, BinOp("/", x, y, loc)), loc), dtype)
    return Ternary(BinOp("!=", div, zero, loc), snapped, signed_zero, loc)


def _as(expr: Expr, dtype: str) -> Expr:
    """A double-valued math call or constant kept in `dtype` (float arithmetic stays float,
    as numpy's float32 operations do)."""
    if dtype != "float":
        return expr
    if isinstance(expr, Const):
        return Const(expr.value, "float", expr.loc)
    return Cast("float", expr, expr.loc)


def _py_min_max(name: str, args: list[Expr], loc: SourceLoc) -> Expr:
    """Python's min/max of floats, folded left: max(a, b) is b if b > a else a, so a NaN
    first argument is the result and a later NaN is skipped (max(nan, 0.0) is nan,
    max(0.0, nan) is 0.0), where C's fmax/fmin drop every NaN."""
    result = args[0]
    for arg in args[1:]:
        better = BinOp(">" if name == "max" else "<", arg, result, loc)
        result = Ternary(better, arg, result, loc)
    return result


def _assigned_names(func: ast.FunctionDef) -> tuple[dict[str, int], set[str]]:
    """(times each name is assigned, names bound by for loops) anywhere in the function."""
    counts: dict[str, int] = {}
    loop_vars: set[str] = set()
    for node in ast.walk(func):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            loop_vars.add(node.target.id)
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Name):
                counts[target.id] = counts.get(target.id, 0) + 1
    return counts, loop_vars
