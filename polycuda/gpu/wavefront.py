"""Two-level wavefronts of permutable bands without parallel members (DOACROSS nests, time-tiled
stencils): tiling, the inter-tile wavefront skew of the tile band and the intra-tile wavefront
skew of the point band (Di et al. 2012, Section III; Di & Xue 2011, Section 2, matrix W).

The tile indices are made explicit dimensions of the statements' domains (S[x] becomes
S[x, T0, ..., Tm-1] with s_k T_k <= phi_k(x) < s_k (T_k + 1)), so that every band below is
affine in the domain: isl builds the AST of a 2-D wavefront in 0.03 s this way, against 8 s
for the same schedule written with floor() and mod (the divisions become existentially
quantified variables that every AST-generation step must eliminate). The AST calls the
statements with the tile indices appended; the printers read only the leading iterators.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import islpy as isl

from polycuda.gpu.plan import BARRIER_MARK  # noqa: F401 (as before it moved)
from polycuda.ir import isl_build
from polycuda.options import Options, fit_sizes
from polycuda.schedule import legality

# Tile sizes of a wavefront band of m members (outermost first). The point loops P1.. go to
# threads (blockDim = the last m-1 sizes); the first member is the one enumerated sequentially,
# with sum(sizes) - m + 1 intra-tile wavefronts (barriers) per tile.
DEFAULT_TILES = {2: (16, 64), 3: (8, 8, 32), 4: (4, 4, 8, 16)}
TILE_DIM = "pc_tile"  # names of the appended tile dimensions: pc_tile0, pc_tile1, ...
POINT_DIM = "pc_point"  # and of the point dimensions after them: pc_point0, ...
# Intra-tile wavefronts of a tiled band (intra_mode): the skewed sum of the point coordinates;
# the hyperplanes of phi_0; the hyperplanes of phi_0 with a barrier between the statements.
SUM, HYPERPLANE, HYPERPLANE_BARRIERS = "sum", "hyperplane", "hyperplane+barriers"


def eligible(node: isl.ScheduleNode, options: Options) -> bool:
    """Whether `node` is a band run as a two-level wavefront: Options.wavefront, permutable,
    at least two members, and no leading parallel (coincident) member."""
    return (options.wavefront and node.get_type() == isl.schedule_node_type.band
            and node.band_n_member() >= 2 and bool(node.band_get_permutable())
            and not node.band_member_get_coincident(0))


def tile_sizes(m: int, options: Options) -> tuple[int, ...]:
    """Options' tile sizes (last m entries, or padded with defaults) or DEFAULT_TILES[m]."""
    return fit_sizes(options.tile_sizes, DEFAULT_TILES[m])


