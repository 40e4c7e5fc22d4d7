"""One iteration of a run-time nest as code: its statements, and its slice functions.

A run-time nest (analysis/indirect.py) is levelized over its outermost loop. Every generated
kernel of the inspector/executor runs, for one outer iteration `pc_it`, the nest's statements
in their original order (an isl AST of the original schedule with the outer iterator fixed
to the parameter `pc_it`), or a slice of them: Anantpur & Govindarajan 2013, Section 3.3.1,
"slice functions for the indices of conflicting array accesses" - the element indices that
the iteration touches, computed without its side effects (only index arrays are read, and the
frontend guarantees the region never writes them).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import islpy as isl

from polycuda.analysis.indirect import RuntimeNest
from polycuda.codegen.abi import C_TYPES
from polycuda.codegen.ast_expr import ast_expr_to_c
from polycuda.codegen.c_expr import expr_to_c
from polycuda.codegen.printer import AstPrinter
from polycuda.codegen.statements import statement_parts
from polycuda.ir import isl_build
from polycuda.ir.expr import Expr, Ref, refs
from polycuda.ir.scop import Scop, Statement

ITERATION = "pc_it"  # the outer iterator's value in every per-iteration body
# the action of a slice at one access: (statement, ref, is_write, printer of expressions)
# -> C lines
Action = Callable[[Statement, Ref, bool, Callable[[Expr], str]], list[str]]


@dataclass(frozen=True)
class NestCode:
    """The outer loop's range (C expressions of the parameters; `lower`..`upper` inclusive,
    run in `direction`) and the per-iteration AST (outer iterator = ITERATION)."""

    lower: str
    upper: str
    direction: int
    ast: isl.AstNode


def nest_code(scop: Scop, nest: RuntimeNest, ctx: isl.Context) -> NestCode:
    """The range of `nest`'s outer loop and the AST of one of its iterations."""
    stmts = [scop.statement(s) for s in nest.statements]
    context = isl_build.context_set(scop, ctx)
    # outer_set: [params] -> { [i] : some statement of the nest runs at i }
    outer_set = None
    domains = isl.UnionSet.empty(isl.Space.params_alloc(ctx, 0))
    for stmt in stmts:
        dom = isl_build.domain_set(stmt, ctx).intersect_params(context)
        first = dom.project_out(isl.dim_type.set, 1, dom.dim(isl.dim_type.set) - 1)
        first = first.reset_tuple_id()
        outer_set = first if outer_set is None else outer_set.union(first)
        domains = domains.union(isl.UnionSet.from_set(_fixed_outer(dom, ctx)))
    build = isl.AstBuild.from_context(context)
    lower = ast_expr_to_c(build.expr_from_pw_aff(outer_set.dim_min(0)))
    upper = ast_expr_to_c(build.expr_from_pw_aff(outer_set.dim_max(0)))
    # schedule: the original (2d+1) order of the nest's statements, on one outer iteration
    sub = _sub_scop(scop, nest)
    schedule = isl_build.original_schedule(sub, ctx).intersect_domain(domains)
    inner_context = _with_iteration(context, ctx)
    inner = isl.AstBuild.from_context(inner_context)
    ids = isl.IdList.alloc(ctx, 64)
    for k in range(64):
        ids = ids.add(isl.Id(f"pc_c{k}", context=ctx))
    ast = inner.set_iterators(ids).node_from_schedule_map(schedule)
    return NestCode(lower, upper, stmts[0].loop_directions()[0], ast)


def _sub_scop(scop: Scop, nest: RuntimeNest) -> Scop:
    keep = set(nest.statements)
    return dataclasses.replace(scop, statements=tuple(
        s for s in scop.statements if s.name in keep))


def _with_iteration(set_: isl.Set, ctx: isl.Context) -> isl.Set:
    """`set_` (a parameter set) with the extra parameter ITERATION."""
    n = set_.dim(isl.dim_type.param)
    set_ = set_.insert_dims(isl.dim_type.param, n, 1)
    return set_.set_dim_id(isl.dim_type.param, n, isl.Id(ITERATION, context=ctx))


def _fixed_outer(dom: isl.Set, ctx: isl.Context) -> isl.Set:
    """# { S[i, j] : ... and i = pc_it }, pc_it a new parameter"""
    n = dom.dim(isl.dim_type.param)
    dom = dom.insert_dims(isl.dim_type.param, n, 1)
    dom = dom.set_dim_id(isl.dim_type.param, n, isl.Id(ITERATION, context=ctx))
    eq = isl.Constraint.equality_alloc(isl.LocalSpace.from_space(dom.get_space()))
    eq = eq.set_coefficient_val(isl.dim_type.set, 0, 1)
    eq = eq.set_coefficient_val(isl.dim_type.param, n, -1)
    return dom.add_constraint(eq)


class SlicePrinter(AstPrinter):
    """Prints the per-iteration AST; at each statement, `action` decides the lines: the
    statement itself (execution) or what it does at each of its accesses (a slice)."""

    int_type = "long long"

    def __init__(self, scop: Scop, action: Action | None = None,
                 atomic: frozenset[str] = frozenset()):
        super().__init__(scop)
        self.action = action
        self.atomic = atomic

    def user(self, node: isl.AstNode, indent: int) -> None:
        stmt, text = statement_parts(self.scop, node.user_get_expr())
        if self.action is None and stmt.lhs.array in self.atomic:
            # a scatter-add (RuntimeNest.atomic): `+=` / `-=` as atomicAdd
            ctype = C_TYPES[self.scop.array(stmt.lhs.array).dtype]
            sign = "-" if stmt.op == "-=" else ""
            self.emit(indent, f"atomicAdd(&{text(stmt.lhs)}, {sign}({ctype})({text(stmt.rhs)}));")
            return
        if self.action is None:
            self.emit(indent, f"{text(stmt.lhs)} {stmt.op} {text(stmt.rhs)};")
            return
        accesses = [(stmt.lhs, True)] + [(r, False) for r in stmt.read_refs()]
        for ref, is_write in accesses:
            for line in self.action(stmt, ref, is_write, text):
                self.emit(indent, line)


def body_lines(scop: Scop, code: NestCode, action: Action | None, indent: int,
               atomic: frozenset[str] = frozenset()) -> list[str]:
    """The C lines of one iteration (ITERATION set by the caller) under `action`; without
    one, the statements themselves, updates of `atomic` arrays as atomicAdd."""
    printer = SlicePrinter(scop, action, atomic)
    printer.node(code.ast, indent)
    return printer.lines


def bound_checks(scop: Scop, ref: Ref, text: Callable[[Expr], str]
                 ) -> list[tuple[Ref, str, str]]:
    """(ref, value, extent) for every indirect subscript reached through `ref`, the innermost
    first (A[p[q[i]]]: q[i] within p's extent is checked before p[q[i]] is read)."""
    checks = []
    for inner in reversed(refs(ref)):
        arr = scop.array(inner.array)
        for index, extent in zip(inner.index, arr.shape):
            if refs(index):
                checks.append((inner, text(index), expr_to_c(extent)))
    return checks
