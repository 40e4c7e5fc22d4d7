"""C text of shared-memory scopes (gpu/shared_promotion.py): per AST copy of a `shared:` mark,
each array's box offsets, and the exact conditions of the elements loaded before the tile and
stored after it, computed in the AST build's iterators (as private_code does for registers);
the copy loops, the declarations and the references to the copies.

Copy loops (Baskaran et al. 2008, data movement code; coalescing): the block's threads, in
linear order with threadIdx.x fastest, take the box's elements in row-major order, so that
consecutive threads read consecutive addresses of the array's innermost dimension.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import islpy as isl

from polycuda.codegen import abi
from polycuda.ir.c_expr import RefPrinter, expr_to_c
from polycuda.codegen.statements import flat_ref_printer
from polycuda.gpu.mapping import KernelMapping
from polycuda.gpu.shared_promotion import SHARED_MARK, SharedArray, SharedScope
from polycuda.ir import isl_build
from polycuda.ir.ast_expr import ast_expr_to_c
from polycuda.ir.expr import Expr, Ref, Var
from polycuda.ir.scop import Scop

AfterMark = Callable[[isl.AstNode, isl.AstBuild], isl.AstNode]


@dataclass(frozen=True)
class SharedCode:
    """One array's copy at one AST copy of a shared scope.

    offsets: the box's first element (C, in the scope's outer iterators). load / store: the C
    condition, in those iterators and the element's subscripts pc_x0, ..., of the elements
    read (loaded before the tile) / written (stored after it); None: none.
    """

    array: SharedArray
    ctype: str
    offsets: tuple[str, ...]
    load: str | None
    store: str | None

    def name(self) -> str:
        return f"pc_sh_{self.array.name}"

    def offset(self, d: int) -> str:
        return f"pc_so_{self.array.name}_{d}"


def shared_marks(scop: Scop, kernels: tuple[KernelMapping, ...]
                 ) -> tuple[AfterMark | None, dict[str, tuple[SharedCode, ...]]]:
    """A callback for the AST build's marks (private_code.private_registers calls it for
    the marks it does not handle) that annotates each AST copy of a shared mark with an id
    naming its SharedCodes, which the second result maps; None when no kernel promotes. A copy
    whose box isl cannot bound is left unannotated: printed without shared memory."""
    scopes = {k.name: k.shared for k in kernels if k.shared is not None}
    tables: dict[str, tuple[SharedCode, ...]] = {}
    if not scopes:
        return None, tables

    def after_mark(node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
        kind, _, mark = node.mark_get_id().get_name().partition(":")
        if kind != SHARED_MARK or mark not in scopes:
            return node
        codes = _scope_code(scop, scopes[mark], build)
        if not codes:
            return node
        name = f"pc_shared{len(tables)}"
        tables[name] = codes
        return node.set_annotation(isl_build.named_id(node.get_ctx(), name))

    return after_mark, tables


def _scope_code(scop: Scop, scope: SharedScope, build: isl.AstBuild
                ) -> tuple[SharedCode, ...] | None:
    """The copies of one AST copy of a scope (arrays it does not access left out); None when
    some array's footprint here does not fit its box (not expected: the pass bounded it)."""
    schedule = build.get_schedule()  # { S[x] -> [outer] } of this copy's instances
    codes = []
    for array in scope.arrays:
        touched = array.reads.union(array.writes).intersect_domain(schedule.domain())
        if touched.is_empty():
            continue
        footprint = _in_parameters(build, schedule.reverse().apply_range(touched), False)
        offsets = []
        for d, size in enumerate(array.sizes):
            low, high = footprint.dim_min(d), footprint.dim_max(d)
            if not high.sub(low).add_constant_val(isl.Val(-size + 1, footprint.get_ctx())) \
                    .pos_set().is_empty():
                return None
            offsets.append(_expr(low.coalesce()))
        codes.append(SharedCode(array, abi.C_TYPES[array.dtype], tuple(offsets),
                                _condition(build, schedule, array.reads),
                                _condition(build, schedule, array.writes)))
    return tuple(codes)


def _in_parameters(build: isl.AstBuild, elements: isl.UnionMap, subscripts: bool) -> isl.Set:
    """{ [outer] -> A[a] } as a set of the elements A[a] in the parameters and the outer
    iterators (named as the build names them); with `subscripts`, the subscripts too become
    parameters, pc_x0, ... (a set of parameters only).
    """
    amap = isl.Map.from_union_map(elements).coalesce()
    space = build.get_schedule_space()
    n_params, n_outer = amap.dim(isl.dim_type.param), amap.dim(isl.dim_type.in_)
    flat = amap.move_dims(isl.dim_type.param, n_params, isl.dim_type.in_, 0, n_outer)
    for k in range(n_outer):
        flat = flat.set_dim_id(isl.dim_type.param, n_params + k,
                               space.get_dim_id(isl.dim_type.out, k))
    elements_set = flat.range()
    if not subscripts:
        return elements_set
    n_params, n_sub = elements_set.dim(isl.dim_type.param), elements_set.dim(isl.dim_type.set)
    elements_set = elements_set.move_dims(isl.dim_type.param, n_params, isl.dim_type.set, 0,
                                          n_sub)
    for d in range(n_sub):
        elements_set = elements_set.set_dim_name(isl.dim_type.param, n_params + d, f"pc_x{d}")
    return elements_set.params()


