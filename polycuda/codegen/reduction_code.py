"""CUDA text of reduction kernels (gpu/mapping.py _reduction): the block's tree, the combine of
the blocks' totals into the cell (one block, atomics, or a partial-array pass), and the grid.

Shirako et al. 2017, Section 5.3 detect a reduction loop (every dependence it carries is one of
an associative and commutative update); Section 6 runs it as a thread-level tree reduction in
shared memory after Harris [31]. Where such a loop is the only parallelism (a dot product, a
norm), one block leaves the GPU idle: here the loop is spread over many blocks (a grid-stride
loop), each block reduces its share with the same tree, and the blocks' totals are combined
(Harris [31]'s multi-block reduction; the partial-array pass finishes in the last block, as
CUDA's threadFenceReduction sample does, instead of a second launch).
"""

from __future__ import annotations

from polycuda.analysis.reductions import OPERATIONS
from polycuda.gpu.mapping import REDUCTION_ITERATIONS, REDUCTION_THREADS
from polycuda.gpu.plan import (ATOMIC, CHAIN, COLUMNS, DUAL, ONE_BLOCK, PARTIAL_PASS, Kernel,
                               ReductionKernel, RowReductionKernel)
from polycuda.options import MAX_REDUCTION_BLOCKS

# Blocks of a launch per SM when Options.reduction_blocks is 0 (fill the GPU): enough resident
# blocks of 256 threads to hide the loads' latency (an H100 holds 8 per SM).
BLOCKS_PER_SM = 4
# Host variable of the driver with the most blocks of one reduction launch (grid_setup)
CAP = "pc_reduce_blocks"


def atomic_add(cell: str, value: str, ctype: str) -> str:
    """atomicAdd of `value` to the cell at pointer `cell` (C text; CUDA's 64-bit integer
    atomicAdd takes unsigned long long: a two's complement sum is the same)."""
    if ctype == "long long":
        return f"atomicAdd((unsigned long long *){cell}, (unsigned long long){value})"
    return f"atomicAdd({cell}, {value})"


def many_blocks(kernel: ReductionKernel) -> bool:
    """Whether the reduction kernel runs on a grid of blocks (else on one)."""
    return kernel.reduction_combine in (ATOMIC, PARTIAL_PASS, COLUMNS, DUAL, CHAIN)


def capped(kernel: ReductionKernel) -> bool:
    """Whether the kernel's grid is at most CAP blocks (grid_setup): a many-block reduction,
    or a row reduction whose rows differ in length or under Options.reduction_blocks
    (codegen/row_reduction_code.py deals its groups of rows to the grid in rounds)."""
    if isinstance(kernel, RowReductionKernel):
        return kernel.uneven_rows or kernel.reduction_blocks != 0
    return many_blocks(kernel)


def loop_start(kernel: ReductionKernel, init: str, inc: str) -> tuple[str, str]:
    """The first iteration of this thread and the stride of the loop's iterations over the
    threads of the launch (grid-stride: consecutive iterations on consecutive threads)."""
    if not many_blocks(kernel):
        return f"{init} + (int)threadIdx.x * {inc}", f"(int)blockDim.x * {inc}"
    return (f"{init} + (int)(blockIdx.x * blockDim.x + threadIdx.x) * {inc}",
            f"(int)(gridDim.x * blockDim.x) * {inc}")


def first_thread(kernel: ReductionKernel) -> str:
    """The condition selecting the one thread of the launch that runs an instance outside the
    loop (a statement of a single iteration): its value then enters the cell once."""
    return "threadIdx.x == 0" if not many_blocks(kernel) else \
        "blockIdx.x == 0 && threadIdx.x == 0"


def declarations(kernel: ReductionKernel, name: str, ctype: str) -> list[str]:
    """File-scope variables of the reduction kernel `name` (the partial-array pass): each
    block's total, the cell, and the count of blocks done. atomicInc wraps the count to 0 in
    the last block and the last block clears the cell, so the next launch starts afresh;
    launches of one kernel are ordered (one stream), as the entries issue them."""
    if kernel.reduction_combine != PARTIAL_PASS:
        return []
    # named after the kernel, so that a renaming of the kernel renames them too
    # (inspector_cuda.static_part: kernel3 -> <region>_kernel3)
    return [f"static __device__ {ctype} {name}_partial[{MAX_REDUCTION_BLOCKS}];",
            f"static __device__ {ctype} *volatile {name}_cell = NULL;",
            f"static __device__ unsigned int {name}_done = 0;"]


def prologue(ctype: str, identity: str) -> list[str]:
    """Kernel lines before the loop: the shared tree, the cell (NULL until an iteration of the
    block names it: a block without iterations applies nothing), this thread's accumulator."""
    return [f"  __shared__ {ctype} pc_part[{REDUCTION_THREADS}];",
            f"  __shared__ {ctype} *pc_cell;",
            f"  {ctype} pc_acc = ({ctype}){identity};",
            "  if (threadIdx.x == 0) pc_cell = NULL;",
            "  __syncthreads();"]


