"""CUDA text of dual reduction kernels (gpu/dual_reduction.py): a row and a column reduction
of one matrix in one pass over it.

The AST below the kernel's mark is `for r { for c { R(r, c); C(r, c); } }` over a box. Each
thread of a block of DUAL_THREADS takes one column c (threadIdx.x and blockIdx.x, a
grid-stride loop over tiles of columns: a warp reads 32 consecutive elements of a row), each
block the batches of BATCH_ROWS rows k, k + gridDim.y, ... (blockIdx.y). Per row, the thread
evaluates both statements at (r, c):
- the column statement's term is added to the thread's register sum, which goes to the
  column's cell with one atomicAdd after the block's last batch;
- the row statement's term is summed over the warp's lanes (__shfl_xor_sync), each warp's sum
  stored in shared memory; after the batch, lane k of warp 0 adds the 8 warps' sums of row k
  and applies them to the row's cell with one atomicAdd.
Loop exits are uniform over the block (the batch and tile starts), so every thread reaches
each shuffle and barrier. A sum of `-= e` is one of the -e, as in the many-block reductions
(codegen/reduction_code.py). Each cell keeps its value from before the kernel and each block
adds only its own terms.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import islpy as isl

from polycuda.analysis.reductions import OPERATIONS, accumulated
from polycuda.codegen import abi
from polycuda.codegen.column_reduction_code import column_grid
from polycuda.codegen.printer import AstPrinter, for_parts
from polycuda.codegen.reduction_code import CAP, atomic_add
from polycuda.codegen.statements import flat_ref_printer, statement_parts
from polycuda.gpu.dual_reduction import BATCH_ROWS, DUAL_THREADS
from polycuda.gpu.mapping import KernelMapping
from polycuda.ir.expr import Expr, Ref, refs
from polycuda.ir.scop import Scop

WARPS = DUAL_THREADS // 32
# Blocks per CAP (reduction_code.grid_setup's blocks of a launch): twice, so that by default 8
# blocks of 256 threads share an SM (its 2048 threads). The prototype on the H100, bicg at
# n = m = 8192 double with 32 tiles of columns: 0.269 ms with 16 batches of rows in flight
# per tile, 0.205 ms with 33.
CAP_FACTOR = 2


def block() -> str:
    return f"dim3({DUAL_THREADS})"


def grid(kernel: KernelMapping) -> str:
    """Along x a block per DUAL_THREADS columns (kernel.tile_counts[1]: an upper bound over
    every host iteration), along y as many batches of rows as bring the launch to CAP_FACTOR
    x CAP blocks (reduction_code.grid_setup: by default BLOCKS_PER_SM blocks per SM), at
    most one per batch of the rows (kernel.tile_counts[0]) and MAX_CHUNKS; at least one each
    (column_reduction_code.column_grid). Any grid is correct (grid-stride loops)."""
    rows, columns = kernel.tile_counts
    return column_grid(columns, DUAL_THREADS, rows, BATCH_ROWS, f"{CAP_FACTOR}LL * {CAP}")


def loop_parts(node: isl.AstNode) -> tuple[str, str, str, str]:
    """(iterator, init, condition, increment); a degenerate loop as one of one iteration."""
    if node.for_is_degenerate():
        it, init = for_parts(node)[:2]
        return it, init, f"({it} == {init})", "1"
    return for_parts(node)


def tokens(text: str) -> set[str]:
    """The identifiers of C text."""
    return set(re.findall(r"[A-Za-z_]\w*", text))


class PairPrinter(AstPrinter):
    """What the printers of a kernel of a row and a column statement share (dual reductions
    here, chained ones in codegen/chain_reduction_code.py): the statements, the C types of
    their cells, `declarations` (put in front of the body by cuda_host), flat 64-bit
    indexing, and each statement's cell as text."""

    int_type = "int"

    def __init__(self, scop: Scop, kernel: KernelMapping):
        super().__init__(scop)
        self.kernel = kernel
        self.row, self.column = kernel.dual_statements
        self.declared: dict = {}  # no staged arrays (cuda_host's HostPrinter._kernel reads it)
        self.declarations: list[str] = []
        self.ctype = abi.C_TYPES[scop.array(scop.statement(self.row).lhs.array).dtype]
        self.column_ctype = abi.C_TYPES[
            scop.array(scop.statement(self.column).lhs.array).dtype]
        self.wide = flat_ref_printer(scop, wide=True)

    def _call(self, name: str) -> isl.AstExpr:
        """The AST call of statement `name` in the kernel's body."""
        raise NotImplementedError

    def _cell(self, name: str) -> str:
        """The statement's cell, as text in the iterators (set by the caller)."""
        stmt, text = statement_parts(self.scop, self._call(name), self.wide)
        return text(stmt.lhs)

    def _box(self, rows: isl.AstNode, columns: isl.AstNode
             ) -> tuple[tuple[str, str, str, str], tuple[str, str, str, str]]:
        """The row and the column loop's parts (loop_parts), the column loop's bounds
        checked free of the row's iterator (the matrix's box)."""
        row, column = loop_parts(rows), loop_parts(columns)
        if row[0] in tokens(column[1]) | tokens(column[2]):
            raise AssertionError(f"{self.kernel.name}: the column bounds depend on the row")
        return row, column

    def _zeros(self) -> tuple[str, str]:
        """The identity of `+=` in the row and in the column statement's cell type."""
        identity = OPERATIONS["+="][1]
        return f"({self.ctype}){identity}", f"({self.column_ctype}){identity}"


