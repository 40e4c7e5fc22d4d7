"""`polycuda bench --ppcg` without a GPU: DESIGN's PPCG table and LARGE sizes as parsed, the
mode's sizes on our kernels' parameters, PPCG-over-ours ratios and geometric means, the
whole-function timing path on the CPU, and a whole ppcg run with a NumPy stand-in for CuPy."""

from __future__ import annotations

import dataclasses
import datetime
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
    environment,
    harness,
    ppcg,
    ppcg_reference,
    report,
    sizes,
)
from polycuda.bench.measure import HostSide, Limits, measure_candidate, measure_oracle
from polycuda.bench.suite_access import suite
from polycuda.runtime import launch
from polycuda.runtime.device import GpuInfo

DESIGN_MD = Path(__file__).resolve().parents[2].parent / "shared" / "DESIGN.md"
DESIGN_ORDER = ("jacobi-1d jacobi-2d seidel-2d fdtd-2d heat-3d gemm 2mm 3mm atax bicg mvt "
                "gesummv gemver doitgen covariance correlation syrk syr2k symm trmm lu "
                "cholesky durbin trisolv gramschmidt").split()


# -- DESIGN's table -----------------------------------------------------------------------------
def test_reference_table_has_the_25_design_rows():
    rows = ppcg_reference.ROWS
    assert list(rows) == DESIGN_ORDER
    assert dataclasses.astuple(rows["jacobi-1d"]) == ("jacobi-1d", 0, 4.45, 4.60, 0.82, 0.96)
    assert dataclasses.astuple(rows["symm"]) == ("symm", 18, 6.03, 26848, 52151, 2910)
    assert dataclasses.astuple(rows["gramschmidt"]) == ("gramschmidt", 24, 249, 314, 1623, 9099)
    assert rows["atax"].gcc_ms == 8.0 and rows["fdtd-2d"].default_ms == 215.5
    assert [r.polybench for r in rows.values() if not r.in_design_geomean] == [
        "durbin", "trisolv", "gramschmidt"]


def test_design_geomeans_follow_from_its_rows():
    computed = ppcg_reference.design_geomeans()
    for key, stated in ppcg_reference.DESIGN_GEOMEANS.items():
        # within one unit of the last digit DESIGN states (its rows are rounded: 1.345 -> 1.35)
        digits = len(str(stated).split(".")[1])
        assert computed[key] == pytest.approx(stated, abs=10 ** -digits), key


def test_reference_parsers_refuse_malformed_text():
    with pytest.raises(ValueError, match="name ms"):
        ppcg_reference.parse_table("gemm 1 | 2 | 3")
    with pytest.raises(ValueError, match="twice"):
        ppcg_reference.parse_table("gemm 1 | 2 | 3 | 4; gemm 1 | 2 | 3 | 4")
    with pytest.raises(ValueError, match="NAME=INTEGER"):
        ppcg_reference.parse_large_sizes("gemm NI=10 NJ=x")
    assert ppcg_reference.parse_large_sizes("a, b N=3; c 1x2x3.") == {
        "a": {"N": 3}, "b": {"N": 3}, "c": {"NI": 1, "NJ": 2, "NK": 3}}


@pytest.mark.skipif(not DESIGN_MD.is_file(), reason="../shared/DESIGN.md is not beside the repo")
def test_reference_text_is_design_md_text():
    design = " ".join(DESIGN_MD.read_text().split())
    if "The H100 table of 2026-11-24" in design and "is superseded" in design:
        # DESIGN.md (2026-12-01) replaced the H100 table this module copies by the H200 one,
        # in another form (three columns); re-basing `bench --ppcg` on it is issue 41's work
        pytest.skip("DESIGN.md's PPCG table is the H200 one; ppcg_reference still holds the "
                    "H100 table of 2026-11-24 (issue 41)")
    for text in (ppcg_reference.TABLE_TEXT, ppcg_reference.LARGE_SIZES_TEXT):
        assert " ".join(text.split()) in design


