"""Schedules as data: per statement, each loop row's coefficients and which rows are parallel."""

from __future__ import annotations

import islpy as isl

from polycuda.ir import isl_build
from polycuda.ir.scop import Scop


def _rows_of_upa(upa: isl.UnionPwAff) -> dict[str, tuple[list[int], list[int], int]]:
    # upa: { S[i] -> [f(i)] } ==> {S: (iterator coeffs, param coeffs, constant)}
    rows: dict[str, tuple[list[int], list[int], int]] = {}

    def one(pwaff: isl.PwAff) -> None:
        pieces: list[isl.Aff] = []
        pwaff.foreach_piece(lambda _set, aff: pieces.append(aff))
        aff = pieces[0]
        n_in = aff.dim(isl.dim_type.in_)
        n_par = aff.dim(isl.dim_type.param)
        coeffs = [aff.get_coefficient_val(isl.dim_type.in_, k).to_python() for k in range(n_in)]
        params = [aff.get_coefficient_val(isl.dim_type.param, k).to_python()
                  for k in range(n_par)]
        name = pwaff.get_space().get_tuple_name(isl.dim_type.in_)
        rows[name] = (coeffs, params, aff.get_constant_val().to_python())

    upa.foreach_pw_aff(one)
    return rows


def _band_rows(node: isl.ScheduleNode, out: dict[str, list[dict]],
               deps: tuple[tuple[str, isl.UnionMap], ...] = ()) -> None:
    partial = node.band_get_partial_schedule()
    reaching = node.get_domain()
    names = isl_build.statement_names(reaching)
    for k in range(node.band_n_member()):
        rows = _rows_of_upa(partial.get_at(k))
        parallel = bool(node.band_member_get_coincident(k))
        carriers = _carried(node, k, deps) if deps and not parallel else []
        for name in names:
            if name in rows:
                coeffs, params, const = rows[name]
                entry = {"row": coeffs + [const], "params": params, "parallel": parallel,
                         "permutable": bool(node.band_get_permutable())}
                if deps and not parallel:
                    entry["carries"] = [label for label, source, sink in carriers
                                        if name in (source, sink)]
                out.setdefault(name, []).append(entry)


def _carried(node: isl.ScheduleNode, k: int, deps: tuple[tuple[str, isl.UnionMap], ...]
             ) -> list[tuple[str, str, str]]:
    """The dependences that member k of the band `node` carries: equal schedule before it
    (the prefix and members 0..k-1), different at it. (label, source, sink) each.

    # each dep: { S[i] -> T[j] }
    """
    partial = node.band_get_partial_schedule()
    n = node.band_n_member()
    outer = node.get_prefix_schedule_multi_union_pw_aff()
    before = outer.flat_range_product(partial.drop_dims(isl.dim_type.set, k, n - k))
    upto = outer.flat_range_product(partial.drop_dims(isl.dim_type.set, k + 1, n - k - 1))
    domain = node.get_domain()
    row_map = isl.UnionMap.from_multi_union_pw_aff(
        isl.MultiUnionPwAff.from_union_pw_aff(partial.get_at(k)))
    found = []
    for label, dep_map in deps:
        within = dep_map.intersect_domain(domain).intersect_range(domain)
        carried = within.eq_at_multi_union_pw_aff(before).subtract(
            within.eq_at_multi_union_pw_aff(upto))
        if not carried.is_empty():
            source, sink = (carried.domain().get_set_list().get_at(0).get_tuple_name(),
                            carried.range().get_set_list().get_at(0).get_tuple_name())
            found.append((f"{label} at distance {_distance(carried, row_map)}", source, sink))
    return found


def _distance(carried: isl.UnionMap, row_map: isl.UnionMap) -> str:
    """How far apart along the row the instances of a carried dependence are: "1", "1..2",
    ">= 1" (no constant largest), or "parametric".

    # carried: { S[i] -> T[j] }, row_map: { S[i] -> [f(i)]; T[j] -> [g(j)] }
    """
    deltas = isl.Set.from_union_set(carried.apply_domain(row_map).apply_range(row_map).deltas())
    low = _constant(deltas, "min")
    if low is None:
        return "parametric"
    high = _constant(deltas, "max")
    if high is None:
        return f">= {low}"
    return str(low) if low == high else f"{low}..{high}"


