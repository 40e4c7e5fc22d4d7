"""`polycuda bench --ppcg` without a GPU: DESIGN's PPCG table and LARGE sizes as parsed, the
mode's sizes on our kernels' parameters, PPCG-over-ours ratios and geometric means, the
whole-function timing path on the CPU, and a whole ppcg run with a NumPy stand-in for CuPy."""

from __future__ import annotations

import dataclasses
import datetime
import itertools
import json
import math
import types
from pathlib import Path

import numpy as np
import pytest

from polycuda import cli
from polycuda.analysis import bounds
from polycuda.bench import (
    baselines,
    builds,
    command,
    configs,
    datasets,
    environment,
    harness,
    ppcg,
    ppcg_reference,
    report,
    sizes,
)
from polycuda.bench.measure import HostSide, Limits, measure_candidate, measure_oracle
from polycuda.bench.suite_access import suite
from polycuda.errors import PolycudaError
from polycuda.runtime import launch
from polycuda.runtime.device import GpuInfo

DESIGN_MD = Path(__file__).resolve().parents[2].parent / "shared" / "DESIGN.md"
DESIGN_ORDER = ("jacobi-1d jacobi-2d seidel-2d fdtd-2d heat-3d gemm 2mm 3mm atax bicg mvt "
                "gesummv gemver doitgen covariance correlation syrk syr2k symm trmm lu "
                "cholesky durbin trisolv gramschmidt ludcmp deriche adi floyd-warshall").split()


# -- DESIGN's table -----------------------------------------------------------------------------
def test_reference_table_has_the_29_timed_design_rows():
    rows = ppcg_reference.ROWS
    assert list(rows) == DESIGN_ORDER
    assert dataclasses.astuple(rows["jacobi-1d"]) == (
        "jacobi-1d", 0, 5.19, 0.86, 0.68, "double", True, True)
    assert dataclasses.astuple(rows["symm"]) == ("symm", 18, 6.99, 6.18, 2518, "double", True, True)
    assert dataclasses.astuple(rows["deriche"]) == (
        "deriche", 26, 155, 7083, 383, "float", False, False)
    assert dataclasses.astuple(rows["floyd-warshall"]) == (
        "floyd-warshall", 28, 76225, 10858, 19043, "double", True, False)
    assert rows["atax"].gcc_ms == 6.46 and rows["fdtd-2d"].polycuda_ms == 12.4
    # DESIGN's first 22: jacobi-1d .. durbin without seidel-2d
    assert [r.polybench for r in rows.values() if r.in_first] == [
        n for n in DESIGN_ORDER[:DESIGN_ORDER.index("durbin") + 1] if n != "seidel-2d"]
    assert [r.polybench for r in rows.values() if not r.both_right] == ["gramschmidt", "deriche"]
    assert ppcg_reference.UNTIMED == {
        "nussinov": "PPCG's code does not build, polycuda refuses `char`"}
    assert ppcg_reference.DESIGN_COMMIT == "1b5279d"


def test_design_geomeans_follow_from_its_rows():
    computed = ppcg_reference.design_geomeans()
    stated = ppcg_reference.STATED
    assert (computed["kernels_both_right"], computed["kernels_first"]) == (
        stated.both_right_kernels, stated.first_kernels) == (27, 22)
    for key, value in ppcg_reference.DESIGN_GEOMEANS.items():
        # within one unit of the last digit DESIGN states (its rows are rounded)
        digits = len(str(value).split(".")[1])
        assert computed[key] == pytest.approx(value, abs=10 ** -digits), key
    below = {n: r.ppcg_ms / r.polycuda_ms for n, r in ppcg_reference.ROWS.items()
             if r.ppcg_ms < r.polycuda_ms}
    assert set(below) == set(stated.below) == {"deriche", "adi"}
    for name, value in stated.below.items():
        assert below[name] == pytest.approx(value, abs=0.01), name


