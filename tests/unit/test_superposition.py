"""The superposition scheduler (Shirako et al. 2017): the DL model extended to coalescing
(Section 5.2, Figure 8), the thread- and block-level schedules of the paper's examples
(Figures 1, 4, 9, 10), Lemma 1 and the superposed scattering functions of Section 4.2, the
fallback to isl's scheduler, and the generated code checked against the sequential program
(targets c, openmp, and the CUDA code on the CPU emulator).
"""

import json
import math
import warnings

import islpy as isl
import pytest

import polycuda
from kernels import suite
from polycuda import cli, show
from polycuda.bench.configs import CONFIG_OPTIONS, Variant
from polycuda.errors import PolycudaWarning
from polycuda.ir import isl_build
from polycuda.options import Options
from polycuda.pipeline import dependence_map, transform_scop
from polycuda.schedule import dl_model, isl_scheduler, legality
from polycuda.schedule import superposition as sp

TARGETS = ("c", "openmp", "emulate")
L = dl_model.WARP


def _program(name: str, **options) -> polycuda.Program:
    kernel = suite.by_name(name)
    return polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(scheduler="superposition", **options))


def _planned(name: str):
    prog = _program(name, target="cuda")
    scop = transform_scop(prog.scop, prog.options)
    ctx = isl_scheduler.new_context()
    dep_map = dependence_map(scop, ctx)
    return scop, ctx, dep_map, sp.plan(scop, ctx, dep_map)


# -- Section 5.2: the DL model -----------------------------------------------------------------
FIGURE_8 = (dl_model.Reference("A", ((1, 0, 0), (0, 1, 0))),   # A[i1][i2]
            dl_model.Reference("B", ((0, 0, 1), (1, 0, 0))))   # B[i3][i1]


@pytest.mark.parametrize("tiles", [(32, 32, 32), (64, 40, 3), (1, 1, 1), (7, 33, 100)])
def test_dl_is_figure_8s_formula(tiles):
    t1, t2, t3 = tiles
    expected = t1 * math.ceil(t2 / L) + t3 * math.ceil(t1 / L)
    assert dl_model.distinct_lines(FIGURE_8, tiles, exact=True) == expected


def test_dl_derivative_is_the_derivative_of_mem_cost():
    refs = FIGURE_8 + (dl_model.Reference("C", ((1, 0, 2), (0, 1, 1))),)
    h = 1e-4
    for k, derivative in enumerate(dl_model.cost_derivatives(refs, 3)):
        up = tuple(32.0 + (h if n == k else 0.0) for n in range(3))
        down = tuple(32.0 - (h if n == k else 0.0) for n in range(3))
        numeric = (dl_model.mem_cost(refs, up) - dl_model.mem_cost(refs, down)) / (2 * h)
        assert derivative == pytest.approx(numeric, rel=1e-5)


def test_dl_ranks_the_contiguous_loop_of_gemm_first():
    # C[i][j] += alpha * A[i][k] * B[k][j]: j is contiguous in C and B (thread x), then k (A),
    # then i
    scop, ctx, _, _ = _planned("gemm")
    update = scop.statements[1]
    costs = dl_model.cost_derivatives(dl_model.references(scop, update, ctx), 3)
    order = sorted(range(3), key=costs.__getitem__)
    assert [update.iterators[k] for k in order] == ["j", "k", "i"]
    assert all(c < 0 for c in costs)


# -- Algorithms 2 and 3 on the paper's examples ------------------------------------------------
def _labels(scop, loops):
    return [lp.label(scop) for lp in loops]


