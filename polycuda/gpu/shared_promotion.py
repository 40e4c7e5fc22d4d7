"""Shared-memory promotion in DOALL kernels (Baskaran et al. 2008, "Data Management Approach":
allocation of scratchpad arrays, their access functions, copy code; "Optimizing Shared Memory
Access": padding against bank conflicts; PPCG's shared memory does the same).

With Options.shared_promotion the mapping (gpu/mapping.py) tiles the members of a DOALL
kernel's band after its parallel ones too (gemm's k): their tile loops run in sequence inside
the kernel, around the threads, so that the data of one block for one such tile (gemm: an
A[i][k] tile and a B[k][j] tile) can be loaded once. A mark `shared:<kernel>` sits above the
thread mark, below those tile loops: every statement instance of the kernel is below it, and
its prefix schedule (host loops, block tiles, sequential tiles) names one block's tile.

An array accessed below the mark is promoted when, decided with isl on the access relations:
1. reuse (the slides' criterion for copying to the scratchpad): two different instances with
   the same prefix (one block's tile) access one element;
2. the box of one tile's footprint has constant extents (staging.footprint_box) and the boxes
   of the promoted arrays fit Options.shared_memory_kib (at most the 48 KiB of static shared
   memory), greedily in array-name order;
3. legality: no instance of the same launch on another block accesses an element that the
   tile accesses, when one of the two writes (the blocks run in parallel; the tile's writes
   reach global memory only after it). Threads of one block are ordered as the original
   program orders them: no dependence joins two points of one tile (the mapping's race check
   of the thread band, whose prefix includes the sequential tiles), one thread's instances
   run in order on the copy, and a barrier separates the copy-in, the compute and the
   copy-out of one tile from the next tile's;
4. every reference to the array is unconditional and affine (promotion.unsafe_arrays), and no
   register holds one of its elements (a private scope's loads and stores read the array; a
   carried register, gpu/carry.py, holds it across the tiles).

The copy code (codegen/shared_code.py) loads the tile's read footprint (exactly, intersected
with the array's extents) with consecutive threads on consecutive elements, and stores back
exactly the elements that the tile writes.
"""

from __future__ import annotations

import dataclasses
import math

import islpy as isl

from polycuda.gpu import promotion, staging
from polycuda.gpu.plan import (  # noqa: F401 (SHARED_MARK, layout_strides: as before)
    SHARED_MARK, KernelMapping, MappedSchedule, SharedArray, SharedScope, layout_strides)
from polycuda.ir import isl_build
from polycuda.ir.expr import Ref
from polycuda.ir.scop import Scop
from polycuda.options import Options

# Tile size of the band members after the parallel ones (gemm's k): PPCG's default, 32
SEQUENTIAL_TILE = 32
# The default layout of a gemm-like kernel (two parallel members and sequential ones after
# them whose tiles are full, gemm_like()) when no tile, block or register tile sizes are
# given: PPCG-like blocks of 64x64 points on 16x32 threads, 4x2 points per thread (8
# accumulators carried across the k tiles, gpu/carry.py), k tile 32 where the 64 x 32 tiles of
# every array the kernel reads and does not write fit STATIC_SHARED_BYTES (gemm's A and B: 32
# KiB in double), else 16 (gemm_sequential_tile()). Measured on the H100 (bench/gemm_sweep.py,
# n = 1024, kernel-only): gemm 0.354 ms with k tile 16, 0.334 with 32 (gemm-sweep-k32.json),
# 0.612 with 4x4 points on 16x16 threads, 0.399 with 2x4; cuBLAS 0.145 ms. Four arrays at k
# tile 32 (syr2k's) overflow the 48 KiB: one stays in global memory, 5x slower.
GEMM_TILES = (64, 64)
GEMM_REGISTER_TILES = (4, 2)
GEMM_SEQUENTIAL_TILES = (32, 16)
MAX_SEQUENTIAL_TILES = 2
# Static shared memory per block that a kernel may declare without opting in
STATIC_SHARED_BYTES = 48 * 1024
# Banks of shared memory and their width (sm_50 and later; the slides' 8800 GTX had 16)
BANKS = 32
BANK_BYTES = 4
# isl steps of the search for one schedule; beyond, no shared promotion (it only saves memory
# traffic, and the code without it is correct)
SHARED_PROMOTION_OPERATIONS = 5_000_000


