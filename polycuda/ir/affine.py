"""Affine expressions and conditions: check an Expr is affine and print it as isl text."""

from __future__ import annotations

from polycuda.errors import IndirectSubscriptError, NotAffineError
from polycuda.ir.expr import BinOp, Cast, Const, Expr, Ref, Ternary, UnaryOp, Var, map_refs, walk

_CMP = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "="}


def const_int(expr: Expr) -> int | None:
    """The integer value of a constant affine expression, else None."""
    if isinstance(expr, Const) and isinstance(expr.value, int):
        return expr.value
    if isinstance(expr, UnaryOp) and expr.op == "-":
        inner = _const_int(expr.operand)
        return None if inner is None else -inner
    if isinstance(expr, BinOp) and expr.op in ("+", "-", "*"):
        a, b = const_int(expr.lhs), const_int(expr.rhs)
        if a is None or b is None:
            return None
        return a + b if expr.op == "+" else a - b if expr.op == "-" else a * b
    if isinstance(expr, Cast) and expr.dtype in ("int", "long"):
        return const_int(expr.operand)
    return None


_const_int = const_int


def affine_text(expr: Expr, names: frozenset[str] | set[str], what: str = "expression") -> str:
    """isl text of an affine (quasi-affine) integer expression over `names`.

    Args:
        expr: the expression; integer constants, names, + - *, multiplication by a constant,
            floordiv/ceildiv by a positive constant are accepted. C's truncating '/' and '%'
            are not: their exact translation is piecewise (ir.quasi_affine), never floor.
        names: iterators and parameters the expression may use.
        what: names the construct in the error ("subscript", "loop bound", ...).
    Raises:
        IndirectSubscriptError: an array element appears (A[idx[i]]).
        NotAffineError: anything else that is not affine.
    """
    value = _const_int(expr)
    if value is not None:
        return f"({value})"
    if isinstance(expr, Var):
        if expr.name not in names:
            raise NotAffineError(
                f"{what} uses '{expr.name}', which is neither a loop iterator nor an integer "
                "parameter of the region", expr.loc)
        return expr.name
    if isinstance(expr, Ref):
        raise IndirectSubscriptError(
            f"indirect {what}: it reads '{expr.array}' (an array element); indirect subscripts "
            "need the run-time inspector path, which is not available for this construct yet",
            expr.loc)
    if isinstance(expr, UnaryOp) and expr.op == "-":
        return f"(-{affine_text(expr.operand, names, what)})"
    if isinstance(expr, Cast) and expr.dtype in ("int", "long"):
        return affine_text(expr.operand, names, what)
    if isinstance(expr, BinOp):
        return _binop_text(expr, names, what)
    raise not_affine(expr, what)


def not_affine(expr: Expr, what: str) -> NotAffineError:
    """The error for an expression node that no affine translation accepts."""
    if isinstance(expr, Ternary):
        return NotAffineError(f"{what} is not affine: it holds a conditional '?:' other than "
                              "the min/max and floord/ceild patterns", expr.loc)
    return NotAffineError(f"{what} is not affine", getattr(expr, "loc", None))


def _binop_text(expr: BinOp, names: frozenset[str] | set[str], what: str) -> str:
    op = expr.op
    if op in ("+", "-"):
        return f"({affine_text(expr.lhs, names, what)} {op} {affine_text(expr.rhs, names, what)})"
    if op == "*":
        a, b = _const_int(expr.lhs), _const_int(expr.rhs)
        if a is None and b is None:
            raise NotAffineError(f"{what} multiplies two non-constant terms (not affine)",
                                 expr.loc)
        if a is not None:
            return f"({a} * {affine_text(expr.rhs, names, what)})"
        return f"({b} * {affine_text(expr.lhs, names, what)})"
    if op in ("/", "%"):
        raise NotAffineError(f"{what} uses C '{op}' where only an affine expression without "
                             "C division is accepted (C rounds toward zero, isl's floor does "
                             "not)", expr.loc)
    if op in ("floordiv", "ceildiv"):
        d = _const_int(expr.rhs)
        if d is None or d <= 0:
            raise NotAffineError(f"{what} divides by a non-constant or non-positive value "
                                 "(not affine)", expr.loc)
        fn = "ceil" if op == "ceildiv" else "floor"
        return f"{fn}(({affine_text(expr.lhs, names, what)})/{d})"
    if op in ("min", "max"):
        raise NotAffineError(f"{what}: min/max is only supported in loop bounds", expr.loc)
    raise NotAffineError(f"{what} uses operator '{op}' (not affine)", expr.loc)


def bound_terms(expr: Expr, kind: str) -> list[Expr]:
    """Split a lower bound built from max(...) or an upper bound built from min(...) into terms."""
    if isinstance(expr, BinOp) and expr.op == kind:
        return bound_terms(expr.lhs, kind) + bound_terms(expr.rhs, kind)
    return [expr]


def condition_text(expr: Expr, names: frozenset[str] | set[str]) -> str:
    """isl text of an affine condition (comparisons joined by &&, ||, !)."""
    if isinstance(expr, BinOp) and expr.op in ("&&", "||"):
        joiner = " and " if expr.op == "&&" else " or "
        return f"({condition_text(expr.lhs, names)}{joiner}{condition_text(expr.rhs, names)})"
    if isinstance(expr, UnaryOp) and expr.op == "!":
        return f"(not {condition_text(expr.operand, names)})"
    if isinstance(expr, BinOp) and expr.op in _CMP:
        a = affine_text(expr.lhs, names, "condition")
        b = affine_text(expr.rhs, names, "condition")
        return f"({a} {_CMP[expr.op]} {b})"
    if isinstance(expr, BinOp) and expr.op == "!=":
        a = affine_text(expr.lhs, names, "condition")
        b = affine_text(expr.rhs, names, "condition")
        return f"({a} < {b} or {a} > {b})"
    raise NotAffineError("condition is not an affine comparison", getattr(expr, "loc", None))


# -- indirect subscripts (Anantpur & Govindarajan 2013, Section 3.1: `A[B[i]]`) -----------------
INDEX_DTYPES = ("int", "long")
_PLACEHOLDER = "pc_ix"


def is_indirect(expr: Expr) -> bool:
    """Whether `expr` reads an array element (a subscript like `idx[i]` or `row[i] + 1`)."""
    return any(isinstance(e, Ref) for e in walk(expr))


def indirect_shape_text(expr: Expr, names: frozenset[str] | set[str],
                        what: str = "indirect subscript") -> str:
    """isl text of an indirect subscript with each outermost array read replaced by a fresh
    name (pc_ix0, pc_ix1, ...): the subscript must be affine in the iterators, the parameters
    and the values read from index arrays (`idx[i] + j`, `2 * row[i]`; not `p[i] * q[i]`).

    Raises:
        NotAffineError: the subscript is not affine in those values.
    """
    count = [0]

    def placeholder(ref: Ref) -> Expr:
        count[0] += 1
        return Var(f"{_PLACEHOLDER}{count[0] - 1}", ref.loc)

    shaped = map_refs(expr, placeholder)
    extended = set(names) | {f"{_PLACEHOLDER}{k}" for k in range(count[0])}
    try:
        return affine_text(shaped, extended, what)
    except NotAffineError as err:
        raise NotAffineError(
            f"{err.msg}: it must be affine in the loop iterators, the "
            "integer parameters and the values it reads from index arrays",
            err.loc or getattr(expr, "loc", None)) from None
