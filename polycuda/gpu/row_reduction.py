"""Row reductions: a parallel loop whose body reduces along an inner loop (y[i] += A[i][j] * x[j])
mapped with the parallel loop on blocks and the reduction loop on the threads of each row.

Shirako et al. 2017, Section 5.3 classify a loop as a reduction when every dependence it carries
is one of an associative and commutative update; Section 6 (gemver) runs such a loop as a
thread-level tree reduction in shared memory, so that the threads can take the loop that makes
the accesses coalesce (Section 5.2, the extended DL model: Algorithm 2 puts the loop with the
best coalesced accesses on thread_x, reduction loops included). Here: a 1-member parallel band P
whose body is reduction loops R of one update statement each (and statements run once per row
before or after them) becomes a kernel of blocks of ROWS_PER_BLOCK x ROW_LANES threads: row
k of P on threadIdx.y of some block, R's iterations on the ROW_LANES lanes of the row, then a
tree in shared memory, the cell updated once by lane 0 (codegen/row_reduction_code.py).

Decided only when the reduction loop R is the coalescing one (coalesces_along): every read of
the statement's highest-rank array(s) other than the updated one steps by +-1 in its innermost
subscript per iteration of R, within one row. Otherwise (y[j] += A[i][j] * x[i]: P is the
coalescing loop) the DOALL mapping with P on threads stays.
"""

from __future__ import annotations

import islpy as isl

from polycuda.analysis import reductions as reductions_
from polycuda.gpu import staging
from polycuda.ir import isl_build
from polycuda.schedule import legality

# Threads of a row (a warp: its lanes read consecutive elements of the row) and rows per block
ROW_LANES = 32
ROWS_PER_BLOCK = 8

_N = isl.schedule_node_type


def row_statements(band: isl.ScheduleNode, reductions: dict[str, reductions_.Update],
                   accesses: staging.Accesses) -> tuple[str, ...] | None:
    """The reduction statements of the loops R below the 1-member parallel band `band` (the
    rows), when its body is such loops (each a 1-member band of one reduction statement at its
    leaf, updating one cell per row and reading no cell it updates there) and statements that
    run once per row, with at least one R and every R's statement coalescing along R
    (coalesces_along); else None.

    # prefix (at R): { S[x] -> [outer..., p] }; cells: { [outer..., p] -> X[a] }
    """
    parts = _parts(band)
    found: list[str] = []
    for part in parts:
        if part.get_type() == _N.leaf:
            if not _once_per_row(part):
                return None
            continue
        if part.get_type() != _N.band:
            return None
        name = _reduction_loop(part, reductions, accesses)
        if name is None or not coalesces_along(part, name, accesses):
            return None
        found.append(name)
    return tuple(found) or None


def _parts(band: isl.ScheduleNode) -> list[isl.ScheduleNode]:
    """The subtrees of the rows band's body: its child, or each child of its sequence."""
    child = band.child(0)
    return [child] if child.get_type() != _N.sequence else [
        child.child(k).child(0) for k in range(child.n_children())]


def uneven(band: isl.ScheduleNode) -> bool:
    """Whether, in one launch, some reduction loop below the rows band `band` (row_statements
    found them) runs different iterations in different rows: for one value of the loops
    around the band, the loop's iterations are not one set for every row (y[i] += L[i][j] *
    x[j], j <= i). A loop whose length changes only with the host's loops is even.

    # rows: { [outer..., p] -> [r] } for each reduction loop r below the band
    # even: { [outer..., p] -> [r] : [outer..., p'] -> [r] in rows, for some row p' }
    """
    for part in (p for p in _parts(band) if p.get_type() == _N.band):
        domain = part.get_domain()
        rows = isl.Map.from_union_map(
            part.get_prefix_schedule_union_map().intersect_domain(domain).reverse()
            .apply_range(part.band_get_partial_schedule_union_map().intersect_domain(domain)))
        last = rows.dim(isl.dim_type.in_) - 1
        around = rows.domain().identity().project_out(isl.dim_type.out, last, 1)
        even = around.apply_range(rows.project_out(isl.dim_type.in_, last, 1))
        if not rows.is_equal(even):
            return True
    return False


