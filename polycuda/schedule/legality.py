"""Independent legality check: every dependence goes forward under the new schedule."""

from __future__ import annotations

import islpy as isl

from polycuda.errors import IllegalScheduleError


def violated(schedule: isl.Schedule, dep_map: isl.UnionMap) -> isl.UnionMap:
    """The dependence pairs that the schedule does not order source-before-sink.

    # dep_map: { S[i] -> T[j] }; returns a subset of it (empty when legal)
    """
    sched = schedule.get_map()  # { S[i] -> [s0, ..., sn] }
    ordered = sched.lex_lt_union_map(sched)  # { S[i] -> T[j] : sched(S[i]) << sched(T[j]) }
    return dep_map.subtract(ordered)


def check(schedule: isl.Schedule, dep_map: isl.UnionMap, what: str = "schedule") -> None:
    """Raise IllegalScheduleError if any dependence is violated."""
    bad = violated(schedule, dep_map)
    if not bad.is_empty():
        raise IllegalScheduleError(f"{what} violates dependences: {bad}")