def test_reference_parsers_refuse_malformed_text():
    with pytest.raises(ValueError, match="name ms"):
        ppcg_reference.parse_table("gemm 1 | 2")
    with pytest.raises(ValueError, match="name ms"):
        ppcg_reference.parse_table("gemm 1 | 2 | 3 | 4")  # the H100 table's four columns
    with pytest.raises(ValueError, match="twice"):
        ppcg_reference.parse_table("gemm 1 | 2 | 3; gemm 1 | 2 | 3")
    assert list(ppcg_reference.parse_table("a 1 | 2 | 3; b: no times.")) == ["a"]
    assert ppcg_reference.parse_untimed("a 1 | 2 | 3; b: no times, none.") == {
        "b": "no times, none"}
    with pytest.raises(ValueError, match="geometric-mean"):
        ppcg_reference.parse_geomeans("Geometric mean PPCG / polycuda: 2x over all.")
    with pytest.raises(ValueError, match="Below PPCG"):
        ppcg_reference.parse_geomeans(ppcg_reference.GEOMEAN_TEXT.replace("0.02x", "slow"))
    with pytest.raises(ValueError, match="not rows"):
        ppcg_reference.annotate(ppcg_reference.parse_table("gemm 1 | 2 | 3"),
                                ppcg_reference.STATED)
    with pytest.raises(ValueError, match="NAME=INTEGER"):
        ppcg_reference.parse_large_sizes("gemm NI=10 NJ=x")
    assert ppcg_reference.parse_large_sizes("a, b N=3; c 1x2x3.") == {
        "a": {"N": 3}, "b": {"N": 3}, "c": {"NI": 1, "NJ": 2, "NK": 3}}


@pytest.mark.skipif(not DESIGN_MD.is_file(), reason="../shared/DESIGN.md is not beside the repo")
def test_reference_text_is_design_md_text():
    design = " ".join(DESIGN_MD.read_text().split())
    for text in (ppcg_reference.TABLE_TEXT, ppcg_reference.GEOMEAN_TEXT, ppcg_reference.SETUP):
        assert " ".join(text.split()) in design
    heading = ppcg_reference.SOURCE.split('"')[1]
    assert f"## {heading} " in design
    assert ppcg_reference.DATE in heading and ppcg_reference.GPU.split()[-1] in heading
    assert "Milliseconds, " + " | ".join(ppcg_reference.COLUMNS) + ":" in design
    for name, dtype in ppcg_reference.DTYPES.items():
        assert f"double ({name} {dtype})" in ppcg_reference.SETUP
    wrong = ppcg_reference.SETUP.split("all correct but ")[1]
    assert all(name in wrong for name in ppcg_reference.NOT_BOTH_RIGHT)
    # DESIGN names no sizes but PolyBench's LARGE ones: each kernel of its table has them
    assert "PolyBench/C 4.2.1's own files at LARGE sizes" in ppcg_reference.SETUP
    named = set(ppcg_reference.ROWS) | set(ppcg_reference.UNTIMED)
    assert named <= set(ppcg_reference.large_sizes())


# -- sizes --------------------------------------------------------------------------------------
def test_ppcg_kernels_are_design_order_without_seidel():
    expected = [sizes.POLYBENCH_TO_SUITE[n] for n in DESIGN_ORDER if n != "seidel-2d"]
    assert list(sizes.PPCG_KERNELS) == expected and len(expected) == 28
    doubles = [k for k in expected if k != "deriche"]
    assert list(sizes.ppcg_kernels("double")) == doubles and sizes.ppcg_kernels("float") == (
        "deriche",)
    assert "seidel-2d" in sizes.PPCG_LEFT_OUT and "sor_2d" in sizes.PPCG_LEFT_OUT["seidel-2d"]
    assert "no times" in sizes.PPCG_LEFT_OUT["nussinov"]
    assert [k.name for k in harness.select_kernels((), "ppcg")] == doubles
    assert [k.name for k in harness.select_kernels((), "ppcg", "float")] == ["deriche"]
    assert [k.name for k in harness.select_kernels(("deriche",), "ppcg")] == ["deriche"]
    first, second = sizes.PPCG_PARTS
    assert sorted(first + second) == sorted(doubles) and not set(first) & set(second)
    assert "floyd_warshall" in second and "gemm" in first


def test_ppcg_sizes_cover_every_parameter_of_each_region():
    from polycuda.api import compile as compile_c

    for kernel in harness.select_kernels(sizes.PPCG_KERNELS, "ppcg"):
        at = sizes.sizes_for(kernel, "ppcg")
        assert at == sizes.PPCG[kernel.name]
        scop = compile_c(str(kernel.c_path), function=kernel.function).scop
        assert set(at) == {a.name for a in scop.args if a.kind == "param"}, kernel.name
        bounds.BoundsChecker(scop).check(at)  # every access within its array at these sizes