# -- sizes --------------------------------------------------------------------------------------
def test_ppcg_kernels_are_design_order_without_seidel():
    expected = [sizes.POLYBENCH_TO_SUITE[n] for n in DESIGN_ORDER if n != "seidel-2d"]
    assert list(sizes.PPCG_KERNELS) == expected and len(expected) == 24
    assert "seidel-2d" in sizes.PPCG_LEFT_OUT and "sor_2d" in sizes.PPCG_LEFT_OUT["seidel-2d"]
    names = [k.name for k in harness.select_kernels((), "ppcg")]
    assert names == expected
    first, second = sizes.PPCG_PARTS
    assert sorted(first + second) == sorted(expected) and not set(first) & set(second)
    assert "symm_scatter" in second and "gemm" in first


def test_ppcg_sizes_cover_every_parameter_of_each_region():
    from polycuda.api import compile as compile_c

    for kernel in harness.select_kernels((), "ppcg"):
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
    # PPCG over ours: gemm default 2, pluto 0.5; lu default 4, pluto 1; durbin (not in the first 22)
    # default 0.25, pluto 8; trisolv: default FAILED, pluto 2
    kernels = [_kernel("gemm", rows["gemm"].ppcg_ms / 2, rows["gemm"].ppcg_ms * 2),
               _kernel("lu", rows["lu"].ppcg_ms / 4, rows["lu"].ppcg_ms),
               _kernel("durbin", rows["durbin"].ppcg_ms * 4, rows["durbin"].ppcg_ms / 8),
               _kernel("trisolv", None, rows["trisolv"].ppcg_ms / 2)]
    results = report.derive(_results(kernels))
    gemm = kernels[0]["ppcg"]
    assert gemm["polybench"] == "gemm" and gemm["ppcg_ms"] == 6.13
    assert gemm["ratio"] == {"default": pytest.approx(2.0), "pluto": pytest.approx(0.5)}
    assert gemm["default_config"] == "default" and gemm["ratio_default"] == pytest.approx(2.0)
    assert gemm["best_config"] == "default" and gemm["sequential_ms"] == pytest.approx(1000.0)
    assert gemm["spread_ms"]["default"] == [pytest.approx(6.13 / 2 * 0.9),
                                        pytest.approx(6.13 / 2 * 1.2)]
    trisolv = kernels[3]["ppcg"]
    assert trisolv["ratio"]["default"] is None and trisolv["best_config"] == "pluto"
    fig = results["ppcg_summary"]
    everything, first = fig["over_measured"], fig["over_design_first"]
    assert everything["kernels"] == 4
    assert everything["kernels_by_config"] == {"default": 3, "pluto": 4}
    assert everything["geomean_ratio"]["default"] == pytest.approx(2 ** (1 / 3))
    assert everything["geomean_ratio"]["pluto"] == pytest.approx(8 ** (1 / 4))
    assert everything["geomean_ratio_best"] == pytest.approx((2 * 4 * 8 * 2) ** (1 / 4))
    assert first["kernels"] == 2  # gemm and lu; durbin and trisolv are not in DESIGN's 22
    assert first["geomean_ratio_default"] == pytest.approx(math.sqrt(8))
    assert first["geomean_ratio"]["pluto"] == pytest.approx(math.sqrt(0.5))
    assert first["geomean_speedup_over_sequential_default"] == pytest.approx(
        math.sqrt(1000 / (6.13 / 2) * 1000 / (55.7 / 4)))
    assert "seidel-2d" in fig["design_first_not_measured"] and len(
        fig["design_first_not_measured"]) == 20
    assert fig["default_config"] == "default" and len(results["ppcg_reference"]["rows"]) == 25
    assert "Against PPCG" in results["summary_text"]
    text = ppcg.table(results)
    assert "default ms" in text and "2x" in text and "trisolv/default: FAILED" in text
    assert "seidel-2d: left out" in text and "lu: not PolyBench's loop nest" in text


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
    right = _kernel("gemm", row.ppcg_ms, row.ppcg_ms)
    report.derive(_results([right]))
    assert right["ppcg"]["ratio_best"] == pytest.approx(1.0)


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
    gpu = GpuInfo("Fake GPU 80GB", "sm_90", "1.0")
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
    monkeypatch.setitem(sizes.PPCG_CHECK_SIZES, "jacobi_1d", ({"T": 2, "n": 12}, "as a test"))
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
    assert path.name == f"{datetime.date.today().isoformat()}-fake-gpu-80gb-ppcg.json"
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
