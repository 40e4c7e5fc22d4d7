"""Dual reductions: two reductions of one matrix in one pass over it (issue 15, item 3).

bicg computes q[i] += A[i][j] * p[j] and s[j] += r[i] * A[i][j]; mvt x1[i] += A[i][j] * y1[j]
and x2[i] += A[j][i] * y2[j]. Each is a reduction loop in Shirako et al. 2017's sense (Section
5.3: every dependence the loop carries is one of an associative and commutative update), the
first along the columns of the matrix (a row reduction, gpu/row_reduction.py), the second along
its rows (a column-split reduction, gpu/column_reduction.py). Mapped apart they read the
matrix twice: on the H100 each pass runs near the copy bandwidth, so the pair reaches ~45% of
it (kernel-blas2.json, 2026-11-25). Here both statements get one band over the matrix's
subscripts, { R[x] -> [r, c] ; C[y] -> [r, c] }, the element each instance reads, and run in
one kernel (codegen/dual_reduction_code.py): the columns on threadIdx.x and blockIdx.x (reads
coalesce, as Section 5.2's thread-x choice wants), batches of rows on blockIdx.y; per row a
warp sum of the row statement's terms, the warps' sums added in shared memory and once per
block to the row's cell with atomicAdd; each thread's sum of the column statement's terms
added to its column's cell once per block. The prototype on the H100 (n = m = 8192, double)
ran 0.203 ms against 0.378 ms for cuBLAS's two dgemv, 2.6 TB/s.

Applied only where isl proves it: both statements `+=`/`-=` updates of one cell per matrix row
(R) or per matrix column (C), reading the matrix through an injective map onto the same box of
elements, no dependence between the two, no read of a cell either updates, and the new order
(the other statements of the subtree first or last, the pair in row-major order of the
matrix) keeping every dependence among the instances that reach the subtree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import islpy as isl

from polycuda.analysis import reductions as reductions_
from polycuda.gpu import shared_promotion, staging
from polycuda.ir import isl_build
from polycuda.schedule import legality

_N = isl.schedule_node_type
# rows per batch: a warp's lanes then combine the batch's row sums (one row per lane)
BATCH_ROWS = 32
# threads of a block: its columns (8 warps)
DUAL_THREADS = 256


@dataclass(frozen=True)
class Pair:
    """The two statements of a dual reduction and their common band.

    # schedule: { R[x] -> [r, c] ; C[y] -> [r, c] } the element of `array` each reads
    """

    row: str  # its cell follows the matrix row r: it reduces along c
    column: str  # its cell follows the matrix column c: it reduces along r
    array: str
    schedule: isl.UnionMap


def find(domain: isl.UnionSet, reductions: dict[str, reductions_.Update],
         accesses: staging.Accesses, dep_map: isl.UnionMap, taken: set[str]) -> Pair | None:
    """The first dual pair among the statements of `domain` not in `taken` (the module
    docstring's conditions), or None.

    # domain: { S[x] } the instances that reach the subtree
    """
    for row, column, array, read_row, read_column, _ in candidates(domain, reductions,
                                                                   accesses, taken):
        pair = Pair(row, column, array, element_band(read_row).union(element_band(read_column)))
        if _independent(pair, domain, reductions, accesses, dep_map):
            return pair
    return None


def candidates(domain: isl.UnionSet, reductions: dict[str, reductions_.Update],
               accesses: staging.Accesses, taken: set[str], own_reads: bool = True
               ) -> Iterator[tuple[str, str, str, isl.Map, isl.Map, isl.UnionMap]]:
    """(row, column, array, row's read, column's read, the writes of `domain`) for each
    ordered pair of distinct `+=` / `-=` updates of `domain` not in `taken` (without
    `own_reads`: neither reading its own array) and each matrix they both read
    (matrix_reads): the pairs that this module and gpu/chain_reduction.py test further."""
    names = [n for n in isl_build.statement_names(domain)
             if n in reductions and reductions[n].op in ("+=", "-=") and n not in taken
             and (own_reads or not reductions[n].self_reads)]
    if len(names) < 2:
        return
    written = accesses.writes.intersect_domain(domain)
    written_arrays = set(isl_build.statement_names(written.range()))
    for row in names:
        for column in names:
            if row == column:
                continue
            for array, read_row, read_column in matrix_reads(domain, row, column, accesses,
                                                             written, written_arrays):
                yield row, column, array, read_row, read_column, written


def own_maps(umap: isl.UnionMap, domain: isl.UnionSet, name: str) -> list[isl.Map]:
    """The maps of `umap` from statement `name`'s instances in `domain`."""
    return [m for m in isl_build.maps_of(umap.intersect_domain(domain))
            if m.get_tuple_name(isl.dim_type.in_) == name]


def statement_set(domain: isl.UnionSet, name: str) -> isl.UnionSet:
    """The instances of statement `name` in `domain`."""
    found = [s for s in isl_build.sets_of(domain) if s.get_tuple_name() == name]
    return isl.UnionSet.from_set(found[0])


def matrix_reads(domain: isl.UnionSet, row: str, column: str, accesses: staging.Accesses,
                 written: isl.UnionMap, written_arrays: set[str]
                 ) -> Iterator[tuple[str, isl.Map, isl.Map]]:
    """(array, row's read, column's read) for each 2-D array that neither statement writes
    (`written_arrays`: none in `domain`) and both read once, injectively onto one box of
    elements, `row` writing one cell per element row and `column` one per element column
    (_matches); this module's pairs and gpu/chain_reduction.py's."""
    writes = {n: own_maps(written, domain, n) for n in (row, column)}
    if any(len(w) != 1 for w in writes.values()):
        return
    reads = {n: own_maps(accesses.reads, domain, n) for n in (row, column)}
    for read in reads[row]:
        array = read.get_tuple_name(isl.dim_type.out)
        if read.dim(isl.dim_type.out) != 2 or array in written_arrays:
            continue
        other = [m for m in reads[column] if m.get_tuple_name(isl.dim_type.out) == array]
        mine = [m for m in reads[row] if m.get_tuple_name(isl.dim_type.out) == array]
        if len(other) != 1 or len(mine) != 1:
            continue
        if _matches(mine[0], other[0], writes[row][0], writes[column][0]):
            yield array, mine[0], other[0]


def _matches(read_row: isl.Map, read_column: isl.Map, write_row: isl.Map,
             write_column: isl.Map) -> bool:
    """Whether both reads are injective onto one box of elements, the row statement's cell
    is one per element row and the column statement's one per element column."""
    if not (read_row.is_injective() and read_column.is_injective()):
        return False
    image = read_row.range()
    if not image.is_equal(read_column.range()) or not shared_promotion.rectangular(
            isl.UnionSet.from_set(image)):
        return False
    return (_keyed(read_row.reverse().apply_range(write_row), 0)
            and _keyed(read_column.reverse().apply_range(write_column), 1))


def _keyed(cell: isl.Map, axis: int) -> bool:
    """Whether two elements share a cell exactly when they share subscript `axis`.

    # cell: { X[r, c] -> Y[f] }
    """
    if not cell.is_single_valued():
        return False
    same_cell = cell.apply_range(cell.reverse())  # { X[a] -> X[b] : same cell }
    same_axis = isl.Map.from_domain_and_range(cell.domain(), cell.domain())
    same_axis = same_axis.equate(isl.dim_type.in_, axis, isl.dim_type.out, axis)
    return same_cell.is_equal(same_axis)


def element_band(read: isl.Map) -> isl.UnionMap:
    """{ S[x] -> [r, c] }: the element that `read` reads, as a schedule."""
    return isl.UnionMap.from_map(read.reset_tuple_id(isl.dim_type.out))


def _independent(pair: Pair, domain: isl.UnionSet, reductions: dict[str, reductions_.Update],
                 accesses: staging.Accesses, dep_map: isl.UnionMap) -> bool:
    """No dependence between the two statements, and no read of either's cells by either
    (the reduction's own reads of its array: analysis/reductions.Update.self_reads)."""
    ctx = domain.get_ctx()
    own = {n: statement_set(domain, n) for n in (pair.row, pair.column)}
    both = own[pair.row].union(own[pair.column])
    cross = dep_map.intersect_domain(own[pair.row]).intersect_range(own[pair.column]).union(
        dep_map.intersect_domain(own[pair.column]).intersect_range(own[pair.row]))
    if not cross.is_empty():
        return False
    cells = accesses.writes.intersect_domain(both).range()
    for name in (pair.row, pair.column):
        for text in reductions[name].self_reads:
            read = isl.UnionMap(text, context=ctx).intersect_domain(both)
            if not read.range().intersect(cells).is_empty():
                return False
    return True


def fused(node: isl.ScheduleNode, pair: Pair, dep_map: isl.UnionMap
          ) -> tuple[isl.ScheduleNode, isl.ScheduleNode] | None:
    """The subtree at `node` rebuilt (reordered): the pair's statements under one band
    (Pair.schedule). Returned: (the node at `node`'s position, the pair's band), or None."""
    domain = node.get_domain()
    own = statement_set(domain, pair.row).union(statement_set(domain, pair.column))
    schedule = isl.MultiUnionPwAff.from_union_map(pair.schedule.intersect_domain(own))

    def insert(cut: isl.ScheduleNode) -> isl.ScheduleNode:
        return cut.insert_partial_schedule(schedule).band_set_permutable(True)

    return reordered(node, own, insert, dep_map)


def reordered(node: isl.ScheduleNode, own: isl.UnionSet,
              insert: Callable[[isl.ScheduleNode], isl.ScheduleNode], dep_map: isl.UnionMap
              ) -> tuple[isl.ScheduleNode, isl.ScheduleNode] | None:
    """The subtree at `node` rebuilt: the instances `own` in the subtree that `insert` builds
    at a leaf (returning its top node), the other statements of the subtree before them (in
    their own schedule, restricted), or after them when that order is not legal. Returned:
    (the node at `node`'s position, `insert`'s top node), when the new subtree keeps every
    dependence among the instances that reach `node` with one prefix (checked with isl);
    None otherwise. This module's pairs and gpu/chain_reduction.py's chains.

    # same: { S[x] -> T[y] } dependences `node` must order; subtree: { S[x] -> [...] }
    """
    depth = node.get_tree_depth()
    others = node.get_domain().subtract(own)
    same = legality.same_prefix(node, dep_map)
    for first in (True, False):
        if others.is_empty():
            top = node
        elif first:  # others first: the pair is the second subset
            top = node.order_before(others)
        else:
            top = node.order_after(others)
        inserted = insert(top.cut())
        at = inserted.ancestor(inserted.get_tree_depth() - depth)
        subtree = at.get_subtree_schedule_union_map()
        if same.is_subset(subtree.lex_lt_union_map(subtree)):
            return at, inserted
        if others.is_empty():
            return None
    return None
