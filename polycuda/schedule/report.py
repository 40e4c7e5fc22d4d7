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


def _band_rows(node: isl.ScheduleNode, out: dict[str, list[dict]]) -> None:
    partial = node.band_get_partial_schedule()
    reaching = node.get_domain()
    names = isl_build.statement_names(reaching)
    for k in range(node.band_n_member()):
        rows = _rows_of_upa(partial.get_at(k))
        parallel = bool(node.band_member_get_coincident(k))
        for name in names:
            if name in rows:
                coeffs, params, const = rows[name]
                out.setdefault(name, []).append(
                    {"row": coeffs + [const], "params": params, "parallel": parallel,
                     "permutable": bool(node.band_get_permutable())})


def schedule_rows(schedule: isl.Schedule) -> dict[str, list[dict]]:
    """Every band member on the way from the root to each statement, outermost first."""
    out: dict[str, list[dict]] = {}

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.band:
            _band_rows(node, out)
        return True

    schedule.get_root().foreach_descendant_top_down(visit)
    return out


def schedule_json(scop: Scop, schedule: isl.Schedule) -> dict:
    """{"statements": [{"name", "iterators", "hyperplanes", "parallel", ["params"]}]}"""
    rows = schedule_rows(schedule)
    statements = []
    for stmt in scop.statements:
        entries = rows.get(stmt.name, [])
        item: dict = {"name": stmt.name, "iterators": list(stmt.iterators),
                      "hyperplanes": [e["row"] for e in entries],
                      "parallel": [e["parallel"] for e in entries]}
        if any(any(e["params"]) for e in entries):
            item["params"] = [e["params"] for e in entries]
        statements.append(item)
    return {"statements": statements}
