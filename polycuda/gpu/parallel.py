"""The parallel check of a mapped schedule: every loop that a kernel runs on blocks or threads
proved race-free (schedule/legality.py), by what its mark means and, below a thread or a
reduce mark, by the kernel's kind (PARALLEL_CHECKS, one entry per kind)."""

from __future__ import annotations

from collections.abc import Callable

import islpy as isl

from polycuda.gpu.plan import (KERNEL_MARK, REDUCE_MARK, THREAD_MARK, ChainReductionKernel,
                               ColumnReductionKernel, DoallKernel, DualReductionKernel, Kernel,
                               KindTable, MappedSchedule, RowReductionKernel, SerialKernel,
                               TreeReductionKernel, WavefrontKernel)
from polycuda.schedule import legality

# check(kernel, mark, dep_map): the loops below the kernel's thread or reduce mark `mark`
Check = Callable[[Kernel, isl.ScheduleNode, isl.UnionMap], None]


def check_parallel(mapped: MappedSchedule, dep_map: isl.UnionMap) -> None:
    """Prove every parallel loop race-free (legality.py), or raise IllegalScheduleError.

    The tile band below a kernel mark runs on blocks, the point band below a thread mark
    on threads; a wavefront kernel's threads run the point bands below its intra-tile
    wavefront band, statement by statement, barriers between them where marked.

    # dep_map: { S[x] -> R[y] } in the schedule's (lifted) domain
    """
    marks: list[isl.ScheduleNode] = []

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.mark:
            marks.append(node.copy())
        return True

    mapped.schedule.get_root().foreach_descendant_top_down(visit)
    kernels = {k.name: k for k in mapped.kernels}
    for mark in marks:
        kind, _, name = mark.mark_get_id().get_name().partition(":")
        if kind == KERNEL_MARK:
            legality.check_parallel(mark.child(0), dep_map, f"{name}: blocks")
        elif kind in (THREAD_MARK, REDUCE_MARK):
            PARALLEL_CHECKS[kernels[name]](kernels[name], mark, dep_map)


def _threads(kernel: Kernel, mark: isl.ScheduleNode, dep_map: isl.UnionMap) -> None:
    legality.check_parallel(mark.child(0), dep_map, f"{kernel.name}: threads")


def _wavefront_threads(kernel: Kernel, mark: isl.ScheduleNode, dep_map: isl.UnionMap) -> None:
    w_band = mark.child(0)
    point_map, separated = _wavefront_points(w_band.child(0))
    legality.check_threads(w_band, point_map, separated, dep_map, f"{kernel.name}: threads")


def _none(kernel: Kernel, mark: isl.ScheduleNode, dep_map: isl.UnionMap) -> None:
    """A one-thread kernel runs nothing in parallel; a tree reduction's loop is one update
    statement of one cell that reads no other (mapping._reduction proved it)."""


def _rows(kernel: Kernel, mark: isl.ScheduleNode, dep_map: isl.UnionMap) -> None:
    # the rows run on blocks and rows of threads; within a row, the reduction loops' own
    # dependences are those mapping._row_reduction proved to commute
    legality.check_parallel(mark.child(0), dep_map, f"{kernel.name}: rows")


def _columns(kernel: Kernel, mark: isl.ScheduleNode, dep_map: isl.UnionMap) -> None:
    # the columns run on threads; the chunks of the reduction loop commute
    # (mapping._column_reduction proved it one cell per column, no cell read): only the
    # reduction statement's own updates may join two chunks (a fused producer's instances
    # none: gpu/producer_fusion.py)
    assert isinstance(kernel, ColumnReductionKernel)
    legality.check_parallel(mark.child(0), dep_map, f"{kernel.name}: columns")
    legality.check_parallel(mark.child(0).child(0), dep_map, f"{kernel.name}: chunks",
                            updates=(kernel.reduction_statement,))


def _dual(kernel: Kernel, mark: isl.ScheduleNode, dep_map: isl.UnionMap) -> None:
    # columns on threads, batches of rows on blocks: every dependence between two instances
    # of the band joins two updates by one of its statements (of one cell and read by
    # neither: dual_reduction.find proved it), which commute
    assert isinstance(kernel, DualReductionKernel)
    legality.check_parallel(mark.child(0), dep_map, f"{kernel.name}: rows and columns",
                            updates=kernel.dual_statements)


def _chain(kernel: Kernel, mark: isl.ScheduleNode, dep_map: isl.UnionMap) -> None:
    # rows on blocks: only C's updates of one cell join two rows; within a row R's instances
    # (updates of the row's cell), then after a barrier C's (gpu/chain_reduction.py)
    assert isinstance(kernel, ChainReductionKernel)
    row, column = kernel.dual_statements
    rows = mark.child(0)
    legality.check_parallel(rows, dep_map, f"{kernel.name}: rows", updates=(column,))
    for k, updates in enumerate(((row,), ())):
        legality.check_parallel(rows.child(0).child(k).child(0), dep_map,
                                f"{kernel.name}: columns", updates=updates)


# The loops below a kernel's thread mark (DOALL, wavefront) or reduce mark (the reduction
# kinds); a producer fusion kernel takes the column kernel's check.
PARALLEL_CHECKS: KindTable[Check] = KindTable("parallel check", {
    DoallKernel: _threads, WavefrontKernel: _wavefront_threads, SerialKernel: _none,
    TreeReductionKernel: _none, RowReductionKernel: _rows, ColumnReductionKernel: _columns,
    DualReductionKernel: _dual, ChainReductionKernel: _chain})


def _wavefront_points(below: isl.ScheduleNode) -> tuple[isl.UnionMap, isl.UnionMap]:
    """The thread coordinates of the statements below a wavefront kernel's intra-tile
    wavefront band (one point band, or one per child of a sequence), and the pairs of
    statements that a barrier orders (the children before and after a barrier mark).

    # returns { S[x] -> [P1, ...] }, { S[x] -> R[y] }
    """
    if below.get_type() == isl.schedule_node_type.band:
        return below.band_get_partial_schedule_union_map(), isl.UnionMap.empty(
            below.get_domain().get_space())
    children = [below.child(k) for k in range(below.n_children())]
    points = isl.UnionMap.empty(below.get_domain().get_space())
    separated = isl.UnionMap.empty(below.get_domain().get_space())
    for k, child in enumerate(children):
        band = child.child(0)
        if band.get_type() == isl.schedule_node_type.mark:  # a barrier before this child
            for earlier in children[:k]:
                separated = separated.union(isl.UnionMap.from_domain_and_range(
                    earlier.filter_get_filter(), child.filter_get_filter()))
            band = band.child(0)
        # the band's partial schedule may name other children's statements: only this one's
        points = points.union(band.band_get_partial_schedule_union_map()
                              .intersect_domain(child.filter_get_filter()))
    return points, separated
