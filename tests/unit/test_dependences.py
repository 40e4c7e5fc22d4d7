"""Dependence analysis: Di et al. 2012, Table I, and properties of other nests."""

from pathlib import Path

import islpy as isl
import pytest

from kernels import suite
from polycuda.analysis import dependences
from polycuda.frontend import c as cfront
from polycuda.ir import isl_build
from tests.fuzz.generator import generate
from tests.unit import hand_scops


def test_figure2_reproduces_table_1():
    deps = dependences.compute(hand_scops.figure2())
    found = sorted((d.kind, d.distance) for d in deps)
    assert found == sorted([("flow", (1, 0)), ("flow", (1, -1)), ("anti", (0, 1)),
                            ("anti", (1, 0)), ("output", (1, 0))])


def test_figure2_polyhedra_match_table_1():
    deps = {(d.kind, d.distance): d for d in dependences.compute(hand_scops.figure2())}
    # Table I, e2: t_s = t_t - 1, i_s = i_t + 1, 2 <= t_t <= T, 1 <= i_t <= I - 1
    expected = isl.Map("[T, I] -> { S0[t, i] -> S0[t + 1, i - 1] : 1 <= t <= T - 1 and "
                       "2 <= i <= I }")
    assert isl.Map(deps[("flow", (1, -1))].relation).is_equal(expected)
    # e3: t_s = t_t, i_s + 1 = i_t, 1 <= t_t <= T, 1 <= i_t <= I - 1 (as source ranges)
    e3 = isl.Map("[T, I] -> { S0[t, i] -> S0[t, i + 1] : 1 <= t <= T and 1 <= i <= I - 1 }")
    assert isl.Map(deps[("anti", (0, 1))].relation).is_equal(e3)


def test_accesses_are_printed_per_dependence():
    deps = dependences.compute(hand_scops.figure2())
    e2 = next(d for d in deps if d.distance == (1, -1))
    assert (e2.source_ref, e2.sink_ref) == ("A[i]", "A[(i + 1)]")
    assert e2.to_json()["distance"] == [1, -1]


def test_two_statement_jacobi_has_only_cross_statement_and_time_dependences():
    deps = dependences.compute(hand_scops.jacobi_2d())
    assert {(d.source, d.sink) for d in deps} >= {("S0", "S1"), ("S1", "S0")}
    for d in deps:
        if d.source == d.sink:
            # a sweep never depends on itself within one time step
            assert d.distance is not None and d.distance[0] >= 1


def test_reduction_has_nonuniform_free_dependences():
    deps = dependences.compute(hand_scops.gemm_triangular())
    kinds = {(d.kind, d.source, d.sink) for d in deps}
    assert ("flow", "S1", "S1") in kinds and ("flow", "S0", "S1") in kinds
    self_flow = next(d for d in deps if (d.kind, d.source, d.sink) == ("flow", "S1", "S1"))
    assert self_flow.distance == (0, 0, 1)


def test_scalar_cell_dependences_are_not_uniform_across_depths():
    deps = dependences.compute(hand_scops.reverse_scan())
    s0_to_s1 = [d for d in deps if (d.source, d.sink) == ("S0", "S1")]
    assert s0_to_s1 and all(d.distance is None for d in s0_to_s1)


def test_dependence_maps_are_computed_once_per_scop_and_read_back_equal(monkeypatch):
    """A compile asks for one scop's maps in the copies step and again in the dependences
    step: the second time they are read back from text in the caller's context."""
    monkeypatch.setattr(dependences, "_MAPS", {})
    calls = []
    compute = dependences._dependence_maps
    monkeypatch.setattr(dependences, "_dependence_maps",
                        lambda scop, ctx: calls.append(scop.name) or compute(scop, ctx))
    first = dependences.dependence_maps(hand_scops.figure2(), isl.Context())
    ctx = isl.Context()
    again = dependences.dependence_maps(hand_scops.figure2(), ctx)  # an equal scop
    assert len(calls) == 1 and again[0].get_ctx() == ctx
    assert all(a.is_equal(isl.UnionMap.read_from_str(ctx, str(b)))
               for a, b in zip(again, first))
    monkeypatch.setattr(dependences, "MAPS_KEPT", 2)  # bounded: the oldest leaves first
    for scop in (hand_scops.jacobi_2d(), hand_scops.sor_1d(), hand_scops.figure2()):
        dependences.dependence_maps(scop, isl.Context())
    assert len(dependences._MAPS) == 2 and len(calls) == 4  # figure2's computed again


def _flat_last_source(sinks, sources, schedule_map, may):
    info = isl.UnionAccessInfo.from_sink(sinks).set_must_source(sources)
    if not may.is_empty():
        info = info.set_may_source(may)
    return info.set_schedule_map(schedule_map).compute_flow().get_may_dependence()


@pytest.mark.parametrize("source", ["deriche", "adi", "fdtd_2d", "kernels/heldout/histogram.c",
                                    "fuzz-full-7", "fuzz-divmod-5"])
def test_dependences_on_the_schedule_tree_equal_those_on_the_2d_plus_1_map(source):
    """isl's dataflow runs on the textual order as a tree (its sequence nodes split the work)
    and on the tree run backwards (anti dependences): the same dependences as on the flat
    2d+1 schedule map and its negation."""
    if source.startswith("fuzz"):
        _, profile, seed = source.split("-")
        scop = cfront.parse_source(generate(int(seed), profile).source, filename="f.c")[0]
    elif source.endswith(".c"):  # an indirect write: a may-write
        scop = cfront.parse_file(Path(__file__).parents[2] / source)[0]
    else:
        scop = cfront.parse_file(suite.by_name(source).c_path)[0]
    ctx = isl.Context()
    flow, false = dependences._dependence_maps(scop, ctx)
    reads = isl_build.accesses_union(scop, ctx, False, tagged=True)
    writes = isl_build.accesses_union(scop, ctx, True, tagged=True, indirect=False)
    may = isl_build.accesses_union(scop, ctx, True, tagged=True, indirect=True)
    untag = reads.union(writes).union(may).domain().unwrap().domain_map()
    flat = untag.apply_range(isl_build.original_schedule(scop, ctx))
    negate = isl.UnionMap.empty(flat.get_space())
    for smap in isl_build.maps_of(flat):
        n = smap.dim(isl.dim_type.out)
        dims = ", ".join(f"s{k}" for k in range(n))
        negated = ", ".join(f"-s{k}" for k in range(n))
        negate = negate.union(isl.UnionMap.from_map(smap.apply_range(
            isl.Map(f"{{ [{dims}] -> [{negated}] }}"))))
    assert flow.is_equal(_flat_last_source(reads, writes, flat, may))
    expected = _flat_last_source(writes.union(may), writes, flat, may).union(
        _flat_last_source(reads, writes, negate, may).reverse())
    assert false.is_equal(expected)
