"""Python frontend, part 3: NumPy's narrow and unsigned integers (int8, uint8, int16, uint16,
uint32 arrays) with NumPy's semantics in C terms.

NumPy (NEP 50, NumPy >= 2) computes `a op b` of two integer scalars in
np.result_type(a, b) and wraps modulo 2^bits; a Python integer takes the other operand's
type and raises OverflowError where it does not fit; storing into an array raises
OverflowError for a value out of the array's range. The generated code computes + - * in
unsigned long long (exact modulo 2^64) and converts to the result type (modulo 2^bits: C11
6.3.1.3, which gcc and nvcc define so for signed types), which is NumPy's wrap; comparisons
compare in long long or double, exact as NumPy's. What raises in NumPy only for some values
(a Python integer variable in arithmetic, a store that may leave the array's range), and the
operators not written here (//, %, **, abs, min, max, math functions), are refused.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from polycuda.errors import SourceLoc, UnsupportedConstruct
from polycuda.frontend.python_types import _Typed
from polycuda.ir import dtypes
from polycuda.ir.expr import BinOp, Cast, Const, Expr, UnaryOp

NP_INTS = ("schar", "uchar", "short", "ushort", "uint")
WEAK = "weak"  # a Python integer constant: it takes the other operand's type
# dtype of an operand for NumPy's rules: an ir dtype, WEAK, or None (a Python integer whose
# value is only known at run time)
KindOf = Callable[[_Typed], "str | None"]


def is_np_int(t: _Typed) -> bool:
    return t.dtype in NP_INTS


def numpy_name(dtype: str) -> str:
    return "bool" if dtype == "bool" else dtypes.TABLE[dtype].numpy


def _np(dtype: str) -> np.dtype:
    return np.dtype(numpy_name(dtype))


def _result(kinds: list[str]) -> str:
    """NumPy's result type of strong operand kinds (np.result_type), as an ir dtype."""
    name = np.result_type(*(_np(k) for k in kinds)).name
    return "int" if name == "bool" else dtypes.FROM_NUMPY[name]


def _strong(a: _Typed, b: _Typed, what: str, kind_of: KindOf, loc: SourceLoc
            ) -> tuple[str, str]:
    """The kinds of two operands, one of them a narrow or unsigned NumPy integer; a Python
    integer constant must fit that type (NumPy raises OverflowError otherwise)."""
    ka, kb = kind_of(a), kind_of(b)
    narrow = a if is_np_int(a) else b
    for t, k in ((a, ka), (b, kb)):
        if k is None:
            raise UnsupportedConstruct(
                f"{what} of a NumPy {numpy_name(narrow.dtype)} value and a Python integer "
                "variable: NumPy raises OverflowError where the integer leaves "
                f"{numpy_name(narrow.dtype)}'s range; convert one side with int(...) or to "
                "the array's type", loc)
        if k == WEAK:
            assert isinstance(t.expr, Const)
            info = np.iinfo(_np(narrow.dtype))
            if not info.min <= int(t.expr.value) <= info.max:
                raise UnsupportedConstruct(
                    f"{what} of a NumPy {info.dtype} value and the constant {t.expr.value}: "
                    f"NumPy raises OverflowError (the constant is out of {info.dtype}'s range)",
                    loc)
    return (ka if ka != WEAK else narrow.dtype), (kb if kb != WEAK else narrow.dtype)


def arith(sym: str, a: _Typed, b: _Typed, kind_of: KindOf, loc: SourceLoc) -> _Typed:
    """a sym b (+, -, *, or / true division) with NumPy's types and wrap-around."""
    ka, kb = _strong(a, b, f"'{sym}'", kind_of, loc)
    result = _result([ka, kb])
    if sym == "/" and result in dtypes.INTEGER:
        result = "double"  # true division of integers: float64
    if result in ("float", "double"):
        return _Typed(BinOp(sym, _as(a.expr, result), _as(b.expr, result), loc), result)
    wide = BinOp(sym, _as(a.expr, "ulong"), _as(b.expr, "ulong"), loc)
    return _Typed(Cast(result, wide, loc), result, result)


def negate(t: _Typed, loc: SourceLoc) -> _Typed:
    """-x of a NumPy integer: wraps (-int8(-128) is -128)."""
    return _Typed(Cast(t.dtype, UnaryOp("-", _as(t.expr, "ulong"), loc), loc), t.dtype)


def compare(sym: str, a: _Typed, b: _Typed, loc: SourceLoc) -> Expr:
    """a sym b, exact as NumPy compares (also with a Python integer out of range)."""
    floating = {a.dtype, b.dtype} & {"float", "double"}
    wide = "double" if floating else "long"
    return BinOp(sym, _as(a.expr, wide), _as(b.expr, wide), loc)


def check_store(target: str, value: _Typed, kind_of: KindOf, loc: SourceLoc) -> None:
    """Refuse a store into an array of NumPy integer dtype `target` (or of a value of such a
    type into any integer array) that NumPy could refuse: a value whose type does not fit the
    target's range raises OverflowError there, a float is converted as C leaves undefined."""
    kind = kind_of(value)
    name = numpy_name(target)
    if value.dtype in ("float", "double"):
        raise UnsupportedConstruct(
            f"store of a floating-point value into a {name} array: convert it explicitly "
            "(NumPy's and C's conversions of out-of-range values differ)", loc)
    if kind == WEAK:
        assert isinstance(value.expr, Const)
        info = np.iinfo(_np(target))
        if info.min <= int(value.expr.value) <= info.max:
            return
        raise UnsupportedConstruct(f"store of {value.expr.value} into a {name} array: NumPy "
                                   "raises OverflowError (out of its range)", loc)
    if kind is None:
        raise UnsupportedConstruct(
            f"store of a Python integer into a {name} array: NumPy raises OverflowError "
            f"where the value leaves {name}'s range; convert it to the array's type", loc)
    if kind != "bool" and not np.can_cast(_np(kind), _np(target), casting="safe"):
        raise UnsupportedConstruct(
            f"store of a {numpy_name(kind)} value into a {name} array: NumPy raises "
            f"OverflowError where the value leaves {name}'s range (it does not wrap); convert "
            f"it with np.{name}(...) or compute in {name}", loc)


def refuse(what: str, t: _Typed, loc: SourceLoc) -> None:
    """Refuse an operation this module does not give NumPy's semantics for."""
    if is_np_int(t):
        raise UnsupportedConstruct(
            f"{what} of a NumPy {numpy_name(t.dtype)} value is not supported (only + - * / "
            "and comparisons follow NumPy's rules for narrow and unsigned integers); "
            "convert it with int(...) first", loc)


def _as(e: Expr, dtype: str) -> Expr:
    return e if isinstance(e, Cast) and e.dtype == dtype else Cast(dtype, e, e.loc)