def _shapes(name: str) -> dict[str, tuple[int, ...]]:
    kernel = suite().by_name(name)
    at = sizes.PPCG[name]
    return {a.name: tuple(at[d] for d in a.dims) for a in suite().c_args(kernel)
            if a.kind == "array"}


def test_ppcg_sizes_give_polybench_large_extents():
    # PolyBench/C 4.2.1 declarations at LARGE sizes, written out by hand
    assert sizes.PPCG["gemm"] == {"ni": 1000, "nj": 1100, "nk": 1200}
    assert sizes.PPCG["fdtd_2d"] == {"T": 500, "nx": 1000, "ny": 1200}
    assert sizes.PPCG["heat_3d"] == {"T": 500, "n": 120}
    assert _shapes("atax")["A"] == (1900, 2100)  # A[M][N]
    assert _shapes("bicg")["A"] == (2100, 1900)  # A[N][M]
    assert _shapes("doitgen")["A"] == (150, 140, 160)  # A[NR][NQ][NP]
    assert _shapes("doitgen")["C4"] == (160, 160)
    assert _shapes("covariance")["data"] == (1400, 1200)  # data[N][M]
    assert _shapes("syr2k")["A"] == (1200, 1000) and _shapes("syr2k")["C"] == (1200, 1200)
    assert _shapes("symm_scatter")["A"] == (1000, 1000)
    assert _shapes("symm_scatter")["B"] == (1000, 1200)
    assert _shapes("gramschmidt")["R"] == (1200, 1200)  # A[M][N], R[N][N]
    assert _shapes("three_mm")["F"] == (900, 1100) and _shapes("three_mm")["C"] == (900, 1200)
    assert sizes.our_param("doitgen", "NP") == "nk" and sizes.our_param("fdtd-2d", "NX") == "nx"
    assert sizes.sizes_for(suite().by_name("adi"), "ppcg") == {"T": 500, "n": 1000}
    assert _shapes("deriche")["imgIn"] == (4096, 2160)  # imgIn[W][H]
    assert _shapes("floyd_warshall")["path"] == (2800, 2800)
    assert _shapes("ludcmp")["A"] == (2000, 2000) and _shapes("ludcmp")["b"] == (2000,)
    assert sizes.sizes_for(suite().by_name("sor_2d"), "ppcg") == sizes.FULL["sor_2d"]


# -- ratios and geometric means -----------------------------------------------------------------
def _entry(median_s: float | None, status: str = "ok") -> dict:
    spread = [median_s * 0.9, median_s * 1.2] if median_s else [None, None]
    return {"role": "config", "status": status, "median_s": median_s, "min_s": spread[0],
            "max_s": spread[1], "reason": "" if status == "ok" else "wrong result: A",
            "notes": []}


def _kernel(name: str, default_ms: float | None, pluto_ms: float | None) -> dict:
    """A measured kernel at its LARGE sizes: sequential 1 s, the default (Options()) and
    pluto as given."""
    entries = {"sequential": {**_entry(1.0), "role": "baseline"},
               "default": (_entry(default_ms / 1e3) if default_ms
                           else _entry(None, "FAILED")),
               "pluto": _entry(pluto_ms / 1e3) if pluto_ms else _entry(None, "FAILED")}
    return {"name": name, "memory_bound": False, "flops_per_run": 1e9, "bytes_per_run": 1e9,
            "sizes": dict(sizes.PPCG[name]), "entries": entries}


def _results(kernels: list[dict], dtype: str = "double") -> dict:
    return {"mode": "ppcg", "dtype": dtype, "device_mode": "gpu", "configs": ["default", "pluto"],
            "tiles": [], "ceilings": None, "machine": {}, "kernels": kernels}


def test_ratio_and_geomean():
    assert ppcg_reference.ratio(6.0, 0.003) == pytest.approx(2.0)
    assert ppcg_reference.ratio(6.0, None) is None
    assert ppcg_reference.geomean([2.0, 8.0]) == pytest.approx(4.0)
    assert ppcg_reference.geomean([]) is None


