"""isl's AST generator checked against the domain it was asked to scan.

isl's AST build can lose instances: on some skewed, tiled schedules with divisions in the
domain (issue 40's fuzz seeds 40091 and 50198) the pieces it splits the domain into, before it
writes their loops, do not cover the domain, and the generated code silently skips iterations.
isl records, at each AST leaf, the instances it means to run there (the at-each-domain hook's
AstBuild.get_schedule()); this module checks that those sets, in isl's own representation, are
pairwise disjoint and together equal the domain. The check is exact for what it covers (isl's
split of the domain) and cheap: set operations on the leaves' domains, never on the printed
expressions; it does not re-derive the instances from the printed loops and guards (a
read-back of the C expressions with their truncating divisions proved too costly to run on
every compile), so a wrong bound printed for a correct piece is outside it.

When the check fails, the AST is built again with every band member's loop type atomic, then
separate (isl_ast_build's other ways of splitting the domain); `exact` returns the first that
passes and says which.

Example:
    def build_ast(schedule, leaves):
        build, handle = isl.AstBuild.from_context(context).set_at_each_domain(leaves.hook())
        return build.node_from_schedule(schedule)
    ast, note = exact(schedule, context, build_ast)   # raises AstNotExact
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import islpy as isl

from polycuda.ir import isl_build

T = TypeVar("T")

# The AST builds tried in turn until one passes the check: the schedule as given, then with
# every band member of default loop type atomic (one piece per loop), then separate.
LOOP_TYPES: tuple[tuple[str, object], ...] = (
    ("isl's default AST", None),
    ("atomic loops", isl.ast_loop_type.atomic),
    ("separate loops", isl.ast_loop_type.separate),
)


class AstNotExact(Exception):
    """isl's AST would not run every instance of the domain exactly once; the message says
    which instances it loses or repeats."""


class LeafDomains:
    """The instances isl means to run at each leaf of one AST build, in the order of the leaves.

    # leaves[k]: { S[x] } the k-th leaf's instances (one statement or several)
    """

    def __init__(self) -> None:
        self.leaves: list[isl.UnionSet] = []

    def record(self, leaf: isl.AstBuild) -> None:
        self.leaves.append(leaf.get_schedule().domain())

    def hook(self) -> Callable[[isl.AstNode, isl.AstBuild], isl.AstNode]:
        """An at-each-domain callback that records and leaves the node as it is."""

        def at_domain(node: isl.AstNode, leaf: isl.AstBuild) -> isl.AstNode:
            self.record(leaf)
            return node

        return at_domain


def check(domain: isl.UnionSet, context: isl.Set, leaves: LeafDomains) -> None:
    """Raise AstNotExact unless the leaves' instances partition `domain` for every parameter
    value in `context`.

    # domain: { S[x] } the scheduled instances;  context: [params] -> { : }
    """
    covered: dict[str, isl.Set] = {}
    for leaf in leaves.leaves:
        for part in _sets(leaf.intersect_params(context)):
            name = part.get_tuple_name()
            before = covered.get(name)
            if before is None:
                covered[name] = part
                continue
            twice = before.intersect(part)
            if not twice.is_empty():
                raise AstNotExact(f"two leaves run the instances {_short(twice)}")
            covered[name] = before.union(part)
    for wanted in _sets(domain.intersect_params(context)):
        name = wanted.get_tuple_name()
        ran = covered.pop(name, None)
        if ran is None:
            if not wanted.is_empty():
                raise AstNotExact(f"no leaf runs {name}")
            continue
        lost = wanted.subtract(ran)
        if not lost.is_empty():
            raise AstNotExact(f"it loses the instances {_short(lost)}")
        extra = ran.subtract(wanted)
        if not extra.is_empty():
            raise AstNotExact(f"it runs instances outside the domain: {_short(extra)}")
    outside = [name for name, ran in covered.items() if not ran.is_empty()]
    if outside:
        raise AstNotExact(f"it runs statements outside the domain: {sorted(outside)}")


def exact(schedule: isl.Schedule, context: isl.Set,
          build: Callable[[isl.Schedule, LeafDomains], T]) -> tuple[T, str]:
    """build(schedule, leaves) (an AST build that records its leaves in `leaves`) for each
    of LOOP_TYPES in turn until its leaves pass `check`; that build's result, and a note
    naming the builds that failed and the one used ("" when the first passed).

    Raises:
        AstNotExact: every loop type's AST fails the check.
    """
    failed: list[str] = []
    for name, loop_type in LOOP_TYPES:
        attempt = schedule if loop_type is None else with_loop_type(schedule, loop_type)
        leaves = LeafDomains()
        result = build(attempt, leaves)
        try:
            check(attempt.get_domain(), context, leaves)
        except AstNotExact as err:
            failed.append(f"{name}: {err}")
            continue
        note = f"isl's AST rebuilt: {'; '.join(failed)}; {name} used" if failed else ""
        return result, note
    raise AstNotExact(f"with every loop type ({'; '.join(failed)})")


def with_loop_type(schedule: isl.Schedule, loop_type: object) -> isl.Schedule:
    """`schedule` with every band member of default AST loop type set to `loop_type`."""

    def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() != isl.schedule_node_type.band:
            return node
        for k in range(node.band_n_member()):
            if node.band_member_get_ast_loop_type(k) == isl.ast_loop_type.default:
                node = node.band_member_set_ast_loop_type(k, loop_type)
        return node

    return schedule.get_root().map_descendant_bottom_up(visit).get_schedule()


def original_ast(context: isl.Set, schedule: isl.UnionMap) -> isl.AstNode:
    """The AST of an original-order schedule map (a scan of the statements as written, loop
    iterators pc_v0, pc_v1, ...), checked. Where isl's AST build of the map fails (its
    "input involves unknown divs" on some domains with C '%' of the parameters), the same
    order as a one-band schedule tree, which isl builds by another path. Such a scan has no
    tiles or skews for isl to split, so a failed check is an error, not a retry.

    Raises:
        AstNotExact: isl's AST of it does not run the domain once.
        isl.Error: neither form builds.
    """
    ctx = context.get_ctx()
    ids = isl_build.id_list(ctx, "pc_v", 64)
    leaves = LeafDomains()
    build, handle = isl.AstBuild.from_context(context).set_iterators(ids).set_at_each_domain(
        leaves.hook())
    try:
        ast = build.node_from_schedule_map(schedule)
    except isl.Error:
        leaves.leaves.clear()
        tree = isl.Schedule.from_domain(schedule.domain()).insert_partial_schedule(
            isl.MultiUnionPwAff.from_union_map(schedule))
        ast = build.node_from_schedule(tree)
    del handle
    check(schedule.domain(), context, leaves)
    return ast


def _sets(uset: isl.UnionSet) -> list[isl.Set]:
    """The sets of `uset` by statement name (messages name the same statement first)."""
    return sorted(isl_build.sets_of(uset), key=lambda s: s.get_tuple_name())


def _short(values: isl.Set) -> str:
    text = str(values.coalesce())
    return text if len(text) <= 160 else text[:160] + " ..."