def enabled(options: Options) -> bool:
    """Whether DOALL kernels may get a shared mark: Options.shared_promotion on the CUDA target
    (with or without register tiling: the unit bands lie below the shared mark, so a tile's
    copies serve every unit of its threads). A kernel gets one only when its band has
    sequential members after the parallel ones (sequential_tile_sizes: gemm's k), whose tiles
    bring reuse along a loop that each thread runs; a kernel with none (a stencil, whose reuse
    is only between neighbouring threads, which the L1 cache serves) keeps global memory: on
    the H100, heat-3d took 42 ms with its tiles in shared memory against 14.4 ms without
    (bench/results/2026-11-25-nvidia-h100-80gb-hbm3-ppcg-shared-default.json). Kernels with
    one parallel loop take their tiles too (gramschmidt 250 -> 136 ms on the H100): deriche's
    row recurrences, whose tiled j loop once gave wrong results there, were an nvcc
    miscompilation under __restrict__ (codegen/cuda_target.read_and_written)."""
    return options.shared_promotion and options.target == "cuda"


def gemm_like(band: isl.ScheduleNode, n: int, options: Options) -> bool:
    """Whether the kernel of `band` (n parallel members) takes the gemm-like default layout
    (GEMM_TILES, GEMM_REGISTER_TILES, gemm_sequential_tile()): shared promotion on, two mapped
    members followed by sequential ones that are tiled (a permutable band), none of the tile,
    block or register tile sizes given (then those apply, with their defaults), and its tiles
    full of work for its registers: the mapped members' points a box (rectangular(
    mapped_points())) and each statement without a loop of its own at one place
    (fixed_sequential_places())."""
    return (enabled(options) and n == 2 and not options.tile_sizes
            and not options.block_sizes and not options.register_tiles
            and bool(sequential_tile_sizes(band, n))
            and rectangular(mapped_points(band, n)) and fixed_sequential_places(band, n))


def fixed_sequential_places(band: isl.ScheduleNode, n: int) -> bool:
    """Whether each statement that the sequential members place at one point per mapped point
    (no loop of its own there: gemm's C *= beta) has the same place at every mapped point.
    A place that follows the mapped members (isl's schedule of symm_scatter puts its final
    C[i][j] at sequential value i, on the tiles' diagonal) splits each k tile's code into
    cases for the thread's unrolled points: 3.23 ms against 1.00 ms without the gemm-like
    layout on the H100 (2026-11-25-nvidia-h100-80gb-hbm3-mapped-box.json).

    # per statement { [p_0, ..., p_n-1] -> [s...] }: a function of p only if constant
    """
    whole = band.band_get_partial_schedule_union_map().intersect_domain(band.get_domain())
    for statement in isl_build.maps_of(whole):
        places = isl.Map.from_range(statement.range()).move_dims(
            isl.dim_type.in_, 0, isl.dim_type.out, 0, n)  # { [p] -> [s] }
        if places.is_single_valued():
            values = places.range()
            if not values.lexmin().is_equal(values):
                return False
    return True


def _first_members(band: isl.ScheduleNode, n: int) -> isl.UnionMap:
    """{ S[x] -> [p_0, ..., p_n-1] }: the band's first n members."""
    if band.band_n_member() > n:
        band = band.band_split(n)
    return band.band_get_partial_schedule_union_map()


def mapped_points(band: isl.ScheduleNode, n: int) -> isl.UnionSet:
    """The values of the band's first n (mapped) members over the instances that reach it:
    the points that the blocks' tiles cover. trmm's k > i bounds only its sequential loop,
    so its (i, j) points are a box and its 64 x 64 tiles full (0.320 ms on the H100 with the
    gemm-like layout in kernel-only-triangular.json, 0.363 ms without it in
    kernel-only-d5cf3ea.json).

    # { S[x] -> [p_0, ..., p_n-1] } applied to the band's domain: { [p] }
    """
    return band.get_domain().apply(_first_members(band, n))


