"""C's truncating '/' and '%' by constants in bounds, conditions and subscripts, made exact in isl;
and subscripts with min/max and '?:' of affine conditions, as piecewise affine accesses.

C rounds integer division toward zero and gives '%' the sign of the dividend; isl's floor()
and mod round toward -inf. Where a C '/' or '%' reaches isl, the expression is built as an
isl piecewise quasi-affine function with isl_pw_aff_tdiv_q / tdiv_r, which split on the sign
of the numerator (trunc(a/d) = floor(a/d) for a >= 0, -floor(-a/d) for a < 0), instead of
being read as floor. A subscript with min, max or `c ? a : b` (border clamps `A[min(i + 1,
n - 1)]`, `A[(x == 0) ? x : x - 1]`) is one affine piece per condition (isl_pw_aff_min /
_max, and the pieces of a and b restricted to c and its complement). Expressions without
them keep the plain text of ir.affine.

Example:
    space = isl.Set("[n] -> { S0[i] }").get_space()
    upper = pw_aff(BinOp("/", BinOp("-", Var("n"), Const(3)), Const(2)), space, "loop bound")
    # [n] -> { S0[i] -> [(-2 + floor((1 + n)/2))] : n >= 3; ... : n <= 2 }
"""

from __future__ import annotations

import islpy as isl

from polycuda.errors import NotAffineError
from polycuda.ir.affine import const_int, not_affine
from polycuda.ir.affine import affine_text as _affine_text
from polycuda.ir.expr import BinOp, Cast, Const, Expr, Ternary, UnaryOp, walk

C_DIVISIONS = ("/", "%")
_SELECTS = ("min", "max")


def has_c_division(expr: Expr) -> bool:
    """Whether `expr` holds a C '/' or '%' (which only this module translates exactly)."""
    return any(isinstance(e, BinOp) and e.op in C_DIVISIONS for e in walk(expr))


def is_piecewise(expr: Expr) -> bool:
    """Whether a subscript needs a piecewise access: it holds a C '/' or '%', a min/max or a
    conditional '?:' (all translated here; ir.affine's plain text has none of them)."""
    return any((isinstance(e, BinOp) and e.op in C_DIVISIONS + _SELECTS)
               or isinstance(e, Ternary) for e in walk(expr))


def space_names(space: isl.Space) -> set[str]:
    """The parameter and set-dimension names of a set space (what an expression may use)."""
    return ({space.get_dim_name(isl.dim_type.param, k)
             for k in range(space.dim(isl.dim_type.param))}
            | {space.get_dim_name(isl.dim_type.set, k)
               for k in range(space.dim(isl.dim_type.set))})


def pw_aff(expr: Expr, space: isl.Space, what: str, *, pieces: bool = False) -> isl.PwAff:
    """`expr` as an isl piecewise quasi-affine function on the set space `space`; with
    `pieces` (subscripts), min, max and `c ? a : b` of an affine c anywhere in it too.

    # result: [params] -> { S[iters] -> [expr(iters)] }
    Raises:
        NotAffineError: not quasi-affine (a product of two non-constants, a division by a
            non-constant or by zero, a name outside `space`, ...); the message names `what`.
    """
    if not (is_piecewise(expr) if pieces else has_c_division(expr)):
        return _leaf(_affine_text(expr, space_names(space), what), space)
    if isinstance(expr, Ternary) and pieces:
        return _select(expr, space, what)
    if isinstance(expr, UnaryOp) and expr.op == "-":
        return pw_aff(expr.operand, space, what, pieces=pieces).neg()
    if isinstance(expr, Cast) and expr.dtype in ("int", "long"):
        return pw_aff(expr.operand, space, what, pieces=pieces)
    if not isinstance(expr, BinOp):
        raise not_affine(expr, what)
    if expr.op in C_DIVISIONS:
        d = const_int(expr.rhs)
        if d is None or d == 0:
            raise NotAffineError(
                f"{what} divides by {'zero' if d == 0 else 'a non-constant'} with C "
                f"'{expr.op}' (not quasi-affine: only a division by a non-zero integer "
                "constant can be translated)", expr.loc)
        numerator = pw_aff(expr.lhs, space, what, pieces=pieces)
        divisor = _leaf(f"({d})", space)
        return numerator.tdiv_q(divisor) if expr.op == "/" else numerator.tdiv_r(divisor)
    if expr.op in ("floordiv", "ceildiv"):
        d = const_int(expr.rhs)
        if d is None or d <= 0:
            raise NotAffineError(f"{what} divides by a non-constant or non-positive value "
                                 "(not affine)", expr.loc)
        quotient = pw_aff(expr.lhs, space, what, pieces=pieces).scale_down_val(
            isl.Val.int_from_si(space.get_ctx(), d))
        return quotient.floor() if expr.op == "floordiv" else quotient.ceil()
    return _combine(expr, space, what, pieces)


def check_subscript(expr: Expr, names: set[str]) -> None:
    """Raise NotAffineError where a piecewise subscript over the iterators and parameters
    `names` has no exact isl form (checked at the construct, before the statement exists)."""
    space = isl.Set(f"{{ [{', '.join(sorted(names))}] }}").get_space()
    pw_aff(expr, space, "subscript", pieces=True)


