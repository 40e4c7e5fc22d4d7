"""CUDA text of chained reduction kernels (gpu/chain_reduction.py): a row reduction R and a
column reduction C that reads R's cell of its row, in one pass over the matrix.

The AST below the kernel's mark is `for r { for c R(r, c); for c C(r, c); }` over a box. A
block of CHAIN_THREADS threads takes the rows blockIdx.x, blockIdx.x + gridDim.x, ...; thread
t the columns c(t + k * CHAIN_THREADS), its first CHAIN_SLOTS in registers. Per row:
- each thread loads the elements both statements read at its slots (the matrix) into
  registers and sums R's terms, then R's terms of its columns past the slots;
- the block's sum (warp shuffles, the warps' sums in shared memory, summed again by every
  warp) is added to the row's cell by thread 0: the block owns the row, no atomic is needed;
- after a barrier (the cell's new value visible to the block), each thread adds C's terms of
  its slots, from the same registers, to its per-column register sums; C's terms of columns
  past the slots are added to their cells with one atomicAdd each.
After the block's last row each slot's sum goes to its column's cell with one atomicAdd. Reads
that no row changes (x[c] of tmp[i] += A[i][j] * x[j]) are read once per slot before the
rows. Loop exits are uniform over the block (the row's start), so every thread reaches each
shuffle and barrier. A sum of `-= e` is one of the -e (dual_reduction_code).
"""

from __future__ import annotations

from collections.abc import Callable

import islpy as isl

from polycuda.analysis.reductions import accumulated
from polycuda.codegen import abi
from polycuda.codegen.dual_reduction_code import PairPrinter, loop_parts, tokens
from polycuda.codegen.reduction_code import BLOCKS_PER_SM, CAP, atomic_add
from polycuda.codegen.statements import statement_parts
from polycuda.gpu.chain_reduction import CHAIN_SLOTS, CHAIN_THREADS
from polycuda.gpu.mapping import KernelMapping
from polycuda.ir.expr import Expr, Ref, refs
from polycuda.ir.scop import Scop

WARPS = CHAIN_THREADS // 32


def block() -> str:
    return f"dim3({CHAIN_THREADS})"


def grid(kernel: KernelMapping) -> str:
    """A block per row (kernel.tile_counts[0]: an upper bound over every host iteration), at
    most one per SM (CAP / BLOCKS_PER_SM: reduction_code.grid_setup's blocks of a launch;
    the prototype: 0.191 ms with one block of 1024 threads per SM, 0.194 with two), at least
    one. Any grid is correct (a grid-stride loop over the rows)."""
    rows = kernel.tile_counts[0]
    return (f"dim3((unsigned)pc_min(pc_max({rows}, 1LL), "
            f"pc_max({CAP} / {BLOCKS_PER_SM}LL, 1LL)))")