def _once_per_row(leaf: isl.ScheduleNode) -> bool:
    """Whether each statement instance at `leaf` is the only one at its prefix (one per row)."""
    prefix = leaf.get_prefix_schedule_union_map().intersect_domain(leaf.get_domain())
    return prefix.is_injective()


def _reduction_loop(loop: isl.ScheduleNode, reductions: dict[str, reductions_.Update],
                    accesses: staging.Accesses) -> str | None:
    """The statement of `loop` when it is a 1-member band of one reduction statement at its
    leaf that updates one cell for each value of the loops around it and reads no cell it
    updates there (as mapping._Mapper._reduction proves); else None."""
    if (loop.band_n_member() != 1 or loop.band_member_get_coincident(0)
            or loop.child(0).get_type() != _N.leaf):
        return None
    domain = loop.get_domain()
    names = isl_build.statement_names(domain)
    if len(names) != 1 or names[0] not in reductions:
        return None
    outer = loop.get_prefix_schedule_union_map().intersect_domain(domain)
    cells = outer.reverse().apply_range(accesses.writes.intersect_domain(domain))
    if not cells.is_single_valued():
        return None
    for text in reductions[names[0]].self_reads:
        read = isl.UnionMap(text, context=loop.get_ctx()).intersect_domain(domain)
        if not outer.reverse().apply_range(read).intersect(cells).is_empty():
            return None
    return names[0]


def coalesces_along(loop: isl.ScheduleNode, name: str, accesses: staging.Accesses,
                    inner: isl.ScheduleNode | None = None) -> bool:
    """Whether consecutive iterations of the loop `loop` (one row: the same outer loops, and
    the same iteration of the 1-member band `inner` below it when given: a column's
    reduction loop) read consecutive elements in every read of the statement's highest-rank
    arrays other than the array it updates that is not the same element in both (the
    dominant accesses, Shirako et al. 2017, Section 5.2: coalesced when the innermost
    subscript varies with the thread loop at stride 1; an element every thread reads is one
    broadcast load), and at least one such read varies.

    # step: { S[x] -> S[x'] : prefix(x') = prefix(x), r(x') = r(x) + 1, inner(x') = inner(x) }
    # pair: { A[a] -> A[a'] } the elements read by two consecutive iterations
    """
    domain = loop.get_domain()
    sched = loop.get_prefix_schedule_union_map().flat_range_product(
        loop.band_get_partial_schedule_union_map())
    if inner is not None:
        sched = sched.flat_range_product(inner.band_get_partial_schedule_union_map())
    sched_map = isl.Map.from_union_map(sched.intersect_domain(domain))
    m = sched_map.dim(isl.dim_type.out)
    names = [f"s{k}" for k in range(m)]
    at = m - 1 if inner is None else m - 2  # the position of `loop`'s member
    moved = [f"{v} + 1" if k == at else v for k, v in enumerate(names)]
    shift = isl.Map(f"{{ [{', '.join(names)}] -> [{', '.join(moved)}] }}",
                    context=loop.get_ctx())
    shift = shift.align_params(sched_map.get_space())
    step = sched_map.apply_range(shift).apply_range(sched_map.reverse())
    written = isl_build.statement_names(accesses.writes.intersect_domain(domain).range())
    reads: list[isl.Map] = []
    accesses.reads.intersect_domain(domain).foreach_map(reads.append)
    reads = [r for r in reads if r.get_tuple_name(isl.dim_type.out) not in written]
    if not reads:
        return False
    rank = max(r.dim(isl.dim_type.out) for r in reads)
    if rank == 0:
        return False
    strided = 0
    for read in (r for r in reads if r.dim(isl.dim_type.out) == rank):
        step_a = read.reverse().apply_range(step).apply_range(read)  # { A[a] -> A[a'] }
        moves = step_a.deltas()
        if moves.is_empty():
            return False
        if moves.is_subset(_zero(moves)):
            continue  # the same element in every iteration: one broadcast load per warp
        deltas = moves.project_out(isl.dim_type.set, 0, rank - 1)
        low, high = deltas.dim_min(0), deltas.dim_max(0)
        if not (low.is_cst() and high.is_cst()):
            return False
        values = {_constant(low), _constant(high)}
        if values not in ({1}, {-1}):
            return False
        strided += 1
    return strided > 0


