"""CUDA text of row reduction kernels (gpu/row_reduction.py): the rows of the parallel loop on
blocks of ROWS_PER_BLOCK x ROW_LANES threads (row on threadIdx.y), each reduction loop of a row
on its ROW_LANES lanes (threadIdx.x, a stride loop: consecutive lanes read consecutive
elements), the lanes' values combined in a tree in shared memory (Shirako et al. 2017,
Section 6: the thread-level tree reduction after Harris [31]), and the cell updated once, by
lane 0. A statement that runs once per row runs on lane 0, a barrier after it.

Every barrier sits where the whole block arrives: the loop over groups of rows stops when the
group's first row is past the loop's bound (block-uniform), and the conditions of a row
(its row past the bound, AST guards) are predicates of the statements, not branches around
barriers.
"""

from __future__ import annotations

import re

import islpy as isl

from polycuda.analysis.reductions import OPERATIONS, accumulated
from polycuda.codegen import abi
from polycuda.codegen.printer import AstPrinter, for_parts
from polycuda.codegen.reduction_code import CAP, capped
from polycuda.codegen.statements import statement_parts, user_statement
from polycuda.gpu.mapping import KernelMapping
from polycuda.gpu.row_reduction import ROW_LANES, ROWS_PER_BLOCK
from polycuda.ir.ast_expr import ast_expr_to_c
from polycuda.ir.scop import Scop

# the grid's most blocks along x
MAX_GRID_X = 2147483647
# A lane's sums of a reduction loop: its iterations in rounds of LANE_SUMS, one sum each, so
# that a lane has that many loads in flight. Each row kernel alone on the H100, n = 8192,
# 1 / 2 / 4 / 8 sums in one run (bench/lane_sums.py, ...-lane-sums-0534b2f.json): trmv 0.142 /
# 0.113 / 0.125 / 0.134 ms; gesummv 0.384 / 0.377 / 0.379 / 0.383; gemver's rows 0.194 /
# 0.193 / 0.200 / 0.223; atax's rows 0.195 / 0.196 / 0.198 / 0.193. A later run, 2 / 4 sums
# (...-lane-grids.json): trmv 0.140 / 0.119 (0.136 / 0.107 on trmv's capped grid), gesummv
# 0.385 / 0.374, gemver's rows 0.203 / 0.190, atax's rows 0.203 / 0.193; and in the kernel-only
# bench, 4 sums against 2 (both with the capped grid for trmv, ...-rows-zigzag-*.json): trmv
# 0.114 / 0.114-0.119 ms, gesummv 0.386-0.389 / 0.391-0.398. So 4.
LANE_SUMS = 4


def block() -> str:
    return f"dim3({ROW_LANES}, {ROWS_PER_BLOCK})"


def grid(kernel: KernelMapping) -> str:
    """A block per ROWS_PER_BLOCK rows of the parallel loop (kernel.tile_counts: its extent
    over every host iteration, an upper bound), at least one; at most CAP where the rows differ
    in length (reduction_code.capped: by default BLOCKS_PER_SM blocks per SM), so that each
    block takes several groups, long and short (RowReductionPrinter._rows). Any grid is
    correct. Each row kernel alone on the H100, n = 8192, 4 sums per lane, a block per group
    / 4 / 8 blocks per SM (bench/lane_sums.py, ...-lane-grids.json): trmv 0.119 / 0.107 /
    0.119 ms; gesummv 0.374 / 0.406 / 0.370; gemver's rows 0.190 / 0.202 / 0.191; atax's
    rows 0.193 / 0.221 / 0.198."""
    rows = kernel.tile_counts[0] if kernel.tile_counts else "1"
    cap = CAP if capped(kernel) else f"{MAX_GRID_X}LL"
    return (f"dim3((unsigned)pc_min(pc_max(pc_ceild({rows}, {ROWS_PER_BLOCK}LL), 1LL), "
            f"{cap}))")