def rectangular(domain: isl.UnionSet) -> bool:
    """Whether no constraint of `domain` bounds one loop by another (each statement's
    iteration domain is a box with parametric bounds).

    On a triangular domain (syrk's j <= i, correlation's j > i, symm's k < i) the gemm-like
    layout's 64x64 tiles are half empty along the diagonal and each of a thread's unrolled
    4x2 points carries its own guard. Kernel-only on the H100 at the full sizes
    (layouts.json, 2026-11-25), the gemm-like layout against the 8x32 default tiles with
    shared promotion: symm_scatter 2.81 against 0.99 ms, correlation 2.51 against 0.92,
    covariance 0.53 against 0.37, syr2k 0.79 against 0.69; gemm 0.345 against 0.565.
    """
    coupled = False

    def constraint(c: isl.Constraint) -> None:
        nonlocal coupled
        loops = sum(not c.get_coefficient_val(isl.dim_type.set, k).is_zero()
                    for k in range(c.get_space().dim(isl.dim_type.set)))
        coupled = coupled or loops > 1

    domain.foreach_set(lambda s: s.foreach_basic_set(
        lambda b: b.foreach_constraint(constraint)))
    return not coupled


def sequential_tile(options: Options, gemm: bool, band: isl.ScheduleNode,
                    accesses: staging.Accesses | None) -> int:
    """The k tile: Options.sequential_tile, or (0: automatic) gemm_sequential_tile() in the
    gemm-like layout and SEQUENTIAL_TILE otherwise."""
    if options.sequential_tile:
        return options.sequential_tile
    return gemm_sequential_tile(band, accesses) if gemm else SEQUENTIAL_TILE


def gemm_sequential_tile(band: isl.ScheduleNode, accesses: staging.Accesses | None) -> int:
    """The first of GEMM_SEQUENTIAL_TILES at which a GEMM_TILES[0] x k tile of each array that
    the band's statements read and do not write fits STATIC_SHARED_BYTES together (the
    arrays that shared promotion may copy; padding aside); the last one without accesses."""
    if accesses is None:
        return GEMM_SEQUENTIAL_TILES[-1]
    domain = band.get_domain()

    def arrays(relation: isl.UnionMap) -> set[str]:
        return set(isl_build.statement_names(relation.intersect_domain(domain).range()))

    read = arrays(accesses.reads) - arrays(accesses.writes)
    bytes_per_k = sum(GEMM_TILES[0] * staging.DTYPE_BYTES[accesses.dtypes[a]] for a in read)
    return next((k for k in GEMM_SEQUENTIAL_TILES if k * bytes_per_k <= STATIC_SHARED_BYTES),
                GEMM_SEQUENTIAL_TILES[-1])


def sequential_tile_sizes(band: isl.ScheduleNode, n: int, size: int = SEQUENTIAL_TILE
                          ) -> tuple[int, ...]:
    """Tile sizes (`size`, sequential_tile()) of the members of `band` after its n parallel
    ones, tiled with them: at most MAX_SEQUENTIAL_TILES, and only in a permutable band
    (rectangular tiles of a permutable band are legal; the pipeline checks the tiled schedule
    anyway)."""
    if not band.band_get_permutable():
        return ()
    return (size,) * min(band.band_n_member() - n, MAX_SEQUENTIAL_TILES)


def mark_tile(tile_band: isl.ScheduleNode, n: int, kernel: str) -> isl.ScheduleNode:
    """The tiled band [T, Tseq] -> [P, Pseq] split into [T] -> [Tseq] -> mark shared -> [P]
    -> [Pseq] (Tseq and Pseq absent when only n members were tiled); returns the [P] band."""
    if tile_band.band_n_member() > n:
        tile_band = tile_band.band_split(n)
        point = tile_band.child(0).child(0).band_split(n)
    else:
        point = tile_band.child(0)
    mark = isl_build.named_id(point.get_ctx(), f"{SHARED_MARK}:{kernel}")
    return point.insert_mark(mark).child(0)