def test_ppcg_comparison_per_kernel_and_geomeans():
    rows = ppcg_reference.ROWS
    # PPCG over ours: gemm default 2, pluto 0.5; lu default 4, pluto 1 (both in DESIGN's first
    # 22); trisolv (both right, not in the first 22) default 0.25, pluto 8; gramschmidt (not
    # right in DESIGN's run): default FAILED, pluto 2
    kernels = [_kernel("gemm", rows["gemm"].ppcg_ms / 2, rows["gemm"].ppcg_ms * 2),
               _kernel("lu", rows["lu"].ppcg_ms / 4, rows["lu"].ppcg_ms),
               _kernel("trisolv", rows["trisolv"].ppcg_ms * 4, rows["trisolv"].ppcg_ms / 8),
               _kernel("gramschmidt", None, rows["gramschmidt"].ppcg_ms / 2)]
    results = report.derive(_results(kernels))
    gemm = kernels[0]["ppcg"]
    assert gemm["polybench"] == "gemm" and gemm["ppcg_ms"] == 6.30
    assert gemm["design_polycuda_ms"] == 5.94 and gemm["both_right"] and gemm["in_first"]
    assert gemm["ratio"] == {"default": pytest.approx(2.0), "pluto": pytest.approx(0.5)}
    assert gemm["default_config"] == "default" and gemm["ratio_default"] == pytest.approx(2.0)
    assert gemm["best_config"] == "default" and gemm["sequential_ms"] == pytest.approx(1000.0)
    assert gemm["speedup_over_sequential"]["default"] == pytest.approx(1000 / (6.30 / 2))
    assert gemm["spread_ms"]["default"] == [pytest.approx(6.30 / 2 * 0.9),
                                        pytest.approx(6.30 / 2 * 1.2)]
    gramschmidt = kernels[3]["ppcg"]
    assert gramschmidt["ratio"]["default"] is None and gramschmidt["best_config"] == "pluto"
    assert not gramschmidt["both_right"] and not gramschmidt["in_first"]
    fig = results["ppcg_summary"]
    everything, right = fig["over_measured"], fig["over_design_both_right"]
    first = fig["over_design_first"]
    assert everything["kernels"] == 4
    assert everything["kernels_by_config"] == {"default": 3, "pluto": 4}
    assert everything["geomean_ratio"]["default"] == pytest.approx(2 ** (1 / 3))
    assert everything["geomean_ratio"]["pluto"] == pytest.approx(8 ** (1 / 4))
    assert everything["geomean_ratio_best"] == pytest.approx((2 * 4 * 8 * 2) ** (1 / 4))
    assert right["kernels"] == 3  # gemm, lu, trisolv: gramschmidt is not right in DESIGN's run
    assert right["geomean_ratio_best"] == pytest.approx(4.0)
    assert right["design_polycuda_geomean_speedup_over_its_gcc"] == pytest.approx(
        math.prod(rows[n].gcc_ms / rows[n].polycuda_ms for n in ("gemm", "lu", "trisolv"))
        ** (1 / 3))
    assert first["kernels"] == 2  # gemm and lu
    assert first["geomean_ratio_default"] == pytest.approx(math.sqrt(8))
    assert first["geomean_ratio"]["pluto"] == pytest.approx(math.sqrt(0.5))
    assert first["geomean_speedup_over_sequential_default"] == pytest.approx(
        math.sqrt(1000 / (6.30 / 2) * 1000 / (51.9 / 4)))
    assert first["ppcg_geomean_speedup_over_its_gcc"] == pytest.approx(
        math.sqrt(515 / 6.30 * 5672 / 51.9))
    assert "seidel-2d" not in fig["design_first_not_measured"] and len(
        fig["design_first_not_measured"]) == 20
    assert "seidel-2d" in fig["design_both_right_not_measured"] and len(
        fig["design_both_right_not_measured"]) == 24
    assert fig["stated_geomeans"] == {"ratio_both_right": 2.14, "ratio_first": 2.05}
    assert set(fig["left_out"]) == {"seidel-2d", "nussinov", "deriche"}
    assert fig["default_config"] == "default" and len(results["ppcg_reference"]["rows"]) == 29
    assert results["ppcg_reference"]["gpu"] == "NVIDIA H200"
    assert "Against PPCG on the NVIDIA H200" in results["summary_text"]
    text = ppcg.table(results)
    assert "default ms" in text and "ours@1b5279d ms" in text and "2x" in text
    assert "gramschmidt/default: FAILED" in text and "seidel-2d: left out" in text
    assert "nussinov: left out: no times in DESIGN's table" in text
    assert "deriche: left out: PPCG's time is float" in text
    assert "lu: not PolyBench's loop nest" in text
    assert "gramschmidt: not among DESIGN's kernels both get right: both compilers" in text
    assert "DESIGN's 27 both get right (3 measured" in text and "2.14x over its 27" in text