def _constant(distance_set: isl.Set, which: str) -> int | None:
    """The least or largest value of the 1-D `distance_set` where it is the same at every
    parameter value, else None (parametric or unbounded)."""
    try:
        bound = distance_set.dim_min(0) if which == "min" else distance_set.dim_max(0)
    except isl.Error:  # unbounded
        return None
    if not bound.is_cst():
        return None
    values: list[int] = []
    bound.foreach_piece(lambda _set, aff: values.append(aff.get_constant_val().to_python()))
    if not values or any(not isinstance(v, int) for v in values):
        return None
    return min(values) if which == "min" else max(values)


def schedule_rows(schedule: isl.Schedule,
                  deps: tuple[tuple[str, isl.UnionMap], ...] = ()) -> dict[str, list[dict]]:
    """Every band member on the way from the root to each statement, outermost first. With
    `deps` ((label, { S[i] -> T[j] }) each, one statement pair per map), each member that is
    not parallel lists in "carries" the labels of the dependences it carries that touch the
    statement."""
    out: dict[str, list[dict]] = {}

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.band:
            _band_rows(node, out, deps)
        return True

    schedule.get_root().foreach_descendant_top_down(visit)
    return out


def schedule_json(scop: Scop, schedule: isl.Schedule,
                  deps: tuple[tuple[str, isl.UnionMap], ...] = ()) -> dict:
    """{"statements": [{"name", "iterators", "hyperplanes", "parallel", ["params"]}]}; with
    `deps` (schedule_rows), also "sequential": per row, why it is not parallel ("constant
    row": no loop at all; "carries <dep>, ..."; or "" where it is parallel), and "line"/"source"
    where the statement's source location is known."""
    rows = schedule_rows(schedule, deps)
    statements = []
    for stmt in scop.statements:
        entries = rows.get(stmt.name, [])
        item: dict = {"name": stmt.name, "iterators": list(stmt.iterators),
                      "hyperplanes": [e["row"] for e in entries],
                      "parallel": [e["parallel"] for e in entries]}
        if stmt.loc is not None:
            item["line"] = stmt.loc.line
            item["source"] = stmt.loc.text.strip()
        if deps:
            item["sequential"] = [_why_sequential(e) for e in entries]
        if any(any(e["params"]) for e in entries):
            item["params"] = [e["params"] for e in entries]
        statements.append(item)
    return {"statements": statements}


CONSTANT_ROW = "constant row"  # a row with no iterator: it orders statements, it is no loop


def _why_sequential(entry: dict) -> str:
    """Why a schedule row is not a parallel loop ("" where it is one)."""
    if not any(entry["row"][:-1]):
        return CONSTANT_ROW
    if entry["parallel"]:
        return ""
    carried = entry.get("carries", [])
    if not carried:
        return "sequential: the scheduler did not mark it coincident (no dependence of this " \
               "statement carried here)"
    shown = ", ".join(carried[:3]) + (f" and {len(carried) - 3} more" if len(carried) > 3 else "")
    return f"carries {shown}"


def labelled_dependences(scop: Scop, ctx: isl.Context) -> tuple[tuple[str, isl.UnionMap], ...]:
    """Every dependence of the Scop as ("S1 (line 24) -> S0 (line 21) flow on A",
    { S1[i] -> S0[j] }) within its context, for schedule_json's reasons (the lines where the
    statements' source locations are known); one label per (source, sink, kind, array)."""
    from polycuda.analysis import dependences

    context = isl_build.context_set(scop, ctx)
    lines = {s.name: f" (line {s.loc.line})" for s in scop.statements if s.loc is not None}
    merged: dict[str, isl.UnionMap] = {}
    for d in dependences.compute(scop, ctx):
        label = (f"{d.source}{lines.get(d.source, '')} -> {d.sink}{lines.get(d.sink, '')} "
                 f"{d.kind} on {d.array}")
        rel = isl.UnionMap.from_map(isl.Map.read_from_str(ctx, d.relation)).intersect_params(
            context)
        merged[label] = merged[label].union(rel) if label in merged else rel
    return tuple(merged.items())