def _zero(deltas: isl.Set) -> isl.Set:
    """The set of `deltas`' space whose every coordinate is 0."""
    zero = isl.Set.universe(deltas.get_space())
    for k in range(deltas.dim(isl.dim_type.set)):
        zero = zero.fix_val(isl.dim_type.set, k, 0)
    return zero


def _constant(pw_aff: isl.PwAff) -> int:
    pieces = pw_aff.get_pieces()
    return int(pieces[0][1].get_constant_val().to_python())


def flattened(band: isl.ScheduleNode, dep_map: isl.UnionMap | None) -> isl.ScheduleNode | None:
    """The 1-member band `band` (the rows) with the first inner band B whose member the
    scheduler shared between a reduction statement and the statements around it (atax:
    tmp[i] = 0 at j = 0, then tmp[i] += A[i][j] * x[j]) split into a sequence of its leaves'
    statements in their order below B: each with B restricted to it, or no loop where B is
    constant on it in a row (spliced into the rows' sequence when B sits in one). Returned
    only when that order keeps every dependence among the rows' instances (checked with
    isl); None when the body has no such B or the order would not keep them.

    # dep_map: { S[x] -> T[y] }; subtree: { S[x] -> [p, position, r] }
    """
    if dep_map is None:
        return None
    body = band.child(0)
    position = None
    if body.get_type() == _N.sequence:
        shared = [k for k in range(body.n_children())
                  if body.child(k).child(0).get_type() == _N.band]
        if not shared:
            return None
        position = shared[0]
        inner = body.child(position).child(0)
    else:
        inner = body
    if inner.get_type() != _N.band or inner.band_n_member() != 1:
        return None
    filters = _leaf_statements(inner.child(0))
    if filters is None or len(filters) < 2:
        return None
    partial = inner.band_get_partial_schedule()
    node = inner.child(0).cut().parent().delete()  # at the leaf left in B's place
    filter_list = isl.UnionSetList.alloc(node.get_ctx(), len(filters))
    for one in filters:
        filter_list = filter_list.add(one)
    node = node.insert_sequence(filter_list)
    for k, one in enumerate(filters):
        leaf = node.child(k).child(0)
        if not _once_per_row(leaf):
            node = leaf.insert_partial_schedule(partial.intersect_domain(one)).parent().parent()
    if position is not None:
        node = node.parent().parent().sequence_splice_child(position)
    rows = node.parent()
    same = legality.same_prefix(band, dep_map)
    subtree = rows.get_subtree_schedule_union_map()
    if not same.is_subset(subtree.lex_lt_union_map(subtree)):
        return None
    return rows


def _leaf_statements(node: isl.ScheduleNode) -> list[isl.UnionSet] | None:
    """The statements of the leaves below `node` (sequences and sets of filters only), one
    filter each, in the order of the tree; None when another node or a leaf of several."""
    kind = node.get_type()
    if kind == _N.leaf:
        domain = node.get_domain()
        return [domain] if len(isl_build.statement_names(domain)) == 1 else None
    if kind == _N.filter:
        return _leaf_statements(node.child(0))
    if kind not in (_N.sequence, _N.set):
        return None
    found: list[isl.UnionSet] = []
    for k in range(node.n_children()):
        below = _leaf_statements(node.child(k))
        if below is None:
            return None
        found += below
    return found