def test_no_ratio_unless_run_as_ppcgs_problem():
    row = ppcg_reference.ROWS["gemm"]
    small = _kernel("gemm", row.ppcg_ms, row.ppcg_ms)
    small["sizes"] = {"ni": 10, "nj": 11, "nk": 12}
    report.derive(_results([small]))
    assert small["ppcg"]["ratio"] == {"default": None, "pluto": None}
    assert "not PolyBench LARGE" in small["ppcg"]["not_comparable"]
    as_float = _kernel("gemm", row.ppcg_ms, row.ppcg_ms)
    report.derive(_results([as_float], dtype="float"))
    assert as_float["ppcg"]["ratio_best"] is None and "double" in as_float["ppcg"]["not_comparable"]
    on_cpu = _kernel("gemm", row.ppcg_ms, row.ppcg_ms)
    report.derive({**_results([on_cpu]), "device_mode": "cpu"})
    assert "OpenMP" in on_cpu["ppcg"]["not_comparable"]
    on_h100 = _kernel("gemm", row.ppcg_ms, row.ppcg_ms)
    report.derive({**_results([on_h100]), "machine": {"gpu": {"name": "NVIDIA H100 80GB HBM3"}}})
    assert "the NVIDIA H200's" in on_h100["ppcg"]["not_comparable"]
    right = _kernel("gemm", row.ppcg_ms, row.ppcg_ms)
    report.derive({**_results([right]), "machine": {"gpu": {"name": "NVIDIA H200"}}})
    assert right["ppcg"]["ratio_best"] == pytest.approx(1.0)
    deriche = ppcg_reference.ROWS["deriche"]
    in_double = _kernel("deriche", deriche.ppcg_ms, deriche.ppcg_ms)
    results = report.derive(_results([in_double]))
    assert "PPCG's time is float (--dtype float)" in in_double["ppcg"]["not_comparable"]
    assert "deriche" not in results["ppcg_summary"]["left_out"]  # it ran, without a ratio
    in_float = _kernel("deriche", deriche.ppcg_ms / 4, deriche.ppcg_ms)
    results = report.derive(_results([in_float], dtype="float"))
    assert in_float["ppcg"]["ratio_best"] == pytest.approx(4.0)
    assert results["ppcg_summary"]["over_design_both_right"]["kernels"] == 0
    assert "PPCG's time is double" in results["ppcg_summary"]["left_out"][
        ", ".join(n for n in DESIGN_ORDER if n not in ("seidel-2d", "deriche"))]


# -- the whole-function timing path, on the CPU -------------------------------------------------
def test_whole_function_from_host_arrays_checked_then_timed_after_a_warmup(monkeypatch):
    kernel = harness.select_kernels(("gemm",))[0]
    case = harness.make_case(kernel, kernel.small, seed=1)
    reference = builds.build_one(builds.BuildJob("gemm", builds.REFERENCE))
    library = builds.build_one(builds.BuildJob("gemm", "c", "isl"))
    oracle = baselines.sequential(case.scop, reference)
    cand = baselines.whole_function("isl", "config", "isl", case.scop, library, target="c")
    assert cand.timer == "perf_counter" and "whole function from host pointers" in cand.label
    inputs = case.inputs(case.sizes)
    seq, expected = measure_oracle(case, oracle, inputs, Limits(repeats=2))
    assert seq.status == "ok" and expected is not None
    calls: list[bool] = []
    real_call = launch.PreparedCall.__call__

    def counted(self):
        calls.append(self.uses_device)
        real_call(self)

    monkeypatch.setattr(launch.PreparedCall, "__call__", counted)
    meas = measure_candidate(case, cand, inputs, expected, HostSide(), Limits(repeats=3))
    assert meas.status == "ok" and len(meas.samples_s) == 3, meas.reason
    assert len(calls) == 1 + 1 + 3 and not any(calls)  # check, warm-up, 3 timed; host pointers
    broken = dataclasses.replace(library, path=None, error="nvcc: not found")
    failed = baselines.whole_function("isl", "config", "isl", case.scop, broken)
    assert failed.device == "gpu-host" and "nvcc: not found" in failed.failure