def tile_and_skew(band: isl.ScheduleNode, tiles: tuple[int, ...], implied: int = 0,
                  intra: str = SUM, sink: bool = True) -> tuple[isl.ScheduleNode, isl.UnionMap]:
    """Tile a permutable band and skew both levels into wavefronts.

    band [phi_0, ..., phi_m-1] becomes
      [W = T0 + ... + Tm-1]          (inter-tile wavefront: sequential)
        [T_k, k != implied]          (the tiles of wavefront W: parallel; T_implied follows
                                      from W, see widest())
          [w = P0 + ... + Pm-1]      (intra-tile wavefront: sequential; w = P0 unless SUM)
            [P1, ..., Pm-1]          (the points of wavefront w: parallel)
              the band's old child
    with s_k Tk <= phi_k < s_k (Tk + 1) and Pk = phi_k - s_k Tk. Legal: along a permutable band
    every dependence has non-negative components, hence so do the tile and the point distances;
    a nonzero one has a positive sum, so W (or w within a tile) carries it and tiles (points)
    of one wavefront are independent. The skew [1 1 .. 1; 0 I] is unimodular. The tiles are
    parallelograms in the original space: the band's rows are the hyperplanes.

    intra: intra_mode() of the band. Unless SUM, the intra-tile wavefronts are the hyperplanes
    of phi_0 (Di et al. 2012, Section III-B): s_0 wavefronts of up to s_1 ... s_m-1 points
    each, against s_0 + ... + s_m-1 - m + 1 wavefronts of the skewed sum, most of them short;
    with HYPERPLANE_BARRIERS a "barrier" mark precedes every statement but the first.

    sink: whether the [P] band and the bands below it go into each child of a sequence
    below them (_sink_points); the caller proves it legal (sinkable()). Without, the bands
    stay above the sequence, in the band's order (legal as the band's old child was).

    Returns the [W] band node of the lifted schedule (at the position of `band`) and the lift
    of the band's statements: { S[x] -> S[x, T0, ..., Tm-1] }. Callers pass sizes through
    harmonized() first.
    """
    path = _path(band)
    # phi: { S[x] -> [phi_0(x), ..., phi_m-1(x)] } for every statement reaching the band
    phi = band.band_get_partial_schedule()
    lifted, lift = _lift(band.get_domain(), phi, tiles)
    schedule = band.get_schedule()
    schedule = schedule.pullback_union_pw_multi_aff(
        _projection(schedule.get_domain(), lift, 2 * len(tiles)))
    schedule = schedule.intersect_domain(lifted.union(
        schedule.get_domain().subtract(lifted.universe())))
    node = _at(schedule, path)
    rows = _wavefront_rows(node.band_get_partial_schedule(), lifted, tiles, implied,
                           intra != SUM)
    node = node.delete()
    for k, mupa in enumerate(reversed(rows)):  # inserted bottom-up: P, w, T, W
        node = node.insert_partial_schedule(mupa)
        node = node.band_set_permutable(1)
        for j in range(node.band_n_member()):
            node = node.band_member_set_coincident(j, int(k % 2 == 0))
            if k < 2:
                # w and P atomic: one loop per intra-tile wavefront, so its barrier is one
                # __syncthreads() that every thread reaches. (Tile loops may be split: a tile
                # runs on the block its coordinates name, cuda_target.py; atomic tile loops
                # cost isl minutes on fdtd-2d.)
                node = node.band_member_set_ast_loop_type(j, isl.ast_loop_type.atomic)
    if not sink:
        return node, lift
    return _sink_points(node, intra == HYPERPLANE_BARRIERS), lift


def inner_members_last(band: isl.ScheduleNode, m: int) -> isl.ScheduleNode:
    """Reorder the members of a permutable band of more than m members as
    [phi_0, phi_n-m+1, ..., phi_n-1, phi_1, ..., phi_n-m]: the wavefront keeps the first row
    (its intra-tile wavefronts, intra_mode) and the last m - 1 (on threads, the innermost on
    x); the middle rows run inside each thread. In a row-major nest the last rows scan the
    contiguous dimensions: 3-D Jacobi's threads then cover (j, k) and loop over i, where
    with the first m rows they covered (i, j) and walked k, every access 8n bytes from its
    neighbour thread's. Any order of a permutable band's members is legal (every dependence
    is non-negative along each of them, Di et al. 2012, Section II).

    Returns the band node with its members reordered (same coincident flags per member).
    """
    n = band.band_n_member()
    order = [0, *range(n - m + 1, n), *range(1, n - m + 1)]
    if order == list(range(n)):
        return band
    return _reordered(band, order)


