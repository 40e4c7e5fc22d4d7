"""Register tiling of a DOALL kernel's point band (Baskaran et al. 2008: register tiling and
unroll factors as tuning parameters): each thread runs r_0 x r_1 x ... points of its tile,
unrolled and jammed into the thread's innermost code, so that their accumulators live in
registers side by side (gpu/promotion.py) and the loads they share are made once.

The point band [P] (P_k in [0, T_k), T_k the tile size) becomes a thread band [P mod S] with
S_k = T_k / r_k, and a band [floor(P / S)] (the unit: which of the thread's points), marked
for full unrolling, directly above every leaf below. Legal: the point band is parallel (no
dependence joins two points of a launch), so the instances of different points may interleave
in any way, and the order among one point's instances is unchanged (its unit is constant). The
pipeline's legality checks (legality.check, check_parallel) verify the tiled schedule anyway.
A mark `unit:<kernel>` below each unit band lets the AST build name each unrolled copy's unit.
"""

from __future__ import annotations

import islpy as isl

from polycuda.errors import InvalidConfigError
from polycuda.ir import isl_build
from polycuda.options import Options, fit_sizes

UNIT_MARK = "unit"


def points_per_thread(tiles: tuple[int, ...], options: Options, kernel: str
                      ) -> tuple[int, ...]:
    """Options.register_tiles fitted to the kernel's mapped dimensions (1: no register tiling
    along a dimension); all ones when none are given or the target is not CUDA (the C and
    OpenMP compilers unroll and allocate registers themselves).

    Raises:
        InvalidConfigError: a register tile does not divide its tile size.
    """
    if options.target != "cuda":
        return (1,) * len(tiles)
    regs = fit_sizes(options.register_tiles, (1,) * len(tiles))
    for r, t in zip(regs, tiles):
        if t % r:
            raise InvalidConfigError(
                f"register tile {r} does not divide tile size {t} of {kernel} "
                f"(register_tiles={options.register_tiles}, tile sizes {tiles})")
    return regs


def spacing(tiles: tuple[int, ...], regs: tuple[int, ...]) -> tuple[int, ...]:
    """S_k = T_k / r_k: the thread band's extent, and the distance between a thread's points."""
    return tuple(t // r for t, r in zip(tiles, regs))


def tile_points(point_band: isl.ScheduleNode, tiles: tuple[int, ...], regs: tuple[int, ...],
                kernel: str) -> tuple[isl.ScheduleNode, isl.UnionMap]:
    """The point band split into threads and unrolled units (module docstring).

    Returns the thread band [P mod S] (at the point band's position) and the units,
    # { S[x] -> [floor(P_k / S_k) : r_k > 1] }
    """
    points = point_band.band_get_partial_schedule()  # [P_0, ..., P_n-1]
    steps = isl.MultiVal.from_val_list(points.get_space(), _val_list(
        point_band.get_ctx(), spacing(tiles, regs)))
    threads = points.mod_multi_val(steps)
    unit_map = _kept(isl.UnionMap.from_multi_union_pw_aff(
        points.scale_down_multi_val(steps).floor()), regs)
    node = point_band.delete().insert_partial_schedule(threads)
    node = node.band_set_permutable(1)
    for k in range(node.band_n_member()):
        node = node.band_member_set_coincident(k, True)
    mark = isl_build.named_id(node.get_ctx(), f"{UNIT_MARK}:{kernel}")

    def above_leaf(leaf: isl.ScheduleNode) -> isl.ScheduleNode:
        if leaf.get_type() != isl.schedule_node_type.leaf:
            return leaf
        units = isl.MultiUnionPwAff.from_union_map(unit_map.intersect_domain(leaf.get_domain()))
        band = leaf.insert_mark(mark).insert_partial_schedule(units)
        for k in range(band.band_n_member()):
            band = band.band_member_set_ast_loop_type(k, isl.ast_loop_type.unroll)
        return band

    return node.child(0).map_descendant_bottom_up(above_leaf).parent(), unit_map


def _kept(unit_map: isl.UnionMap, regs: tuple[int, ...]) -> isl.UnionMap:
    """{ S[x] -> [u_0, ..., u_n-1] } -> { S[x] -> [u_k : r_k > 1] }."""
    names = [f"u{k}" for k in range(len(regs))]
    kept = [names[k] for k, r in enumerate(regs) if r > 1]
    projection = isl.UnionMap.read_from_str(
        unit_map.get_ctx(), f"{{ [{', '.join(names)}] -> [{', '.join(kept)}] }}")
    return unit_map.apply_range(projection)


def _val_list(ctx: isl.Context, values: tuple[int, ...]) -> isl.ValList:
    vals = isl.ValList.alloc(ctx, len(values))
    for v in values:
        vals = vals.add(isl.Val.int_from_si(ctx, v))
    return vals