def _tree(op: str, indent: str) -> list[str]:
    """The threads' values in pc_part combined pairwise, halving the threads at each step (a
    barrier after each): the total in pc_part[0]."""
    return [f"{indent}for (int pc_s = (int)blockDim.x / 2; pc_s > 0; pc_s /= 2) {{",
            f"{indent}  if ((int)threadIdx.x < pc_s)",
            f"{indent}    pc_part[threadIdx.x] = pc_part[threadIdx.x] {op} "
            "pc_part[threadIdx.x + pc_s];",
            f"{indent}  __syncthreads();",
            f"{indent}}}"]


def epilogue(kernel: ReductionKernel, name: str, ctype: str) -> list[str]:
    """Kernel lines after the loop: the block's tree, then the cell updated once by the total of
    every block (kernel.reduction_combine). The cell holds its value from before the loop: the
    totals are applied to it, so that value counts once.

    ONE_BLOCK: thread 0 applies the block's total. ATOMIC: thread 0 of every block that ran an
    iteration adds its total with atomicAdd (a sum of `-= e` is one of the -e). PARTIAL_PASS:
    thread 0 of each block stores its total at its block index, publishes the cell, fences,
    and counts the block done; the last block combines the totals in block order (a fixed
    order, whichever block is last) with its threads and its tree, and applies the result.
    """
    op = OPERATIONS[kernel.reduction][0]
    lines = ["  pc_part[threadIdx.x] = pc_acc;", "  __syncthreads();", *_tree(op, "  ")]
    if kernel.reduction_combine == ONE_BLOCK:
        return [*lines, f"  if (threadIdx.x == 0 && pc_cell != NULL) *pc_cell {op}= pc_part[0];"]
    if kernel.reduction_combine == ATOMIC:
        assert op == "+", f"no atomic combine for {kernel.reduction}"
        return [*lines, f"  if (threadIdx.x == 0 && pc_cell != NULL) "
                        f"{atomic_add('pc_cell', 'pc_part[0]', ctype)};"]
    identity = OPERATIONS[kernel.reduction][1]
    partial, cell, done = f"{name}_partial", f"{name}_cell", f"{name}_done"
    return [*lines,
            "  __shared__ bool pc_last;",
            "  if (threadIdx.x == 0) {",
            f"    {partial}[blockIdx.x] = pc_part[0];",
            f"    if (pc_cell != NULL) {cell} = pc_cell;",
            "    __threadfence();",
            f"    pc_last = atomicInc(&{done}, gridDim.x - 1) == gridDim.x - 1;",
            "  }",
            "  __syncthreads();",
            "  if (pc_last) {",
            f"    {ctype} pc_sum = ({ctype}){identity};",
            "    for (int pc_b = (int)threadIdx.x; pc_b < (int)gridDim.x; pc_b += (int)blockDim.x)",
            f"      pc_sum = pc_sum {op} ((volatile {ctype} *){partial})[pc_b];",
            "    pc_part[threadIdx.x] = pc_sum;",
            "    __syncthreads();",
            *_tree(op, "    "),
            "    if (threadIdx.x == 0) {",
            f"      {ctype} *const pc_target = {cell};",
            f"      if (pc_target != NULL) *pc_target {op}= pc_part[0];",
            f"      {cell} = NULL;",
            "    }",
            "  }"]


def grid_setup(kernels: list[Kernel]) -> list[str]:
    """Driver lines that set CAP, the most blocks of one reduction launch, when a kernel's grid
    is capped: Options.reduction_blocks (kernel.reduction_blocks), or 0 for BLOCKS_PER_SM per SM
    of the current GPU, read at run time (at most MAX_REDUCTION_BLOCKS, the partial array)."""
    limited = [k for k in kernels if isinstance(k, ReductionKernel) and capped(k)]
    if not limited:
        return []
    fixed = {k.reduction_blocks for k in limited}
    if fixed != {0}:
        assert len(fixed) == 1, "one Options.reduction_blocks per region"
        return [f"const long long {CAP} = {fixed.pop()};"]
    return ["int pc_reduce_dev = 0, pc_reduce_sms = 0;",
            "PC_CHECK(cudaGetDevice(&pc_reduce_dev));",
            ("PC_CHECK(cudaDeviceGetAttribute(&pc_reduce_sms, cudaDevAttrMultiProcessorCount, "
             "pc_reduce_dev));"),
            (f"const long long {CAP} = pc_max(1LL, pc_min({BLOCKS_PER_SM}LL * pc_reduce_sms, "
             f"{MAX_REDUCTION_BLOCKS}LL));")]


def grid(kernel: ReductionKernel, length: str | None) -> str:
    """The grid of a reduction launch whose loop has `length` iterations (C text in the host's
    iterators and the parameters; None: not known, then CAP): a block per REDUCTION_THREADS *
    REDUCTION_ITERATIONS iterations, at least one, at most CAP. Any grid is correct (the loop
    is grid-stride); a block without iterations adds nothing."""
    count = blocks(kernel, length)
    return "dim3(1)" if count == "1" else f"dim3((unsigned){count})"


def blocks(kernel: ReductionKernel, length: str | None) -> str:
    """The block count of grid() (C text, long long)."""
    if not many_blocks(kernel):
        return "1"
    if length is None:
        return CAP
    per_block = REDUCTION_THREADS * REDUCTION_ITERATIONS
    return f"pc_min(pc_max(pc_ceild({length}, {per_block}LL), 1LL), {CAP})"