def _select(expr: Ternary, space: isl.Space, what: str) -> isl.PwAff:
    """`c ? a : b` with an affine condition c: a's pieces where c holds, b's elsewhere. A
    condition that reads an array or is not affine is refused (NotAffineError)."""
    # cond_set: [params] -> { S[iters] : c }
    try:
        cond_set = condition_set(_truth(expr.cond), space)
    except NotAffineError as err:
        raise NotAffineError(f"{what} holds a conditional '?:' whose condition is not affine "
                             f"({err.msg})", err.loc or expr.loc) from None
    then = pw_aff(expr.then, space, what, pieces=True).intersect_domain(cond_set)
    other = pw_aff(expr.other, space, what, pieces=True).intersect_domain(cond_set.complement())
    return then.union_add(other).coalesce()


def _truth(cond: Expr) -> Expr:
    """C's truth value of a condition: an integer operand `x` (of `x ? a : b`, `x && y`) is
    `x != 0`."""
    if isinstance(cond, BinOp) and cond.op in ("&&", "||"):
        return BinOp(cond.op, _truth(cond.lhs), _truth(cond.rhs), cond.loc)
    if isinstance(cond, UnaryOp) and cond.op == "!":
        return UnaryOp("!", _truth(cond.operand), cond.loc)
    if isinstance(cond, BinOp) and cond.op in _COMPARE:
        return cond
    return BinOp("!=", cond, Const(0), getattr(cond, "loc", None))


def _combine(expr: BinOp, space: isl.Space, what: str, pieces: bool) -> isl.PwAff:
    """+, -, * (one side constant), min and max of operands that hold a C division (or,
    with `pieces`, a min/max or '?:')."""
    if expr.op == "*":
        a, b = const_int(expr.lhs), const_int(expr.rhs)
        if a is None and b is None:
            raise NotAffineError(f"{what} multiplies two non-constant terms (not affine)",
                                 expr.loc)
        factor, other = (a, expr.rhs) if a is not None else (b, expr.lhs)
        return pw_aff(other, space, what, pieces=pieces).scale_val(
            isl.Val.int_from_si(space.get_ctx(), factor))
    lhs, rhs = (pw_aff(expr.lhs, space, what, pieces=pieces),
                pw_aff(expr.rhs, space, what, pieces=pieces))
    if expr.op == "+":
        return lhs.add(rhs)
    if expr.op == "-":
        return lhs.sub(rhs)
    if expr.op == "min":
        return lhs.min(rhs)
    if expr.op == "max":
        return lhs.max(rhs)
    raise NotAffineError(f"{what} uses operator '{expr.op}' (not affine)", expr.loc)


def _leaf(text: str, space: isl.Space) -> isl.PwAff:
    # [params] -> { S[iters] -> [(text)] } on exactly `space`
    params = ", ".join(space.get_dim_name(isl.dim_type.param, k)
                       for k in range(space.dim(isl.dim_type.param)))
    iters = ", ".join(space.get_dim_name(isl.dim_type.set, k)
                      for k in range(space.dim(isl.dim_type.set)))
    name = space.get_tuple_name(isl.dim_type.set) or ""
    return isl.PwAff.read_from_str(space.get_ctx(),
                                   f"[{params}] -> {{ {name}[{iters}] -> [{text}] }}")


_COMPARE = {"<": "lt_set", "<=": "le_set", ">": "gt_set", ">=": "ge_set", "==": "eq_set",
            "!=": "ne_set"}


def condition_set(cond: Expr, space: isl.Space) -> isl.Set:
    """The points of `space` where the affine condition `cond` (comparisons joined by &&, ||,
    !; C '/' and '%' allowed) holds.

    # result: [params] -> { S[iters] : cond }
    Raises:
        NotAffineError: the condition is not an affine comparison.
    """
    if isinstance(cond, BinOp) and cond.op in ("&&", "||"):
        a, b = condition_set(cond.lhs, space), condition_set(cond.rhs, space)
        return a.intersect(b) if cond.op == "&&" else a.union(b)
    if isinstance(cond, UnaryOp) and cond.op == "!":
        return condition_set(cond.operand, space).complement()
    if isinstance(cond, BinOp) and cond.op in _COMPARE:
        lhs, rhs = pw_aff(cond.lhs, space, "condition"), pw_aff(cond.rhs, space, "condition")
        return getattr(lhs, _COMPARE[cond.op])(rhs)
    raise NotAffineError("condition is not an affine comparison", getattr(cond, "loc", None))


def access_map_text(stmt_space: isl.Space, array: str, index: tuple[Expr, ...]) -> str:
    """isl text of the access { S[iters] -> array[index] } where a subscript holds a C '/' or
    '%', min/max or '?:' (each dimension a piecewise quasi-affine function of the iterators:
    the access relation is the union of the pieces' maps, each restricted to its condition)."""
    amap = None
    for e in index:
        dim = isl.Map.from_pw_aff(pw_aff(e, stmt_space, "subscript", pieces=True))
        amap = dim if amap is None else amap.flat_range_product(dim)
    assert amap is not None, "a zero-dimensional reference has no subscript to translate"
    return str(amap.set_tuple_name(isl.dim_type.out, array).coalesce())