def coalescing_last(band: isl.ScheduleNode, reads: isl.UnionMap, writes: isl.UnionMap
                    ) -> isl.ScheduleNode:
    """The permutable band of a wavefront kernel (m members: phi_0 then the thread rows) with
    the thread row along which most accesses coalesce moved last, onto thread x.

    An access coalesces along row k when one step of k (the other rows fixed) moves it to
    the next (or previous) element of its innermost dimension and leaves the others: the
    coalescing criterion of Shirako et al. 2017, Section 5.2 (the innermost subscript varies
    with the thread-x loop at stride 1). The scheduler's member order does not say which
    row scans the contiguous dimension: Pluto's band for fdtd-2d is [t, t + j, t + i], and
    thread x on t + i made every access of a warp ny elements from its neighbour's. Rows
    1..m-1 of a permutable band may be reordered freely (inner_members_last); phi_0 keeps
    its place (the intra-tile wavefronts). The order is kept when the last row already
    scores highest (ties included).
    """
    m = band.band_n_member()
    if m < 3:
        return band
    scores = _coalesced_accesses(band, reads, writes)
    best = max(range(1, m), key=lambda k: (scores[k], k))
    if scores[best] <= scores[m - 1]:
        return band
    order = [k for k in range(m) if k != best] + [best]
    return _reordered(band, order)


def _coalesced_accesses(band: isl.ScheduleNode, reads: isl.UnionMap, writes: isl.UnionMap
                        ) -> list[int]:
    """Per member k of the band: how many of its accesses (per statement) coalesce along k.

    From the linear parts: a step of row k is dx with Phi dx = e_k (Phi: the statement's
    band rows), which moves an access a = M x + c by M dx. A statement without a unique
    such step (fewer or more iterators than rows that k moves), or an access that is not
    one affine piece, counts for no row.
    """
    n = band.band_n_member()
    counts = [0] * n
    for stmt_set, rows in statement_rows(band.band_get_partial_schedule(),
                                         band.get_domain(), n):
        if any(r is None for r in rows):
            continue
        accesses = basic_accesses(stmt_set, reads, writes)
        subscripts = [s for s in map(subscript_rows, accesses) if s]
        for k in range(n):
            step = _solve([list(r) for r in rows], [1 if j == k else 0 for j in range(n)])
            if step is None:
                continue
            for rows_of_access in subscripts:
                moved = [sum(c * d for c, d in zip(row, step)) for row in rows_of_access]
                if all(v == 0 for v in moved[:-1]) and abs(moved[-1]) == 1:
                    counts[k] += 1
    return counts


def basic_accesses(stmt_set: isl.Set, reads: isl.UnionMap, writes: isl.UnionMap
                   ) -> list[isl.BasicMap]:
    """The reads and writes of one statement, one basic map each (a stencil's reads of one
    array: one per neighbour)."""
    found: list[isl.BasicMap] = []
    reads.union(writes).intersect_domain(isl.UnionSet.from_set(stmt_set)).foreach_map(
        lambda amap: amap.foreach_basic_map(found.append))
    return found


def statement_rows(phi: isl.MultiUnionPwAff, domain: isl.UnionSet, m: int
                   ) -> list[tuple[isl.Set, list[tuple[int, ...] | None]]]:
    """Each statement's set in `domain` with the linear parts of the first m rows of `phi`
    on it (_linear_part: None for a piecewise row)."""
    found = []
    for stmt_set in isl_build.sets_of(domain):
        space = stmt_set.get_space().from_domain().add_dims(isl.dim_type.out, 1)
        found.append((stmt_set, [_linear_part(phi.get_at(k).extract_pw_aff(space))
                                 for k in range(m)]))
    return found


def subscript_rows(access: isl.BasicMap) -> list[tuple[int, ...]] | None:
    """The iterator coefficients of each subscript of a one-piece affine access."""
    if access.dim(isl.dim_type.out) == 0 or not access.is_single_valued():
        return None
    pieces: list[isl.MultiAff] = []
    isl.PwMultiAff.from_map(isl.Map.from_basic_map(access)).foreach_piece(
        lambda _set, ma: pieces.append(ma))
    if len(pieces) != 1:
        return None
    ma = pieces[0]
    n = ma.dim(isl.dim_type.in_)
    return [tuple(ma.get_at(j).get_coefficient_val(isl.dim_type.in_, i).to_python()
                  for i in range(n)) for j in range(ma.dim(isl.dim_type.out))]


