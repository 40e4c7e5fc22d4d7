"""Target "cuda": what each kernel kind (gpu/plan.py) prints and how it launches, one entry
per kind in CUDA_KINDS: its printer, how the printer runs over the kernel's AST, its grid and
block, its launch bounds, and whether it may be a section of a fused host loop's kernel.
codegen/cuda_host.py looks a kernel's entry up instead of asking for its kind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import islpy as isl

from polycuda.codegen import (chain_reduction_code, column_reduction_code, dual_reduction_code,
                              reduction_code, row_reduction_code)
from polycuda.codegen.cuda_target import MAX_GRID, KernelPrinter, ReductionPrinter
from polycuda.codegen.printer import AstPrinter, for_parts, simple_upper_bound
from polycuda.gpu.column_reduction import COLUMN_THREADS
from polycuda.gpu.mapping import REDUCTION_THREADS
from polycuda.gpu.plan import (ChainReductionKernel, ColumnReductionKernel, DoallKernel,
                               DualReductionKernel, Kernel, KindTable, RowReductionKernel,
                               SerialKernel, TreeReductionKernel, WavefrontKernel)
from polycuda.gpu.row_reduction import ROW_LANES, ROWS_PER_BLOCK


@dataclass(frozen=True)
class CudaKind:
    """A kind's CUDA behaviors.

    printer(host, kernel, scope): the kernel's printer; host is the HostPrinter (its scop,
        final conditions, private tables and leaf coordinates); scope: the host iterators.
    run(printer, body, name, w_loop): prints `body` (the AST below the mark) with it and
        returns the lines before the kernel's signature; w_loop: the inter-tile wavefront
        loop run inside a cooperative kernel, else None.
    launch(kernel, body, host_iters): the grid and the block (C text).
    bound: the __launch_bounds__ text of a kernel without block sizes ("" for none).
    section: whether the kernel may run as a section of a fused loop (codegen/fused_loops.py).
    """

    printer: Callable[[Any, Kernel, frozenset[str]], AstPrinter]
    run: Callable[[Any, isl.AstNode, str, isl.AstNode | None], list[str]]
    launch: Callable[[Kernel, isl.AstNode, list[str]], tuple[str, str]]
    bound: str = ""
    section: bool = False


def loop_length(body: isl.AstNode) -> str | None:
    """The iterations of the loop that is the whole AST `body` (C text in the host's iterators
    and the parameters; ub - init + 1, negative when it runs none), else None."""
    if body.get_type() != isl.ast_node_type.for_ or body.for_is_degenerate():
        return None
    _, init, _, inc = for_parts(body)
    upper = simple_upper_bound(body)
    if inc != "1" or upper is None:
        return None
    return f"({upper}) - ({init}) + 1"


def x_first(kernel: Kernel, host_iters: list[str]) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """A mapped kernel's launch, x first (x is the innermost mapped dimension): its grid's
    block counts (C text in `host_iters` and the parameters) and its block's threads."""
    n = kernel.n
    counts = kernel.grid_counts(host_iters)
    return (tuple(counts[n - 1 - axis] for axis in range(n)),
            tuple(kernel.block_sizes[n - 1 - axis] for axis in range(n)))


def _mapped_launch(kernel: Kernel, body: isl.AstNode, host_iters: list[str]) -> tuple[str, str]:
    counts, threads = x_first(kernel, host_iters)
    grid = [f"(unsigned)pc_min(pc_max({count}, 1LL), {MAX_GRID[axis]}LL)"
            for axis, count in enumerate(counts)]
    return f"dim3({', '.join(grid)})", f"dim3({', '.join(map(str, threads))})"


def _serial_launch(kernel: Kernel, body: isl.AstNode, host_iters: list[str]
                   ) -> tuple[str, str]:
    return "dim3(1)", "dim3(1)"


