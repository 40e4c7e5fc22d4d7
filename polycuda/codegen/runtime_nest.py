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
from polycuda.ir.ast_expr import ast_expr_to_c
from polycuda.ir.c_expr import expr_to_c
from polycuda.codegen.printer import AstPrinter
from polycuda.codegen import csr
from polycuda.codegen.statements import flat_ref_printer, statement_parts
from polycuda.ir import isl_build
from polycuda.ir.expr import Expr, Ref, refs
from polycuda.ir.scop import Scop, Statement

ITERATION = "pc_it"  # the outer iterator's value in every per-iteration body
# the action of a slice at one access: (statement, ref, is_write, printer of expressions)
# -> C lines
Action = Callable[[Statement, Ref, bool, Callable[[Expr], str]], list[str]]


@dataclass(frozen=True)
class NestCode:
    """The levelized loop's range (C expressions of the parameters and the host iterators;
    `lower`..`upper` inclusive, run in `direction`), the per-iteration AST (levelized
    iterator = ITERATION, host iterator k = host_name(k)), and the AST of the host loops
    around the levelized one (None when it is the outermost; one user node per point)."""

    lower: str
    upper: str
    direction: int
    ast: isl.AstNode
    host_ast: isl.AstNode | None = None
    host: tuple[str, ...] = ()  # the host iterators' names, outermost first


def host_name(k: int) -> str:
    return f"pc_h{k}"


def nest_code(scop: Scop, nest: RuntimeNest, ctx: isl.Context) -> NestCode:
    """The range of `nest`'s levelized loop, the AST of one of its iterations, and the AST of
    the host loops around it."""
    stmts = [scop.statement(s) for s in nest.statements]
    context = isl_build.context_set(scop, ctx)
    depth = nest.depth
    names = [host_name(k) for k in range(depth)] + [ITERATION]
    level_set = host_set = None
    domains = isl.UnionSet.empty(isl.Space.params_alloc(ctx, 0))
    for stmt in stmts:
        dom = isl_build.domain_set(stmt, ctx).intersect_params(context)
        # levelized: [params, pc_h...] -> { [i_d] : a statement runs at (pc_h..., i_d) }
        level = _as_params(dom.project_out(isl.dim_type.set, depth + 1,
                                           dom.dim(isl.dim_type.set) - depth - 1), names[:-1], ctx)
        level = level.reset_tuple_id()
        level_set = level if level_set is None else level_set.union(level)
        outer = dom.project_out(isl.dim_type.set, depth, dom.dim(isl.dim_type.set) - depth)
        outer = outer.set_tuple_name("pc_host")
        host_set = outer if host_set is None else host_set.union(outer)
        domains = domains.union(isl.UnionSet.from_set(_fixed(dom, names, ctx)))
    build = isl.AstBuild.from_context(_with_params(context, names[:-1], ctx))
    lower = ast_expr_to_c(build.expr_from_pw_aff(level_set.dim_min(0)))
    upper = ast_expr_to_c(build.expr_from_pw_aff(level_set.dim_max(0)))
    # schedule: the original (2d+1) order of the nest's statements, on one iteration
    sub = _sub_scop(scop, nest)
    schedule = isl_build.original_schedule(sub, ctx).intersect_domain(domains)
    inner = isl.AstBuild.from_context(_with_params(context, names, ctx))
    ast = inner.set_iterators(isl_build.id_list(ctx, "pc_c", 64)).node_from_schedule_map(schedule)
    host_ast = None
    if depth:
        # host_map: { pc_host[i_0..i_{d-1}] -> [i_0..i_{d-1}] } (original order, directions)
        dims = ", ".join(f"i{k}" for k in range(depth))
        signed = ", ".join(f"i{k}" if stmts[0].loop_directions()[k] > 0 else f"-i{k}"
                           for k in range(depth))
        host_map = isl.Map.read_from_str(ctx, f"{{ pc_host[{dims}] -> [{signed}] }}")
        host_map = host_map.intersect_domain(host_set.coalesce())
        host_build = isl.AstBuild.from_context(context).set_iterators(isl_build.id_list(ctx, "pc_hl", 64))
        host_ast = host_build.node_from_schedule_map(isl.UnionMap.from_map(host_map))
    return NestCode(lower, upper, stmts[0].loop_directions()[depth], ast, host_ast,
                    tuple(names[:-1]))


def _sub_scop(scop: Scop, nest: RuntimeNest) -> Scop:
    keep = set(nest.statements)
    return dataclasses.replace(scop, statements=tuple(
        s for s in scop.statements if s.name in keep))