def _solve(rows: list[list[int]], rhs: list[int]) -> list[Fraction] | None:
    """The unique x with rows x = rhs (exact), or None (none, or not unique)."""
    n = len(rows[0]) if rows else 0
    a = [[Fraction(v) for v in row] + [Fraction(b)] for row, b in zip(rows, rhs)]
    r = 0
    for c in range(n):
        p = next((i for i in range(r, len(a)) if a[i][c] != 0), None)
        if p is None:
            return None  # a free iterator: the step is not unique
        a[r], a[p] = a[p], a[r]
        a[r] = [v / a[r][c] for v in a[r]]
        for i in range(len(a)):
            if i != r and a[i][c] != 0:
                a[i] = [v - a[i][c] * w for v, w in zip(a[i], a[r])]
        r += 1
    if any(row[-1] != 0 for row in a[r:]):
        return None  # inconsistent: row k does not move this statement alone
    return [a[i][-1] for i in range(n)]


def _reordered(band: isl.ScheduleNode, order: list[int]) -> isl.ScheduleNode:
    """The permutable band with its members in `order` (same coincident flags per member)."""
    n = band.band_n_member()
    phi = band.band_get_partial_schedule()
    coincident = [band.band_member_get_coincident(k) for k in order]
    members = isl.UnionPwAffList.alloc(band.get_ctx(), n)
    for k in order:
        members = members.add(phi.get_at(k))
    reordered = isl.MultiUnionPwAff.from_union_pw_aff_list(phi.get_space(), members)
    band = band.delete().insert_partial_schedule(reordered).band_set_permutable(1)
    for k, flag in enumerate(coincident):
        band = band.band_member_set_coincident(k, flag)
    return band


def _sink_points(w_band: isl.ScheduleNode, barriers: bool) -> isl.ScheduleNode:
    """Give each child of a sequence (set) below the [P] band a [P] band of its own.

    The points of one intra-tile wavefront are independent and a point runs on the same
    thread in every loop (cuda_target.py), so running statement by statement within a
    wavefront keeps every dependence that the sequence orders; the bands below [P] go along,
    which is legal only when they order no dependence against the sequence (sinkable(): the
    caller proves it, tile_and_skew's `sink`). isl then scans each statement's points alone:
    the union of statements whose band rows are linearly dependent (fdtd-2d's ey[0][j], rows
    t, t + j, t) with the others takes isl's AST generation minutes, each alone well under a
    second.

    w_band: the [W] band; returns it. barriers: a "barrier" mark above every child's [P]
    band but the first child's.
    """
    points = w_band.child(0).child(0).child(0)
    if _below_bands(points.child(0)).get_type() not in (isl.schedule_node_type.sequence,
                                                        isl.schedule_node_type.set):
        return w_band
    # [P] first, then the bands of the members run inside each thread (inner_members_last):
    # each child of the sequence gets [P] -> [inner members] -> its old subtree, directly
    # below its filter (isl's band_sink would put them at the leaves, below a child's own
    # loops: a sequential k loop inside one statement's points then took the place of the
    # thread loop, and ran in parallel)
    bands = []
    sequence = points
    while sequence.get_type() == isl.schedule_node_type.band:
        bands.append(_band_copy(sequence))
        sequence = sequence.delete()  # returns the node now at the band's position
    for k in range(sequence.n_children()):
        node = sequence.child(k).child(0)
        keep = sequence.child(k).filter_get_filter()
        for band in reversed(bands):
            node = band(node, keep)  # the new band, above the previous one
        sequence = node.parent().parent()
    if barriers:
        for k in range(1, sequence.n_children()):
            sequence = sequence.child(k).child(0).insert_mark(
                isl_build.named_id(sequence.get_ctx(), BARRIER_MARK)).parent().parent()
    return sequence.parent().parent().parent()