class ChainReductionPrinter(PairPrinter):
    """The body of a chained reduction kernel (the AST below its reduce mark)."""

    def __init__(self, scop: Scop, kernel: KernelMapping):
        super().__init__(scop, kernel)
        self.slots: dict[str, str] = {}  # a read's text -> its register at slot pc_k
        self.in_slot = False
        self.calls: dict[str, isl.AstExpr] = {}

    def for_(self, node: isl.AstNode, indent: int) -> None:
        if self.calls:
            raise AssertionError(f"{self.kernel.name}: a loop below the chained reduction")
        body = node.for_get_body()
        loops = ([body.block_get_children().get_at(k)
                  for k in range(body.block_get_children().n_ast_node())]
                 if body.get_type() == isl.ast_node_type.block else [])
        if len(loops) != 2 or any(
                one.get_type() != isl.ast_node_type.for_
                or one.for_get_body().get_type() != isl.ast_node_type.user for one in loops):
            raise AssertionError(f"{self.kernel.name}: the rows loop's body is not the row "
                                 "statement's and the column statement's column loops")
        if loop_parts(loops[0]) != loop_parts(loops[1]):
            raise AssertionError(f"{self.kernel.name}: the two column loops differ")
        for one in loops:
            call = one.for_get_body().user_get_expr()
            self.calls[call.get_op_arg(0).get_id().get_name()] = call
        if set(self.calls) != {self.row, self.column}:
            raise AssertionError(f"{self.kernel.name}: the column loops are not of "
                                 f"{self.row} and {self.column}")
        self._kernel(node, loops[0], indent)

    def _kernel(self, rows: isl.AstNode, columns: isl.AstNode, indent: int) -> None:
        (r, r_init, r_cond, r_inc), (c, c_init, c_cond, c_inc) = self._box(rows, columns)
        t, ct = self.ctype, self.column_ctype
        zero, czero = self._zeros()
        self.declarations.append(f"  __shared__ {t} pc_warpsums[{WARPS}];")
        e = self.emit
        slot = f"const int {c} = {c_init} + ((int)threadIdx.x + pc_k * {CHAIN_THREADS}) * {c_inc};"
        past = (f"for (int {c} = {c_init} + ((int)threadIdx.x + {CHAIN_SLOTS * CHAIN_THREADS})"
                f" * {c_inc}; {c_cond}; {c} += {CHAIN_THREADS} * {c_inc})")
        e(indent, "const int pc_lane = (int)threadIdx.x % 32, pc_warp = (int)threadIdx.x / 32;")
        e(indent, f"bool pc_rows; {{ const int {r} = {r_init}; pc_rows = {r_cond}; }}")
        e(indent, "bool pc_any = false;")
        e(indent, f"{ct} pc_col[{CHAIN_SLOTS}];")
        hoisted, shared = self._registers(r)
        for name, (ctype, _) in {**hoisted, **shared}.items():
            e(indent, f"{ctype} {name}[{CHAIN_SLOTS}];")
        e(indent, "#pragma unroll")
        e(indent, f"for (int pc_k = 0; pc_k < {CHAIN_SLOTS}; pc_k++) {{")
        e(indent + 1, slot)
        e(indent + 1, f"pc_col[pc_k] = {czero};")
        for name, (ctype, element) in hoisted.items():
            e(indent + 1, f"{name}[pc_k] = (pc_rows && ({c_cond})) ? {element} : ({ctype})0;")
        e(indent, "}")
        e(indent, "for (int pc_row = (int)blockIdx.x; ; pc_row += (int)gridDim.x) {")
        e(indent + 1, f"const int {r} = {r_init} + pc_row * {r_inc};")
        e(indent + 1, f"if (!({r_cond})) break;")
        e(indent + 1, "pc_any = true;")
        e(indent + 1, f"{t} pc_term = {zero};")
        e(indent + 1, "#pragma unroll")
        e(indent + 1, f"for (int pc_k = 0; pc_k < {CHAIN_SLOTS}; pc_k++) {{")
        e(indent + 2, slot)
        e(indent + 2, f"if ({c_cond}) {{")
        for name, (ctype, element) in shared.items():
            e(indent + 3, f"{name}[pc_k] = {element};")
        e(indent + 3, self._term(self.row, "pc_term", in_slot=True))
        e(indent + 2, "}")
        e(indent + 1, "}")
        e(indent + 1, past)
        e(indent + 2, self._term(self.row, "pc_term", in_slot=False))
        self._block_sum(c, c_init, c_cond, zero, indent + 1)
        e(indent + 1, "#pragma unroll")
        e(indent + 1, f"for (int pc_k = 0; pc_k < {CHAIN_SLOTS}; pc_k++) {{")
        e(indent + 2, slot)
        e(indent + 2, f"if ({c_cond}) {self._term(self.column, 'pc_col[pc_k]', in_slot=True)}")
        e(indent + 1, "}")
        e(indent + 1, f"{past} {{")
        e(indent + 2, f"{ct} pc_one = {czero};")
        e(indent + 2, self._term(self.column, "pc_one", in_slot=False))
        e(indent + 2, f"{atomic_add('&' + self._cell(self.column), 'pc_one', ct)};")
        e(indent + 1, "}")
        e(indent, "}")
        e(indent, "if (pc_any) {")
        e(indent + 1, f"const int {r} = {r_init} + (int)blockIdx.x * {r_inc};")
        e(indent + 1, "#pragma unroll")
        e(indent + 1, f"for (int pc_k = 0; pc_k < {CHAIN_SLOTS}; pc_k++) {{")
        e(indent + 2, slot)
        cell = self._cell(self.column)
        e(indent + 2, f"if ({c_cond}) {atomic_add('&' + cell, 'pc_col[pc_k]', ct)};")
        e(indent + 1, "}")
        e(indent, "}")

    def _block_sum(self, c: str, c_init: str, c_cond: str, zero: str, indent: int) -> None:
        """The block's sum of pc_term added to R's cell of the row by thread 0 (where the row
        has a column: R has an instance), a barrier before and after (the warps' sums, the
        cell's new value). Every warp sums the warps' sums: a shuffle in code that only some
        warps run would be divergent."""
        e = self.emit
        shuffle = "pc_term += __shfl_xor_sync(0xffffffffu, pc_term, pc_s);"
        e(indent, f"for (int pc_s = 16; pc_s > 0; pc_s /= 2) {shuffle}")
        e(indent, "if (pc_lane == 0) pc_warpsums[pc_warp] = pc_term;")
        e(indent, "__syncthreads();")
        e(indent, f"pc_term = pc_lane < {WARPS} ? pc_warpsums[pc_lane] : {zero};")
        e(indent, f"for (int pc_s = 16; pc_s > 0; pc_s /= 2) {shuffle}")
        e(indent, "if (threadIdx.x == 0) {")
        e(indent + 1, f"const int {c} = {c_init};")
        e(indent + 1, f"if ({c_cond}) {self._cell(self.row)} += pc_term;")
        e(indent, "}")
        e(indent, "__syncthreads();")

    def _registers(self, r: str) -> tuple[dict[str, tuple[str, str]], dict[str, tuple[str, str]]]:
        """The reads kept in registers per slot, each name -> (C type, element text): those no
        row changes (no row iterator in the element; an array neither statement writes, no
        indirect subscript), read before the rows; and the elements both statements read in
        a row (the matrix), read with R's terms. Sets self.slots."""
        written = {self.scop.statement(n).lhs.array for n in (self.row, self.column)}
        found: dict[str, dict[str, Ref]] = {}
        for name in (self.row, self.column):
            stmt, text = statement_parts(self.scop, self._call(name), self.wide)
            found[name] = {} if stmt.csr else {
                text(ref): ref for ref in refs(accumulated(stmt)[1])
                if ref.array not in written and not any(refs(index) for index in ref.index)}
        hoisted: dict[str, tuple[str, str]] = {}
        shared: dict[str, tuple[str, str]] = {}
        for element, ref in {**found[self.column], **found[self.row]}.items():
            ctype = abi.C_TYPES[self.scop.array(ref.array).dtype]
            if r not in tokens(element):
                name = f"pc_h{len(hoisted)}"
                hoisted[name] = (ctype, element)
            elif element in found[self.column] and element in found[self.row]:
                name = f"pc_m{len(shared)}"
                shared[name] = (ctype, element)
            else:
                continue
            self.slots[element] = f"{name}[pc_k]"
        return hoisted, shared

    def _term(self, name: str, into: str, in_slot: bool) -> str:
        """`into op= term;` of statement `name` (its registers at slot pc_k where in_slot)."""
        self.in_slot = in_slot
        stmt, text = statement_parts(self.scop, self._call(name), self.refp)
        op, term = accumulated(stmt)  # chain_reduction.find: `+=` / `-=` updates
        line = f"{into} {op} {text(term)};"
        self.in_slot = False
        return line

    def _call(self, name: str) -> isl.AstExpr:
        return self.calls[name]

    def refp(self, ref: Ref, sub: Callable[[Expr], str]) -> str:
        """Flat indexing in 64 bits, the slot's registers where in_slot."""
        element = self.wide(ref, sub)
        return self.slots.get(element, element) if self.in_slot else element
