"""C text of the registers of private scopes (gpu/promotion.py), computed during the AST build.

isl's AST build may emit a marked subtree several times (split loops); each copy gets its own
element subscripts and load/store conditions, in the iterators that its build knows, from a
callback after each mark. In a register-tiled kernel (gpu/register_tiling.py) a private element
has one register per unit of the thread's points (`pc_p0_1_0`: unit (1, 0)), and each unrolled
copy of a statement, below a `unit:` mark, learns its unit from the same callback.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

import islpy as isl

from polycuda.codegen import abi
from polycuda.ir import isl_build
from polycuda.ir.ast_expr import ast_expr_to_c
from polycuda.codegen.statements import flat_ref_printer
from polycuda.gpu.mapping import KernelMapping
from polycuda.gpu.carry import CARRY_MARK
from polycuda.gpu.promotion import PRIVATE_MARK, PrivateElement, PrivateScope
from polycuda.gpu.register_tiling import UNIT_MARK
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
    unit: tuple[int, ...] = ()  # the unit whose register this is (register-tiled kernels)


@dataclass(frozen=True)
class PrivateTables:
    """What the printer needs, by annotation of the AST's mark nodes: the registers of each
    private scope copy, and the unit of each unrolled statement copy."""

    registers: dict[str, tuple[PrivateCode, ...]] = field(default_factory=dict)
    units: dict[str, tuple[int, ...]] = field(default_factory=dict)
    # the shared copies of each shared scope copy (codegen/shared_code.py)
    shared: dict[str, tuple] = field(default_factory=dict)
    # the registers of each carry scope copy (codegen/carry_code.py)
    carried: dict[str, tuple[PrivateCode, ...]] = field(default_factory=dict)


def private_registers(build: isl.AstBuild, scop: Scop, kernels: tuple[KernelMapping, ...],
                      other_marks: Callable[[isl.AstNode, isl.AstBuild], isl.AstNode] | None
                      = None, shared: dict[str, tuple] | None = None
                      ) -> tuple[isl.AstBuild, object, PrivateTables]:
    """`build` set to annotate each AST copy of a private mark with an id naming its registers,
    and each copy of a unit mark with one naming its unit, which the third result maps. A
    private copy whose element isl cannot write as one element of the build's iterators, or
    that holds a statement copy of no single unit, is left unannotated: it is printed without
    registers (always correct). The second result must outlive the AST's generation (islpy's
    callback handle). `other_marks` annotates the copies of the other marks (isl keeps one
    callback per build: shared_code.shared_marks), whose tables `shared` the third result
    carries."""
    scopes = {s.mark: s for k in kernels for s in k.private}
    units = {k.name: k.units for k in kernels if k.units is not None}
    carried = {k.name: k for k in kernels if k.carried}
    tables = PrivateTables(shared=shared if shared is not None else {})
    if not scopes and not carried and other_marks is None:
        return build, None, tables
    no_unit: list[isl.UnionSet] = []  # instances of statement copies without a single unit

    def after_mark(node: isl.AstNode, mark_build: isl.AstBuild) -> isl.AstNode:
        kind, _, mark = node.mark_get_id().get_name().partition(":")
        if kind == UNIT_MARK and mark in units:
            unit = _unit(units[mark], mark_build.get_schedule().domain())
            if unit is None:
                no_unit.append(mark_build.get_schedule().domain())
                return node
            name = f"pc_unit{len(tables.units)}"
            tables.units[name] = unit
            return node.set_annotation(isl_build.named_id(node.get_ctx(), name))
        if kind == CARRY_MARK and mark in carried:
            return _carried(node, mark_build, carried[mark])
        if kind != PRIVATE_MARK or mark not in scopes:
            return other_marks(node, mark_build) if other_marks is not None else node
        instances = mark_build.get_schedule().domain()
        if any(not instances.intersect(bad).is_empty() for bad in no_unit):
            return node
        code = _scope_code(scop, scopes[mark], mark_build)
        if code is None:
            return node
        name = f"pc_private{len(tables.registers)}"
        tables.registers[name] = code
        return node.set_annotation(isl_build.named_id(node.get_ctx(), name))

    def _carried(node: isl.AstNode, mark_build: isl.AstBuild, kernel: KernelMapping
                 ) -> isl.AstNode:
        instances = mark_build.get_schedule().domain()
        if any(not instances.intersect(bad).is_empty() for bad in no_unit):
            return node
        from polycuda.codegen.carry_code import carry_code

        code = carry_code(scop, kernel.carried, kernel.n, mark_build)
        if not code:
            return node
        name = f"pc_carry{len(tables.carried)}"
        tables.carried[name] = code
        return node.set_annotation(isl_build.named_id(node.get_ctx(), name))

    build, handle = build.set_after_each_mark(after_mark)
    return build, handle, tables


def _unit(units: isl.UnionMap, instances: isl.UnionSet) -> tuple[int, ...] | None:
    """The one unit of `instances` for every value of the parameters, or None (isl leaves a
    unit loop with one value that varies with the parameters as one copy, e.g. a statement
    whose point coordinate is a function of an array extent).

    # units: { S[x] -> [u] };  instances: { S[x] }
    """
    values = units.intersect_domain(instances).range()
    if values.is_empty():
        return None
    value_set = isl.Set.from_union_set(values)
    sample = value_set.sample_point()
    unit = tuple(sample.get_coordinate_val(isl.dim_type.set, k).to_python()
                 for k in range(value_set.dim(isl.dim_type.set)))
    constant = isl.Set.from_point(sample).drop_constraints_involving_dims(
        isl.dim_type.param, 0, value_set.dim(isl.dim_type.param))
    return unit if value_set.is_subset(constant) else None


def _scope_code(scop: Scop, scope: PrivateScope, build: isl.AstBuild
                ) -> tuple[PrivateCode, ...] | None:
    """The registers of one AST copy of `scope` (per unit, in a register-tiled kernel), or
    None when an element is not one element of the outer iterators (not expected:
    promotion.py proved it on the prefix schedule)."""
    schedule = build.get_schedule()  # { S[x] -> [outer iterators] } of this copy's instances
    codes = []
    for element in scope.elements:
        for unit in itertools.product(*(range(r) for r in element.box)):
            code = _element_code(scop, element, _of_unit(element, unit, schedule), build)
            if code is False:
                return None
            if code is not None:
                codes.append(code)
    return tuple(codes)


def _of_unit(element: PrivateElement, unit: tuple[int, ...], schedule: isl.UnionMap
             ) -> tuple[tuple[int, ...], isl.UnionMap]:
    """The unit, and the schedule of this copy's instances of that unit (all: no units).

    # schedule: { S[x] -> [outer] }
    """
    if element.units is None:
        return unit, schedule
    ctx = schedule.get_ctx()
    point = isl.UnionSet.read_from_str(ctx, f"{{ [{', '.join(map(str, unit))}] }}")
    return unit, schedule.intersect_domain(element.units.intersect_range(point).domain())


def _element_code(scop: Scop, element: PrivateElement,
                  of_unit: tuple[tuple[int, ...], isl.UnionMap], build: isl.AstBuild
                  ) -> PrivateCode | None | bool:
    """One register's code; None when this copy does not access the element (of the unit);
    False when the element is not a single one of the outer iterators."""
    unit, schedule = of_unit
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
    register = "_".join((element.register, *map(str, unit)))
    return PrivateCode(element.array, register, abi.C_TYPES[element.dtype],
                       flat_ref_printer(scop)(ref, sub),
                       _condition(build, schedule, element.loads_in(schedule.domain())),
                       _condition(build, schedule, element.stores), unit)


def _condition(build: isl.AstBuild, schedule: isl.UnionMap, instances: isl.UnionSet
               ) -> str | None:
    """The C condition on the outer iterators that some of `instances` run; None: none does.

    # schedule: { S[x] -> [outer] };  instances: { S[x] }
    """
    points = schedule.intersect_domain(instances).range()
    if points.is_empty():
        return None
    # Not build.expr_from_set: it simplifies against the build's domain, which assumes what
    # the generated guards need not check (that some instance runs below: fuzz seed 40021 had
    # an empty inner loop, a store condition "1" and a store past the end of B). The outer
    # iterators become parameters of their own names, and the set is printed against nothing.
    points = isl.Set.from_union_set(points).coalesce()
    space = build.get_schedule_space()
    n_params, n_outer = points.dim(isl.dim_type.param), points.dim(isl.dim_type.set)
    flat = points.move_dims(isl.dim_type.param, n_params, isl.dim_type.set, 0, n_outer)
    for k in range(n_outer):
        flat = flat.set_dim_id(isl.dim_type.param, n_params + k,
                               space.get_dim_id(isl.dim_type.out, k))
    flat = flat.params().coalesce()
    if flat.plain_is_universe():
        return "1"
    universe = isl.Set.universe(flat.get_space())
    return ast_expr_to_c(isl.AstBuild.from_context(universe).expr_from_set(flat))