def promote_shared(mapped: MappedSchedule, scop: Scop, accesses: staging.Accesses,
                   options: Options) -> MappedSchedule:
    """_promote_shared() within SHARED_PROMOTION_OPERATIONS isl steps, else `mapped`."""
    return isl_build.within_operations(
        mapped.schedule.get_ctx(), SHARED_PROMOTION_OPERATIONS,
        lambda: _promote_shared(mapped, scop, accesses, options), lambda: mapped)


def _promote_shared(mapped: MappedSchedule, scop: Scop, accesses: staging.Accesses,
                    options: Options) -> MappedSchedule:
    """Each kernel's SharedScope (KernelMapping.shared), for every shared mark."""
    if any(s.is_indirect() for s in scop.statements):
        return mapped  # may-accesses only: no exact footprint
    reads = promotion.lift_access(accesses.reads, mapped.lift)
    writes = promotion.lift_access(accesses.writes, mapped.lift)
    unsafe = promotion.unsafe_arrays(scop)
    budget = min(options.shared_memory_kib * 1024, STATIC_SHARED_BYTES)
    kernels = {k.name: k for k in mapped.kernels}
    found: dict[str, SharedScope] = {}
    for mark in _marks(mapped.schedule.get_root()):
        name = mark.mark_get_id().get_name().partition(":")[2]
        arrays = _arrays(mark, kernels[name], scop, reads, writes, unsafe, accesses.dtypes,
                         budget)
        if arrays:
            found[name] = SharedScope(name, arrays)
    if not found:
        return mapped
    new_kernels = tuple(dataclasses.replace(k, shared=found[k.name]) if k.name in found
                        else k for k in mapped.kernels)
    return MappedSchedule(mapped.schedule, new_kernels, mapped.lift)


def _marks(root: isl.ScheduleNode) -> list[isl.ScheduleNode]:
    marks: list[isl.ScheduleNode] = []

    def visit(node: isl.ScheduleNode) -> bool:
        if (node.get_type() == isl.schedule_node_type.mark
                and node.mark_get_id().get_name().startswith(f"{SHARED_MARK}:")):
            marks.append(node.copy())
        return True

    root.foreach_descendant_top_down(visit)
    return marks


def _arrays(mark: isl.ScheduleNode, kernel: KernelMapping, scop: Scop, reads: isl.UnionMap,
            writes: isl.UnionMap, unsafe: dict[str, frozenset[str]], dtypes: dict[str, str],
            budget: int) -> tuple[SharedArray, ...]:
    """The reference groups promoted at `mark` (module docstring's conditions), in array-name
    order, then by their first reference.

    # reads, writes: { S[x] -> A[a] } in the schedule's domain
    """
    domain = mark.get_domain()
    prefix = mark.get_prefix_schedule_union_map().intersect_domain(domain)  # { S[x] -> [p] }
    kernel_node = promotion.kernel_mark(mark)
    kernel_domain = kernel_node.get_domain()
    host = kernel_node.get_prefix_schedule_union_map().intersect_domain(kernel_domain)
    block = host.flat_range_product(
        kernel_node.child(0).band_get_partial_schedule_union_map().intersect_domain(
            kernel_domain))  # { S[x] -> [host, T] }
    # { S[x] -> R[y] }: instances of one launch on different blocks
    other_blocks = host.apply_range(host.reverse()).subtract(
        block.apply_range(block.reverse())).intersect_domain(domain)
    private = {e.array for scope in kernel.private for e in scope.elements}
    private |= {e.array for e in kernel.carried}
    names: set[str] = set()
    domain.foreach_set(lambda s: names.update(unsafe.get(s.get_tuple_name(), frozenset())))
    same_tile = prefix.apply_range(prefix.reverse())
    steps = _thread_steps(mark, kernel)
    everything = reads.union(writes)
    chosen, used = [], 0
    for group in _groups(scop, domain, prefix):
        array = group.array
        if array in private or array in names or not scop.array(array).shape:
            continue
        touched = group.reads.union(group.writes)
        if not _reused(touched, same_tile):
            continue
        conflicts = group.writes.apply_range(
            promotion.of_array(everything, array).reverse()).union(
            touched.apply_range(promotion.of_array(writes, array).reverse()))
        if not conflicts.intersect(other_blocks).is_empty():
            continue
        sizes = _box_sizes(prefix.reverse().apply_range(touched))
        if sizes is None:
            continue
        pitch = padded_pitch(sizes, dtypes[array], _strides_across_threads(group, steps))
        shared = dataclasses.replace(group, dtype=dtypes[array], sizes=sizes, pitch=pitch)
        if used + shared.bytes() <= budget:
            chosen.append(shared)
            used += shared.bytes()
    return tuple(chosen)