class RowReductionPrinter(AstPrinter):
    """The body of a row reduction kernel (the AST below its reduce mark). `declarations`:
    its shared arrays, put in front by lines_around()."""

    int_type = "int"

    def __init__(self, scop: Scop, kernel: KernelMapping):
        super().__init__(scop)
        self.kernel = kernel
        self.rows_iterator = kernel.iterator(kernel.depth)
        self.declared: dict = {}  # no staged arrays (cuda_host's HostPrinter._kernel reads it)
        self.declarations: list[str] = []
        self.predicates: list[str] = []  # the conditions of the current row's statements
        self.in_row = False
        self.in_loop = False
        self.trees = 0
        self.sum = "pc_acc"  # the lane's sum that the loop's current copy adds to

    def lines_around(self) -> None:
        self.lines[:0] = self.declarations

    def _predicate(self) -> str:
        return " && ".join(f"({p})" for p in self.predicates) or "1"

    def for_(self, node: isl.AstNode, indent: int) -> None:
        it = for_parts(node)[0]
        if not self.in_row and it == self.rows_iterator:
            return self._rows(node, indent)
        if self.in_row and not self.in_loop and not node.for_is_degenerate():
            return self._reduction_loop(node, indent)
        return super().for_(node, indent)

    def _rows(self, node: isl.AstNode, indent: int) -> None:
        """Groups of ROWS_PER_BLOCK consecutive rows dealt to the blocks in rounds, in zigzag
        order: round k gives block b the group k * gridDim.x + b (k even) or k * gridDim.x +
        gridDim.x - 1 - b (k odd), so that a block of a triangle's short rows in one round
        has long ones in the next. A block's groups increase from round to round and the
        loop's bound is monotone in the row (an upper bound on it), so a block stops, as a
        whole, at its first group past the bound, and every group below it is some block's."""
        it, init, cond, inc = for_parts(node)
        if node.for_is_degenerate():
            cond, inc = f"{it} <= {init}", "1"
        pattern = re.compile(rf"\b{re.escape(it)}\b")
        first = "pc_rows"
        self.emit(indent, "for (int pc_round = 0; ; pc_round++) {")
        self.emit(indent + 1, "const int pc_group = pc_round * (int)gridDim.x + ((pc_round & 1) ? "
                              "(int)gridDim.x - 1 - (int)blockIdx.x : (int)blockIdx.x);")
        self.emit(indent + 1, f"const int {first} = pc_group * (int)blockDim.y;")
        self.emit(indent + 1, f"if (!({pattern.sub(f'({init} + {first} * {inc})', cond)})) "
                              "break;")
        self.emit(indent + 1, f"const int {it} = {init} + ({first} + (int)threadIdx.y) * {inc};")
        self.predicates.append(cond)
        self.in_row = True
        self.node(node.for_get_body(), indent + 1)
        self.in_row = False
        self.predicates.pop()
        self.emit(indent, "}")

    def if_(self, node: isl.AstNode, indent: int) -> None:
        if not self.in_row or self.in_loop:
            return super().if_(node, indent)
        cond = ast_expr_to_c(node.if_get_cond())
        self.predicates.append(cond)
        self.node(node.if_get_then_node(), indent)
        self.predicates.pop()
        if node.if_has_else_node():
            self.predicates.append(f"!({cond})")
            self.node(node.if_get_else_node(), indent)
            self.predicates.pop()
        return None

    def _reduction_loop(self, node: isl.AstNode, indent: int) -> None:
        """One reduction loop of a row: the lanes' accumulators, their tree, lane 0's update."""
        it, init, cond, inc = for_parts(node)
        stmt = self.scop.statement(_statement_name(node))
        ctype = abi.C_TYPES[self.scop.array(stmt.lhs.array).dtype]
        combine, identity = OPERATIONS[accumulated(stmt)[0]]
        part, cells = f"pc_tree{self.trees}", f"pc_cells{self.trees}"
        self.trees += 1
        self.declarations += [f"  __shared__ {ctype} {part}[{ROWS_PER_BLOCK}][{ROW_LANES}];",
                              f"  __shared__ {ctype} *{cells}[{ROWS_PER_BLOCK}][{ROW_LANES}];"]
        self.emit(indent, "{")
        sums = [f"pc_acc{u}" if u else "pc_acc" for u in range(LANE_SUMS)]
        self.emit(indent + 1, f"{ctype} " + ", ".join(f"{a} = ({ctype}){identity}" for a in sums)
                  + ";")
        self.emit(indent + 1, f"{ctype} *pc_cell = NULL;")
        self.emit(indent + 1, f"if ({self._predicate()}) {{")
        self._lane_loop(node, sums, indent + 2)
        self.emit(indent + 1, "}")
        if len(sums) > 1:
            self.emit(indent + 1, f"pc_acc = {f' {combine} '.join(sums)};")
        here = "[threadIdx.y][threadIdx.x]"
        self.emit(indent + 1, f"{part}{here} = pc_acc;")
        self.emit(indent + 1, f"{cells}{here} = pc_cell;")
        self.emit(indent + 1, "__syncthreads();")
        # pairwise, halving the lanes (a barrier after each step); the cell of any lane that
        # ran an iteration (every iteration of a row names the same cell)
        self.emit(indent + 1, "for (int pc_s = (int)blockDim.x / 2; pc_s > 0; pc_s /= 2) {")
        self.emit(indent + 2, "if ((int)threadIdx.x < pc_s) {")
        other = "[threadIdx.y][threadIdx.x + pc_s]"
        self.emit(indent + 3, f"{part}{here} = {part}{here} {combine} {part}{other};")
        self.emit(indent + 3, f"if ({cells}{here} == NULL) {cells}{here} = {cells}{other};")
        self.emit(indent + 2, "}")
        self.emit(indent + 2, "__syncthreads();")
        self.emit(indent + 1, "}")
        self.emit(indent + 1, f"if (threadIdx.x == 0 && {cells}[threadIdx.y][0] != NULL)")
        self.emit(indent + 2, f"*{cells}[threadIdx.y][0] {combine}= {part}[threadIdx.y][0];")
        self.emit(indent + 1, "__syncthreads();")  # the tree's arrays are reused; lane 0 wrote
        self.emit(indent, "}")

    def _lane_loop(self, node: isl.AstNode, sums: list[str], indent: int) -> None:
        """A lane's iterations of the reduction loop `node` (every ROW_LANES-th), in rounds of
        len(sums), the u-th iteration of a round added to sums[u], then the rest one by one
        into sums[0]. A round runs while its last iteration is in the loop: the loop's
        condition is an upper bound on its iterator (isl's AST: it increases), so the round's
        earlier iterations are in it too."""
        it, init, cond, inc = for_parts(node)
        step = f"(int)blockDim.x * {inc}"
        last = re.sub(rf"\b{re.escape(it)}\b", f"({it} + {len(sums) - 1} * {step})", cond)
        self.emit(indent, f"int {it} = {init} + (int)threadIdx.x * {inc};")
        self.in_loop = True
        if len(sums) > 1:
            self.emit(indent, f"for (; {last}; {it} += {len(sums)} * {step}) {{")
            for u, total in enumerate(sums):
                self.sum = total
                if u == 0:
                    self.node(node.for_get_body(), indent + 1)
                    continue
                self.emit(indent + 1, f"{{ const int pc_u = {it} + {u} * {step}; "
                                      f"{{ const int {it} = pc_u;")
                self.node(node.for_get_body(), indent + 2)
                self.emit(indent + 1, "} }")
            self.emit(indent, "}")
        self.sum = sums[0]
        self.emit(indent, f"for (; {cond}; {it} += {step}) {{")
        self.node(node.for_get_body(), indent + 1)
        self.emit(indent, "}")
        self.in_loop = False

    def user(self, node: isl.AstNode, indent: int) -> None:
        call = node.user_get_expr()
        if self.in_loop:
            stmt, text = statement_parts(self.scop, call)
            op, term = accumulated(stmt)  # row_reduction._reduction_loop: an update
            self.emit(indent, f"{{ pc_cell = &{text(stmt.lhs)}; {self.sum} {op} {text(term)}; }}")
            return
        # once per row (or a reduction loop of one iteration): lane 0, then a barrier so that
        # the other lanes of the row read what it wrote
        lane = ("threadIdx.x == 0" if self.in_row else
                "blockIdx.x == 0 && threadIdx.y == 0 && threadIdx.x == 0")
        self.emit(indent, f"if ({lane} && {self._predicate()}) "
                          f"{user_statement(self.scop, call)}")
        if self.in_row:
            self.emit(indent, "__syncthreads();")


def _statement_name(loop: isl.AstNode) -> str:
    """The one statement in the AST below `loop` (a reduction loop: one statement)."""
    names: list[str] = []

    def visit(child: isl.AstNode) -> bool:
        if child.get_type() == isl.ast_node_type.user:
            names.append(child.user_get_expr().get_op_arg(0).get_id().get_name())
        return True

    loop.foreach_descendant_top_down(visit)
    assert len(set(names)) == 1, f"a reduction loop of one statement, not {names}"
    return names[0]
