"""Walk an isl AST (with our marks) and print C-like code; targets override the hooks."""

from __future__ import annotations

import re

import islpy as isl

from polycuda.ir.ast_expr import ast_expr_to_c
from polycuda.codegen.statements import user_statement
from polycuda.ir.scop import Scop

_T = isl.ast_node_type


def mark_parts(node: isl.AstNode) -> tuple[str, str]:
    """("kernel" | "thread" | "serial", kernel name) of a mark node."""
    kind, _, name = node.mark_get_id().get_name().partition(":")
    return kind, name


def for_parts(node: isl.AstNode) -> tuple[str, str, str, str]:
    """(iterator, init, condition, increment) of a for node, as C text."""
    it = node.for_get_iterator().get_id().get_name()
    return (it, ast_expr_to_c(node.for_get_init()), ast_expr_to_c(node.for_get_cond()),
            ast_expr_to_c(node.for_get_inc()))


def simple_upper_bound(node: isl.AstNode) -> str | None:
    """ub when the loop condition is `it <= ub` (or `it < ub` -> ub - 1) with ub free of `it`,
    else None. isl may bound a loop by an expression of its own iterator
    (`c5 <= min(7, floord(2 * c5 - c3, 8))`): no trip count, no OpenMP canonical form."""
    cond = node.for_get_cond()
    it = node.for_get_iterator().get_id().get_name()
    if cond.get_type() != isl.ast_expr_type.op or cond.get_op_n_arg() != 2:
        return None
    lhs = cond.get_op_arg(0)
    if lhs.get_type() != isl.ast_expr_type.id or lhs.get_id().get_name() != it:
        return None
    op = cond.get_op_type()
    ub = ast_expr_to_c(cond.get_op_arg(1))
    if re.search(rf"\b{re.escape(it)}\b", ub):
        return None
    if op == isl.ast_expr_op_type.le:
        return ub
    if op == isl.ast_expr_op_type.lt:
        return f"({ub} - 1)"
    return None


class AstPrinter:
    """Prints an AST subtree into `self.lines`; iterator variables are `self.int_type`."""

    int_type = "long"

    def __init__(self, scop: Scop):
        self.scop = scop
        self.lines: list[str] = []

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("  " * indent + text)

    def node(self, node: isl.AstNode, indent: int) -> None:
        kind = node.get_type()
        if kind == _T.for_:
            self.for_(node, indent)
        elif kind == _T.if_:
            self.if_(node, indent)
        elif kind == _T.block:
            children = node.block_get_children()
            for k in range(children.n_ast_node()):
                self.node(children.get_at(k), indent)
        elif kind == _T.user:
            self.user(node, indent)
        elif kind == _T.mark:
            self.mark(node, indent)
        else:
            raise NotImplementedError(f"AST node type {kind}")

    def for_(self, node: isl.AstNode, indent: int) -> None:
        it, init, cond, inc = for_parts(node)
        if node.for_is_degenerate():
            self.emit(indent, f"{{ const {self.int_type} {it} = {init};")
        else:
            self.emit(indent, f"for ({self.int_type} {it} = {init}; {cond}; {it} += {inc}) {{")
        self.node(node.for_get_body(), indent + 1)
        self.emit(indent, "}")

    def if_(self, node: isl.AstNode, indent: int) -> None:
        self.emit(indent, f"if ({ast_expr_to_c(node.if_get_cond())}) {{")
        self.node(node.if_get_then_node(), indent + 1)
        if node.if_has_else_node():
            self.emit(indent, "} else {")
            self.node(node.if_get_else_node(), indent + 1)
        self.emit(indent, "}")

    def user(self, node: isl.AstNode, indent: int) -> None:
        self.emit(indent, user_statement(self.scop, node.user_get_expr()))

    def mark(self, node: isl.AstNode, indent: int) -> None:
        self.node(node.mark_get_node(), indent)