def _condition(build: isl.AstBuild, schedule: isl.UnionMap, access: isl.UnionMap
               ) -> str | None:
    """The C condition that the element pc_x is accessed by `access` in this copy (against no
    assumption, as private_code._condition: an empty inner loop must not make it "1").

    # schedule: { S[x] -> [outer] };  access: { S[x] -> A[a] }
    """
    mine = access.intersect_domain(schedule.domain())
    if mine.is_empty():
        return None
    flat = _in_parameters(build, schedule.reverse().apply_range(mine), True).coalesce()
    if flat.plain_is_universe():
        return "1"
    universe = isl.Set.universe(flat.get_space())
    return ast_expr_to_c(isl.AstBuild.from_context(universe).expr_from_set(flat))


def _expr(pw_aff: isl.PwAff) -> str:
    universe = isl.Set.universe(pw_aff.get_domain_space())
    return ast_expr_to_c(isl.AstBuild.from_context(universe).expr_from_pw_aff(pw_aff))


def declarations(codes: tuple[SharedCode, ...]) -> list[str]:
    """The static __shared__ arrays (one per array and kernel, whatever the AST copies)."""
    return [f"__shared__ {c.ctype} {c.name()}[{c.array.elements}];" for c in codes]


def offsets(codes: tuple[SharedCode, ...]) -> list[str]:
    return [f"const int {c.offset(d)} = {value};"
            for c in codes for d, value in enumerate(c.offsets)]


def copy_in(scop: Scop, kernel: KernelMapping, codes: tuple[SharedCode, ...]) -> list[str]:
    """A barrier (the previous tile's threads are done with the copies and its stores are
    visible), every read element loaded, a barrier."""
    lines = ["__syncthreads();"]
    for code in codes:
        if code.load is not None:
            lines += _box_loop(scop, kernel, code, code.load,
                               f"{code.name()}[pc_l] = {{element}};")
    return [*lines, "__syncthreads();"]


def copy_out(scop: Scop, kernel: KernelMapping, codes: tuple[SharedCode, ...]) -> list[str]:
    """A barrier (every thread's writes to the copies are done), every written element
    stored; the next tile's copy-in starts with a barrier."""
    lines = []
    for code in codes:
        if code.store is not None:
            lines += _box_loop(scop, kernel, code, code.store,
                               f"{{element}} = {code.name()}[pc_l];")
    return ["__syncthreads();", *lines] if lines else []


def _box_loop(scop: Scop, kernel: KernelMapping, code: SharedCode, condition: str,
              body: str) -> list[str]:
    """The block's threads over the box's elements pc_e (threadIdx.x fastest, the box's
    innermost dimension fastest: coalesced); pc_x0, ... the element's subscripts, pc_l its
    place in the padded copy; `body` runs where the element lies inside the array and
    `condition` holds."""
    n = kernel.n
    sizes = kernel.block_sizes
    tid, scale = "(int)threadIdx.x", sizes[n - 1]
    for k, axis in zip(range(n - 2, -1, -1), ("y", "z")):
        tid += f" + {scale} * (int)threadIdx.{axis}"
        scale *= sizes[k]
    box = code.array.sizes
    total = 1
    for s in box:
        total *= s
    lines = [f"for (int pc_e = {tid}; pc_e < {total}; pc_e += {scale}) {{"]
    inner = 1
    coords = []
    for d in reversed(range(len(box))):
        position = f"pc_e / {inner}" if inner > 1 else "pc_e"
        if d > 0:
            position = f"({position}) % {box[d]}"
        coords.append(f"  const int pc_x{d} = {code.offset(d)} + {position};")
        inner *= box[d]
    lines += coords[::-1]
    shape = scop.array(code.array.array).shape
    local = " + ".join(f"(pc_x{d} - {code.offset(d)}) * {stride}"
                       for d, stride in enumerate(code.array.strides))
    lines.append(f"  const int pc_l = {local};")
    inside = " && ".join(f"pc_x{d} >= 0 && pc_x{d} < ({expr_to_c(shape[d])})"
                         for d in range(len(shape)))
    guard = inside if condition == "1" else f"{inside} && ({condition})"
    element = Ref(code.array.array, tuple(Var(f"pc_x{d}") for d in range(len(shape))))
    text = body.format(element=flat_ref_printer(scop)(element, expr_to_c))
    return [*lines, f"  if ({guard}) {text}", "}"]


def ref_printer(scop: Scop, codes: tuple[SharedCode, ...]) -> RefPrinter:
    """References of promoted groups read and write their shared copies; others as before
    (equal references are in one group: shared_promotion._groups)."""
    by_ref = {r: c for c in codes for r in c.array.refs}
    flat = flat_ref_printer(scop)

    def ref(r: Ref, sub: Callable[[Expr], str]) -> str:
        code = by_ref.get(r)
        if code is None:
            return flat(r, sub)
        local = " + ".join(f"(({sub(index)}) - {code.offset(d)}) * {stride}"
                           for d, (index, stride) in enumerate(zip(r.index,
                                                                   code.array.strides)))
        return f"{code.name()}[{local}]"

    return ref