def _tree_launch(kernel: Kernel, body: isl.AstNode, host_iters: list[str]) -> tuple[str, str]:
    return reduction_code.grid(kernel, loop_length(body)), f"dim3({REDUCTION_THREADS})"


def _own_launch(module: Any) -> Callable[[Kernel, isl.AstNode, list[str]], tuple[str, str]]:
    """The launch of a kind whose code module sizes its grid and block itself."""
    return lambda kernel, body, host_iters: (module.grid(kernel), module.block())


def _own_kind(module: Any, printer: Callable[[Any, Kernel], AstPrinter], run: Callable,
              threads: int) -> CudaKind:
    """A kind whose code module sizes its launch (_own_launch) and whose printer takes the
    scop and the kernel alone, bounded at `threads` threads per block."""
    return CudaKind(lambda host, kernel, scope: printer(host.scop, kernel), run,
                    _own_launch(module), f" __launch_bounds__({threads})")


def _kernel_printer(host: Any, kernel: Kernel, scope: frozenset[str]) -> AstPrinter:
    return KernelPrinter(host.scop, kernel, scope, host.final_conditions, host.private,
                         host.leaf_coordinates)


def _run_kernel(printer: Any, body: isl.AstNode, name: str, w_loop: isl.AstNode | None
                ) -> list[str]:
    """A DOALL, wavefront or one-thread kernel's body; a cooperative wavefront kernel loops
    over the inter-tile wavefronts itself, a grid-wide barrier after each."""
    if w_loop is None:
        printer.node(body, 1)
        return []
    it, init, cond, inc = for_parts(w_loop)
    printer.emit(1, "cooperative_groups::grid_group pc_grid = "
                    "cooperative_groups::this_grid();")
    printer.emit(1, f"for (int {it} = {init}; {cond}; {it} += {inc}) {{")
    printer.node(body, 2)
    printer.emit(2, "pc_grid.sync();")
    printer.emit(1, "}")
    return []


def _run_tree(printer: Any, body: isl.AstNode, name: str, w_loop: isl.AstNode | None
              ) -> list[str]:
    printer.node(body, 1)
    printer.lines_around(name)
    return printer.declarations


def _run_rows(printer: Any, body: isl.AstNode, name: str, w_loop: isl.AstNode | None
              ) -> list[str]:
    printer.node(body, 1)
    printer.lines_around()
    return []


def _run_pair(printer: Any, body: isl.AstNode, name: str, w_loop: isl.AstNode | None
              ) -> list[str]:
    printer.node(body, 1)
    printer.lines[:0] = printer.declarations
    return []


# A producer fusion kernel takes the column kernel's entry (its printer runs the producer).
CUDA_KINDS: KindTable[CudaKind] = KindTable("cuda", {
    DoallKernel: CudaKind(_kernel_printer, _run_kernel, _mapped_launch, section=True),
    WavefrontKernel: CudaKind(_kernel_printer, _run_kernel, _mapped_launch),
    SerialKernel: CudaKind(_kernel_printer, _run_kernel, _serial_launch, section=True),
    TreeReductionKernel: CudaKind(
        lambda host, kernel, scope: ReductionPrinter(host.scop, kernel, scope),
        _run_tree, _tree_launch),
    RowReductionKernel: _own_kind(row_reduction_code, row_reduction_code.RowReductionPrinter,
                                  _run_rows, ROW_LANES * ROWS_PER_BLOCK),
    ColumnReductionKernel: _own_kind(column_reduction_code,
                                     column_reduction_code.ColumnReductionPrinter, _run_kernel,
                                     COLUMN_THREADS),
    DualReductionKernel: _own_kind(dual_reduction_code, dual_reduction_code.DualReductionPrinter,
                                   _run_pair, dual_reduction_code.DUAL_THREADS),
    ChainReductionKernel: _own_kind(chain_reduction_code,
                                    chain_reduction_code.ChainReductionPrinter, _run_pair,
                                    chain_reduction_code.CHAIN_THREADS),
})
