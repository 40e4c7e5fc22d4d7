"""C text of the registers of private scopes (gpu/promotion.py), computed during the AST build.

isl's AST build may emit a marked subtree several times (split loops); each copy gets its own
element subscripts and load/store conditions, in the iterators that its build knows, from a
callback after each mark.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polycuda.codegen import abi
from polycuda.codegen.ast_expr import ast_expr_to_c
from polycuda.codegen.statements import flat_ref_printer
from polycuda.gpu.mapping import KernelMapping
from polycuda.gpu.promotion import PRIVATE_MARK, PrivateElement, PrivateScope
from polycuda.ir.expr import Expr, Ref, Var
from polycuda.ir.scop import Scop


@dataclass(frozen=True)
class PrivateCode:
    """One register at one AST copy of a private scope.

    element: the array element in flat indexing. load / store: the C condition on the
    scope's outer iterators under which it is loaded before the scope / stored after it
    ("1": always), None: never.
    """

    array: str
    register: str
    ctype: str
    element: str
    load: str | None
    store: str | None


def private_registers(build: isl.AstBuild, scop: Scop, kernels: tuple[KernelMapping, ...]
                      ) -> tuple[isl.AstBuild, object, dict[str, tuple[PrivateCode, ...]]]:
    """`build` set to annotate each AST copy of a private mark with an id naming its registers,
    which the third result maps. A copy whose element isl cannot write as one element of the
    build's iterators is left unannotated: it is printed without registers (always correct).
    The second result must outlive the AST's generation (islpy's callback handle)."""
    scopes = {s.mark: s for k in kernels for s in k.private}
    codes: dict[str, tuple[PrivateCode, ...]] = {}
    if not scopes:
        return build, None, codes

    def after_mark(node: isl.AstNode, mark_build: isl.AstBuild) -> isl.AstNode:
        kind, _, mark = node.mark_get_id().get_name().partition(":")
        if kind != PRIVATE_MARK or mark not in scopes:
            return node
        code = _scope_code(scop, scopes[mark], mark_build)
        if code is None:
            return node
        name = f"pc_private{len(codes)}"
        codes[name] = code
        return node.set_annotation(isl.Id(name, context=node.get_ctx()))

    build, handle = build.set_after_each_mark(after_mark)
    return build, handle, codes


def _scope_code(scop: Scop, scope: PrivateScope, build: isl.AstBuild
                ) -> tuple[PrivateCode, ...] | None:
    """The registers of one AST copy of `scope`, or None when an element is not one element
    of the outer iterators (not expected: promotion.py proved it on the prefix schedule)."""
    schedule = build.get_schedule()  # { S[x] -> [outer iterators] } of this copy's instances
    codes = []
    for element in scope.elements:
        code = _element_code(scop, element, schedule, build)
        if code is False:
            return None
        if code is not None:
            codes.append(code)
    return tuple(codes)


def _element_code(scop: Scop, element: PrivateElement, schedule: isl.UnionMap,
                  build: isl.AstBuild) -> PrivateCode | None | bool:
    """One register's code; None when this copy does not access the element; False when the
    element is not a single one of the outer iterators."""
    accesses = element.accesses.intersect_domain(schedule.domain())
    if accesses.is_empty():
        return None
    elem_map = schedule.reverse().apply_range(accesses)  # { [outer] -> A[a] }
    if not elem_map.is_single_valued():
        return False
    pma = isl.PwMultiAff.from_map(isl.Map.from_union_map(elem_map))
    subscripts = {str(d): ast_expr_to_c(build.expr_from_pw_aff(pma.get_pw_aff(d)))
                  for d in range(pma.dim(isl.dim_type.out))}

    def sub(index: Expr) -> str:
        assert isinstance(index, Var)
        return subscripts[index.name]

    ref = Ref(element.array, tuple(Var(str(d)) for d in range(len(subscripts))))
    return PrivateCode(element.array, element.register, abi.C_TYPES[element.dtype],
                       flat_ref_printer(scop)(ref, sub),
                       _condition(build, schedule, element.loads),
                       _condition(build, schedule, element.stores))


def _condition(build: isl.AstBuild, schedule: isl.UnionMap, instances: isl.UnionSet
               ) -> str | None:
    """The C condition on the outer iterators that some of `instances` run; None: none does.

    # schedule: { S[x] -> [outer] };  instances: { S[x] }
    """
    points = schedule.intersect_domain(instances).range()
    if points.is_empty():
        return None
    return ast_expr_to_c(build.expr_from_set(isl.Set.from_union_set(points).coalesce()))
