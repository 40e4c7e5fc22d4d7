"""A kernel band's next sequential loop merged into it, where isl proves the merged band
permutable: the superposition scheduler's thread-level plan (schedule/superposition.py) puts
gemm's k loop in a band of its own below the (i, j) group band, where the mapper
(gpu/mapping.py) can neither tile it nor promote the tiles that it reuses. isl's scheduler
puts it in the group band ([i, j, k], permutable), and the k tiles bring the shared-memory
promotion and register tiles of gpu/shared_promotion.py. This step gives the superposed
schedule the same band; the loops on blocks and threads, chosen by Algorithms 2 and 3, do
not change (the merged member is the band's last, not coincident, so it stays in each thread).

The tree below a group band is one of:
    band [k, rest] -> ...                     the band's first member k is merged;
    sequence { filter S_a -> leaf | band [k_a, rest_a] -> ... ; ... }
                                              each band's first member is merged; a statement
                                              without a loop takes the least k of the loop
                                              statements at its group iteration when it comes
                                              before them, the greatest when after them (0
                                              where none runs there).
Anything else (a statement without a loop between two with one, a deeper tree) is left as it
is.

Legal when every dependence between instances of one launch (legality.same_prefix) has a
distance >= 0 along k (the band stays permutable, so rectangular tiles of it are legal, as for
isl's permutable bands); the order at equal k is the sequence's, as before. The caller checks
the whole schedule again.
"""

from __future__ import annotations

import islpy as isl

from polycuda.ir import isl_build
from polycuda.schedule import legality


def merge(group: isl.ScheduleNode, dep_map: isl.UnionMap) -> isl.ScheduleNode | None:
    """The group band with its next sequential loop as a last member (module docstring), or
    None when the tree has no such loop or a dependence of one launch would go backwards
    along it.

    # dep_map: { S[i] -> T[j] } every dependence
    """
    parts = _parts(group.child(0))
    if not parts or not any(band is not None for _, band in parts):
        return None
    kinds = ["loop" if band is not None else "flat" for _, band in parts]
    first, last = kinds.index("loop"), len(kinds) - 1 - kinds[::-1].index("loop")
    if "flat" in kinds[first:last + 1]:
        return None  # a statement without the loop between two with it
    loops = [band.band_get_partial_schedule().get_union_pw_aff(0)
             for _, band in parts if band is not None]
    k_of = loops[0]
    for upa in loops[1:]:
        k_of = k_of.union_add(upa)
    members = group.band_get_partial_schedule()  # { S[x] -> [g] }
    g_of = isl.UnionMap.from_multi_union_pw_aff(members)
    # { [g] -> [k] }: the loop statements' k values at each group iteration
    reach = g_of.reverse().apply_range(isl.UnionMap.from_union_pw_aff(k_of))
    extra = k_of
    for k, (domain, band) in enumerate(parts):
        if band is not None:
            continue
        extra = extra.union_add(_bound(g_of.intersect_domain(domain), reach, least=k < first))
    launch = legality.same_prefix(group, dep_map)
    steps = isl.UnionMap.from_union_pw_aff(extra)
    distances = launch.apply_domain(steps).apply_range(steps).deltas()
    forward = isl.UnionSet.read_from_str(group.get_ctx(), "{ [d] : d >= 0 }")
    if not distances.is_subset(forward):
        return None
    return _rebuilt(group, extra)


def _parts(child: isl.ScheduleNode
           ) -> list[tuple[isl.UnionSet, isl.ScheduleNode | None]] | None:
    """(statements, their band or None for a leaf) in execution order, or None for another
    shape."""
    kind = child.get_type()
    if kind == isl.schedule_node_type.band:
        return [(child.get_domain(), child)]
    if kind != isl.schedule_node_type.sequence:
        return None
    out = []
    for k in range(child.n_children()):
        below = child.child(k).child(0)  # filter -> its subtree
        if below.get_type() == isl.schedule_node_type.leaf:
            out.append((below.get_domain(), None))
        elif below.get_type() == isl.schedule_node_type.band:
            out.append((below.get_domain(), below))
        else:
            return None
    return out


def _bound(g_of: isl.UnionMap, reach: isl.UnionMap, least: bool) -> isl.UnionPwAff:
    """{ S[x] -> least (greatest) k of the loop statements at S[x]'s group iteration, 0 where
    none runs at it } for each statement S of `g_of`, on its whole domain."""
    out = None
    for statement in isl_build.maps_of(g_of):
        domain = statement.domain()
        zero = isl.PwAff.from_aff(isl.Aff.zero_on_domain(
            isl.LocalSpace.from_space(domain.get_space())))
        value = zero.intersect_domain(domain)
        for values in isl_build.maps_of(isl.UnionMap.from_map(statement).apply_range(reach)):
            extreme = (values.lexmin_pw_multi_aff() if least
                       else values.lexmax_pw_multi_aff()).get_pw_aff(0)
            value = extreme.union_add(zero.intersect_domain(domain.subtract(extreme.domain())))
        bound = isl.UnionPwAff.from_pw_aff(value)
        out = bound if out is None else out.union_add(bound)
    return out


def _rebuilt(group: isl.ScheduleNode, extra: isl.UnionPwAff) -> isl.ScheduleNode:
    """The group band with `extra` as its last member (permutable; the old members keep their
    coincidence, the new one is not), each band below without its first member."""
    n = group.band_n_member()
    coincident = [group.band_member_get_coincident(k) for k in range(n)]
    members = group.band_get_partial_schedule().flat_range_product(
        isl.MultiUnionPwAff.from_union_pw_aff(extra))
    child = group.child(0)
    if child.get_type() == isl.schedule_node_type.band:
        child = _without_first(child)
    else:
        for k in range(child.n_children()):
            below = child.child(k).child(0)
            if below.get_type() == isl.schedule_node_type.band:
                child = _without_first(below).parent().parent()
    node = child.parent().delete().insert_partial_schedule(members)
    node = node.band_set_permutable(1)
    for k, value in enumerate(coincident):
        node = node.band_member_set_coincident(k, value)
    return node


def _without_first(band: isl.ScheduleNode) -> isl.ScheduleNode:
    """The band without its first member; returns the node at the band's position."""
    if band.band_n_member() > 1:
        band = band.band_split(1)
    return band.delete()