class DualReductionPrinter(PairPrinter):
    """The body of a dual reduction kernel (the AST below its reduce mark)."""

    def __init__(self, scop: Scop, kernel: KernelMapping):
        super().__init__(scop, kernel)
        self.rows_node: isl.AstNode | None = None
        self.hoisted: dict[str, str] = {}  # a read's text -> its register (_hoist)

    def for_(self, node: isl.AstNode, indent: int) -> None:
        if self.rows_node is not None:  # a loop inside the body: not from a dual band
            raise AssertionError(f"{self.kernel.name}: a loop below the dual reduction band")
        body = node.for_get_body()
        if body.get_type() != isl.ast_node_type.for_:
            raise AssertionError(f"{self.kernel.name}: the dual reduction band's column loop "
                                 "is not the body of its row loop")
        self.rows_node = node
        self._kernel(node, body, indent)

    def _kernel(self, rows: isl.AstNode, columns: isl.AstNode, indent: int) -> None:
        (r, r_init, r_cond, r_inc), (c, c_init, c_cond, c_inc) = self._box(rows, columns)
        t, ct = self.ctype, self.column_ctype
        zero, czero = self._zeros()
        self.declarations.append(f"  __shared__ {t} pc_rowsum[{WARPS}][{BATCH_ROWS}];")
        e = self.emit
        e(indent, "const int pc_lane = (int)threadIdx.x % 32, pc_warp = (int)threadIdx.x / 32;")
        e(indent, "for (int pc_tile = (int)blockIdx.x; ; pc_tile += (int)gridDim.x) {")
        e(indent + 1, f"const int pc_first = {c_init} + pc_tile * {DUAL_THREADS} * {c_inc};")
        e(indent + 1, f"{{ const int {c} = pc_first; if (!({c_cond})) break; }}")
        e(indent + 1, f"const int {c} = pc_first + (int)threadIdx.x * {c_inc};")
        e(indent + 1, f"const bool pc_in = {c_cond};")
        self._hoist(r, r_init, r_cond, indent + 1)
        e(indent + 1, f"{ct} pc_col = {czero};")
        e(indent + 1, f"{ct} *pc_cell = NULL;")
        e(indent + 1, "for (int pc_batch = (int)blockIdx.y; ; pc_batch += (int)gridDim.y) {")
        e(indent + 2, f"const int pc_row0 = {r_init} + pc_batch * {BATCH_ROWS} * {r_inc};")
        e(indent + 2, f"{{ const int {r} = pc_row0; if (!({r_cond})) break; }}")
        e(indent + 2, f"for (int pc_k = 0; pc_k < {BATCH_ROWS}; pc_k++) {{")
        e(indent + 3, f"const int {r} = pc_row0 + pc_k * {r_inc};")
        e(indent + 3, f"{t} pc_term = {zero};")
        e(indent + 3, f"if (pc_in && ({r_cond})) {{")
        self.node(columns.for_get_body(), indent + 4)
        e(indent + 3, "}")
        e(indent + 3, "for (int pc_s = 16; pc_s > 0; pc_s /= 2)")
        e(indent + 4, "pc_term += __shfl_xor_sync(0xffffffffu, pc_term, pc_s);")
        e(indent + 3, "if (pc_lane == 0) pc_rowsum[pc_warp][pc_k] = pc_term;")
        e(indent + 2, "}")
        e(indent + 2, "__syncthreads();")
        e(indent + 2, "if (pc_warp == 0) {")
        e(indent + 3, f"const int {r} = pc_row0 + pc_lane * {r_inc};")
        e(indent + 3, f"if ({r_cond}) {{")
        e(indent + 4, f"{t} pc_sum = {zero};")
        e(indent + 4, f"for (int pc_w = 0; pc_w < {WARPS}; pc_w++) "
                      "pc_sum += pc_rowsum[pc_w][pc_lane];")
        cell = self._cell(self.row)
        if c in tokens(cell):  # the row's cell: the same in every column
            e(indent + 4, f"const int {c} = pc_first;")
        e(indent + 4, f"{atomic_add(f'&{cell}', 'pc_sum', t)};")
        e(indent + 3, "}")
        e(indent + 2, "}")
        e(indent + 2, "__syncthreads();")
        e(indent + 1, "}")
        e(indent + 1, f"if (pc_cell != NULL) {atomic_add('pc_cell', 'pc_col', ct)};")
        e(indent, "}")

    def _call(self, name: str) -> isl.AstExpr:
        """The AST call of statement `name` in the band's body (a user node, or one of a
        block's)."""
        body = self.rows_node.for_get_body().for_get_body()
        calls = [body] if body.get_type() == isl.ast_node_type.user else [
            body.block_get_children().get_at(k)
            for k in range(body.block_get_children().n_ast_node())]
        for one in calls:
            if one.get_type() != isl.ast_node_type.user:
                continue
            expr = one.user_get_expr()
            if expr.get_op_arg(0).get_id().get_name() == name:
                return expr
        raise AssertionError(f"{self.kernel.name}: no instance of {name} in the band "
                             "(not a user node of the column loop's body)")

    def _hoist(self, r: str, r_init: str, r_cond: str, indent: int) -> None:
        """The row statement's reads that no row changes (p[c] of q[i] += A[i][j] * p[j]: an
        array neither statement writes, a subscript without the row iterator), each read once
        per thread into a register, where the thread's column and some row are in the box (the
        element the first row's instance reads: the same in every row)."""
        stmt, text = statement_parts(self.scop, self._call(self.row), self.refp)
        written = {self.scop.statement(n).lhs.array for n in (self.row, self.column)}
        guard = False
        for ref in refs(accumulated(stmt)[1]):
            element = text(ref)
            if (ref.array in written or r in tokens(element) or element in self.hoisted
                    or any(refs(index) for index in ref.index) or stmt.csr):
                continue
            if not guard:
                self.emit(indent, f"bool pc_rows; {{ const int {r} = {r_init}; "
                                  f"pc_rows = {r_cond}; }}")
                guard = True
            name = f"pc_hoisted{len(self.hoisted)}"
            ctype = abi.C_TYPES[self.scop.array(ref.array).dtype]
            self.emit(indent, f"const {ctype} {name} = (pc_in && pc_rows) ? {element} : "
                              f"({ctype})0;")
            self.hoisted[element] = name

    def refp(self, ref: Ref, sub: Callable[[Expr], str]) -> str:
        """Flat indexing in 64 bits (measured faster than 32 on the H100: 0.215 against
        0.224 ms, bench/results/...-dual-kernel-variants-14c7a4a.json), hoisted reads by
        their register."""
        element = self.wide(ref, sub)
        return self.hoisted.get(element, element)

    def user(self, node: isl.AstNode, indent: int) -> None:
        stmt, text = statement_parts(self.scop, node.user_get_expr(), self.refp)
        op, term = accumulated(stmt)  # dual_reduction.find: `+=` / `-=` updates
        if stmt.name == self.row:
            self.emit(indent, f"pc_term {op} {text(term)};")
        elif stmt.name == self.column:
            self.emit(indent, f"{{ pc_cell = &{text(stmt.lhs)}; pc_col {op} {text(term)}; }}")
        else:
            raise AssertionError(f"{self.kernel.name}: {stmt.name} is not of the dual pair")