def sinkable(band: isl.ScheduleNode, dep_map: isl.UnionMap) -> bool:
    """Whether _sink_points may move the [P] band and the bands below it (the members split
    off `band`, and the scheduler's inner bands down to the first sequence) into each child
    of that sequence, once `band` is tiled and skewed.

    Those bands order the instances with the same prefix and the same values of the band's
    members (the same tile and point) before the sequence does; sunk, the sequence orders
    them first. Legal exactly when no dependence between such instances goes from a later
    child of the sequence to an earlier one: those the sunk bands carried (Pluto's band
    [k] of S0 below the band [phi_0, phi_1] of S0[i, j, k] and S1[i], which orders
    S1[i] before S0[i', j, k] at phi equal while the sequence puts S0 first; fuzz seed 57,
    pluto-balanced). Within one child the order is the same either way. Below a set
    (children in no order) no dependence may join two of its children.

    # dep_map: { S[x] -> R[y] } over the statements of the scop
    """
    child = _below_bands(band.child(0))
    if child.get_type() not in (isl.schedule_node_type.sequence, isl.schedule_node_type.set):
        return True  # _sink_points leaves the bands in place
    phi = band.band_get_partial_schedule_union_map()  # { S[x] -> [phi_0, ..., phi_m-1] }
    same_point = legality.same_prefix(band, dep_map).intersect(phi.apply_range(phi.reverse()))
    backward = earlier_children(child).reverse()  # { R[y] -> S[x] : S in an earlier child }
    if child.get_type() == isl.schedule_node_type.set:  # its children in no order: both ways
        backward = backward.union(backward.reverse())
    return same_point.intersect(backward).is_empty()


def _band_copy(band: isl.ScheduleNode
               ) -> Callable[[isl.ScheduleNode, isl.UnionSet], isl.ScheduleNode]:
    """A function inserting a copy of `band` (its partial schedule restricted to a filter,
    permutability, coincidence and AST loop types) at a node; it returns the new band."""
    mupa = band.band_get_partial_schedule()
    permutable = band.band_get_permutable()
    members = [(band.band_member_get_coincident(j), band.band_member_get_ast_loop_type(j))
               for j in range(band.band_n_member())]

    def insert(node: isl.ScheduleNode, keep: isl.UnionSet) -> isl.ScheduleNode:
        node = node.insert_partial_schedule(mupa.intersect_domain(keep))
        node = node.band_set_permutable(int(permutable))
        for j, (coincident, loop_type) in enumerate(members):
            node = node.band_member_set_coincident(j, int(coincident))
            node = node.band_member_set_ast_loop_type(j, loop_type)
        return node

    return insert


def intra_mode(band: isl.ScheduleNode, dep_map: isl.UnionMap) -> str:
    """How the points of a tile are ordered (Di et al. 2012, Theorem 2 and Section III-B).

    HYPERPLANE: phi_0 strictly increases along every dependence between instances that reach
    the band in the same outer iteration (Theorem 2 with k = 1: the balanced hyperplanes of
    Algorithm 1), so the points of a tile with equal P0 are independent.
    HYPERPLANE_BARRIERS: the dependences along which phi_0 stays constant all go from an
    earlier to a later child of the sequence below the band (jacobi-2d: B = f(A) before
    A = f(B) in one time step): the same, with a barrier between the statements.
    SUM: otherwise; the intra-tile wavefronts are the skewed sum of the point coordinates.

    # dep_map: { S[x] -> R[y] } over the statements of the scop
    """
    live = legality.same_prefix(band, dep_map)
    row = isl.UnionMap.from_union_pw_aff(band.band_get_partial_schedule().get_at(0))
    flat = live.subtract(row.lex_lt_union_map(row))
    if flat.is_empty():
        return HYPERPLANE
    child = _below_bands(band.child(0))
    if child.get_type() == isl.schedule_node_type.sequence and flat.is_subset(
            earlier_children(child)):
        return HYPERPLANE_BARRIERS
    return SUM


