"""Extents of tile coordinates as C text in the parameters: the grid sizes of mapped kernels
(shared by the mapping and the tiling steps)."""

from __future__ import annotations

import islpy as isl

from polycuda.ir import isl_build
from polycuda.ir.ast_expr import ast_expr_to_c


def tile_counts(node: isl.ScheduleNode, context: isl.Set) -> tuple[str, ...]:
    """Per tile dimension of the tile band `node`: max - min + 1 of the tile index over all
    instances (params only)."""
    # tiles: { [t0, ..., tn-1] } over every statement instance reaching the band
    tiles_uset = node.get_domain().apply(node.band_get_partial_schedule_union_map())
    return extents(as_set(tiles_uset, node.band_get_space()).intersect_params(context))


# isl steps allowed for the per-wavefront grid extents (jacobi-2d needs ~1e5; 3mm's balanced
# bands would take 50 s): beyond, the extents over the whole band are used.
WAVEFRONT_EXTENT_OPERATIONS = 2_000_000


def per_wavefront_extents(node: isl.ScheduleNode, context: isl.Set, w_name: str
                           ) -> tuple[str, ...]:
    """Per tile dimension T1.. of a wavefront kernel: an upper bound of the extent of T_k over
    the tiles of inter-tile wavefront W, in the parameters and the host iterator `w_name` (= W).
    Any grid size is correct (cuda_target.py); one block per tile is the aim.

    node: the [W] band, its child the [T1, ..., Tm-1] band.
    """
    schedule = node.band_get_partial_schedule_union_map().flat_range_product(
        node.child(0).band_get_partial_schedule_union_map())
    space = node.band_get_partial_schedule().flat_range_product(
        node.child(0).band_get_partial_schedule()).get_space()
    tiles = as_set(node.get_domain().apply(schedule), space)  # { [W, T1, ..., Tm-1] }
    nparam = tiles.dim(isl.dim_type.param)
    tiles = tiles.move_dims(isl.dim_type.param, nparam, isl.dim_type.set, 0, 1)
    tiles = tiles.set_dim_name(isl.dim_type.param, nparam, w_name)
    tiles = tiles.intersect_params(context.align_params(tiles.get_space()))
    # Each T_k alone against W and the parameters, rationally relaxed: an upper bound of
    # the extent, cheap to compute (the exact extent over the m-dimensional tile set takes
    # isl 20 s for jacobi-2d) and to evaluate on the host.
    return relaxed_extents(tiles)


def relaxed_extents(tiles: isl.Set) -> tuple[str, ...]:
    """Upper bounds of the extent of each dimension: each alone, rationally relaxed."""
    counts: list[str] = []
    for one in _relaxed_dimensions(tiles):
        counts += extents(one)
    return tuple(counts)


def relaxed_extent_pw_affs(tiles: isl.Set) -> tuple[isl.PwAff, ...]:
    """relaxed_extents of a non-empty set as isl PwAffs in its parameters (to evaluate at
    parameter values, or print as C with pw_aff_to_c)."""
    return tuple(extent_pw_aff(one, 0) for one in _relaxed_dimensions(tiles))


def _relaxed_dimensions(tiles: isl.Set) -> list[isl.Set]:
    """Each dimension of `tiles` alone (the others projected out), rationally relaxed."""
    m = tiles.dim(isl.dim_type.set)
    tiles = tiles.remove_divs()  # the rational relaxation: a superset
    return [tiles.project_out(isl.dim_type.set, k + 1, m - k - 1).project_out(
        isl.dim_type.set, 0, k).remove_divs().coalesce() for k in range(m)]


def band_extents(node: isl.ScheduleNode, context: isl.Set) -> tuple[str, ...]:
    """The extent of each T_k over the whole band (params only, rationally relaxed).

    node: the [W] band, its child the [T1, ..., Tm-1] band.
    """
    t_map = node.child(0).band_get_partial_schedule_union_map()  # { S[x, T] -> [T1, ...] }
    tiles = as_set(node.get_domain().apply(t_map), node.child(0).band_get_space())
    return relaxed_extents(tiles.intersect_params(context.align_params(tiles.get_space())))


def as_set(uset: isl.UnionSet, space: isl.Space) -> isl.Set:
    """The one set of `uset` (its sets united), or the empty set of `space` when no statement
    instance reaches the band."""
    sets = isl_build.sets_of(uset)
    if not sets:
        return isl.Set.empty(space)
    result = sets[0]
    for extra in sets[1:]:
        result = result.union(extra)
    return result


def extents(tile_set: isl.Set) -> tuple[str, ...]:
    """C expressions (in tile_set's parameters) of max - min + 1 along each dimension ("0"
    for an empty set: no instance reaches the band)."""
    if tile_set.is_empty():
        return ("0",) * tile_set.dim(isl.dim_type.set)
    return tuple(pw_aff_to_c(extent_pw_aff(tile_set, k), tile_set.params())
                 for k in range(tile_set.dim(isl.dim_type.set)))


def extent_pw_aff(tile_set: isl.Set, k: int) -> isl.PwAff:
    """max - min + 1 of dimension k of a non-empty set, in its parameters.

    Computed as one maximum, of { [y - x + 1] : x, y in the set's dimension k }, not as the
    difference of two piecewise bounds: isl's arithmetic on piecewise expressions (sub,
    add_constant) returns a form that depends on the process's earlier isl work, so the
    printed grid sizes would change from one run to the next (issue 40).
    """
    m = tile_set.dim(isl.dim_type.set)
    one = tile_set.project_out(isl.dim_type.set, k + 1, m - k - 1).project_out(
        isl.dim_type.set, 0, k)
    plus_one = isl.Map.read_from_str(tile_set.get_ctx(), "{ [d] -> [d + 1] }")
    return isl.Map.from_domain_and_range(one, one).deltas().apply(plus_one).dim_max(0)


def pw_aff_to_c(pw_aff: isl.PwAff, params: isl.Set) -> str:
    return ast_expr_to_c(isl.AstBuild.from_context(params).expr_from_pw_aff(pw_aff))


def val_list(node: isl.ScheduleNode, tiles: tuple[int, ...]) -> isl.ValList:
    ctx = node.get_ctx()
    vals = isl.ValList.alloc(ctx, len(tiles))
    for t in tiles:
        vals = vals.add(isl.Val.int_from_si(ctx, t))
    return vals
