"""Shared-memory staging of a wavefront tile's data (Di et al. 2012, Section III: a tile's data
in shared memory when it fits).

For every array that a wavefront kernel's statements access, the footprint of one tile is the
image of the tile's instances under the accesses; its bounding box has a fixed size (the
tiles are translates of one parallelogram) and an offset that is a function of the tile's
coordinates. A block stages the box of its tile before the tile's intra-tile wavefronts
(`__syncthreads()`) and runs them on the shared copy. The tiles of one inter-tile wavefront
are independent (no flow, anti or output dependence between them: the wavefront is legal),
so a value that a tile reads from global memory was final before its wavefront began, and
no other tile of the wavefront reads or writes an element that this one writes. The tile's
results reach global memory in one of two exact ways:

- a write-back pass after the tile over the convex hull of its write footprint, when no
  other tile of its wavefront writes into that hull (isl checks it): the elements it did
  not write hold the values loaded before it, unchanged by anyone meanwhile. One test of a
  few affine inequalities per box element (every stencil of the suite);
- else a store to global memory right after each write that is the tile's last of its
  element (a condition on the instance, in the AST's iterators).

A dirty byte per element, set at every write and tested by a pass over the box, did the same
at one shared store per write (H100, 2-D Jacobi 4096^2 x 1000 float, best of a tiles x threads
sweep: 54.7 ms with dirty bytes, `...-t1000-final.json`; 50.0 with the hull pass,
`...-t1000-hull.json`; 16 x 64 x 64 tiles on 4 x 128 threads: 67.9 against 50.0).

The plan is computed on the schedule tree, where the tile's coordinates are schedule
dimensions: the offsets are C expressions in the iterators of the inter-tile wavefront loop
and the tile loops (names `<prefix><depth>`), which the kernel has in scope around the
intra-tile wavefront loop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import islpy as isl

from polycuda.ir.ast_expr import ast_expr_to_c
from polycuda.ir import dtypes, isl_build

DTYPE_BYTES = dtypes.BYTES


@dataclass(frozen=True)
class Accesses:
    """What staging needs of the scop: its reads and writes and each array's element type.

    # reads:  { S[x] -> A[a] } every read;  writes: the same for writes
    """

    reads: isl.UnionMap
    writes: isl.UnionMap
    dtypes: dict[str, str]


@dataclass(frozen=True)
class StagedArray:
    """One array staged per tile: the box [offsets, offsets + sizes) of its elements.

    offsets: C expressions in the parameters and the iterators of the inter-tile wavefront
    loop and the tile loops. writers: the statements of the band that write the array.
    write_back: the C condition (in the same names and the element's subscripts pc_x0, ...)
    of the box elements that a pass after the tile stores to global memory, if one exists
    (_write_back); else final: the writers' instances (in the lifted space of the schedule,
    S[x, T, P]) that make the tile's last write of their element, which also store the
    value to global memory.
    """

    array: str
    offsets: tuple[str, ...]
    sizes: tuple[int, ...]
    writers: tuple[str, ...] = ()
    final: isl.UnionSet | None = field(default=None, compare=False, repr=False)
    write_back: str | None = None

    @property
    def elements(self) -> int:
        return math.prod(self.sizes)

    def bytes(self, dtype: str) -> int:
        """Shared memory of the copy, padded to SHARED_ALIGN (as codegen lays them out)."""
        return padded(self.elements * DTYPE_BYTES[dtype])


# Alignment of each staged copy in the block's dynamic shared memory
SHARED_ALIGN = 16


def padded(size: int) -> int:
    return -(-size // SHARED_ALIGN) * SHARED_ALIGN


# An SM of the reference GPU (H100, sm_90): shared memory, the part of it that the driver
# keeps per resident block, threads, blocks
SM_SHARED_BYTES = 228 * 1024
BLOCK_RESERVED_BYTES = 1024
SM_THREADS = 2048
SM_BLOCKS = 32
WARP = 32


def resident_blocks(shared_bytes: int, threads: int) -> int:
    """Blocks of a staged kernel that fit on one SM of the reference GPU at once, by shared
    memory, warps and the SM's block limit (0 if nothing is staged): the kernel asks the
    compiler for registers that let as many be resident (`__launch_bounds__(threads,
    blocks)`), so that one block's staging overlaps another's compute. H100, 2-D Jacobi in
    float, 8 x 64 x 64 tiles on 512 threads: 64 registers allow 2 blocks where shared memory
    allows 3; asking for 3 (37 registers, no spills) ran 6% faster (60.5 -> 57.1 ms, entry
    inter@8x64x64+b8x64+smem227 of bench/results/...-t1000-blocks.json and -t1000-final.json).

    Example:
        >>> resident_blocks(64000, 512), resident_blocks(120000, 256), resident_blocks(0, 512)
        (3, 1, 0)
        >>> resident_blocks(384, 12)  # 12 threads take a warp; at most 32 blocks per SM
        32
    """
    if not shared_bytes:
        return 0
    warps = -(-threads // WARP)
    return min(SM_SHARED_BYTES // (shared_bytes + BLOCK_RESERVED_BYTES),
               SM_THREADS // (warps * WARP), SM_BLOCKS)


def layout(arrays: tuple[StagedArray, ...], dtypes: dict[str, str]) -> tuple[list[int], int]:
    """Byte offsets in a block's dynamic shared memory of each array's copy, one after the
    other, each aligned; and the total.

    Example:
        >>> a = StagedArray("A", ("0",), (10,))
        >>> layout((a, StagedArray("B", ("0",), (3,))), {"A": "double", "B": "float"})
        ([0, 80], 96)
    """
    offsets, used = [], 0
    for array in arrays:
        offsets.append(used)
        used += array.bytes(dtypes[array.array])
    return offsets, used


def plan(w_band: isl.ScheduleNode, lift: isl.UnionMap, accesses: Accesses, prefix: str,
         budget: int) -> tuple[StagedArray, ...]:
    """The arrays whose tile boxes fit in `budget` bytes together, taken greedily in the
    order in which isl lists their footprints.

    w_band: the [W] band of a tiled wavefront (wavefront.tile_and_skew), its child the band of
    the enumerated tile coordinates. An array whose box size is not a constant (a footprint
    that grows with a parameter), or a 0-d array, is not staged.

    # lift: { S[x] -> S[x, T, P] } for the band's statements (wavefront.tile_and_skew)
    """
    reads, writes, dtypes = accesses.reads, accesses.writes, accesses.dtypes
    depth = w_band.get_schedule_depth()
    domain = w_band.get_domain()
    # The tiles unclipped by the iteration domain (gist: the domain's constraints dropped):
    # each a translate of one parallelogram, whose footprint's box isl bounds quickly; the
    # clipped tiles' footprints lie inside. tiles: { S[x, T, P] -> [W, T_enumerated...] }
    tiles = unclipped(_tile_schedule(w_band))
    unlift = unclipped(lift.intersect_range(domain)).reverse()
    band_accesses = unclipped(reads.union(writes).intersect_domain(unlift.range()))
    footprint = tiles.reverse().apply_range(unlift.apply_range(band_accesses))
    # each tile's writes, unclipped and as the kernel makes them: { [W, T...] -> A[a] }
    unclipped_writes = tiles.reverse().apply_range(unlift.apply_range(
        unclipped(writes.intersect_domain(unlift.range()))))
    lifted, tile_of = _tile_of(w_band, lift)
    band_writes = writes.intersect_domain(lifted.domain())  # { S[x] -> A[a] }
    tile_writes = tile_of.reverse().apply_range(band_writes)
    writers: dict[str, list[str]] = {}
    for write in isl_build.maps_of(band_writes):
        writers.setdefault(write.get_tuple_name(isl.dim_type.out), []).append(
            write.get_tuple_name(isl.dim_type.in_))
    last: isl.UnionSet | None = None  # computed only for an array without a write-back pass
    names = [f"{prefix}{depth + k}" for k in range(1 + w_band.child(0).band_n_member())]
    staged, used = [], 0
    for amap in isl_build.maps_of(footprint):
        name = amap.get_tuple_name(isl.dim_type.out)
        box = footprint_box(amap, names)
        if box is None:
            continue
        back = final = None
        if name in writers:
            back = _write_back(unclipped_writes, tile_writes, name, names)
            if back is None:
                last = _last_writes(w_band, lifted, tile_of, band_writes) if last is None else last
                elements = isl.UnionSet(isl.Set.universe(amap.get_space().range()))
                final = last.intersect(lifted.intersect_domain(
                    band_writes.intersect_range(elements).domain()).range())
        array = StagedArray(name, box[0], box[1], tuple(sorted(writers.get(name, ()))), final,
                            back)
        if used + array.bytes(dtypes[name]) <= budget:
            staged.append(array)
            used += array.bytes(dtypes[name])
    return tuple(staged)


def _write_back(unclipped_writes: isl.UnionMap, tile_writes: isl.UnionMap, array: str,
                names: list[str]) -> str | None:
    """The C condition of a write-back pass for `array` after each tile: the convex hull of
    the tile's write footprint, if no other tile of its inter-tile wavefront writes an
    element in it; else None.

    Exact: the pass stores every element that the tile wrote (they lie in the hull), and
    the others of the hull hold the value loaded before the tile, which no tile running at
    the same time changes, so storing it changes nothing. One test per box element after
    the tile costs less than a guard per write: H100, 2-D Jacobi, 4096^2 x 1000 float,
    8 x 64 x 128 tiles on 4 x 128 threads: 59.5 ms with a guard per write (final-store
    guards in the AST's iterators, `...-t1000-guards.json`), 54.1 with this pass
    (`...-t1000-hull.json`), 54.7 with a dirty byte per write and a pass over the box.

    # unclipped_writes: { [W, T...] -> A[a] } per tile, unclipped (the footprints of plan())
    # tile_writes: the same, clipped: the elements that each tile writes
    """
    mine = [m for m in isl_build.maps_of(unclipped_writes)
            if m.get_tuple_name(isl.dim_type.out) == array]
    written = [m for m in isl_build.maps_of(tile_writes)
               if m.get_tuple_name(isl.dim_type.out) == array]
    if len(mine) != 1 or len(written) != 1:
        return None
    hull = isl.Map.from_basic_map(mine[0].polyhedral_hull())
    n = written[0].dim(isl.dim_type.in_)
    a = [f"a{k}" for k in range(n)]
    b = [a[0], *(f"b{k}" for k in range(1, n))]
    differ = " or ".join(f"a{k} < b{k} or a{k} > b{k}" for k in range(1, n)) or "1 = 0"
    others = isl.Map.read_from_str(hull.get_ctx(), f"{{ [{', '.join(a)}] -> [{', '.join(b)}] "
                                                   f": {differ} }}")
    # { [W, T...] -> A[a] }: what the other tiles of the tile's wavefront write
    theirs = others.apply_range(written[0])
    if not hull.intersect(theirs).is_empty():
        return None
    condition = _as_parameters(hull, names)
    return ast_expr_to_c(isl.AstBuild.from_context(
        isl.Set.universe(condition.get_space())).expr_from_set(condition))


def _tile_of(w_band: isl.ScheduleNode, lift: isl.UnionMap) -> tuple[isl.UnionMap, isl.UnionMap]:
    """The lift restricted to the band's instances, { S[x] -> S[x, T, P] }, and each
    instance's tile, { S[x] -> [W, T...] } (W and the enumerated tile coordinates)."""
    lifted = lift.intersect_range(w_band.get_domain())
    return lifted, lifted.apply_range(_tile_schedule(w_band))


def _tile_schedule(w_band: isl.ScheduleNode) -> isl.UnionMap:
    """{ S[x, T, P] -> [W, T_enumerated...] }: the wavefront band's and its child's."""
    return w_band.band_get_partial_schedule_union_map().flat_range_product(
        w_band.child(0).band_get_partial_schedule_union_map())


def _as_parameters(tile_map: isl.Map, names: list[str]) -> isl.Set:
    """{ [W, T...] -> A[a] } as a set of parameters only: the tile coordinates named `names`,
    the subscripts pc_x0, ..."""
    n_tile = tile_map.dim(isl.dim_type.in_)
    n_out = tile_map.dim(isl.dim_type.out)
    nparam = tile_map.dim(isl.dim_type.param)
    flat = tile_map.wrap().flatten()
    flat = flat.move_dims(isl.dim_type.param, nparam, isl.dim_type.set, 0, n_tile + n_out)
    for k, name in enumerate([*names, *(f"pc_x{d}" for d in range(n_out))]):
        flat = flat.set_dim_name(isl.dim_type.param, nparam + k, name)
    return flat.params()


def _last_writes(w_band: isl.ScheduleNode, lifted: isl.UnionMap, tile_of: isl.UnionMap,
                 band_writes: isl.UnionMap) -> isl.UnionSet:
    """The instances (lifted: S[x, T, P]) that make the last write of their element in their
    tile (StagedArray.final).

    An instance is not last if a later instance of the same tile, in the order of the
    schedule below the inter-tile wavefront, writes the same element. Two instances of one
    intra-tile wavefront never write one element (that would be an output dependence
    inside a parallel wavefront), so the schedule's order among them does not matter.

    # lifted, tile_of: of _tile_of; band_writes: { S[x] -> A[a] } of the band's statements
    """
    order = lifted.apply_range(w_band.get_subtree_schedule_union_map())
    overwritten = (order.lex_lt_union_map(order)
                   .intersect(tile_of.apply_range(tile_of.reverse()))
                   .intersect(band_writes.apply_range(band_writes.reverse()))).domain()
    return lifted.intersect_domain(band_writes.domain().subtract(overwritten)).range()


def footprint_box(amap: isl.Map, names: list[str]
                  ) -> tuple[tuple[str, ...], tuple[int, ...]] | None:
    """Offsets (C, in the parameters and `names`) and constant sizes of the bounding box of
    the range of { [W, T...] -> A[a] } per domain point; None if some size is not bounded by
    a constant."""
    nparam = amap.dim(isl.dim_type.param)
    n_in = amap.dim(isl.dim_type.in_)
    if amap.dim(isl.dim_type.out) == 0:
        return None
    per_tile = amap.move_dims(isl.dim_type.param, nparam, isl.dim_type.in_, 0, n_in)
    for k, name in enumerate(names):
        per_tile = per_tile.set_dim_name(isl.dim_type.param, nparam + k, name)
    box = per_tile.range()
    offsets, sizes = [], []
    for d in range(box.dim(isl.dim_type.set)):
        try:
            low, high = box.dim_min(d), box.dim_max(d)
        except isl.Error:  # unbounded: a band member not tiled (wavefront.inner_members_last)
            return None
        extent = _largest(high.sub(low).add_constant_val(isl.Val.one(amap.get_ctx())))
        if extent is None:
            return None
        sizes.append(extent)
        build = isl.AstBuild.from_context(low.domain())
        offsets.append(ast_expr_to_c(build.expr_from_pw_aff(low.coalesce())))
    return tuple(offsets), tuple(sizes)


def unclipped(umap: isl.UnionMap) -> isl.UnionMap:
    """`umap` without the constraints that its domain implies (isl's gist)."""
    return umap.gist_domain(umap.domain())


def _largest(pw_aff: isl.PwAff) -> int | None:
    """The maximum of a quasi-affine function of the parameters over all of them, or None if
    it is unbounded.

    Basic set by basic set of each piece: the maximum over the union is the largest of the
    maxima over each basic set's hull, and an unbounded one makes it unbounded. No hull of a
    union is computed: for a fuzz program (seed 7005, isl scheduler) a box extent of 11
    pieces projected to 35 basic sets, whose hull took 36 s, twice; the hull of one piece of
    81 basic sets did not finish in minutes (profile "large", seed 3); per basic set,
    milliseconds.
    """
    found = None
    for values in _value_sets(pw_aff):  # { [e] }
        # drop the existentials that the projection leaves (with them isl cannot tell a
        # bounded set from an unbounded one): the rational projection, a superset, so an
        # upper bound. Not polyhedral_hull, the same set for one basic set: on some nested
        # divisions it loops without counting isl operations (fuzz seed 60914, divmod)
        hull = isl.Set.from_basic_set(values.remove_divs())
        if hull.is_empty():
            continue
        if not hull.is_bounded():
            return None
        point = hull.lexmax().sample_point()
        value = point.get_coordinate_val(isl.dim_type.set, 0).to_python()
        found = value if found is None else max(found, value)
    return found


def _value_sets(pw_aff: isl.PwAff) -> list[isl.BasicSet]:
    """The values of `pw_aff` as basic sets { [e] } with the parameters projected out, one or
    more per basic set of each piece's domain."""
    pieces: list[tuple[isl.Set, isl.Aff]] = []
    pw_aff.foreach_piece(lambda domain, aff: pieces.append((domain, aff)))
    result = []
    for domain, aff in pieces:
        for part in domain.get_basic_sets():
            values = isl.Set.from_pw_aff(isl.PwAff.alloc(isl.Set.from_basic_set(part), aff))
            nparam = values.dim(isl.dim_type.param)  # [params] -> { [e] }
            values = values.move_dims(isl.dim_type.set, 1, isl.dim_type.param, 0, nparam)
            result += values.project_out(isl.dim_type.set, 1, nparam).get_basic_sets()
    return result