def test_checked_at_check_sizes_and_timed_at_the_timed_ones():
    gramschmidt = suite().by_name("gramschmidt")
    assert sizes.check_sizes_for(gramschmidt, "ppcg", sizes.PPCG["gramschmidt"]) == {
        "m": 1200, "n": 1000}
    assert sizes.check_sizes_for(gramschmidt, "ppcg", {"m": 10, "n": 8}) is None  # --size
    assert sizes.check_sizes_for(gramschmidt, "full", sizes.PPCG["gramschmidt"]) is None
    assert sizes.check_sizes_for(suite().by_name("gemm"), "ppcg", sizes.PPCG["gemm"]) is None
    kernel = harness.select_kernels(("jacobi_1d",))[0]
    case = harness.make_case(kernel, {"T": 3, "n": 20}, seed=2, check_sizes={"T": 2, "n": 12})
    reference = builds.build_one(builds.BuildJob("jacobi_1d", builds.REFERENCE))
    library = builds.build_one(builds.BuildJob("jacobi_1d", "c", "pluto"))
    oracle = baselines.sequential(case.scop, reference)
    inputs, check = case.inputs(case.sizes), case.inputs(case.check_sizes)
    seq, expected = measure_oracle(case, oracle, inputs, Limits(repeats=2), check)
    assert seq.ok and expected["A"].shape == (12,) and "checked at other sizes" in seq.notes[0]
    whole = baselines.whole_function("pluto", "config", "pluto", case.scop, library, target="c")
    timed_at: list[int] = []

    def time_runs(args, n):
        timed_at.append(args["n"])
        return whole.time(args, n)

    cand = dataclasses.replace(whole, time=time_runs)
    meas = measure_candidate(case, cand, inputs, expected, HostSide(), Limits(repeats=2), check)
    assert meas.ok and timed_at == [20] and len(meas.samples_s) == 2
    wrong = dict(expected, A=expected["A"] + 1.0)
    bad = measure_candidate(case, cand, inputs, wrong, HostSide(), Limits(repeats=2), check)
    assert bad.status == "FAILED" and timed_at == [20]  # checked at 12 points, never timed


# -- a whole ppcg run, CuPy played by NumPy -----------------------------------------------------
class _FakeCupy(types.SimpleNamespace):
    """Arrays, a device to synchronize, the memory pool; counts uploads."""

    def __init__(self):
        cuda = types.SimpleNamespace(Device=lambda: types.SimpleNamespace(synchronize=lambda: None))
        super().__init__(ndarray=type("FakeArray", (np.ndarray,), {}), cuda=cuda,
                         __version__="fake", uploads=0, get_default_memory_pool=lambda:
                         types.SimpleNamespace(free_all_blocks=lambda: None))

    def asarray(self, a):
        self.uploads += 1
        return np.array(a).view(self.ndarray)