def test_jacobi_2d_alt_thread_and_block_level():
    """Figure 9: t sequential; S and T each with (i_y, j_x), i pushed down from the outer SCC,
    not fused (fusion would lose j's parallelism). Figure 10: i on blocks."""
    scop, _, _, plan = _planned("jacobi_2d_alt")
    assert isinstance(plan.tree, sp.Band) and not plan.tree.group
    assert _labels(scop, plan.tree.loops) == ["t"]
    groups = plan.groups()
    assert [g.statements for g in groups] == [("S0",), ("S1",)]
    for g in groups:
        assert _labels(scop, g.loops) == ["i", "j"] and g.mapped == 2 and g.coalescing
    assert {s: _labels(scop, loops) for s, loops in plan.blocks.items()} == {
        "S0": ["i"], "S1": ["i"]}


def test_doitgen_p_on_thread_x_and_u_distributed():
    """Figure 6: r, q, p on threads, p (the DL model's coalescing loop) on x; the copy-back U
    distributed from S and T so that p stays parallel; r and q on blocks."""
    scop, _, _, plan = _planned("doitgen")
    groups = plan.groups()
    assert [g.statements for g in groups[:2]] == [("S0", "S1"), ("S2",)]
    for g in groups[:2]:
        assert _labels(scop, g.loops[:g.mapped]) == ["r", "q", "p"]
    assert _labels(scop, plan.blocks["S1"]) == ["r", "q"]


def test_gemm_fused_with_j_on_thread_x():
    scop, _, _, plan = _planned("gemm")
    (group,) = plan.groups()
    assert group.statements == ("S0", "S1")
    assert _labels(scop, group.loops) == ["i", "j"]


# -- Section 4.2: superposition and Lemma 1 ----------------------------------------------------
def _jacobi_alt_maps(scop, ctx):
    params = "[T, n] -> "
    outer = isl.UnionMap(params + "{ S0[t, i, j] -> [0, i]; S1[t, i, j] -> [0, i] }", ctx)
    regular = isl.UnionMap(params + "{ S0[t, i, j] -> [0, t, 0, i, j, 0]; "
                                    "S1[t, i, j] -> [0, t, 1, i, j, 0] }", ctx)
    return outer, regular


def test_section_4_2_superposed_scattering_functions():
    """Theta*_S = (0, floor(i/32)_x, 0, t, 0, i_y, j_x, 0), Theta*_T = (0, floor(i/32)_x, 0, t,
    1, i_y, j_x, 0): Lemma 1 holds, and the superposed function satisfies every dependence."""
    scop, ctx, dep_map, _ = _planned("jacobi_2d_alt")
    outer, regular = _jacobi_alt_maps(scop, ctx)
    assert sp.lemma1_violations(outer, regular, dep_map) == []
    starred = sp.superpose(outer, (0, 32), regular)
    expected = isl.UnionMap(
        "[T, n] -> { S0[t, i, j] -> [0, floor(i/32), 0, t, 0, i, j, 0]; "
        "S1[t, i, j] -> [0, floor(i/32), 0, t, 1, i, j, 0] }", ctx)
    assert starred.is_equal(expected)
    assert dep_map.is_subset(starred.lex_lt_union_map(starred))


def test_lemma1_rejects_a_non_permutable_outer_function():
    # j carries distances +1 and -1 (A[i][j+1] read before it is written): not permutable
    scop, ctx, dep_map, _ = _planned("jacobi_2d_alt")
    _, regular = _jacobi_alt_maps(scop, ctx)
    outer = isl.UnionMap("[T, n] -> { S0[t, i, j] -> [j]; S1[t, i, j] -> [j] }", ctx)
    reasons = sp.lemma1_violations(outer, regular, dep_map)
    assert len(reasons) == 1 and reasons[0].startswith("outer dimension 0 is not permutable")


def test_lemma1_rejects_regular_functions_that_violate_a_dependence():
    scop, ctx, dep_map, _ = _planned("jacobi_2d_alt")
    outer, _ = _jacobi_alt_maps(scop, ctx)
    swapped = isl.UnionMap("[T, n] -> { S0[t, i, j] -> [0, t, 1, i, j, 0]; "
                           "S1[t, i, j] -> [0, t, 0, i, j, 0] }", ctx)  # T before S
    reasons = sp.lemma1_violations(outer, swapped, dep_map)
    assert len(reasons) == 1 and reasons[0].startswith("the regular scattering functions")


