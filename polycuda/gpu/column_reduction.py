"""Column-split reductions, and the distribution of a band over statements whose reductions
coalesce along different loops (issue 15, item 3).

A parallel loop P whose body is a reduction loop R of one `+=` / `-=` statement, where P is
the coalescing loop (y[j] += A[i][j] * x[i]: j = P, i = R), runs with P on threadIdx.x and
blockIdx.x and R split into chunks on blockIdx.y: each thread sums its column over its chunk
and adds the sum to the cell with atomicAdd (codegen/column_reduction_code.py). The DOALL
mapping of such a loop has only |P| threads, each walking all of R; the chunks fill the GPU.
This is Shirako et al. 2017's reduction loop (Section 5.3: every dependence R carries is one
of an associative and commutative update) with the block level taking the reduction loop and
the thread level the coalescing one (Section 5.2, the DL model's thread_x choice), the
blocks' partial results combined as in the many-block reductions (codegen/reduction_code.py).

A band whose body is a sequence of statements, some of which would then run as row or column
reductions alone (mvt, bicg: A[i][j] and A[j][i] in one fused nest), is distributed into one
band per child of the sequence when isl proves that order keeps every dependence (distributed).
"""

from __future__ import annotations

import islpy as isl

from polycuda.analysis import reductions as reductions_
from polycuda.gpu import row_reduction, staging
from polycuda.ir import isl_build
from polycuda.schedule import legality

# Threads of a column block (a power of two, 8 warps: each warp reads 32 consecutive elements)
COLUMN_THREADS = 256
# Iterations of the reduction loop per thread below which no further chunk is added: the
# atomicAdd of a chunk's sum is paid for by at least this many loads
MIN_CHUNK = 32
# Chunks of the reduction loop at most (CUDA's grid limit along y)
MAX_CHUNKS = 65535

_N = isl.schedule_node_type


def column_statement(band: isl.ScheduleNode, reductions: dict[str, reductions_.Update],
                     accesses: staging.Accesses) -> str | None:
    """The statement of the reduction loop R below the 1-member parallel band `band` (P),
    when R is a 1-member band of one `+=` or `-=` statement at its leaf that updates one cell
    per P and reads no cell it updates (row_reduction._reduction_loop), R's length is not a
    constant (a parameter), and the statement's reads coalesce along P; else None.

    # band: { S[x] -> [p] }; R: { S[x] -> [r] }
    """
    inner = band.child(0)
    if inner.get_type() != _N.band or inner.band_n_member() != 1:
        return None
    name = row_reduction._reduction_loop(inner, reductions, accesses)
    if name is None or reductions[name].op not in ("+=", "-="):
        return None
    if not _parametric(inner) or not row_reduction.coalesces_along(band, name, accesses,
                                                                    inner):
        return None
    return name


def _parametric(loop: isl.ScheduleNode) -> bool:
    """Whether the 1-member band `loop` spans a range that no constant bounds.

    # values: { [r] } over the instances that reach the band
    """
    values = loop.get_domain().apply(loop.band_get_partial_schedule_union_map())
    for one in isl_build.sets_of(values):
        extent = one.dim_max(0).sub(one.dim_min(0))
        if not extent.is_cst():
            return True
    return False


def distributed(band: isl.ScheduleNode, dep_map: isl.UnionMap | None
                ) -> isl.ScheduleNode | None:
    """The band `band` (its first member parallel) whose child is a sequence, distributed
    over that sequence: a sequence of the same children, each below a copy of `band`
    restricted to its statements (permutable and coincident flags kept: fewer statements
    carry no more dependences). Returned (the new sequence node, at `band`'s position) only
    when every dependence among the instances that reach `band` with one prefix still goes
    forward in the new order (checked with isl); None otherwise or without dependences.

    # dep_map: { S[x] -> T[y] }; subtree: { S[x] -> [position, band members, ...] }
    """
    if dep_map is None or band.child(0).get_type() != _N.sequence:
        return None
    same = legality.same_prefix(band, dep_map)
    partial = band.band_get_partial_schedule()
    permutable = band.band_get_permutable()
    coincident = [band.band_member_get_coincident(k) for k in range(band.band_n_member())]
    node = band.delete()  # the sequence, in the band's place
    for k in range(node.n_children()):
        child = node.child(k)
        copy = child.child(0).insert_partial_schedule(
            partial.intersect_domain(child.filter_get_filter()))
        copy = copy.band_set_permutable(permutable)
        for m, flag in enumerate(coincident):
            copy = copy.band_member_set_coincident(m, flag)
        node = copy.parent().parent()
    subtree = node.get_subtree_schedule_union_map()
    if not same.is_subset(subtree.lex_lt_union_map(subtree)):
        return None
    return node
