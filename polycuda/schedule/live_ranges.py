"""Live ranges of a variable (the statements that its flow dependences connect) and what
privatizing one of them removes, for schedule/expand.py.

PolyBench deriche reuses the scalars ym1 and ym2 in its row pass (reset per row i, carried
along j) and in its column pass (reset per column j, carried along i): the two uses share no
loop, so no single cell per loop iteration serves both. Each live range is a variable of its
own (Verdoolaege and Janssens, IMPACT 2017, Section 3: live-range reordering; PPCG privatizes
per live range), and each is expanded along the loops that carry none of its flow.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polycuda.analysis import dependences
from polycuda.ir import isl_build
from polycuda.ir.scop import Array, Scop, Statement


@dataclass(frozen=True)
class Privatized:
    """`array`, as accessed by `statements` (one live range, or all its accesses), became
    `expanded`, with one copy per iteration of the loops `loops` (iterator names of the first
    statement, at 0-based depths `depths`). `removed`: the anti and output dependences of
    `array` that the copy removes, by kind (those carried by the loops, and those between
    this live range and another)."""

    array: str
    expanded: str
    statements: tuple[str, ...]
    loops: tuple[str, ...]
    depths: tuple[int, ...]
    removed: tuple[tuple[str, int], ...] = ()
    array_dims: int = 0  # `array`'s own subscripts, kept after the new ones

    def describe(self) -> str:
        removed = ", ".join(f"{kind} {n}" for kind, n in self.removed) or "none"
        level = ", ".join(f"{it} (depth {d + 1})" for it, d in zip(self.loops, self.depths))
        own = "".join(f"[x{k}]" for k in range(self.array_dims))
        target = f"{self.expanded}[{', '.join(self.loops)}]{own}"
        return (f"privatized: {self.array}{own} -> {target} in {', '.join(self.statements)}: "
                f"a copy per iteration of {level}; "
                f"false dependences removed: {removed}")


def accesses(scop: Scop, arr: Array, users: list[Statement], ctx: isl.Context
             ) -> list[tuple[Statement, bool, isl.Map]]:
    """(statement, is_write, { S[x] -> arr[a] } within its domain) of every access to `arr`
    in `users`."""
    return [(stmt, acc.is_write, isl_build.access_map(acc, stmt, ctx, tagged=False))
            for stmt in users for acc in isl_build.statement_accesses(scop, stmt)
            if acc.array == arr.name]


def flow(scop: Scop, arr: Array, users: list[Statement], ctx: isl.Context
         ) -> isl.UnionMap | None:
    """The flow dependences of `arr` among `users` in the original order (each read's last
    write; exact, the writes being must-writes), or None when some read sees a value from
    before the region (or an uninitialized one).

    # result: { S[i] -> T[j] } last write of arr before each read
    """
    context = isl_build.context_set(scop, ctx)
    reads = isl.UnionMap.empty(isl.Space.params_alloc(ctx, 0))
    writes = reads
    for _, is_write, amap in accesses(scop, arr, users, ctx):
        umap = isl.UnionMap.from_map(amap)
        reads, writes = (reads, writes.union(umap)) if is_write else (reads.union(umap), writes)
    info = isl.UnionAccessInfo.from_sink(reads).set_must_source(writes)
    result = info.set_schedule(isl_build.textual_order_tree(scop, ctx)).compute_flow()
    if not result.get_may_no_source().intersect_params(context).is_empty():
        return None
    return result.get_may_dependence().intersect_params(context)


def live_ranges(scop: Scop, arr: Array, users: list[Statement], ctx: isl.Context
                ) -> list[list[Statement]] | None:
    """`users` grouped into the classes of statements that flow dependences of `arr` connect
    (a statement's read and write of `arr` are in one class), in the order of their first
    statement; None when some read has no source in the region.

    Every read's value comes from a write of its own class, so renaming the accesses of one
    class to a new variable keeps every value read (the last write before a read is a write
    of the class, and the class writes only a subset of the old writes).
    """
    dep_map = flow(scop, arr, users, ctx)
    if dep_map is None:
        return None
    parent = {s.name: s.name for s in users}

    def root(name: str) -> str:
        while parent[name] != name:
            name = parent[name]
        return name

    for dep in isl_build.maps_of(dep_map):
        a = root(dep.get_tuple_name(isl.dim_type.in_))
        b = root(dep.get_tuple_name(isl.dim_type.out))
        parent[max(a, b, key=order_of(users))] = min(a, b, key=order_of(users))
    classes: dict[str, list[Statement]] = {}
    for stmt in users:
        classes.setdefault(root(stmt.name), []).append(stmt)
    return list(classes.values())


def order_of(users: list[Statement]):
    """Key: a statement name's position in `users` (a stable representative per class)."""
    position = {s.name: k for k, s in enumerate(users)}
    return position.__getitem__


def removed_dependences(scop: Scop, deps: tuple[dependences.Dependence, ...],
                        privatized: Privatized, ctx: isl.Context) -> tuple[tuple[str, int], ...]:
    """(kind, count) of the dependences `deps` of `scop` on privatized.array that touch its
    statements and that its copies remove: those with an end outside them (another live
    range), and those carried by one of its loops.

    # dep_map: { S[i] -> T[j] } one dependence's polyhedron
    """
    names = set(privatized.statements)
    counts: dict[str, int] = {}
    for dep in deps:
        if dep.array != privatized.array or not ({dep.source, dep.sink} & names):
            continue
        removed = not {dep.source, dep.sink} <= names
        if not removed:
            dep_map = isl.Map.read_from_str(ctx, dep.relation)
            removed = any(not dep_map.is_subset(dep_map.equate(isl.dim_type.in_, k,
                                                                isl.dim_type.out, k))
                          for k in privatized.depths)
        if removed:
            counts[dep.kind] = counts.get(dep.kind, 0) + 1
    return tuple(sorted(counts.items()))