# -- the schedule in the pipeline --------------------------------------------------------------
@pytest.mark.parametrize("name", ["jacobi_2d_alt", "gemm", "doitgen", "mvt", "covariance"])
def test_schedule_is_legal_and_kernels_map_as_planned(name):
    scop, ctx, dep_map, plan = _planned(name)
    schedule = sp.superposition_schedule(scop, ctx, dep_map)
    legality.check(schedule, dep_map, "superposition")
    # the plan's DOALL groups: without the row / column reductions that replace mvt's
    # (tests/unit/test_blas2.py)
    prog = _program(name, row_reductions=False, column_reductions=False)
    kernels = [k for k in prog.generate("cuda").kernels if not k.serial]
    assert [k.n for k in kernels] == [g.mapped for g in plan.groups()]


# (kernel, sizes): the suite's small sizes, jacobi-2d-alt being Figure 1
VERIFY = ["gemm", "two_mm", "syrk", "mvt", "atax", "bicg", "gesummv", "doitgen", "jacobi_2d",
          "covariance", "jacobi_2d_alt"]


@pytest.mark.parametrize("name", VERIFY)
def test_verifies_against_the_sequential_program(name):
    prog = _program(name, tile_sizes=(4, 8))
    with warnings.catch_warnings():
        warnings.simplefilter("error", PolycudaWarning)  # no fallback
        assert prog.generate("cuda").choice == "superposition (requested)"
    results = prog.verify(dict(suite.by_name(name).small), targets=TARGETS)
    assert [r.target for r in results] == list(TARGETS)
    assert all(r.ok for r in results), results


def test_show_schedule_reports_blocks_threads_and_costs():
    prog = _program("jacobi_2d_alt")
    report = json.loads(show.show("schedule", (prog,), as_json=True))
    assert report["scheduler"] == "superposition"
    assert [k["statements"] for k in report["kernels"]] == [["S0"], ["S1"]]
    for kernel in report["kernels"]:
        assert kernel["threads"] == {"x": "j", "y": "i"} and kernel["blocks"] == ["i", "j"]
        assert kernel["block_level"] == ["i"]
        costs = {c["loop"]: (c["kind"], c["cost"]) for c in kernel["candidates"]}
        assert set(costs) == {"t", "i", "j"}
        assert costs["t"][0] == "sequential" and costs["j"][0] == "forall"
        assert costs["j"][1] < costs["i"][1]
    text = show.show("schedule", (prog,))
    assert "kernel0 [S0]: blocks: tiles" in text and "threads y=i x=j" in text


def test_falls_back_to_isl_and_says_why(monkeypatch):
    monkeypatch.setattr(sp, "MAX_COMBOS", 1)
    prog = _program("gemm")
    with pytest.warns(PolycudaWarning, match="superposition scheduler given up"):
        report = json.loads(show.show("schedule", (prog,), as_json=True))
    assert report["choice"].startswith("superposition (requested); superposition scheduler "
                                       "given up (SuperpositionError: ")
    assert "more than 1 legal iterator combinations" in report["choice"]
    assert report["choice"].endswith("used: isl scheduler")
    assert "kernels" not in report