def _below_bands(node: isl.ScheduleNode) -> isl.ScheduleNode:
    """The first node at or below `node` that is not a band (the members split off a
    wavefront band by inner_members_last() lie between it and a sequence)."""
    while node.get_type() == isl.schedule_node_type.band:
        node = node.child(0)
    return node


def earlier_children(sequence: isl.ScheduleNode) -> isl.UnionMap:
    """{ S[x] -> R[y] : S in an earlier child of the sequence node than R }."""
    filters = [sequence.child(k).filter_get_filter() for k in range(sequence.n_children())]
    pairs = isl.UnionMap.empty(sequence.get_domain().get_space())
    for j, later in enumerate(filters):
        for earlier in filters[:j]:
            pairs = pairs.union(isl.UnionMap.from_domain_and_range(earlier, later))
    return pairs


def widest(band: isl.ScheduleNode, tiles: tuple[int, ...], context: isl.Set,
           typical: int = 1024) -> int:
    """The band member with the most tiles when every parameter is `typical` (the context
    permitting): the tile coordinate that the grid leaves implied.

    The tiles of one inter-tile wavefront W are the points of the tile box on the hyperplane
    sum T = W; a grid over the box of the other coordinates has one block per tile only where
    the dropped coordinate is the widest. (jacobi-2d, T = 100, n = 4096: a grid over the two
    spatial tile coordinates has 40 times more blocks than tiles, one over time and one space
    coordinate about as many.) The sizes are unknown at compile time, hence `typical`.
    """
    phi = band.band_get_partial_schedule()
    domain = band.get_domain()
    ctx = band.get_ctx()
    fixed = isl.Set.universe(context.get_space())
    for k in range(fixed.dim(isl.dim_type.param)):
        fixed = fixed.fix_val(isl.dim_type.param, k, isl.Val.int_from_si(ctx, typical))
    if fixed.intersect(context).is_empty():
        return 0
    counts = []
    for k, size in enumerate(tiles):
        values = domain.apply(isl.UnionMap.from_union_pw_aff(phi.get_at(k)))
        values = values.intersect_params(fixed.align_params(values.get_space()))
        sets = isl_build.sets_of(values)
        if not sets or any(not v.is_bounded() for v in sets):
            return 0
        low = min(v.lexmin().sample_point().get_coordinate_val(isl.dim_type.set, 0)
                  .to_python() for v in sets)
        high = max(v.lexmax().sample_point().get_coordinate_val(isl.dim_type.set, 0)
                   .to_python() for v in sets)
        counts.append((high - low + 1) / size)
    return max(range(len(counts)), key=lambda k: (counts[k], -k))


def harmonized(tiles: tuple[int, ...], phi: isl.MultiUnionPwAff, domain: isl.UnionSet
               ) -> tuple[int, ...]:
    """`tiles` with equal sizes on rows that some statement's band gives the same linear part.

    A statement of fewer dimensions than the band (fdtd-2d's ey[0][j] = ..., rows t, t + j,
    t) has linearly dependent rows; with sizes 8 and 32 on its two t rows its tile indices
    floor(t / 8) and floor(t / 32) are tied by a modulo that makes isl's AST generation take
    minutes, while with equal sizes they are equal (or one apart). Each group of tied rows
    (tied_rows) takes the smallest size of the group.
    """
    return with_ties(tiles, tied_rows(phi, domain, len(tiles)))


