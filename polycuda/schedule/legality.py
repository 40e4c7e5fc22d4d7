"""Independent legality checks: every dependence goes forward under the new schedule, and no
dependence joins two instances that the GPU mapping runs at the same time."""

from __future__ import annotations

import islpy as isl

from polycuda.errors import IllegalScheduleError
from polycuda.ir import isl_build


def violated(schedule: isl.Schedule, dep_map: isl.UnionMap) -> isl.UnionMap:
    """The dependence pairs that the schedule does not order source-before-sink.

    # dep_map: { S[i] -> T[j] }; returns a subset of it (empty when legal)
    """
    sched = schedule.get_map()  # { S[i] -> [s0, ..., sn] }
    ordered = sched.lex_lt_union_map(sched)  # { S[i] -> T[j] : sched(S[i]) << sched(T[j]) }
    return dep_map.subtract(ordered)


def check(schedule: isl.Schedule, dep_map: isl.UnionMap, what: str = "schedule") -> None:
    """Raise IllegalScheduleError if any dependence is violated."""
    if _orders_all(schedule, dep_map):
        return
    bad = violated(schedule, dep_map)  # the pairs, for the message (and the final word)
    if not bad.is_empty():
        raise IllegalScheduleError(f"{what} violates dependences: {bad}")


def _orders_all(schedule: isl.Schedule, dep_map: isl.UnionMap) -> bool:
    """True when violated(schedule, dep_map) is empty, proved the cheap way; False when a pair
    may be violated (check() then asks violated()). violated() orders every pair of statements
    lexicographically in the schedule's many dimensions (a tiled kernel's are 10-20); here each
    dependence map is carried into schedule space, { [s] -> [t] }, and must miss s >= t:
    both are empty exactly when the schedule, a function on the dependence's ends, orders
    every pair. Where that premise may fail (an end outside the schedule's domain, or two
    statements scheduled in different spaces) the answer is False.

    # dep_map: { S[i] -> T[j] };  schedule map: { S[i] -> [s0, ..., sn] }
    """
    sched = schedule.get_map()
    by_space: dict[str, isl.UnionMap] = {}  # { S[i] -> [s] } of each statement S

    def of(space: isl.Space) -> isl.UnionMap:
        key = str(space)
        if key not in by_space:
            by_space[key] = sched.intersect_domain(isl.UnionSet(isl.Set.universe(space)))
        return by_space[key]

    dep_maps: list[isl.Map] = []
    dep_map.foreach_map(dep_maps.append)
    for dep in dep_maps:
        source, sink = of(dep.domain().get_space()), of(dep.range().get_space())
        dep_umap = isl.UnionMap(dep)
        if not (dep_umap.domain().is_subset(source.domain())
                and dep_umap.range().is_subset(sink.domain())):
            return False
        steps: list[isl.Map] = []  # { [s] -> [t] }: the schedule times of the pairs
        dep_umap.apply_domain(source).apply_range(sink).foreach_map(steps.append)
        for step in steps:
            space = step.get_space()
            if not space.domain().is_equal(space.range()):
                return False
            if not step.intersect(isl.Map.lex_ge(space.domain())).is_empty():
                return False
    return True


def same_prefix(node: isl.ScheduleNode, dep_map: isl.UnionMap,
                prefix: isl.UnionMap | None = None) -> isl.UnionMap:
    """The dependences between instances that reach `node` with the same prefix schedule
    (the same host iterations, tile, intra-tile wavefront): those that `node` and its subtree
    must order by themselves.

    # prefix: { S[i] -> [outer loops] } (default: the node's prefix schedule)
    # dep_map: { S[i] -> T[j] } in the schedule's domain; returns a subset of it
    """
    if prefix is None:
        prefix = node.get_prefix_schedule_union_map()
    domain = node.get_domain()
    same = prefix.apply_range(prefix.reverse())  # { S[i] -> T[j] : same outer }
    return dep_map.intersect_domain(domain).intersect_range(domain).intersect(same)


def racing(band: isl.ScheduleNode, dep_map: isl.UnionMap) -> isl.UnionMap:
    """The dependences that a band run in parallel would race on: both ends reach the band
    with the same prefix schedule and differ in some member of the band.

    # dep_map: { S[i] -> T[j] } in the schedule's domain; returns a subset of it
    """
    members = band.band_get_partial_schedule_union_map()  # { S[i] -> [band members] }
    return same_prefix(band, dep_map).subtract(members.apply_range(members.reverse()))


def check_parallel(band: isl.ScheduleNode, dep_map: isl.UnionMap, what: str,
                   updates: tuple[str, ...] = ()) -> None:
    """Raise IllegalScheduleError if a dependence joins two instances that differ only in the
    parallel members of `band` (blocks of one launch, or threads between two barriers), other
    than two instances of one statement of `updates` (reduction updates of one cell each,
    whose order the caller proved free: gpu/dual_reduction.py)."""
    races = racing(band, dep_map)
    if updates:
        kept = [m for m in isl_build.maps_of(races)
                if not (m.get_tuple_name(isl.dim_type.in_) in updates
                        and m.get_tuple_name(isl.dim_type.in_)
                        == m.get_tuple_name(isl.dim_type.out))]
        races = isl.UnionMap.empty(races.get_space())
        for m in kept:
            races = races.union(isl.UnionMap.from_map(m))
    _refuse_races(races, what)


def racing_threads(w_band: isl.ScheduleNode, point_map: isl.UnionMap,
                   separated: isl.UnionMap, dep_map: isl.UnionMap) -> isl.UnionMap:
    """The dependences that the threads of a wavefront kernel would race on: both ends in the
    same intra-tile wavefront of the same tile (the prefix schedule and the row of `w_band`)
    with different point coordinates, unless a barrier separates them.

    # point_map: { S[x] -> [P1, ...] } (the thread coordinates of every statement below)
    # separated: { S[x] -> R[y] } pairs that a barrier between their statements orders
    # dep_map: { S[i] -> T[j] } in the schedule's domain; returns a subset of it
    """
    if not point_map.is_single_valued():  # each instance runs on one thread, or no proof
        raise IllegalScheduleError(f"thread coordinates are not a function: {point_map}")
    prefix = w_band.get_prefix_schedule_union_map().flat_range_product(
        w_band.band_get_partial_schedule_union_map())
    live = same_prefix(w_band, dep_map, prefix)
    return live.subtract(point_map.apply_range(point_map.reverse())).subtract(separated)


def check_threads(w_band: isl.ScheduleNode, point_map: isl.UnionMap,
                  separated: isl.UnionMap, dep_map: isl.UnionMap, what: str) -> None:
    """Raise IllegalScheduleError if racing_threads() is not empty."""
    _refuse_races(racing_threads(w_band, point_map, separated, dep_map), what)


def _refuse_races(bad: isl.UnionMap, what: str) -> None:
    if not bad.is_empty():
        raise IllegalScheduleError(f"{what} runs dependent instances in parallel: {bad}")
