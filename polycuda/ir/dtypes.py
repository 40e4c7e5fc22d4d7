"""Element types of the IR and C's rules on them (C11 6.3.1.1, 6.3.1.3, 6.3.1.8).

One table names each dtype's C spelling, size and NumPy type; `c_type_of` gives the C type of
an expression (integer promotions, usual arithmetic conversions), which the frontends use to
refuse what the generated code could not compute as C (or NumPy) does, and to cast where
NumPy's rules differ from C's. `char` is signed here, as on x86-64 with gcc and nvcc.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from polycuda.ir.expr import (BinOp, Call, Cast, Const, Expr, Ref, Ternary, UnaryOp, Var, children,
                              with_children)
from polycuda.ir.scop import Scop


@dataclass(frozen=True)
class DType:
    """One element type: C spelling, bytes, signedness and NumPy name; rank orders the integer
    types for C's conversions (C11 6.3.1.1: char < short < int < long long)."""

    name: str
    c_name: str
    bytes: int
    numpy: str
    integer: bool = True
    signed: bool = True
    rank: int = 0


TABLE = {d.name: d for d in (
    DType("char", "char", 1, "int8", rank=1),
    DType("schar", "signed char", 1, "int8", rank=1),
    DType("uchar", "unsigned char", 1, "uint8", signed=False, rank=1),
    DType("short", "short", 2, "int16", rank=2),
    DType("ushort", "unsigned short", 2, "uint16", signed=False, rank=2),
    DType("int", "int", 4, "int32", rank=3),
    DType("uint", "unsigned", 4, "uint32", signed=False, rank=3),
    DType("long", "long long", 8, "int64", rank=4),
    DType("ulong", "unsigned long long", 8, "uint64", signed=False, rank=4),
    DType("float", "float", 4, "float32", integer=False),
    DType("double", "double", 8, "float64", integer=False),
)}
NARROW = ("char", "schar", "uchar", "short", "ushort")  # promoted to int in arithmetic
UNSIGNED = tuple(n for n, d in TABLE.items() if d.integer and not d.signed)
INTEGER = tuple(n for n, d in TABLE.items() if d.integer)
C_NAMES = {n: d.c_name for n, d in TABLE.items()}
BYTES = {n: d.bytes for n, d in TABLE.items()}
# the dtype of each NumPy type name; int8 is `signed char` (Python input), never plain char
FROM_NUMPY = {d.numpy: n for n, d in TABLE.items() if n != "char"}


def cast_name(dtype: str) -> str:
    """The C spelling in a cast: `long` stays `long` (64-bit on every target we build for)."""
    return "long" if dtype == "long" else C_NAMES[dtype]


def const_suffix(dtype: str) -> str:
    """The suffix of an integer literal of `dtype` ("" for int and long)."""
    return {"uint": "u", "ulong": "ull"}.get(dtype, "")


def promoted(dtype: str) -> str:
    """The integer promotion (C11 6.3.1.1p2): char and short become int."""
    return "int" if dtype in NARROW else dtype


def arithmetic(a: str, b: str) -> str:
    """The usual arithmetic conversions of two operand types (C11 6.3.1.8)."""
    if "double" in (a, b):
        return "double"
    if "float" in (a, b):
        return "float"
    a, b = promoted(a), promoted(b)
    da, db = TABLE[a], TABLE[b]
    if da.signed == db.signed:
        return a if da.rank >= db.rank else b
    unsigned, signed = (da, db) if not da.signed else (db, da)
    if unsigned.rank >= signed.rank:
        return unsigned.name
    # the signed type is wider (long long against unsigned): it holds every unsigned value
    return signed.name


_COMPARE = ("<", "<=", ">", ">=", "==", "!=", "&&", "||")


