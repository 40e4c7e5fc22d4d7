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
                                              statements when it comes before them, the
                                              greatest when after them (values of the
                                              parameters alone; 0 where there is none).
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
    values = isl.UnionMap.from_union_pw_aff(k_of).range()  # { [k] }: every k of the loops
    extra = k_of
    for k, (domain, band) in enumerate(parts):
        if band is not None:
            continue
        bound = _bound(domain, values, least=k < first)
        if bound is None:
            return None
        extra = extra.union_add(bound)
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


def _bound(domain: isl.UnionSet, values: isl.UnionSet, least: bool) -> isl.UnionPwAff | None:
    """{ S[x] -> the least (greatest) k of the loop statements, 0 where they have none } for
    each statement S of `domain`: a value of the parameters alone, the same at every group
    iteration, so that the statement's place in the band does not move with the mapped
    members (the greatest k at each iteration, trmm's m - 1 on all rows but the last and 0
    there, split the mapper's tiles into cases: 1.62 ms against 0.38 ms on the H100,
    2026-11-25-nvidia-h100-80gb-hbm3-mapped-box.json). None when the values are not in one
    space."""
    spaces = isl_build.sets_of(values)
    if len(spaces) != 1:
        return None
    extreme = spaces[0].lexmin() if least else spaces[0].lexmax()  # a point per parameter value
    out = None
    for statement in isl_build.sets_of(domain):
        zero = isl.PwAff.from_aff(isl.Aff.zero_on_domain(
            isl.LocalSpace.from_space(statement.get_space())))
        value = isl.PwMultiAff.from_map(
            isl.Map.from_domain_and_range(statement, extreme)).get_pw_aff(0)
        value = value.union_add(zero.intersect_domain(statement.subtract(value.domain())))
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
