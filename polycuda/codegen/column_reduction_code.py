"""CUDA text of column-split reduction kernels (gpu/column_reduction.py): the parallel loop's
columns on threadIdx.x and blockIdx.x (a grid-stride loop: consecutive threads read
consecutive elements), the reduction loop's iterations dealt to the chunks on blockIdx.y in
turn (iteration k to chunk k mod gridDim.y), each thread's sum over its chunk added to the
column's cell with one atomicAdd (a sum of `-= e` is one of the -e, as in the many-block
reductions, codegen/reduction_code.py). The cell keeps its value from before the kernel and
every chunk adds only its own terms, so that value counts once. No barrier: a thread's
column is its own. A fused producer's statements (gpu/producer_fusion.py) run as they are,
each just before the reduction's instance that reads the element it writes.
"""

from __future__ import annotations

import islpy as isl

from polycuda.analysis.reductions import OPERATIONS, accumulated
from polycuda.codegen import abi
from polycuda.codegen.printer import AstPrinter, for_parts
from polycuda.codegen.reduction_code import CAP, atomic_add
from polycuda.codegen.statements import statement_parts, user_statement
from polycuda.gpu.column_reduction import COLUMN_THREADS, MAX_CHUNKS, MIN_CHUNK
from polycuda.gpu.mapping import KernelMapping
from polycuda.ir.scop import Scop

# the grid's most blocks along x
MAX_GRID_X = 2147483647


def block() -> str:
    return f"dim3({COLUMN_THREADS})"


def grid(kernel: KernelMapping) -> str:
    """A block of COLUMN_THREADS columns per column tile along x (kernel.tile_counts[0]: the
    columns over every host iteration, an upper bound), and along y as many chunks as bring
    the launch to CAP blocks (reduction_code.grid_setup: by default BLOCKS_PER_SM blocks per
    SM of the GPU, read at run time, so that the GPU is full however few columns there are),
    at most one per MIN_CHUNK iterations of the reduction loop (kernel.tile_counts[1]) and
    MAX_CHUNKS; at least one each. Any grid is correct (grid-stride loops)."""
    columns, length = kernel.tile_counts
    return column_grid(columns, COLUMN_THREADS, length, MIN_CHUNK, CAP)


def column_grid(columns: str, threads: int, length: str, per_chunk: int, cap: str) -> str:
    """dim3 of a grid of blocks of `threads` columns along x (`columns`: C text, an upper
    bound) and, along y, chunks of a loop of `length` iterations: as many as bring the launch
    to `cap` blocks (C text), at most one per `per_chunk` iterations and MAX_CHUNKS; at least
    one each (grid() here, and dual_reduction_code.grid)."""
    tiles = f"pc_max(pc_ceild({columns}, {threads}LL), 1LL)"
    chunks = (f"pc_max(pc_min(pc_min(pc_ceild({cap}, {tiles}), pc_ceild({length}, "
              f"{per_chunk}LL)), {MAX_CHUNKS}LL), 1LL)")
    return f"dim3((unsigned)pc_min({tiles}, {MAX_GRID_X}LL), (unsigned){chunks})"


class ColumnReductionPrinter(AstPrinter):
    """The body of a column-split reduction kernel (the AST below its reduce mark)."""

    int_type = "int"

    def __init__(self, scop: Scop, kernel: KernelMapping):
        super().__init__(scop)
        self.kernel = kernel
        self.columns_iterator = kernel.iterator(kernel.depth)
        self.declared: dict = {}  # no staged arrays (cuda_host's HostPrinter._kernel reads it)
        self.in_column = False
        self.in_loop = False

    def for_(self, node: isl.AstNode, indent: int) -> None:
        it, init, cond, inc = for_parts(node)
        if not self.in_column and it == self.columns_iterator:
            return self._columns(node, indent)
        if self.in_column and not self.in_loop and not node.for_is_degenerate():
            return self._chunk(node, indent)
        return super().for_(node, indent)

    def _columns(self, node: isl.AstNode, indent: int) -> None:
        """The columns, one per thread of the launch's x extent in turn; a single column
        (a degenerate loop) on thread 0 of the blocks of x index 0."""
        it, init, cond, inc = for_parts(node)
        self.in_column = True
        if node.for_is_degenerate():
            self.emit(indent, "if (blockIdx.x == 0 && threadIdx.x == 0) {")
            self.emit(indent + 1, f"const int {it} = {init};")
        else:
            self.emit(indent, f"for (int {it} = {init} + (int)(blockIdx.x * blockDim.x + "
                              f"threadIdx.x) * {inc}; {cond}; "
                              f"{it} += (int)(gridDim.x * blockDim.x) * {inc}) {{")
        self.node(node.for_get_body(), indent + 1)
        self.emit(indent, "}")
        self.in_column = False

    def _chunk(self, node: isl.AstNode, indent: int) -> None:
        """The reduction loop of one column: this block's chunk (every gridDim.y-th
        iteration), summed in a register, then added to the cell once."""
        it, init, cond, inc = for_parts(node)
        stmt = self.scop.statement(self.kernel.reduction_statement)
        ctype = abi.C_TYPES[self.scop.array(stmt.lhs.array).dtype]
        identity = OPERATIONS[self.kernel.reduction][1]
        self.emit(indent, "{")
        self.emit(indent + 1, f"{ctype} pc_acc = ({ctype}){identity};")
        self.emit(indent + 1, f"{ctype} *pc_cell = NULL;")
        self.emit(indent + 1, f"for (int {it} = {init} + (int)blockIdx.y * {inc}; {cond}; "
                              f"{it} += (int)gridDim.y * {inc}) {{")
        self.in_loop = True
        self.node(node.for_get_body(), indent + 2)
        self.in_loop = False
        self.emit(indent + 1, "}")
        self.emit(indent + 1, f"if (pc_cell != NULL) {atomic_add('pc_cell', 'pc_acc', ctype)};")
        self.emit(indent, "}")

    def user(self, node: isl.AstNode, indent: int) -> None:
        call = node.user_get_expr()
        if self.in_loop and call.get_op_arg(0).get_id().get_name() in \
                self.kernel.producer_statements:
            # a fused producer (gpu/producer_fusion.py): its instance just before the
            # reduction's that reads its element, in this thread and chunk
            self.emit(indent, user_statement(self.scop, call))
            return
        if self.in_loop:
            stmt, text = statement_parts(self.scop, call)
            op, term = accumulated(stmt)
            self.emit(indent, f"{{ pc_cell = &{text(stmt.lhs)}; pc_acc {op} {text(term)}; }}")
            return
        # a reduction loop of one iteration: its instance runs once, in the first chunk
        chunk = "blockIdx.y == 0" if self.in_column else \
            "blockIdx.y == 0 && blockIdx.x == 0 && threadIdx.x == 0"
        self.emit(indent, f"if ({chunk}) {user_statement(self.scop, call)}")
