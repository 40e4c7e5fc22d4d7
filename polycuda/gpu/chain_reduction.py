"""Chained reductions: a row reduction and a column reduction that reads the row's result, in
one pass over the matrix (issue 15, item 3: atax's BLAS-2 bandwidth).

atax computes tmp[i] += A[i][j] * x[j] (a row reduction, gpu/row_reduction.py) and then, in
the same row i, y[j] += A[i][j] * tmp[i] (a reduction along the rows: a column-split
reduction, gpu/column_reduction.py). Both are reduction loops in Shirako et al. 2017's sense
(Section 5.3). Mapped apart they read the matrix twice and reach ~46% of the H100's copy
bandwidth (nonstencil-a682910.json); unlike a dual pair (gpu/dual_reduction.py) the column
statement needs the row's whole sum first, so the columns of a row cannot be split over
blocks. Here a block takes whole rows (blockIdx.x, a grid-stride loop), its CHAIN_THREADS
threads the columns c = t, t + CHAIN_THREADS, ...: per row each thread loads its first
CHAIN_SLOTS elements into registers and sums the row statement's terms; a block sum (warp
shuffles, then the warps' sums) is added to the row's cell, and after a barrier the same
registers give the column statement's terms, summed per column over the block's rows in
registers and added to the column's cell with one atomicAdd per block at the end
(codegen/chain_reduction_code.py). The matrix is read once. The prototype on the H100 (n = m
= 8192, double, bench/chain_prototype.py) ran 0.191 ms, 95% of the copy bandwidth, the speed
of one read of A, against 0.374 ms for cuBLAS's two dgemv (...-chain-prototype.json).

Columns beyond CHAIN_THREADS x CHAIN_SLOTS (8192) of a row are read from memory again for the
column statement and added to their cells with one atomicAdd each: correct at any size. At m =
8192, n = 12000 the kernel still ran 0.397 ms against 0.577 for the two kernels (kernel-only,
one run: ...-chain-past.json); larger n is not measured.

Applied only where isl proves it: both statements `+=`/`-=` updates, of different arrays, one
cell per matrix row (the row statement R) or per matrix column (the column statement C), both
reading the matrix through an injective map onto the same box of elements (as a dual pair:
dual_reduction.matrix_reads); neither term reads its own array; R reads no cell of C, and C
reads R's cells only at its own matrix row (so a row's block has the row's sum when C runs);
and the new order (the other statements of the subtree first or last, then row by row all of
R's instances of the row before C's) keeps every dependence among the instances that reach
the subtree (dual_reduction.reordered). Across rows the kernel then only reorders C's
updates of one cell, which commute (the reassociation the row and column rules allow).
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polycuda.analysis import reductions as reductions_
from polycuda.gpu import dual_reduction, staging
from polycuda.ir import isl_build

# threads of a block: the columns of a row, one row at a time
CHAIN_THREADS = 1024
# elements of a row each thread keeps in registers (CHAIN_THREADS x CHAIN_SLOTS columns);
# the prototype's 8 at 1024 threads: 95% of the copy bandwidth at n = 8192
CHAIN_SLOTS = 8


@dataclass(frozen=True)
class Chain:
    """The two statements of a chained reduction and their bands.

    # rows: { R[x] -> [r] ; C[y] -> [r] }; columns: { R[x] -> [c] ; C[y] -> [c] }, the
    # subscripts of the matrix element each instance reads
    """

    row: str  # R: one cell per matrix row, reduced along c
    column: str  # C: one cell per matrix column, reads R's cell of its row
    rows: isl.UnionMap
    columns: isl.UnionMap


def find(domain: isl.UnionSet, reductions: dict[str, reductions_.Update],
         accesses: staging.Accesses, taken: set[str]) -> Chain | None:
    """The first chain among the statements of `domain` not in `taken` (the module
    docstring's conditions but the order's legality: `fused`), or None.

    # domain: { S[x] } the instances that reach the subtree
    """
    for row, column, _, read_row, read_column, written in dual_reduction.candidates(
            domain, reductions, accesses, taken, own_reads=False):
        if _chained(domain, row, column, read_row, read_column, accesses, written):
            return Chain(row, column, _member(read_row, read_column, 0),
                         _member(read_row, read_column, 1))
    return None


def _member(read_row: isl.Map, read_column: isl.Map, axis: int) -> isl.UnionMap:
    """{ R[x] -> [a] ; C[y] -> [a] }: subscript `axis` of the element each reads."""
    drop = 1 - axis
    return _project(read_row, drop).union(_project(read_column, drop))


def _project(read: isl.Map, drop: int) -> isl.UnionMap:
    """The read's element with subscript `drop` projected out, as a schedule."""
    return dual_reduction.element_band(read.project_out(isl.dim_type.out, drop, 1))


