"""C text of carried registers (gpu/carry.py), computed during the AST build: per AST copy of a
`carry:` mark, each element's register per unit, its subscripts and its load / store
conditions in the build's outer iterators (host loops, block tiles) and the thread's
coordinates pc_t0, ... (outermost first), which the printer defines from threadIdx.
"""

from __future__ import annotations

import itertools

import islpy as isl

from polycuda.codegen import abi
from polycuda.codegen.private_code import PrivateCode
from polycuda.codegen.statements import flat_ref_printer
from polycuda.gpu.carry import CarriedElement
from polycuda.ir.ast_expr import ast_expr_to_c
from polycuda.ir.expr import Expr, Ref, Var
from polycuda.ir.scop import Scop


def thread_names(n: int) -> list[str]:
    """The C names of the thread's coordinates along the n mapped dimensions."""
    return [f"pc_t{k}" for k in range(n)]


def carry_code(scop: Scop, elements: tuple[CarriedElement, ...], n: int, build: isl.AstBuild
               ) -> tuple[PrivateCode, ...] | None:
    """The registers of one AST copy of a carry scope, or None when an element is not one
    element of the outer iterators and the thread's coordinates (not expected: carry.py
    proved it on the prefix schedule).

    # build schedule: { S[x] -> [outer] };  element.thread: { S[x] -> [t, u] }
    """
    schedule = build.get_schedule()
    codes = []
    for element in elements:
        key = schedule.flat_range_product(element.thread.intersect_domain(schedule.domain()))
        for unit in itertools.product(*(range(r) for r in element.box)):
            mine = _of_unit(key, unit)  # { S[x] -> [outer, t] } of this unit
            touched = element.accesses.intersect_domain(mine.domain())
            if touched.is_empty():
                continue
            cells = _as_parameters(build, mine.reverse().apply_range(touched), n)  # { A[a] }
            subscripts = {}
            for d in range(cells.dim(isl.dim_type.set)):
                highest = cells.dim_max(d)  # parametric ILP: computed once, used twice
                if not highest.is_equal(cells.dim_min(d)):
                    return None
                subscripts[str(d)] = _expr(highest.coalesce())

            def sub(index: Expr, subscripts: dict[str, str] = subscripts) -> str:
                assert isinstance(index, Var)
                return subscripts[index.name]

            ref = Ref(element.array, tuple(Var(str(d)) for d in range(len(subscripts))))
            written = element.writes.intersect_domain(mine.domain())
            codes.append(PrivateCode(
                element.array, "_".join((element.register, *map(str, unit))),
                abi.C_TYPES[element.dtype], flat_ref_printer(scop)(ref, sub),
                _condition(build, mine.intersect_domain(touched.domain()), n),
                _condition(build, mine.intersect_domain(written.domain()), n)
                if not written.is_empty() else None, unit))
    return tuple(codes)


def _of_unit(key: isl.UnionMap, unit: tuple[int, ...]) -> isl.UnionMap:
    """{ S[x] -> [outer, t, u] } -> { S[x] -> [outer, t] } of the instances of `unit`."""
    if not unit:
        return key
    result = isl.UnionMap.empty(key.get_space())
    for part in [m for m in _maps(key)]:
        total = part.dim(isl.dim_type.out)
        for k, value in enumerate(unit):
            part = part.fix_val(isl.dim_type.out, total - len(unit) + k,
                                isl.Val.int_from_si(part.get_ctx(), value))
        part = part.project_out(isl.dim_type.out, total - len(unit), len(unit))
        result = result.union(isl.UnionMap.from_map(part))
    return result


def _maps(umap: isl.UnionMap) -> list[isl.Map]:
    maps: list[isl.Map] = []
    umap.foreach_map(maps.append)
    return maps


def _as_parameters(build: isl.AstBuild, elements: isl.UnionMap, n: int) -> isl.Set:
    """{ [outer, t] -> A[a] } as a set of A[a] whose parameters include the outer iterators
    (named as the build names them) and the thread's coordinates (pc_t<k>)."""
    amap = isl.Map.from_union_map(elements).coalesce()
    space = build.get_schedule_space()
    n_params, n_in = amap.dim(isl.dim_type.param), amap.dim(isl.dim_type.in_)
    flat = amap.move_dims(isl.dim_type.param, n_params, isl.dim_type.in_, 0, n_in)
    names = thread_names(n)
    for k in range(n_in):
        if k < n_in - n:
            flat = flat.set_dim_id(isl.dim_type.param, n_params + k,
                                   space.get_dim_id(isl.dim_type.out, k))
        else:
            flat = flat.set_dim_name(isl.dim_type.param, n_params + k, names[k - n_in + n])
    return flat.range()


def _condition(build: isl.AstBuild, key: isl.UnionMap, n: int) -> str | None:
    """The C condition that some instance of `key` ({ S[x] -> [outer, t] }) runs, against no
    assumption (as private_code._condition: the build's domain may assume what no guard
    checks)."""
    points = key.range()
    if points.is_empty():
        return None
    as_map = isl.UnionMap.from_domain_and_range(
        points, isl.UnionSet(isl.Set.universe(isl.Space.set_alloc(key.get_ctx(), 0, 0))))
    flat = _as_parameters(build, as_map, n).params().coalesce()
    if flat.plain_is_universe():
        return "1"
    universe = isl.Set.universe(flat.get_space())
    return ast_expr_to_c(isl.AstBuild.from_context(universe).expr_from_set(flat))


def _expr(pw_aff: isl.PwAff) -> str:
    universe = isl.Set.universe(pw_aff.get_domain_space())
    return ast_expr_to_c(isl.AstBuild.from_context(universe).expr_from_pw_aff(pw_aff))