def with_ties(tiles: tuple[int, ...], groups: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
    """`tiles` with each group of rows at the group's smallest size."""
    sizes = list(tiles)
    for group in groups:
        smallest = min(tiles[j] for j in group)
        for k in group:
            sizes[k] = smallest
    return tuple(sizes)


def tied_rows(phi: isl.MultiUnionPwAff, domain: isl.UnionSet, m: int
              ) -> tuple[tuple[int, ...], ...]:
    """The groups (two rows or more, ascending) of the first m rows of `phi` that must have
    equal tile sizes: rows with the same linear part in some statement, closed transitively.
    The tuner excludes layouts that differ on a group (tune/layouts.exclusion)."""
    parent = list(range(m))

    def root(k: int) -> int:
        while parent[k] != k:
            k = parent[k]
        return k

    for _, rows in statement_rows(phi, domain, m):
        for k in range(m):
            for j in range(k):
                if rows[k] is not None and rows[k] == rows[j]:
                    parent[root(k)] = root(j)
    groups: dict[int, list[int]] = {}
    for k in range(m):
        groups.setdefault(root(k), []).append(k)
    return tuple(tuple(g) for g in groups.values() if len(g) > 1)


def _linear_part(row: isl.PwAff) -> tuple[int, ...] | None:
    """The iterator coefficients of a one-piece affine row (None if piecewise)."""
    pieces: list[isl.Aff] = []
    row.foreach_piece(lambda _set, aff: pieces.append(aff))
    if len(pieces) != 1:
        return None
    aff = pieces[0]
    return tuple(aff.get_coefficient_val(isl.dim_type.in_, k).to_python()
                 for k in range(aff.dim(isl.dim_type.in_)))


def _lift(domain: isl.UnionSet, phi: isl.MultiUnionPwAff, tiles: tuple[int, ...]
          ) -> tuple[isl.UnionSet, isl.UnionMap]:
    """The lifted domain { S[x, T, P] : x in domain, P_k = phi_k(x) - s_k T_k, 0 <= P_k < s_k }
    and the lift { S[x] -> S[x, T, P] } (a bijection between the two domains).

    The point coordinates P are dimensions too, so that the code reads them from the
    statement call like the tile coordinates: a point whose loop isl does not realise (a
    statement with one point per intra-tile wavefront) still runs on the thread its P names.
    """
    ctx = domain.get_ctx()
    m = len(tiles)
    lifted = isl.UnionSet.empty(domain.get_space())
    lift = isl.UnionMap.empty(domain.get_space())
    for stmt_set in isl_build.sets_of(domain):
        space = stmt_set.get_space()
        n = space.dim(isl.dim_type.set)
        # add_dims drops the tuple name: set it back on the lifted space
        lifted_space = space.add_dims(isl.dim_type.set, 2 * m).set_tuple_id(
            isl.dim_type.set, space.get_tuple_id(isl.dim_type.set))
        for k in range(m):
            lifted_space = lifted_space.set_dim_name(isl.dim_type.set, n + k, f"{TILE_DIM}{k}")
            lifted_space = lifted_space.set_dim_name(isl.dim_type.set, n + m + k,
                                                     f"{POINT_DIM}{k}")
        proj = _project_out_tiles(lifted_space, 2 * m)
        local = isl.LocalSpace.from_space(lifted_space)
        cells = stmt_set.preimage_multi_aff(proj)
        pw_aff_space = space.from_domain().add_dims(isl.dim_type.out, 1)  # { S[x] -> [.] }
        for k, size in enumerate(tiles):
            phi_k = phi.get_at(k).extract_pw_aff(pw_aff_space).pullback_multi_aff(proj)
            size_val = isl.Val.int_from_si(ctx, size)
            tile = isl.PwAff.var_on_domain(local, isl.dim_type.set, n + k)
            point = isl.PwAff.var_on_domain(local, isl.dim_type.set, n + m + k)
            cells = cells.intersect(point.eq_set(phi_k.sub(tile.scale_val(size_val))))
            cells = cells.intersect(point.nonneg_set())  # 0 <= P_k <= s_k - 1
            cells = cells.intersect(point.neg().add_constant_val(
                isl.Val.int_from_si(ctx, size - 1)).nonneg_set())
        lifted = lifted.union(isl.UnionSet.from_set(cells))
        lift = lift.union(isl.UnionMap.from_map(
            isl.Map.from_multi_aff(proj).reverse().intersect_range(cells)))
    return lifted, lift


def _projection(domain: isl.UnionSet, lift: isl.UnionMap, m: int) -> isl.UnionPwMultiAff:
    """{ S[x, <m lifted dims>] -> S[x] } for the lifted statements, the identity on every
    other one."""
    lifted_spaces: list[isl.Space] = []
    lift.range().foreach_set(lambda s: lifted_spaces.append(s.get_space()))
    parts = [_project_out_tiles(space, m) for space in lifted_spaces]
    others = domain.subtract(lift.domain())
    others.foreach_set(lambda s: parts.append(isl.MultiAff.identity_on_domain_space(
        s.get_space())))
    upma = isl.UnionPwMultiAff.empty(domain.get_space())
    for ma in parts:
        upma = upma.union_add(isl.UnionPwMultiAff.from_multi_aff(ma))
    return upma


def _project_out_tiles(lifted_space: isl.Space, m: int) -> isl.MultiAff:
    """{ S[x, <m lifted dims>] -> S[x] } (the statement's tuple name kept on both sides)."""
    n = lifted_space.dim(isl.dim_type.set) - m
    proj = isl.MultiAff.project_out_map(lifted_space, isl.dim_type.set, n, m)
    return proj.set_tuple_id(isl.dim_type.out, lifted_space.get_tuple_id(isl.dim_type.set))


def _wavefront_rows(phi: isl.MultiUnionPwAff, lifted: isl.UnionSet, tiles: tuple[int, ...],
                    implied: int, balanced: bool) -> list[isl.MultiUnionPwAff]:
    """The bands [W], [T_k, k != implied], [w], [P1..Pm-1] over the lifted domain, outermost
    first; w = P0 when `balanced`, else the sum of the P_k.

    # phi: { S[x, T, P] -> [phi_0(x), ..., phi_m-1(x)] } (its space names the bands' spaces)
    """
    ctx = lifted.get_ctx()
    m = len(tiles)
    tile_vars = [_lifted_var(lifted, 2 * m - k) for k in range(m)]
    points = [_lifted_var(lifted, m - k) for k in range(m)]
    space = phi.get_space()
    rows = []
    enumerated = [tile_vars[k] for k in range(m) if k != implied]
    intra = points[0] if balanced else _sum(points)
    for members in ([_sum(tile_vars)], enumerated, [intra], points[1:]):
        band_space = space.drop_dims(isl.dim_type.set, len(members), m - len(members))
        upa_list = isl.UnionPwAffList.alloc(ctx, len(members))
        for upa in members:
            upa_list = upa_list.add(upa)
        rows.append(isl.MultiUnionPwAff.from_union_pw_aff_list(band_space, upa_list))
    return rows


def _lifted_var(lifted: isl.UnionSet, back: int) -> isl.UnionPwAff:
    """{ S[x, T, P] -> [the dimension `back` places from the end] } on every statement."""
    result = None
    for stmt_set in isl_build.sets_of(lifted):
        space = stmt_set.get_space()
        pos = space.dim(isl.dim_type.set) - back
        var = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(space), isl.dim_type.set, pos)
        upa = isl.UnionPwAff.from_pw_aff(var)
        result = upa if result is None else result.union_add(upa)
    assert result is not None, "a wavefront band reaches at least one statement"
    return result


def _sum(upas: list[isl.UnionPwAff]) -> isl.UnionPwAff:
    total = upas[0]
    for upa in upas[1:]:
        total = total.add(upa)
    return total


def _path(node: isl.ScheduleNode) -> list[int]:
    """Child positions from the root down to `node`."""
    path = []
    while node.has_parent():
        path.append(node.get_child_position())
        node = node.parent()
    return path[::-1]


def _at(schedule: isl.Schedule, path: list[int]) -> isl.ScheduleNode:
    node = schedule.get_root()
    for pos in path:
        node = node.child(pos)
    return node
