"""Expression nodes of statement bodies, subscripts, bounds and conditions (immutable)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Union

from polycuda.errors import SourceLoc

# ir/dtypes.py holds their C spellings, sizes and conversions
DTYPES = ("int", "long", "float", "double", "char", "schar", "uchar", "short", "ushort", "uint",
          "ulong")
# C semantics for every operator; "floordiv"/"ceildiv" round toward -inf/+inf (affine bounds,
# Python's //), "/" truncates on integers as in C. "min"/"max" take two operands.
BINARY_OPS = ("+", "-", "*", "/", "%", "floordiv", "ceildiv", "min", "max",
              "<", "<=", ">", ">=", "==", "!=", "&&", "||")
UNARY_OPS = ("-", "!")
MATH_FUNCS = ("sqrt", "exp", "log", "fabs", "pow", "fmin", "fmax", "sin", "cos", "tan",
              "tanh", "floor", "ceil", "abs")


@dataclass(frozen=True)
class Const:
    value: int | float
    dtype: str = "int"  # "int" (or "long", "uint", "ulong") for integer literals, "double"/"float"
    loc: SourceLoc | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Var:
    """A loop iterator, an integer parameter, or a read-only scalar argument."""

    name: str
    loc: SourceLoc | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Ref:
    """An element of an array (index has one entry per dimension) or a written scalar (index ())."""

    array: str
    index: tuple[Expr, ...]
    loc: SourceLoc | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class BinOp:
    op: str
    lhs: Expr
    rhs: Expr
    loc: SourceLoc | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class UnaryOp:
    op: str
    operand: Expr
    loc: SourceLoc | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Call:
    func: str
    args: tuple[Expr, ...]
    loc: SourceLoc | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Ternary:
    cond: Expr
    then: Expr
    other: Expr
    loc: SourceLoc | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Cast:
    dtype: str
    operand: Expr
    loc: SourceLoc | None = field(default=None, compare=False, repr=False)


Expr = Union[Const, Var, Ref, BinOp, UnaryOp, Call, Ternary, Cast]  # noqa: UP007 (runtime alias)


def children(expr: Expr) -> tuple[Expr, ...]:
    """Direct sub-expressions, in source order."""
    if isinstance(expr, Ref):
        return expr.index
    if isinstance(expr, BinOp):
        return (expr.lhs, expr.rhs)
    if isinstance(expr, (UnaryOp, Cast)):
        return (expr.operand,)
    if isinstance(expr, Call):
        return expr.args
    if isinstance(expr, Ternary):
        return (expr.cond, expr.then, expr.other)
    return ()


def walk(expr: Expr) -> Iterator[Expr]:
    """Pre-order traversal (deterministic: source order)."""
    yield expr
    for child in children(expr):
        yield from walk(child)


def refs(expr: Expr) -> tuple[Ref, ...]:
    """Every array/scalar reference read by `expr`, in source order (subscript refs included)."""
    return tuple(e for e in walk(expr) if isinstance(e, Ref))


def substitute(expr: Expr, env: dict[str, Expr]) -> Expr:
    """Replace Var nodes named in `env` (used to rename iterators)."""
    if isinstance(expr, Var):
        return env.get(expr.name, expr)
    return with_children(expr, tuple(substitute(c, env) for c in children(expr)))


def with_children(expr: Expr, kids: tuple[Expr, ...]) -> Expr:
    """`expr` with its direct sub-expressions (children(expr), same order) replaced."""
    if isinstance(expr, Ref):
        return Ref(expr.array, kids, expr.loc)
    if isinstance(expr, BinOp):
        return BinOp(expr.op, kids[0], kids[1], expr.loc)
    if isinstance(expr, UnaryOp):
        return UnaryOp(expr.op, kids[0], expr.loc)
    if isinstance(expr, Cast):
        return Cast(expr.dtype, kids[0], expr.loc)
    if isinstance(expr, Call):
        return Call(expr.func, kids, expr.loc)
    if isinstance(expr, Ternary):
        return Ternary(kids[0], kids[1], kids[2], expr.loc)
    return expr


def map_refs(expr: Expr, fn: Callable[[Ref], Expr]) -> Expr:
    """`expr` with every Ref r (its subscripts mapped first) replaced by fn(r)."""
    mapped = with_children(expr, tuple(map_refs(c, fn) for c in children(expr)))
    return fn(mapped) if isinstance(mapped, Ref) else mapped
