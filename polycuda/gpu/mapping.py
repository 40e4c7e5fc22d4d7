"""GPU mapping on the schedule tree: kernel and thread marks, tiling of the mapped band.

The outermost band whose leading members are parallel (coincident) becomes a kernel: its first
n <= max_mapped_dims members are tiled; tile loops go to thread blocks and point loops to
threads (PPCG's scheme). Bands above it that carry dependences stay sequential host loops. A
subtree with no parallel member at all becomes a one-thread kernel, so that every statement
runs on the device and data never moves back and forth inside a region.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polycuda.options import Options

DEFAULT_TILES = {1: (256,), 2: (8, 32), 3: (4, 8, 16)}
KERNEL_MARK = "kernel"
SERIAL_MARK = "serial"


@dataclass(frozen=True)
class KernelMapping:
    """One kernel: the schedule depth of its tile loops, tile and block sizes (outermost first).

    Tile loops are schedule dimensions depth .. depth+n-1, point loops depth+n .. depth+2n-1;
    the innermost mapped dimension goes to x (coalescing), the next to y, then z.
    """

    name: str
    depth: int
    tile_sizes: tuple[int, ...]
    block_sizes: tuple[int, ...]
    serial: bool = False
    # Number of tiles along each tile dimension, over every host iteration (C text in the
    # parameters): an upper bound used for the grid size; grid-stride loops make any size exact.
    tile_counts: tuple[str, ...] = ()
    prefix: str = "c"  # loop iterators are <prefix><schedule depth>

    def iterator(self, depth: int) -> str:
        return f"{self.prefix}{depth}"

    @property
    def n(self) -> int:
        return len(self.tile_sizes)


def tile_sizes_for(n: int, options: Options) -> tuple[int, ...]:
    """Options' tile sizes (last n entries, or padded with defaults) or the defaults."""
    default = DEFAULT_TILES[n]
    given = options.tile_sizes
    if not given:
        return default
    if len(given) >= n:
        return tuple(given[len(given) - n:])
    return default[: n - len(given)] + tuple(given)


def block_sizes_for(tiles: tuple[int, ...], options: Options) -> tuple[int, ...]:
    if not options.block_sizes:
        return tiles
    given = options.block_sizes
    blocks = tuple(given[len(given) - len(tiles):]) if len(given) >= len(tiles) else (
        tiles[: len(tiles) - len(given)] + tuple(given))
    return tuple(min(b, t) for b, t in zip(blocks, tiles))


def _leading_coincident(node: isl.ScheduleNode, limit: int) -> int:
    n = 0
    while n < min(node.band_n_member(), limit) and node.band_member_get_coincident(n):
        n += 1
    return n


def _has_parallel_band(node: isl.ScheduleNode) -> bool:
    found = []

    def visit(child: isl.ScheduleNode) -> bool:
        if child.get_type() == isl.schedule_node_type.band:
            if any(child.band_member_get_coincident(k) for k in range(child.band_n_member())):
                found.append(True)
        return not found

    node.foreach_descendant_top_down(visit)
    return bool(found)


class _Mapper:
    def __init__(self, options: Options, context: isl.Set, prefix: str):
        self.options = options
        self.context = context
        self.prefix = prefix
        self.kernels: list[KernelMapping] = []

    def _name(self) -> str:
        return f"kernel{len(self.kernels)}"

    def visit(self, node: isl.ScheduleNode) -> isl.ScheduleNode:
        """Map the subtree at `node`; returns the node at the same position, marks inserted."""
        kind = node.get_type()
        if kind == isl.schedule_node_type.band:
            return self._band(node)
        if kind == isl.schedule_node_type.leaf:
            return self._serial(node)
        if not _has_parallel_band(node) and kind in (isl.schedule_node_type.sequence,
                                                     isl.schedule_node_type.set):
            return self._serial(node)
        for k in range(node.n_children()):
            node = self.visit(node.child(k)).parent()
        return node

    def _band(self, node: isl.ScheduleNode) -> isl.ScheduleNode:
        n = _leading_coincident(node, self.options.max_mapped_dims)
        if n == 0:
            if not _has_parallel_band(node):
                return self._serial(node)
            if node.band_n_member() > 1:
                node = node.band_split(1)
            return self.visit(node.child(0)).parent()
        if node.band_n_member() > n:
            node = node.band_split(n)
        tiles = tile_sizes_for(n, self.options)
        depth = node.get_schedule_depth()
        sizes = isl.MultiVal.from_val_list(node.band_get_space(), _val_list(node, tiles))
        node = node.band_tile(sizes)  # tile band; its child is the point band
        name = self._name()
        self.kernels.append(KernelMapping(name, depth, tiles,
                                          block_sizes_for(tiles, self.options),
                                          tile_counts=_tile_counts(node, self.context),
                                          prefix=self.prefix))
        node = node.child(0).insert_mark(isl.Id(f"thread:{name}", context=node.get_ctx()))
        node = node.parent().insert_mark(isl.Id(f"{KERNEL_MARK}:{name}",
                                                context=node.get_ctx()))
        return node

    def _serial(self, node: isl.ScheduleNode) -> isl.ScheduleNode:
        name = self._name()
        self.kernels.append(KernelMapping(name, node.get_schedule_depth(), (), (), serial=True,
                                          prefix=self.prefix))
        return node.insert_mark(isl.Id(f"{SERIAL_MARK}:{name}", context=node.get_ctx()))


def _tile_counts(node: isl.ScheduleNode, context: isl.Set) -> tuple[str, ...]:
    """Per tile dimension: max - min + 1 of the tile index over all instances (params only)."""
    from polycuda.codegen.ast_expr import ast_expr_to_c

    # tiles: { [t0, ..., tn-1] } over every statement instance reaching the band
    tiles_uset = node.get_domain().apply(node.band_get_partial_schedule_union_map())
    tiles: list[isl.Set] = []
    tiles_uset.foreach_set(tiles.append)
    tile_set = tiles[0]
    for extra in tiles[1:]:
        tile_set = tile_set.union(extra)
    tile_set = tile_set.intersect_params(context)
    build = isl.AstBuild.from_context(context)
    counts = []
    for k in range(tile_set.dim(isl.dim_type.set)):
        extent = tile_set.dim_max(k).sub(tile_set.dim_min(k)).add_constant_val(
            isl.Val.one(node.get_ctx()))
        counts.append(ast_expr_to_c(build.expr_from_pw_aff(extent.coalesce())))
    return tuple(counts)


def _val_list(node: isl.ScheduleNode, tiles: tuple[int, ...]) -> isl.ValList:
    ctx = node.get_ctx()
    vals = isl.ValList.alloc(ctx, len(tiles))
    for t in tiles:
        vals = vals.add(isl.Val.int_from_si(ctx, t))
    return vals


def map_schedule(schedule: isl.Schedule, options: Options, context: isl.Set,
                 prefix: str = "c") -> tuple[isl.Schedule, tuple[KernelMapping, ...]]:
    """Insert kernel/thread/serial marks and tile the mapped bands.

    Mark ids: "kernel:<name>" above the tile band, "thread:<name>" above the point band,
    "serial:<name>" above a subtree run by one thread.
    """
    ctx = schedule.get_ctx()
    ctx.set_tile_scale_tile_loops(0)
    ctx.set_tile_shift_point_loops(1)
    mapper = _Mapper(options, context, prefix)
    root = schedule.get_root()
    node = mapper.visit(root.child(0)) if root.n_children() else root
    return node.get_schedule(), tuple(mapper.kernels)
