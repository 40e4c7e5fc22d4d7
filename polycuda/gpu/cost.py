"""A structural cost of a mapped schedule, to choose between schedulers without a GPU.

On a GPU the time of a region is dominated by its chain of dependent steps: host loops around
kernels (a launch each), loops that each thread runs in sequence, and above all loops run by
a one-thread kernel. Tiles bound some loops by a constant (the intra-tile wavefront of a
wavefront kernel, the point loops of a tile); only loops whose trip count grows with the
problem's parameters lengthen the chain asymptotically. The cost counts them:

    serial  loops of parametric length inside one-thread kernels (the worst: no parallelism;
            a reduction loop summed by a block is not one)
    depth   parametric loops on the longest path from the root to a statement, outside the
            loops mapped to blocks and threads (host loops and in-thread loops alike)

and compares (serial, depth) lexicographically: PolyBench lu under isl's schedule runs a host
k loop around kernels whose threads loop over j (depth 2); Pluto's wavefront tiles leave one
host loop over the wavefronts (depth 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polycuda.gpu.mapping import KERNEL_MARK, REDUCE_MARK, SERIAL_MARK, MappedSchedule

# A loop whose trip count, for fixed outer loops, can exceed this is of parametric length
# (tiles and intra-tile wavefronts are far shorter; any parametric extent exceeds it).
PARAMETRIC_TRIPS = 1 << 16

_N = isl.schedule_node_type


@dataclass(frozen=True, order=True)
class Cost:
    """Parametric loops in one-thread kernels, then on the longest host + thread path."""

    serial: int
    depth: int

    def __str__(self) -> str:
        return f"{self.serial}/{self.depth}"


def cost(mapped: MappedSchedule) -> Cost:
    """The Cost of a mapped schedule (see the module docstring)."""
    mapped_members = {k.name: k.n for k in mapped.kernels}
    root = mapped.schedule.get_root()
    return _visit(root, mapped_members, 0, False) if root.n_children() else Cost(0, 0)


def _visit(node: isl.ScheduleNode, members: dict[str, int], skip: int, serial: bool) -> Cost:
    """Cost of the subtree at `node`; `skip`: leading members of the next band that are
    mapped to blocks or threads; `serial`: inside a one-thread kernel."""
    kind = node.get_type()
    if kind == _N.leaf:
        return Cost(0, 0)
    if kind == _N.mark:
        mark, _, name = node.mark_get_id().get_name().partition(":")
        if mark in (KERNEL_MARK, "thread"):
            skip = members.get(name, 0)
        if mark == REDUCE_MARK:  # its loop is spread over a block of threads
            skip = 1
        serial = serial or mark == SERIAL_MARK
        return _visit(node.child(0), members, skip, serial)
    if kind == _N.band:
        loops = sum(_parametric(node, k) for k in range(skip, node.band_n_member()))
        below = _visit(node.child(0), members, 0, serial)
        if serial:
            return Cost(below.serial + loops, below.depth + loops)
        return Cost(below.serial, below.depth + loops)
    children = [_visit(node.child(k), members, skip, serial) for k in range(node.n_children())]
    return max(children, default=Cost(0, 0))


def _parametric(band: isl.ScheduleNode, member: int) -> bool:
    """Whether member `member` of `band` can take more than PARAMETRIC_TRIPS values for fixed
    values of the loops around it (the outer bands and the band's earlier members).

    # outer: { S[x] -> [prefix, m_0, ..., m_{member-1}] }, own: { S[x] -> [m] },
    # runs: { [outer] -> [m] }
    """
    partial = band.band_get_partial_schedule()
    outer = band.get_prefix_schedule_union_map().intersect_domain(band.get_domain())
    for k in range(member):
        outer = outer.flat_range_product(isl.UnionMap.from_union_pw_aff(partial.get_at(k)))
    own = isl.UnionMap.from_union_pw_aff(partial.get_at(member))
    runs = outer.reverse().apply_range(own)
    # spread: { [d] : d = m' - m for two values m, m' under one outer value }
    spread = runs.reverse().apply_range(runs).deltas()
    long = isl.UnionSet(f"{{ [d] : d >= {PARAMETRIC_TRIPS} }}", context=band.get_ctx())
    return not spread.intersect(long.align_params(spread.get_space())).is_empty()