def _groups(scop: Scop, domain: isl.UnionSet, prefix: isl.UnionMap) -> list[SharedArray]:
    """The references of the statements of `domain`, grouped (Baskaran et al.: a scratchpad
    array per non-overlapping accessed region): equal references together, and references to
    one array whose footprints meet in some tile (_merged). Sizes are not set yet.

    # prefix: { S[x] -> [p] }
    """
    ctx = domain.get_ctx()
    names: set[str] = set()
    domain.foreach_set(lambda s: names.add(s.get_tuple_name()))
    # per array: [refs, reads, writes, footprint { [p] -> A[a] }] of each group
    groups: dict[str, list[list]] = {}
    for stmt in scop.statements:
        if stmt.name not in names:
            continue
        for access in isl_build.statement_accesses(scop, stmt):
            amap = isl.UnionMap.from_map(isl_build.access_map(access, stmt, ctx, tagged=False))
            amap = amap.intersect_domain(domain)
            empty = isl.UnionMap.empty(amap.get_space())
            entry = [{access.ref}, empty if access.is_write else amap,
                     amap if access.is_write else empty, prefix.reverse().apply_range(amap)]
            groups.setdefault(access.array, []).append(entry)
    result = []
    for array in sorted(groups):
        merged = _merged(groups[array])
        for k, (refs, reads, writes, _) in enumerate(merged):
            result.append(SharedArray(array, "", (), 0, reads, writes, f"{array}_{k}",
                                      frozenset(refs)))
    return result


def _merged(entries: list[list]) -> list[list]:
    """Entries [refs, reads, writes, footprint] merged while two share a reference, or their
    footprints meet and one writes or their union's box has constant sizes (a stencil's
    neighbours: one copy, reused across threads). Two read-only copies of an element hold the
    same value: syrk's A[i][k] and A[j][k], whose union grows with the tiles' distance,
    keep a copy each."""
    entries = list(entries)
    changed = True
    while changed:
        changed = False
        for a in range(len(entries)):
            for b in range(a + 1, len(entries)):
                ea, eb = entries[a], entries[b]
                writes = not ea[2].is_empty() or not eb[2].is_empty()
                meet = not ea[3].intersect(eb[3]).is_empty()
                if ea[0] & eb[0] or (meet and (writes or _box_sizes(ea[3].union(eb[3]))
                                               is not None)):
                    entries[a] = [ea[0] | eb[0], ea[1].union(eb[1]), ea[2].union(eb[2]),
                                  ea[3].union(eb[3])]
                    del entries[b]
                    changed = True
                    break
            if changed:
                break
    return entries


def _reused(touched: isl.UnionMap, same_tile: isl.UnionMap) -> bool:
    """Whether two different instances of one tile access one element (Baskaran et al.:
    copy to the scratchpad only what is reused).

    # touched: { S[x] -> A[a] };  same_tile: { S[x] -> R[y] } with equal prefix schedules
    """
    pairs = touched.apply_range(touched.reverse()).intersect(same_tile)
    return not pairs.subtract(touched.domain().identity()).is_empty()


def _box_sizes(footprint: isl.UnionMap) -> tuple[int, ...] | None:
    """The constant extents of the box of one tile's footprint, { [p] -> A[a] }, over every
    tile and parameter value (staging.footprint_box); None when one grows with them."""
    maps = isl_build.maps_of(footprint)
    if len(maps) != 1:
        return None
    amap = staging.unclipped(isl.UnionMap.from_map(maps[0]))
    maps = isl_build.maps_of(amap)
    names = [f"pc_p{k}" for k in range(maps[0].dim(isl.dim_type.in_))]
    box = staging.footprint_box(maps[0], names)
    return None if box is None else box[1]