def test_ppcg_mode_with_fake_gpu(monkeypatch, tmp_path):
    fake = _FakeCupy()
    gpu = GpuInfo(ppcg_reference.GPU, "sm_90", "1.0")  # PPCG's GPU: ratios
    monkeypatch.setattr(harness, "find_platform", lambda use_gpu: harness.Platform(
        gpu, fake, "", {"cpu": HostSide(), "gpu": harness.GpuSide(fake),
                        "gpu-host": HostSide()}))
    targets: list[str] = []
    real_build = builds._build

    def build(job):  # "cuda" libraries become host C libraries with the same entry
        targets.append(job.target)
        return real_build(dataclasses.replace(job, target="c") if job.target == "cuda" else job)

    monkeypatch.setattr(builds, "_build", build)
    real_whole = baselines.whole_function
    monkeypatch.setattr(baselines, "whole_function", lambda *a: real_whole(*a, target="c"))
    for name in ("jacobi_1d", "gemm"):  # LARGE sizes played by the small ones
        monkeypatch.setitem(sizes.PPCG, name, dict(suite().by_name(name).small))
    monkeypatch.setitem(sizes.PPCG_CHECK_SIZES, "jacobi_1d",
                        (lambda at: {"T": 2, "n": 12}, "as a test"))
    args = cli.parser().parse_args(["bench", "--ppcg", "jacobi_1d", "gemm", "--config", "pluto",
                                    "--out", str(tmp_path), "--jobs", "1"])
    settings = command.settings_from(args)
    assert settings.mode == "ppcg" and settings.repeats == 3
    results = harness.run_bench(settings)
    assert fake.uploads == 1  # the CUDA context, created first; no device arrays after that
    assert sorted(targets) == ["cuda"] * 4 + [builds.REFERENCE] * 2  # no OpenMP baseline
    assert results["configs"] == ["pluto", "default"] and results["repeats"] == 3
    for kernel in results["kernels"]:
        entries = kernel["entries"]
        assert list(entries) == ["sequential", "pluto", "default"]
        assert all(e["status"] == "ok" and e["n"] == 3 for e in entries.values()), entries
        assert "whole function from host pointers" in entries["default"]["label"]
        assert entries["default"]["config"] == "default"
        section = kernel["ppcg"]
        row = ppcg_reference.ROWS[sizes.SUITE_TO_POLYBENCH[kernel["name"]]]
        ours = entries["default"]["median_s"]
        assert section["ratio_default"] == pytest.approx(row.ppcg_ms / (ours * 1e3))
    assert results["ppcg_summary"]["default_config"] == "default"
    jacobi, gemm = results["kernels"]
    assert jacobi["check_sizes"] == {"T": 2, "n": 12} and gemm["check_sizes"] is None
    assert "checked against the sequential run at T=2, n=12" in jacobi["ppcg"]["check_note"]
    assert any("checked at other sizes" in n for n in jacobi["entries"]["pluto"]["notes"])
    path = command.write_results(results, tmp_path)
    assert path.name == f"{datetime.date.today().isoformat()}-nvidia-h200-ppcg.json"
    data = json.loads(path.read_text())
    assert data["ppcg_summary"]["over_design_first"]["kernels"] == 2
    assert data["ppcg_reference"]["date"] == ppcg_reference.DATE
    assert " default ms" in ppcg.table(results) and "=default" not in ppcg.table(results)


def test_ppcg_command_line_and_limits():
    settings = command.settings_from(cli.parser().parse_args(["bench", "--ppcg"]))
    assert settings.mode == "ppcg" and settings.repeats == 3 and settings.configs == (
        "isl", "pluto")
    limits = settings.effective_limits()
    assert limits.max_run_s is None and limits.repeats == 3  # nothing skipped for time
    # the default Options() is measured: by "isl" today, else by an added "default"
    assert configs.default_config(harness.measured_configs(settings)) is not None
    five = command.settings_from(cli.parser().parse_args(["bench", "--ppcg", "--repeats", "5"]))
    assert five.repeats == 5
    assert command.settings_from(cli.parser().parse_args(["bench"])).repeats == 10
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["bench", "--ppcg", "--paper"])
    assert environment.results_path(Path("o"), None, "ppcg", datetime.date(2026, 1, 2)).name == (
        "2026-01-02-cpu-only-ppcg.json")


# -- a mode run in parts, merged ----------------------------------------------------------------
def test_parts_merge_into_one_report(tmp_path, capsys):
    rows = ppcg_reference.ROWS
    one = report.derive(_results([_kernel("gemm", rows["gemm"].ppcg_ms / 2, None)]))
    two = report.derive(_results([_kernel("lu", rows["lu"].ppcg_ms / 8, rows["lu"].ppcg_ms)]))
    merged = report.merge([one, two])
    assert [k["name"] for k in merged["kernels"]] == ["gemm", "lu"]
    assert merged["ppcg_summary"]["over_design_first"]["geomean_ratio_best"] == pytest.approx(4.0)
    assert [p["kernels"] for p in merged["parts"]] == [["gemm"], ["lu"]]
    with pytest.raises(ValueError, match="dtype"):
        report.merge([one, {**two, "dtype": "float"}])
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    for path, part in zip(paths, (one, two)):
        path.write_text(json.dumps(part))
    assert cli.main(["bench", "--report", *map(str, paths)]) == 1  # gemm/pluto FAILED
    out = capsys.readouterr().out
    assert "gemm/pluto: FAILED" in out and "2 kernels run as PPCG's problems" in out
    saved = json.loads((tmp_path / "a-merged.json").read_text())
    assert [k["name"] for k in saved["kernels"]] == ["gemm", "lu"]


