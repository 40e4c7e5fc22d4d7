"""The mapping's tiling steps: DOALL kernels' bands tiled (tile loops on blocks, point loops on
threads), wavefront kernels' bands tiled and skewed (Di et al. 2012, Section III), and their
arrays staged in shared memory; map_schedule runs mapping.assign_kernels and these in order.
"""

from __future__ import annotations

import dataclasses

import islpy as isl

from polycuda.analysis import reductions as reductions_
from polycuda.gpu import extents, register_tiling, shared_promotion, staging, wavefront
from polycuda.gpu.mapping import KERNEL_MARK, KernelMapping, MappedSchedule, assign_kernels
from polycuda.ir import isl_build
from polycuda.options import Options


def map_schedule(schedule: isl.Schedule, options: Options, context: isl.Set,
                 prefix: str = "c", dep_map: isl.UnionMap | None = None,
                 accesses: staging.Accesses | None = None,
                 reductions: dict[str, reductions_.Update] | None = None
                 ) -> MappedSchedule:
    """Every mapping step: kernels assigned (mapping.assign_kernels: its arguments), DOALL
    bands tiled, wavefront bands tiled and skewed, wavefront tiles staged (Options.
    shared_staging on the cuda target, with `accesses`).

    Mark ids: "kernel:<name>" above the tile band, "thread:<name>" above the point band,
    "serial:<name>" above a subtree run by one thread, "reduce:<name>" above a reduction loop.
    """
    mapped = assign_kernels(schedule, options, context, prefix, dep_map, accesses, reductions)
    mapped = tile_kernels(mapped, context)
    mapped = skew_wavefronts(mapped, context)
    return stage_wavefronts(mapped, accesses, options)


def tile_kernels(mapped: MappedSchedule, context: isl.Set) -> MappedSchedule:
    """The tiling step: each DOALL kernel's band, below its kernel mark, tiled by its tile
    sizes (and its sequential tiles, gpu/shared_promotion.py); its point band split into
    threads and units when it runs several points per thread (gpu/register_tiling.py).

    Result per kernel: mark kernel -> band [T] (blocks) [-> [Tseq] -> mark shared] -> mark
    thread -> band [P] (threads) [-> units] -> the band's old child; tile_counts set.
    """
    _tile_options(mapped.schedule.get_ctx())
    schedule, kernels = mapped.schedule, list(mapped.kernels)
    for k, kernel in enumerate(kernels):
        if kernel.serial or kernel.wavefront:
            continue
        schedule, kernels[k] = _tiled(_kernel_mark(schedule, kernel.name), kernel, context)
    return dataclasses.replace(mapped, schedule=schedule, kernels=tuple(kernels))


def _tiled(mark: isl.ScheduleNode, kernel: KernelMapping, context: isl.Set
           ) -> tuple[isl.Schedule, KernelMapping]:
    band = mark.child(0)
    depth = band.get_schedule_depth()
    tiles = kernel.tile_sizes + kernel.sequential_tiles
    full = _full_tiles(band, kernel.tile_sizes) if kernel.register_tiles else None
    sizes = isl.MultiVal.from_val_list(band.band_get_space(), extents.val_list(band, tiles))
    node = band.band_tile(sizes)  # tile band; its child is the point band
    units = None
    point = node.child(0)
    if kernel.sequential_tiles:  # [T] -> [Tseq] -> shared mark -> [P] -> [Pseq]
        point = shared_promotion.mark_tile(node, kernel.n, kernel.name)
    if kernel.register_tiles:  # each thread runs r_0 x r_1 ... points, unrolled
        point, units = register_tiling.tile_points(point, kernel.tile_sizes,
                                                   kernel.register_tiles, kernel.name)
    if full is not None:
        point = _isolated(point, full, kernel.n, len(kernel.sequential_tiles))
    node = point.insert_mark(isl_build.named_id(node.get_ctx(), f"thread:{kernel.name}"))
    while node.get_type() != isl.schedule_node_type.band or \
            node.get_schedule_depth() != depth:
        node = node.parent()  # the tile band
    return node.get_schedule(), dataclasses.replace(
        kernel, tile_counts=extents.tile_counts(node, context), units=units)


def _full_tiles(band: isl.ScheduleNode, tiles: tuple[int, ...]) -> isl.Set | None:
    """The tiles (tile coordinates of the band's first len(tiles) members) whose every point
    some statement instance takes: the band's values over its domain cover the tile's box.
    None when the values are not in one space, or not a box (trmm's k > i: the guards of
    its points stay in full tiles too, and the isolated copy only made the kernel larger:
    0.320 against 0.297 ms on the H100, symm 0.733 against 0.674, isolate-2468769.json).

    # { [t_0, ..., t_m-1] : every [x] with floor(x_k / tiles_k) = t_k is a value of the band }
    """
    whole = band.get_domain().apply(band.band_get_partial_schedule_union_map())
    values = isl_build.sets_of(shared_promotion.mapped_points(band, len(tiles)))
    if len(values) != 1 or not shared_promotion.rectangular(whole):
        return None
    points = values[0]
    names = [f"x{k}" for k in range(len(tiles))]
    tile_of = isl.Map.read_from_str(band.get_ctx(), "{ [%s] -> [%s] }" % (
        ", ".join(names), ", ".join(f"floor({x}/{t})" for x, t in zip(names, tiles))))
    every = points.apply(tile_of)
    missing = every.apply(tile_of.reverse()).subtract(points).apply(tile_of)
    return every.subtract(missing).coalesce()