def _with_params(set_: isl.Set, names: list[str], ctx: isl.Context) -> isl.Set:
    """`set_` with the extra parameters `names`, unconstrained."""
    for name in names:
        n = set_.dim(isl.dim_type.param)
        set_ = set_.insert_dims(isl.dim_type.param, n, 1)
        set_ = set_.set_dim_id(isl.dim_type.param, n, isl_build.named_id(ctx, name))
    return set_


def _fixed(dom: isl.Set, names: list[str], ctx: isl.Context) -> isl.Set:
    """# { S[i, j, k] : ... and i = pc_h0 and j = pc_it } for names [pc_h0, pc_it]"""
    first = dom.dim(isl.dim_type.param)
    dom = _with_params(dom, names, ctx)
    for k in range(len(names)):
        eq = isl.Constraint.equality_alloc(isl.LocalSpace.from_space(dom.get_space()))
        eq = eq.set_coefficient_val(isl.dim_type.set, k, 1)
        eq = eq.set_coefficient_val(isl.dim_type.param, first + k, -1)
        dom = dom.add_constraint(eq)
    return dom


def _as_params(dom: isl.Set, names: list[str], ctx: isl.Context) -> isl.Set:
    """# { S[i, j] } -> [pc_h0] -> { [j] : i = pc_h0 }: the first len(names) dimensions made
    parameters of those names"""
    fixed = _fixed(dom, names, ctx)
    return fixed.project_out(isl.dim_type.set, 0, len(names))


class SlicePrinter(AstPrinter):
    """Prints the per-iteration AST; at each statement, `action` decides the lines: the
    statement itself (execution) or what it does at each of its accesses (a slice)."""

    int_type = "long long"

    def __init__(self, scop: Scop, action: Action | None = None,
                 atomic: frozenset[str] = frozenset(), private: frozenset[str] = frozenset(),
                 csr_fail: csr.Fail | None = None):
        super().__init__(scop)
        self.action = action
        self.atomic = atomic
        self.private = private
        self.csr_fail = csr_fail

    def _refs(self, ref: Ref, sub: Callable[[Expr], str]) -> str:
        # a private scalar (RuntimeNest.private) is a variable of the iteration
        return private_name(ref.array) if ref.array in self.private else self.flat(ref, sub)

    def user(self, node: isl.AstNode, indent: int) -> None:
        self.flat = flat_ref_printer(self.scop)
        stmt, text = statement_parts(self.scop, node.user_get_expr(), self._refs)
        if stmt.csr and self.csr_fail is not None:
            # the check of a statement with CSR loops: its ranges and subscripts (csr.py)
            for line in csr.check_lines(self.scop, stmt, text, self.csr_fail):
                self.emit(indent, line)
            return
        if self.action is None and stmt.lhs.array in self.atomic:
            # a scatter-add (RuntimeNest.atomic): `+=` / `-=` as atomicAdd
            ctype = C_TYPES[self.scop.array(stmt.lhs.array).dtype]
            sign = "-" if stmt.op == "-=" else ""
            self.emit(indent, csr.wrap(stmt, text, f"atomicAdd(&{text(stmt.lhs)}, "
                                                   f"{sign}({ctype})({text(stmt.rhs)}));"))
            return
        if self.action is None:
            self.emit(indent, csr.wrap(stmt, text, f"{text(stmt.lhs)} {stmt.op} "
                                                   f"{text(stmt.rhs)};"))
            return
        accesses = [(stmt.lhs, True)] + [(r, False) for r in stmt.read_refs()]
        inside = []  # the accesses that use a CSR iterator: in its loops
        for ref, is_write in accesses:
            lines = self.action(stmt, ref, is_write, text)
            if stmt.csr and csr.uses_csr(stmt, ref):
                inside += lines
                continue
            for line in lines:
                self.emit(indent, line)
        if inside:
            self.emit(indent, " ".join(csr.loop_headers(stmt, text)) + " {")
            for line in inside:
                self.emit(indent + 1, line)
            self.emit(indent, "}")


def private_name(array: str) -> str:
    return f"pc_priv_{array}"


def body_lines(scop: Scop, code: NestCode, action: Action | None, indent: int,
               atomic: frozenset[str] = frozenset(), private: tuple[str, ...] = (),
               csr_fail: csr.Fail | None = None) -> list[str]:
    """The C lines of one iteration (ITERATION set by the caller) under `action`; without
    one, the statements themselves, updates of `atomic` arrays as atomicAdd, the `private`
    scalars variables of the iteration. With `csr_fail`, statements with CSR loops are
    checked instead (csr.check_lines)."""
    printer = SlicePrinter(scop, action, atomic, frozenset(private), csr_fail)
    printer.node(code.ast, indent)
    if action is None and csr_fail is None:
        printer.lines[:0] = ["  " * indent + f"{C_TYPES[scop.array(a).dtype]} {private_name(a)};"
                             for a in private]
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