def c_type_of(expr: Expr, dtype_of: Callable[[str], str]) -> str:
    """The C type of `expr`: `dtype_of(name)` gives the dtype of an array or a variable.

    Comparisons and logic give int; +, -, *, /, %, min and max convert their operands (min
    and max as C's `a < b ? a : b`); a ternary converts its branches; math calls give double.
    """
    if isinstance(expr, Const):
        return expr.dtype
    if isinstance(expr, Var):
        return dtype_of(expr.name)
    if isinstance(expr, Ref):
        return dtype_of(expr.array)
    if isinstance(expr, Cast):
        return expr.dtype
    if isinstance(expr, UnaryOp):
        return "int" if expr.op == "!" else promoted(c_type_of(expr.operand, dtype_of))
    if isinstance(expr, BinOp):
        if expr.op in _COMPARE:
            return "int"
        return arithmetic(c_type_of(expr.lhs, dtype_of), c_type_of(expr.rhs, dtype_of))
    if isinstance(expr, Ternary):
        return arithmetic(c_type_of(expr.then, dtype_of), c_type_of(expr.other, dtype_of))
    if isinstance(expr, Call):
        if expr.func == "abs":
            return "int"
        kinds = [c_type_of(a, dtype_of) for a in expr.args]
        return "float" if kinds and all(k == "float" for k in kinds) else "double"
    raise TypeError(f"unknown expression node {expr!r}")


def operands_unsigned(expr: Expr, dtype_of: Callable[[str], str]) -> bool:
    """Whether a comparison or min/max `expr` compares in an unsigned type (C converts a
    negative operand to a large value there)."""
    assert isinstance(expr, BinOp)
    lhs, rhs = c_type_of(expr.lhs, dtype_of), c_type_of(expr.rhs, dtype_of)
    return arithmetic(lhs, rhs) in UNSIGNED


def scop_dtype_of(scop: Scop) -> Callable[[str], str]:
    """dtype_of for c_type_of in `scop`: its arrays' and arguments' dtypes; any other name
    (a loop iterator) is a long."""
    known = {a.name: a.dtype for a in scop.args}
    known.update({a.name: a.dtype for a in scop.arrays})
    return lambda name: known.get(name, "long")


def pin_signed_operands(expr: Expr, dtype_of: Callable[[str], str]) -> Expr:
    """`expr` with each signed operand that holds a loop iterator or a parameter cast to its
    declared type (int or long) where it meets an unsigned int: there C converts it to
    unsigned (`i - 5 < U[i]` wraps for i < 5), while the generated code declares iterators
    and parameters long long (C) or int (CUDA), which would convert otherwise. Subscripts are
    left as they are (affine, computed on unbounded integers)."""
    if isinstance(expr, Ref):
        return expr
    expr = with_children(expr, tuple(pin_signed_operands(c, dtype_of) for c in children(expr)))
    if isinstance(expr, BinOp) and expr.op not in ("&&", "||"):
        lhs, rhs = _pinned(expr.lhs, expr.rhs, dtype_of), _pinned(expr.rhs, expr.lhs, dtype_of)
        return BinOp(expr.op, lhs, rhs, expr.loc)
    if isinstance(expr, Ternary):
        then = _pinned(expr.then, expr.other, dtype_of)
        return Ternary(expr.cond, then, _pinned(expr.other, expr.then, dtype_of), expr.loc)
    return expr


def math_arguments_as_double(expr: Expr, dtype_of: Callable[[str], str]) -> Expr:
    """`expr` with each integer argument of a <math.h> function (not `abs`) cast to double, as
    C's prototype converts it: in CUDA C++ the overloads differ (`sqrt(int)` names a constexpr
    host function, which a kernel cannot call)."""
    expr = with_children(expr, tuple(math_arguments_as_double(c, dtype_of)
                                     for c in children(expr)))
    if not isinstance(expr, Call) or expr.func == "abs":
        return expr
    args = tuple(Cast("double", a, getattr(a, "loc", None))
                 if c_type_of(a, dtype_of) in INTEGER else a for a in expr.args)
    return Call(expr.func, args, expr.loc)


def pin_compound_operand(rhs: Expr, target: str, dtype_of: Callable[[str], str]) -> Expr:
    """The rhs of `X op= rhs` for an X of dtype `target`: C computes X op rhs (see
    pin_signed_operands)."""
    return _pinned(rhs, Cast(target, Const(0)), dtype_of)


def _pinned(side: Expr, other: Expr, dtype_of: Callable[[str], str]) -> Expr:
    side_type = c_type_of(side, dtype_of)
    if (promoted(side_type) not in ("int", "long") or c_type_of(other, dtype_of) != "uint"
            or not _holds_var(side) or isinstance(side, Cast) and side.dtype == side_type):
        return side
    return Cast(promoted(side_type), side, side.loc)


def _holds_var(expr: Expr) -> bool:
    if isinstance(expr, Var):
        return True
    return not isinstance(expr, Ref) and any(_holds_var(c) for c in children(expr))
