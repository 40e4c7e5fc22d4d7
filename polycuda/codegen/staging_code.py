"""CUDA text of wavefront tiles staged in shared memory (gpu/staging.py, Options.
shared_staging): the copies carved out of the block's dynamic shared memory, the box loops
that copy a tile's elements in before its intra-tile wavefronts and write them back after,
and the statement printers that read and write the copies inside the tile
(codegen/cuda_target.py's KernelPrinter calls them).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from polycuda.codegen import abi
from polycuda.codegen.statements import flat_ref_printer
from polycuda.gpu.mapping import KernelMapping
from polycuda.gpu.staging import StagedArray, layout
from polycuda.ir.c_expr import RefPrinter, expr_to_c
from polycuda.ir.expr import Expr, Ref, Var
from polycuda.ir.scop import Scop, Statement

# inside a staged tile: a statement after a staged write, given the statement, the printer
# of its expressions and the leaf's final-store condition (cuda_target.final_store_guards)
FinalStore = Callable[[Statement, Callable[[Expr], str], "str | None"], str]


def shared_declarations(scop: Scop, arrays: tuple[StagedArray, ...]) -> tuple[list[str], int]:
    """The shared copies of staged arrays, carved out of the block's dynamic shared memory;
    and its size in bytes (0: nothing staged)."""
    if not arrays:
        return [], 0
    offsets, total = layout(arrays, {a.array: scop.array(a.array).dtype for a in arrays})
    lines = ["  extern __shared__ __align__(16) unsigned char pc_smem[];"]
    for staged, offset in zip(arrays, offsets):
        ctype = abi.C_TYPES[scop.array(staged.array).dtype]
        lines.append(f"  {ctype} *const pc_s_{staged.array} = ({ctype} *)(pc_smem + {offset});")
    return lines, total


def _local_index(staged: StagedArray, index: list[str]) -> str:
    """The position in the shared copy of the element whose subscripts are `index`."""
    flat = f"({index[0]}) - pc_o_{staged.array}_0"
    for d in range(1, len(index)):
        flat = f"({flat}) * {staged.sizes[d]} + (({index[d]}) - pc_o_{staged.array}_{d})"
    return flat


def staged_printers(scop: Scop, arrays: tuple[StagedArray, ...]
                     ) -> tuple[RefPrinter, FinalStore]:
    """Statement printers inside a staged tile: staged arrays read and written in shared
    memory; a write that is the tile's last of its element (under the leaf's condition of
    final_store_guards, None: none is) also stores the value to global memory."""
    staged = {s.array: s for s in arrays}
    flat = flat_ref_printer(scop)

    def ref(r: Ref, sub: Callable[[Expr], str]) -> str:
        if r.array not in staged:
            return flat(r, sub)
        return f"pc_s_{r.array}[{_local_index(staged[r.array], [sub(i) for i in r.index])}]"

    def final_store(stmt: Statement, sub: Callable[[Expr], str], condition: str | None) -> str:
        if stmt.lhs.array not in staged or condition is None:
            return ""
        store = f"{flat(stmt.lhs, sub)} = {ref(stmt.lhs, sub)};"
        return store if condition == "1" else f"if ({condition}) {store}"

    return ref, final_store


def _box_loop(scop: Scop, kernel: KernelMapping, staged: StagedArray,
              body: str) -> list[str]:
    """A loop of the block's threads over the elements pc_e of a staged box; in `body`,
    "{element}" becomes the array element, and the code sees its subscripts pc_x0, ... and,
    if it names it, `pc_in` (the element lies inside the array)."""
    n = kernel.n
    sizes = kernel.block_sizes
    tid = "threadIdx.x" if n == 1 else f"threadIdx.x + {sizes[n - 1]} * threadIdx.y"
    shape = scop.array(staged.array).shape
    lines = [f"for (int pc_e = {tid}; pc_e < {staged.elements}; pc_e += {math.prod(sizes)}) {{"]
    inner = 1
    coords = []
    for d in reversed(range(len(staged.sizes))):
        position = f"pc_e / {inner}" if inner > 1 else "pc_e"
        if d > 0:
            position = f"({position}) % {staged.sizes[d]}"
        coords.append(f"  const int pc_x{d} = pc_o_{staged.array}_{d} + {position};")
        inner *= staged.sizes[d]
    lines += coords[::-1]
    bounds = " && ".join(f"pc_x{d} >= 0 && pc_x{d} < ({expr_to_c(shape[d])})"
                         for d in range(len(shape)))
    element = Ref(staged.array, tuple(Var(f"pc_x{d}") for d in range(len(shape))))
    text = body.format(element=flat_ref_printer(scop)(element, expr_to_c))
    if "pc_in" in text:
        lines.append(f"  const bool pc_in = {bounds};")
    return [*lines, f"  {text}", "}"]


def stage_in(scop: Scop, kernel: KernelMapping, arrays: tuple[StagedArray, ...]) -> list[str]:
    """Before a tile's intra-tile wavefronts: the box offsets, the staged elements copied to
    shared memory, a barrier. The first barrier keeps the previous tile's last wavefront
    reading the copies before they are overwritten."""
    lines = ["__syncthreads();"]
    for staged in arrays:
        lines += [f"const int pc_o_{staged.array}_{d} = {offset};"
                  for d, offset in enumerate(staged.offsets)]
    for staged in arrays:
        a = staged.array
        lines += _box_loop(scop, kernel, staged, f"if (pc_in) pc_s_{a}[pc_e] = {{element}};")
    lines.append("__syncthreads();")
    return lines


def stage_out(scop: Scop, kernel: KernelMapping, arrays: tuple[StagedArray, ...]
               ) -> list[str]:
    """After a tile's intra-tile wavefronts (the last closed by a barrier): the write-back
    pass of the arrays that have one (StagedArray.write_back)."""
    lines = []
    for staged in arrays:
        if staged.write_back is not None:
            a = staged.array
            lines += _box_loop(scop, kernel, staged, f"if (pc_in && ({staged.write_back})) "
                                                     f"{{element}} = pc_s_{a}[pc_e];")
    return lines
