"""Print isl AST expressions as C (our own printer: pc_min/pc_max/pc_floord, no isl macros)."""

from __future__ import annotations

import islpy as isl

_OP = isl.ast_expr_op_type
_BINARY = {
    _OP.add: "+", _OP.sub: "-", _OP.mul: "*", _OP.div: "/", _OP.pdiv_q: "/", _OP.pdiv_r: "%",
    _OP.zdiv_r: "%", _OP.eq: "==", _OP.le: "<=", _OP.lt: "<", _OP.ge: ">=", _OP.gt: ">",
    _OP.and_: "&&", _OP.and_then: "&&", _OP.or_: "||", _OP.or_else: "||",
}


def ast_expr_to_c(expr: isl.AstExpr) -> str:
    """C text of an isl AST expression (fully parenthesized)."""
    kind = expr.get_type()
    if kind == isl.ast_expr_type.id:
        return expr.get_id().get_name()
    if kind == isl.ast_expr_type.int:
        value = expr.get_val().to_python()
        return str(value) if value >= 0 else f"({value})"
    op = expr.get_op_type()
    args = [ast_expr_to_c(expr.get_op_arg(k)) for k in range(expr.get_op_n_arg())]
    if op in _BINARY:
        return f"({args[0]} {_BINARY[op]} {args[1]})"
    if op == _OP.minus:
        return f"(-{args[0]})"
    if op in (_OP.max, _OP.min):
        name = "pc_max" if op == _OP.max else "pc_min"
        text = args[0]
        for arg in args[1:]:
            text = f"{name}({text}, {arg})"
        return text
    if op == _OP.fdiv_q:
        return f"pc_floord({args[0]}, {args[1]})"
    if op in (_OP.cond, _OP.select):
        return f"({args[0]} ? {args[1]} : {args[2]})"
    if op == _OP.call:
        return f"{args[0]}({', '.join(args[1:])})"
    raise NotImplementedError(f"isl AST operator {op} is not printed")