def test_polybench_datasets():
    """The five datasets: LARGE is DESIGN's text, each names the same kernels with the same
    size names, the largest extent grows from one dataset to the next, and ppcg mode runs at
    the one asked."""
    large = datasets.polybench_sizes("LARGE")
    assert large == ppcg_reference.large_sizes()
    for dataset in datasets.DATASETS:
        at = datasets.polybench_sizes(dataset)
        assert set(at) == set(large) and all(set(at[k]) == set(large[k]) for k in at), dataset
    for smaller, larger in itertools.pairwise(datasets.DATASETS):
        low, high = datasets.polybench_sizes(smaller), datasets.polybench_sizes(larger)
        # the largest extent (atax's and bicg's M shrinks from LARGE to EXTRALARGE, in
        # PolyBench's headers too)
        assert all(max(low[k].values()) < max(high[k].values()) for k in low), (smaller, larger)
    assert datasets.polybench_sizes("EXTRALARGE")["2mm"] == {
        "NI": 1600, "NJ": 1800, "NK": 2200, "NL": 2400}
    with pytest.raises(ValueError, match="unknown dataset 'HUGE'"):
        datasets.polybench_sizes("HUGE")
    gemm, gramschmidt = suite().by_name("gemm"), suite().by_name("gramschmidt")
    assert sizes.sizes_for(gemm, "ppcg", dataset="MINI") == {"ni": 20, "nj": 25, "nk": 30}
    assert sizes.sizes_for(suite().by_name("doitgen"), "ppcg", dataset="SMALL") == {
        "nq": 20, "nr": 25, "nk": 30}
    mini = sizes.sizes_for(gramschmidt, "ppcg", dataset="MINI")
    assert mini == {"m": 20, "n": 30}
    assert sizes.check_sizes_for(gramschmidt, "ppcg", mini, "MINI") == {"m": 30, "n": 20}
    assert sizes.check_sizes_for(gramschmidt, "ppcg", mini, "LARGE") is None
    with pytest.raises(ValueError, match="unknown dataset"):
        sizes.sizes_for(gemm, "ppcg", dataset="mini")
    with pytest.raises(ValueError, match="ppcg mode only"):
        harness.Settings(mode="full", dataset="MINI")
    args = cli.parser().parse_args(["bench", "--dataset", "MINI", "gemm"])
    with pytest.raises(PolycudaError, match="add --ppcg"):
        command.settings_from(args)
    args = cli.parser().parse_args(["bench", "--ppcg", "--dataset", "SMALL", "gemm"])
    assert command.settings_from(args).dataset == "SMALL"


def test_sequential_floor_lists_the_kernels_below_it():
    """The summary's floor: the default configuration's speedup over the sequential run of
    every kernel measured, those below 0.9x named, with or without a PPCG time."""
    def kernel(name, seq_ms, ours_ms):
        entry = {"status": "ok", "median_s": ours_ms / 1e3, "min_s": ours_ms / 1e3,
                 "max_s": ours_ms / 1e3}
        return {"name": name, "sizes": {}, "best_by_config": {"default": "default"},
                "entries": {"default": entry,
                            "sequential": {**entry, "median_s": seq_ms / 1e3}}}

    results = {"configs": ["default"], "dataset": "MINI", "device_mode": "gpu",
               "kernels": [kernel("gemm", 1.0, 0.5), kernel("trisolv", 1.0, 2.0),
                           kernel("syr", 1.0, 1.05)]}
    ppcg.derive(results)
    seq = results["ppcg_summary"]["over_sequential"]
    assert seq["kernels"] == 3 and seq["below_floor"] == {"trisolv": 0.5}
    assert seq["geomean_speedup_default"] == pytest.approx((2.0 * 0.5 / 1.05) ** (1 / 3))
    assert "at MINI" in ppcg.summary_lines(results)[-1]
    assert "below 0.9x: trisolv 0.5x" in ppcg.summary_lines(results)[-1]