def _chained(domain: isl.UnionSet, row: str, column: str, read_row: isl.Map,
             read_column: isl.Map, accesses: staging.Accesses, written: isl.UnionMap) -> bool:
    """Whether R and C write different arrays, R reads no cell of C and of its own array
    only its cell, and C reads no cell of its own array but its cell and of R's array the
    cell R has at C's matrix row only (and that one: else a dual pair).

    # row_cell: { C[y] -> X[f] } the cell of R at the element row C reads
    """
    write_row = dual_reduction.own_maps(written, domain, row)[0]
    write_column = dual_reduction.own_maps(written, domain, column)[0]
    if write_row.get_tuple_name(isl.dim_type.out) == write_column.get_tuple_name(
            isl.dim_type.out):
        return False
    cells_row = isl.UnionSet.from_set(write_row.range())
    cells_column = isl.UnionSet.from_set(write_column.range())
    reads = {n: accesses.reads.intersect_domain(dual_reduction.statement_set(domain, n))
             for n in (row, column)}
    if not reads[row].intersect_range(cells_column).is_empty():
        return False
    if not reads[row].intersect_range(cells_row).is_subset(isl.UnionMap.from_map(write_row)):
        return False
    if not reads[column].intersect_range(cells_column).is_subset(
            isl.UnionMap.from_map(write_column)):
        return False
    row_cell = read_column.apply_range(read_row.reverse()).apply_range(write_row)
    chained = reads[column].intersect_range(cells_row)
    # no read of R's cells: a dual pair (gpu/dual_reduction.py), mapped there or apart
    return not chained.is_empty() and chained.is_subset(isl.UnionMap.from_map(row_cell))


def fused(node: isl.ScheduleNode, chain: Chain, dep_map: isl.UnionMap
          ) -> tuple[isl.ScheduleNode, isl.ScheduleNode] | None:
    """The subtree at `node` rebuilt: the chain's statements under one band over the matrix
    rows (Chain.rows), below it R then C, each under a band over the columns
    (Chain.columns); the others first or last (dual_reduction.reordered). Returned: (the
    node at `node`'s position, the rows band), or None where isl finds the order illegal or
    the loops around `node` already separate some of the chain's instances (its prefix
    schedule is not one point over them)."""
    domain = node.get_domain()
    own = {n: dual_reduction.statement_set(domain, n) for n in (chain.row, chain.column)}
    both = own[chain.row].union(own[chain.column])
    prefix = node.get_prefix_schedule_union_map().intersect_domain(both).range()
    if not all(s.is_singleton() for s in isl_build.sets_of(prefix)):
        return None  # the loops around `node` split the matrix: a kernel per row, or worse
    rows = isl.MultiUnionPwAff.from_union_map(chain.rows.intersect_domain(both))

    def insert(cut: isl.ScheduleNode) -> isl.ScheduleNode:
        band = cut.insert_partial_schedule(rows)
        filters = isl.UnionSetList.alloc(band.get_ctx(), 2)
        for name in (chain.row, chain.column):
            filters = filters.add(own[name])
        seq = band.child(0).insert_sequence(filters)
        for k, name in enumerate((chain.row, chain.column)):
            columns = isl.MultiUnionPwAff.from_union_map(
                chain.columns.intersect_domain(own[name]))
            seq = seq.child(k).child(0).insert_partial_schedule(columns).parent().parent()
        return seq.parent()

    return dual_reduction.reordered(node, both, insert, dep_map)