def _thread_steps(mark: isl.ScheduleNode, kernel: KernelMapping) -> isl.UnionMap:
    """Pairs of instances that neighbouring threads along x run at the same step: the whole
    schedule equal except the innermost thread coordinate, one more in the second.

    # returns { S[x] -> S[y] }
    """
    point = mark.child(0).child(0)  # thread mark -> [P]
    inner = point.child(0)
    full = inner.get_prefix_schedule_union_map().flat_range_product(
        inner.get_subtree_schedule_union_map())
    space_dims = [0]
    full.foreach_map(lambda m: space_dims.__setitem__(0, m.dim(isl.dim_type.out)))
    dims = space_dims[0]
    x = point.get_schedule_depth() + kernel.n - 1
    src = ", ".join(f"s{k}" for k in range(dims))
    dst = ", ".join(f"s{k} + 1" if k == x else f"s{k}" for k in range(dims))
    shift = isl.UnionMap.read_from_str(mark.get_ctx(), f"{{ [{src}] -> [{dst}] }}")
    return full.apply_range(shift).apply_range(full.reverse())


def _strides_across_threads(group: SharedArray, steps: isl.UnionMap
                            ) -> list[tuple[int, ...]]:
    """Per reference of the group: the difference of the elements that two neighbouring
    threads along x access at the same step (a constant vector), where it is one.

    # steps: { S[x] -> S[y] } (_thread_steps)
    """
    vectors = []
    for access in isl_build.maps_of(group.reads.union(group.writes)):
        ref = isl.UnionMap.from_map(access)
        delta = steps.apply_domain(ref).apply_range(ref).deltas()  # { A[a' - a] }
        if delta.is_empty():
            continue
        point = isl.Set.from_union_set(delta)
        if not point.is_singleton():
            continue
        sample = point.sample_point()
        vectors.append(tuple(sample.get_coordinate_val(isl.dim_type.set, d).to_python()
                             for d in range(point.dim(isl.dim_type.set))))
    return vectors


def conflict_degree(stride: int, dtype: str) -> int:
    """Baskaran et al.: degree of bank conflicts = gcd(stride of the access across the threads
    of a warp, number of banks), the stride in bank words; an element of w words counts as
    conflict-free at stride 1 (a warp's w-word accesses take w passes anyway). Stride 0 is a
    broadcast.

    Example:
        >>> conflict_degree(32, "float"), conflict_degree(33, "float"), conflict_degree(1, "double")
        (32, 1, 1)
        >>> conflict_degree(16, "double"), conflict_degree(0, "float")
        (16, 1)
    """
    if stride == 0:
        return 1
    words = max(1, staging.DTYPE_BYTES[dtype] // BANK_BYTES)
    return max(1, math.gcd(abs(stride) * words, BANKS) // words)


def padded_pitch(sizes: tuple[int, ...], dtype: str, vectors: list[tuple[int, ...]]) -> int:
    """The inner extent of the shared copy, sizes[-1] + pad for the pad in [0, BANKS) that
    minimizes the summed degree of bank conflicts of every reference (the cost of a shared
    access is linear in its degree: Baskaran et al., "Optimizing Shared Memory Access");
    the smallest pad on ties. `vectors`: each reference's element difference between
    neighbouring threads.

    Example:
        >>> padded_pitch((32, 32), "float", [(1, 0)])  # A[j][i]: threads walk a column
        33
        >>> padded_pitch((32, 32), "float", [(0, 1)]), padded_pitch((64,), "float", [(1,)])
        (32, 64)
    """
    if len(sizes) < 2:
        return sizes[-1]

    def cost(pitch: int) -> int:
        strides = layout_strides(sizes, pitch)
        return sum(conflict_degree(sum(v * s for v, s in zip(vec, strides)), dtype)
                   for vec in vectors)

    return min(range(sizes[-1], sizes[-1] + BANKS), key=lambda p: (cost(p), p))