def test_option_cli_and_bench_config(capsys):
    assert Options(scheduler="superposition").to_text() == (
        '{"scheduler": "superposition", "target": "auto"}')
    assert CONFIG_OPTIONS["superposition"] == {"scheduler": "superposition"}
    assert Variant("superposition").options().scheduler == "superposition"
    kernel = suite.by_name("gemm")
    assert cli.main(["show", "schedule", str(kernel.c_path), "--function", kernel.function,
                     "--scheduler", "superposition", "--target", "cuda", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["scheduler"] == "superposition"
    assert out["kernels"][0]["threads"] == {"x": "j", "y": "i"}


def test_nest_parallel_only_after_skewing_falls_back():
    # 1-D SOR: every loop carries a dependence; isl's scheduler skews it into a wavefront
    prog = _program("sor_1d")
    with pytest.warns(PolycudaWarning, match="no forall loop without skewing"):
        choice = show.schedule_of(prog)["choice"]
    assert choice.endswith("used: isl scheduler")


def test_unproven_lemma_1_falls_back_and_says_why(monkeypatch):
    # the scheduler's own per-kernel check (its kernels are coincident, so Lemma 1 holds for
    # every suite kernel): forced to fail, the isl scheduler's schedule is used
    monkeypatch.setattr(sp, "lemma1_violations", lambda outer, regular, deps: ["forced"])
    prog = _program("gemm")
    with pytest.warns(PolycudaWarning, match="Lemma 1 not proven for statements S0, S1: forced"):
        choice = show.schedule_of(prog)["choice"]  # not generate(): its result may be cached
    assert choice.endswith("used: isl scheduler")


@pytest.mark.parametrize("seed", [2, 4, 5])
def test_random_regions_verify(seed, tmp_path):
    """Random affine regions (tests/unit/random_c.py: coupled subscripts, partly shared nests)
    scheduled by superposition, against the sequential program."""
    from tests.unit.random_c import random_region

    path = tmp_path / f"r{seed}.c"
    path.write_text(random_region(seed, statements=3 + seed % 6, depth=3))
    prog = polycuda.compile(str(path), options=Options(scheduler="superposition",
                                                       tile_sizes=(4, 8)))
    assert prog.generate("cuda").choice == "superposition (requested)"
    assert all(r.ok for r in prog.verify({"n": 7}, targets=TARGETS))


# -- the inner loop merged into the group band (schedule/inner_merge.py) ------------------------
def _merged_band(source: str):
    prog = polycuda.compile(source, options=Options(scheduler="superposition", target="cuda"))
    scop = transform_scop(prog.scop, prog.options)
    ctx = isl_scheduler.new_context()
    dep_map = dependence_map(scop, ctx)
    schedule = sp.superposition_schedule(scop, ctx, dep_map)
    legality.check(schedule, dep_map, "superposition")
    (band,) = sp.group_bands(schedule)
    return prog, band


def _member(band, k: int, statement: str, expected: str) -> bool:
    """Whether the band's member k is `expected` ("S[i, j] -> [e] : conditions") on the
    statement's instances."""
    upa = band.band_get_partial_schedule().get_union_pw_aff(k)
    (piece,) = [m for m in isl_build.maps_of(isl.UnionMap.from_union_pw_aff(upa))
                if m.get_tuple_name(isl.dim_type.in_) == statement]
    params = "[" + ", ".join(piece.get_dim_name(isl.dim_type.param, p)
                             for p in range(piece.dim(isl.dim_type.param))) + "] -> "
    wanted = isl.Map(params + "{ " + expected + " }", piece.get_ctx())
    return piece.is_equal(wanted.intersect_domain(piece.domain()))


def test_gemm_k_joins_the_group_band_and_takes_the_gemm_layout():
    """isl's scheduler puts gemm's k in its (i, j) band; the superposed band gets it too, so
    that the mapper tiles k and promotes A's and B's tiles (the loops on threads unchanged)."""
    scop, ctx, dep_map, _ = _planned("gemm")
    (band,) = sp.group_bands(sp.superposition_schedule(scop, ctx, dep_map))
    assert band.band_n_member() == 3 and band.band_get_permutable()
    assert [band.band_member_get_coincident(k) for k in range(3)] == [True, True, False]
    assert _member(band, 2, "S0", "S0[i, j] -> [0]")  # beta's scaling at the least k
    assert _member(band, 2, "S1", "S1[i, j, k] -> [k]")
    (kernel,) = _program("gemm", target="cuda").generate("cuda").kernels
    from polycuda.gpu import shared_promotion
    assert kernel.tile_sizes == shared_promotion.GEMM_TILES
    assert kernel.register_tiles == shared_promotion.GEMM_REGISTER_TILES


MERGE_SOURCES = {
    # a statement after the loop takes its greatest k
    "after": """
void f(int n, int m, double C[n][n], double A[n][m], double D[n][n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      C[i][j] = 0.5 * C[i][j];
      for (int k = 0; k < m; k++)
        C[i][j] += A[i][k] * A[j][k];
      D[i][j] = 2.0 * C[i][j] + D[i][j];
    }
#pragma endscop
}""",
    # a statement between two loops: nothing merged
    "between": """
void f(int n, int m, double C[n][n], double A[n][m], double D[n][n], double E[n][n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      for (int k = 0; k < m; k++)
        C[i][j] += A[i][k] * A[j][k];
      D[i][j] = 2.0 * C[i][j];
      for (int l = 0; l < m; l++)
        E[i][j] += D[i][j] * A[i][l];
    }
#pragma endscop
}""",
    # the second loop reads the first one's total: a distance < 0 along a merged k
    "backwards": """
void f(int n, int m, double C[n][n], double A[n][m], double E[n][n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      for (int k = 0; k < m; k++)
        C[i][j] += A[i][k] * A[j][k];
      for (int l = 0; l < m; l++)
        E[i][j] += C[i][j] * A[i][l];
    }
#pragma endscop
}""",
}


@pytest.mark.parametrize("name", sorted(MERGE_SOURCES))
def test_inner_loops_merge_only_where_no_dependence_goes_back(name):
    prog, band = _merged_band(MERGE_SOURCES[name])
    if name == "after":
        assert band.band_n_member() == 3
        assert _member(band, 2, "S0", "S0[i, j] -> [0]")
        # the greatest k, and 0 where the k loop is empty (m = 0: after S0's 0)
        assert _member(band, 2, "S2", "S2[i, j] -> [m - 1] : m >= 1; S2[i, j] -> [0] : m <= 0")
    else:
        assert band.band_n_member() == 2  # left as planned
    with warnings.catch_warnings():
        warnings.simplefilter("error", PolycudaWarning)  # no fallback
        assert prog.generate("cuda").choice == "superposition (requested)"
    results = prog.verify({"n": 70, "m": 37}, targets=TARGETS)
    assert all(r.ok for r in results), results


@pytest.mark.parametrize("name", ["gemm", "two_mm", "syrk", "syr2k", "trmm", "doitgen"])
def test_merged_kernels_verify_across_several_tiles(name):
    """Default tiles (64 x 64 with k tiles for the gemm-like ones) at sizes over a tile."""
    kernel = suite.by_name(name)
    prog = _program(name)
    sizes = {p: 5 * v + 3 * k for k, (p, v) in enumerate(kernel.small.items())}
    results = prog.verify(sizes, targets=("emulate",))
    assert all(r.ok for r in results), results


@pytest.mark.parametrize("name, groups", [
    # 2mm: tmp = alpha A B; D = beta D + tmp C: D *= beta shares no array with tmp's product
    ("two_mm", [("S0", "S1"), ("S2", "S3")]),
    ("three_mm", [("S0", "S1"), ("S2", "S3"), ("S4", "S5")]),
])
def test_groups_fuse_only_through_a_common_array(name, groups):
    scop, _, _, plan = _planned(name)
    assert [g.statements for g in plan.groups()] == groups


def test_fusion_repeats_until_no_group_fuses():
    """deriche's y2 column pass (S10-S12) shares no array with the y1 pass (S7-S9) through its
    first statement, y2[w-1][j] = 0, but does through imgOut once its statements are one."""
    scop, _, _, plan = _planned("deriche")
    assert ("S7", "S8", "S9", "S10", "S11", "S12") in [g.statements for g in plan.groups()]