def _isolated(thread_band: isl.ScheduleNode, full: isl.Set, n: int, sequential: int
              ) -> isl.ScheduleNode:
    """The thread band with isl's isolate option on the full tiles (`full`: the last
    dimensions of its prefix schedule are the tile band's): the AST build generates their
    points apart, knowing that every one of a thread's unrolled points exists, so that no
    guard is left in their k loop (PPCG isolates full tiles the same way). On the H100, gemm's
    kernel at n = 4096 ran 22.3 ms with the guards and 15.3 ms with the sizes as constants,
    which removes them (bench/results/2026-11-25-nvidia-h100-80gb-hbm3-gemm-guards-49968fb.json).

    # isolate[[o_0, ..., o_D-1] -> [p_0, ..., p_n-1]] : (o_D-n-s, ..., o_D-s-1) in full
    # (s: the sequential tile members, after the mapped ones in the prefix)
    """
    depth = thread_band.get_schedule_depth()
    outer = full.add_dims(isl.dim_type.set, sequential).insert_dims(
        isl.dim_type.set, 0, depth - n - sequential)
    points = isl.Set.universe(isl.Space.set_alloc(full.get_ctx(), 0, n))
    option = isl.Map.from_domain_and_range(outer, points).wrap().set_tuple_name("isolate")
    return thread_band.band_set_ast_build_options(isl.UnionSet.from_set(option))


def skew_wavefronts(mapped: MappedSchedule, context: isl.Set) -> MappedSchedule:
    """The wavefront skewing step: each wavefront kernel's band tiled and skewed into
    inter-tile and intra-tile wavefronts (wavefront.tile_and_skew; Di et al. 2012, Section
    III), its statements' domains lifted by the tile indices.

    Result per kernel: band [W] (host loop) -> mark kernel -> band [T1..Tn] (blocks) -> mark
    thread -> band [w] (sequential, barrier) -> band [P1..Pn] (threads) -> the old child;
    tile_counts and band_tile_counts set, mapped.lift extended.

    # lift: { S[x] -> S[x, T0, ..., Tm-1] } for each skewed band's statements
    """
    _tile_options(mapped.schedule.get_ctx())
    schedule, kernels, lift = mapped.schedule, list(mapped.kernels), mapped.lift
    for k, kernel in enumerate(kernels):
        if not kernel.wavefront:
            continue
        band = _kernel_mark(schedule, kernel.name).delete()
        implied = next(d for d in range(len(kernel.tile_sizes)) if d not in kernel.tile_dims)
        node, part = wavefront.tile_and_skew(band, kernel.tile_sizes, implied, kernel.intra,
                                             kernel.sink_points)
        lift = lift.subtract_domain(part.domain()).union(part)
        ctx = node.get_ctx()
        depth = node.get_schedule_depth()
        band_counts = extents.band_extents(node, context)
        counts = isl_build.within_operations(
            ctx, extents.WAVEFRONT_EXTENT_OPERATIONS,
            lambda: extents.per_wavefront_extents(node, context, kernel.iterator(depth)),
            lambda: band_counts)
        kernels[k] = dataclasses.replace(kernel, tile_counts=counts, band_tile_counts=band_counts)
        node = node.child(0).child(0).insert_mark(isl_build.named_id(ctx, f"thread:{kernel.name}"))
        node = node.parent().insert_mark(isl_build.named_id(ctx, f"{KERNEL_MARK}:{kernel.name}"))
        schedule = node.get_schedule()
    return MappedSchedule(schedule, tuple(kernels), lift)


def stage_wavefronts(mapped: MappedSchedule, accesses: staging.Accesses | None,
                     options: Options) -> MappedSchedule:
    """The shared staging step (Options.shared_staging, cuda target): each wavefront kernel's
    arrays whose tile boxes fit in Options.shared_memory_kib (staging.plan); unchanged without
    `accesses` or when staging is off."""
    if not (options.shared_staging and options.target == "cuda" and accesses is not None):
        return mapped
    kernels = list(mapped.kernels)
    for k, kernel in enumerate(kernels):
        if not kernel.wavefront:
            continue
        # staging.plan reads the [W] band and its child, the tile band: the mark between
        # them dropped in a copy of the tree that is not kept
        w_band = _kernel_mark(mapped.schedule, kernel.name).delete().parent()
        staged = staging.plan(w_band, mapped.lift, accesses, kernel.prefix,
                              budget=options.shared_memory_kib * 1024)
        kernels[k] = dataclasses.replace(kernel, staged=staged)
    return dataclasses.replace(mapped, kernels=tuple(kernels))


def _tile_options(ctx: isl.Context) -> None:
    # tile loops count tiles (not scaled), point loops start at 0 in each tile (shifted)
    ctx.set_tile_scale_tile_loops(0)
    ctx.set_tile_shift_point_loops(1)


def _kernel_mark(schedule: isl.Schedule, name: str) -> isl.ScheduleNode:
    """The "kernel:<name>" mark node of `schedule`."""
    found: list[isl.ScheduleNode] = []
    wanted = f"{KERNEL_MARK}:{name}"

    def visit(node: isl.ScheduleNode) -> bool:
        if (not found and node.get_type() == isl.schedule_node_type.mark
                and node.mark_get_id().get_name() == wanted):
            found.append(node.copy())
        return not found

    schedule.get_root().foreach_descendant_top_down(visit)
    assert found, f"no mark {wanted}"  # assign_kernels inserted one per kernel
    return found[0]
