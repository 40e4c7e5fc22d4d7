"""`polycuda bench` on the CPU: timing statistics, the size ladder, wrong results reported as
FAILED (never timed), the results JSON, the table and summary, plots, the CPU-only mode and
the GPU mode's orchestration with a NumPy stand-in for CuPy. No GPU needed."""

from __future__ import annotations

import dataclasses
import datetime
import json
import time
import types
from pathlib import Path

import numpy as np
import pytest

from polycuda import cli
from polycuda.bench import (
    baselines,
    builds,
    ceilings,
    command,
    configs,
    environment,
    harness,
    measure,
    report,
    sizes,
    timing,
)
from polycuda.bench.measure import (
    Candidate,
    HostSide,
    KernelCase,
    Limits,
    measure_candidate,
    measure_oracle,
)
from polycuda.options import Options
from polycuda.runtime.device import GpuInfo
from polycuda.verify import TOLERANCES, compare

TINY = ("jacobi_1d", "trmv")
REQUIRED_TOP = {"schema", "mode", "dtype", "tolerance", "device_mode", "cpu_only_reason", "configs", "repeats",
                "limits", "machine", "ceilings", "kernels", "summary", "summary_text", "wall_s"}
REQUIRED_KERNEL = {"name", "category", "memory_bound", "sizes", "bytes_per_run",
                   "flops_per_run", "arithmetic_intensity", "entries", "best", "speedups",
                   "best_speedups"}
REQUIRED_ENTRY = {"name", "role", "device", "label", "timer", "status", "reason", "samples_s",
                  "n", "median_s", "min_s", "max_s", "repeats_requested", "notes"}


# -- timing -------------------------------------------------------------------------------------
def test_spread_of_fake_samples():
    stats = timing.spread([0.004, 0.001, 0.003, 0.002, 0.010])
    assert stats["n"] == 5 and stats["median_s"] == 0.003
    assert stats["min_s"] == 0.001 and stats["max_s"] == 0.010
    assert stats["mean_s"] == pytest.approx(0.004)
    assert timing.spread([])["median_s"] is None
    assert timing.spread([2.0])["stdev_s"] == 0.0


def test_repeats_within_budget():
    assert timing.repeats_within(0.01, 10, 1.0) == 10
    assert timing.repeats_within(0.3, 10, 1.0) == 3
    assert timing.repeats_within(5.0, 10, 1.0) == 1
    assert timing.repeats_within(5.0, 10, None) == 10


def test_size_ladder_and_extrapolation():
    ladder = timing.size_ladder({"T": 2, "n": 10}, {"T": 32, "n": 1000}, rungs=2)
    assert ladder == [{"T": 2, "n": 10}, {"T": 8, "n": 100}]
    assert timing.extrapolate([(10.0, 1.0)], 100.0) == pytest.approx(10.0)
    # flat (overhead-bound) times: alpha clamped at 0.5
    assert timing.extrapolate([(1.0, 1.0), (100.0, 1.0)], 10000.0) == pytest.approx(10.0)


# -- one kernel's measurements ------------------------------------------------------------------
def _case(name: str = "jacobi_1d") -> KernelCase:
    kernel = harness.select_kernels((name,))[0]
    return harness.make_case(kernel, kernel.small, seed=3)


def _oracle(case: KernelCase) -> Candidate:
    def run(args):  # jacobi_1d in NumPy, as the C does it
        A, B = args["A"], args["B"]
        for _ in range(args["T"]):
            B[1:-1] = (A[:-2] + A[1:-1] + A[2:]) / 3.0
            A[1:-1] = (B[:-2] + B[1:-1] + B[2:]) / 3.0

    return Candidate("sequential", "baseline", "cpu", "numpy", "perf_counter", run,
                     lambda args, n: timing.time_host(lambda: run(args), n))


def _never_timed(args, n):
    raise AssertionError("a wrong result must not be timed")


def test_wrong_result_is_failed_and_never_timed():
    case = _case()
    inputs = case.inputs(case.sizes)
    seq, expected = measure_oracle(case, _oracle(case), inputs, Limits(repeats=3))
    assert seq.status == "ok" and len(seq.samples_s) == 3 and expected is not None

    def wrong(args):
        _oracle(case).run(args)
        args["A"][5] += 1.0

    cand = Candidate("isl", "config", "cpu", "wrong runner", "perf_counter", wrong, _never_timed)
    meas = measure_candidate(case, cand, inputs, expected, HostSide(), Limits(repeats=3))
    assert meas.status == "FAILED" and "wrong result" in meas.reason and "A" in meas.reason
    assert meas.samples_s == [] and not meas.ok
    right = Candidate("pluto", "config", "cpu", "right", "perf_counter", _oracle(case).run,
                      lambda args, n: [0.5] * n)
    good = measure_candidate(case, right, inputs, expected, HostSide(), Limits(repeats=4))
    assert good.status == "ok" and good.samples_s == [0.5] * 4


def test_crash_is_failed_and_build_failure_is_reported():
    case = _case()
    inputs = case.inputs(case.sizes)
    _, expected = measure_oracle(case, _oracle(case), inputs, Limits(repeats=1))

    def boom(args):
        raise RuntimeError("illegal address")

    crash = Candidate("isl", "config", "gpu", "crash", "cuda-events", boom, _never_timed)
    meas = measure_candidate(case, crash, inputs, expected, HostSide(), Limits())
    assert meas.status == "FAILED" and "illegal address" in meas.reason
    unbuilt = Candidate("pluto", "config", "gpu", "x", "none", failure="build failed: nvcc")
    assert measure_candidate(case, unbuilt, inputs, expected, HostSide(),
                             Limits()).reason == "build failed: nvcc"


def test_slow_candidate_is_skipped_from_smaller_sizes(monkeypatch):
    ran: list[int] = []
    now = [0.0]  # a counted clock: the verdict must not depend on how busy the machine is
    monkeypatch.setattr(measure, "clock", lambda: now[0])

    def run(args):
        ran.append(args["n"])
        now[0] += args["n"] * 1e-6  # one microsecond per unit of work

    case = KernelCase("fake", None, {"n": 1_000_000}, {"n": 100}, lambda s: {"n": s["n"]},
                      lambda s: float(s["n"]))
    cand = Candidate("isl", "config", "cpu", "slow", "perf_counter", run, _never_timed,
                     generated=True)
    meas = measure_candidate(case, cand, {"n": 1_000_000}, {}, HostSide(),
                             Limits(max_run_s=0.05))
    assert meas.status == "skipped" and "limit 0.05 s" in meas.reason
    assert max(ran) < 1_000_000 and len(meas.probe) >= 3


# -- float: the tolerance of float32 results -----------------------------------------------------
def _float32_jacobi_1d(stale_read: bool = False):
    """jacobi_1d in float32 arithmetic with the sum reordered: right up to rounding. With
    stale_read, one point of the last step reads B of the step before (a violated flow
    dependence, as a wrong schedule would)."""

    def run(args):
        A, B, three = args["A"], args["B"], np.float32(3)
        for t in range(args["T"]):
            old = B.copy()
            B[1:-1] = (A[2:] + A[:-2] + A[1:-1]) / three
            A[1:-1] = (B[2:] + B[:-2] + B[1:-1]) / three
            if stale_read and t == args["T"] - 1:
                i = len(A) // 2
                A[i] = (old[i + 1] + old[i - 1] + old[i]) / three

    return run


def test_float_result_within_rounding_passes_and_wrong_one_fails():
    kernel = harness.select_kernels(("jacobi_1d",))[0]
    case = harness.make_case(kernel, kernel.small, seed=3, dtype="float")
    assert {a.dtype for a in case.scop.args if a.kind == "array"} == {"float"}
    inputs = case.inputs(case.sizes)
    assert inputs["A"].dtype == np.float32
    reference = builds.build_one(builds.BuildJob("jacobi_1d", builds.REFERENCE, dtype="float"))
    oracle = baselines.sequential(case.scop, reference)
    _, expected = measure_oracle(case, oracle, inputs, Limits(repeats=1))
    right = Candidate("pluto", "config", "cpu", "float32", "perf_counter",
                      _float32_jacobi_1d(), lambda args, n: [0.5] * n)
    good = measure_candidate(case, right, inputs, expected, HostSide(), Limits(repeats=2))
    rtol = TOLERANCES["float"][0]
    assert good.status == "ok" and 0 < max(good.max_rel_error.values()) < rtol / 100
    wrong = Candidate("isl", "config", "cpu", "stale", "perf_counter",
                      _float32_jacobi_1d(stale_read=True), _never_timed)
    bad = measure_candidate(case, wrong, inputs, expected, HostSide(), Limits(repeats=2))
    assert bad.status == "FAILED" and "wrong result" in bad.reason
    assert max(bad.max_rel_error.values()) > 10 * rtol
    # checked as double (the region parsed without DATA_TYPE=float), rounding alone fails
    actual = HostSide().upload(inputs)
    right.run(actual)
    double_scop = harness.make_case(kernel, kernel.small, seed=3).scop
    assert compare(case.scop, "pluto", expected, actual).ok
    assert not compare(double_scop, "pluto", expected, actual).ok


def test_float_run_records_dtype(tmp_path):
    settings = harness.Settings(kernels=("jacobi_1d",), configs=("pluto",), mode="small",
                                repeats=2, use_gpu=False, out_dir=tmp_path, jobs=1,
                                dtype="float")
    results = harness.run_bench(settings)
    assert results["dtype"] == "float" and results["tolerance"]["rtol"] == TOLERANCES["float"][0]
    (kernel,) = results["kernels"]
    assert all(e["status"] == "ok" for e in kernel["entries"].values()), kernel["entries"]
    suite_kernel = harness.select_kernels(("jacobi_1d",))[0]
    assert kernel["bytes_per_run"] == suite_kernel.bytes_per_run(suite_kernel.small, w=4)
    assert ", float:" in results["summary_text"]
    path = command.write_results(results, tmp_path)
    assert path.name.endswith("-cpu-only-small-float.json")
    assert json.loads(path.read_text())["dtype"] == "float"
    with pytest.raises(ValueError, match="half"):
        harness.Settings(dtype="half")


# -- whole runs ---------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cpu_results(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    settings = harness.Settings(kernels=TINY, mode="small", repeats=3, use_gpu=False,
                                out_dir=out, jobs=1)
    return harness.run_bench(settings), out


def test_cpu_only_mode_runs_sequential_and_openmp_configs(cpu_results):
    results, _ = cpu_results
    assert results["device_mode"] == "cpu" and "--cpu" in results["cpu_only_reason"]
    assert results["ceilings"] is None
    for kernel in results["kernels"]:
        entries = kernel["entries"]
        assert list(entries) == ["sequential", "isl", "pluto"]
        assert all(e["status"] == "ok" and e["n"] == 3 for e in entries.values()), entries
        assert entries["isl"]["device"] == "cpu" and "OpenMP" in entries["isl"]["label"]
        assert kernel["best"] in ("isl", "pluto")
        assert set(kernel["best_speedups"]) == {"sequential"}


def test_results_json_schema(cpu_results):
    results, out = cpu_results
    path = command.write_results(results, out)
    assert path.name == f"{datetime.date.today().isoformat()}-cpu-only-small.json"
    data = json.loads(path.read_text())
    assert REQUIRED_TOP <= set(data)
    assert {"date", "gpu", "cuda", "host"} <= set(data["machine"])
    assert data["machine"]["host"]["cores"] >= 1
    for kernel in data["kernels"]:
        assert REQUIRED_KERNEL <= set(kernel)
        for entry in kernel["entries"].values():
            assert REQUIRED_ENTRY <= set(entry)
            assert entry["min_s"] <= entry["median_s"] <= entry["max_s"]
    assert data["summary"]["kernels_over_sequential"] == len(TINY)


def test_table_and_summary(cpu_results):
    results, _ = cpu_results
    text = report.table(results)
    assert all(name in text for name in TINY) and "seq ms" in text
    line = report.summary(results)
    assert "geometric-mean speedup over sequential gcc -O3" in line and "2 kernels" in line


def test_plot_to_files(cpu_results, tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (extra 'plot')")
    from polycuda.bench import plot

    results, _ = cpu_results
    path = tmp_path / "r.json"
    path.write_text(json.dumps(results))
    pngs = plot.plot_file(path)
    # two configurations (isl, pluto): their bars per kernel too
    assert [p.name for p in pngs] == ["r-speedup.png", "r-roofline.png", "r-configs.png"]
    assert all(p.stat().st_size > 1000 for p in pngs)


# -- the GPU mode's orchestration, CuPy played by NumPy -----------------------------------------
class _FakeArray(np.ndarray):
    pass


class _FakeEvent:
    def record(self):
        self.t = time.perf_counter()

    def synchronize(self):
        pass


class _FakeCupy(types.SimpleNamespace):
    """Just enough of CuPy on the host: arrays, events, the memory pool."""

    def __init__(self):
        cuda = types.SimpleNamespace(
            Event=_FakeEvent, get_elapsed_time=lambda a, b: (b.t - a.t) * 1e3,
            Device=lambda: types.SimpleNamespace(synchronize=lambda: None))
        super().__init__(ndarray=_FakeArray, cuda=cuda, __version__="fake",
                         get_default_memory_pool=lambda: types.SimpleNamespace(
                             free_all_blocks=lambda: None))

    def asarray(self, a):
        return np.array(a).view(_FakeArray)

    def asnumpy(self, a):
        return np.array(a)

    def __getattr__(self, name):
        return getattr(np, name)


@pytest.mark.parametrize("dtype", ["double", "float"])
def test_gpu_mode_with_fake_cupy(monkeypatch, tmp_path, dtype):
    fake = _FakeCupy()
    gpu = GpuInfo("Fake GPU 80GB", "sm_90", "1.0")
    monkeypatch.setattr(harness, "find_platform", lambda use_gpu: harness.Platform(
        gpu, fake, "", {"cpu": HostSide(), "gpu": harness.GpuSide(fake)}))
    real_build = builds._build
    # "cuda" libraries become host C libraries (same entry signature) run on the fake arrays
    monkeypatch.setattr(builds, "_build", lambda job: real_build(
        dataclasses.replace(job, target="c") if job.target == "cuda" else job))
    monkeypatch.setattr(harness.baselines, "gpu_library", lambda name, role, label, scop, r:
                        harness.baselines.host_library(name, role, label, scop, r, "c"))
    naive_dtypes: list[object] = []
    real_naive = harness.naive_cupy()
    monkeypatch.setattr(harness, "naive_cupy", lambda: types.SimpleNamespace(
        jacobi_1d=lambda T, n, A, B, xp: (naive_dtypes.append((type(A), A.dtype)),
                                          real_naive.jacobi_1d(T, n, A, B, xp=xp)),
        gemm=real_naive.gemm))
    settings = harness.Settings(kernels=("jacobi_1d", "gemm"), mode="small", repeats=2,
                                out_dir=tmp_path, jobs=1, dtype=dtype)
    results = harness.run_bench(settings)
    assert set(naive_dtypes) == {(_FakeArray, np.dtype(np.float32 if dtype == "float"
                                                        else np.float64))}
    assert results["device_mode"] == "gpu" and results["ceilings"]["source"] == "assumed"
    jac, gemm = results["kernels"]
    assert list(jac["entries"]) == ["sequential", "openmp", "cupy_naive", "isl", "pluto"]
    assert list(gemm["entries"]) == ["sequential", "openmp", "cublas", "isl", "pluto"]
    for kernel in (jac, gemm):
        assert all(e["status"] == "ok" for e in kernel["entries"].values()), kernel["entries"]
        assert 0 < kernel["entries"][kernel["best"]]["fraction_of_ceiling"]
    fig = results["summary"]
    assert fig["kernels_over_cupy_naive"] == 1 and fig["fraction_of_cublas_gemm"] > 0
    assert "of cuBLAS" in results["summary_text"]
    suffix = "-small-float.json" if dtype == "float" else "-small.json"
    assert command.write_results(results, tmp_path).name.endswith("-fake-gpu-80gb" + suffix)
    ceiling = "sgemm_flops_per_s" if dtype == "float" else "dgemm_flops_per_s"
    assert gemm["entries"][gemm["best"]]["ceiling"] == ceiling


# -- ceilings, names, command line --------------------------------------------------------------
def test_ceilings_from_file_else_assumed(tmp_path):
    assert ceilings.load_or_assume(tmp_path, "nvidia-h100")["source"] == "assumed"
    measured = {"copy_bytes_per_s": 3e12, "dgemm_flops_per_s": 5e13,
                "sgemm_flops_per_s": 4e13, "source": "measured"}
    ceilings.save(tmp_path, "nvidia-h100", measured)
    loaded = ceilings.load_or_assume(tmp_path, "nvidia-h100")
    assert loaded["copy_bytes_per_s"] == 3e12 and loaded["source"].startswith("file")
    assert ceilings.load_or_assume(tmp_path, "other-gpu")["source"] == "assumed"


def test_results_file_name():
    gpu = GpuInfo("NVIDIA H100 80GB HBM3", "sm_90", "580")
    day = datetime.date(2026, 1, 2)
    assert environment.results_path(Path("o"), gpu, "quick", day) == Path(
        "o/2026-01-02-nvidia-h100-80gb-hbm3-quick.json")
    assert environment.results_path(Path("o"), None, "full", day).name == "2026-01-02-cpu-only.json"
    assert environment.results_path(Path("o"), None, "full", day, "float").name == (
        "2026-01-02-cpu-only-float.json")
    assert environment.results_path(Path("o"), None, "paper", day, "float", "sweep").name == (
        "2026-01-02-cpu-only-paper-float-sweep.json")


def test_command_line_options():
    args = cli.parser().parse_args(["bench", "gemm", "atax", "--quick", "--config", "isl",
                                    "--repeats", "12", "--out", "x"])
    settings = command.settings_from(args)
    assert settings.kernels == ("gemm", "atax") and settings.configs == ("isl",)
    assert settings.mode == "quick" and settings.repeats == 12 and settings.out_dir == Path("x")
    assert settings.dtype == "double"
    args = cli.parser().parse_args(["bench", "--dtype", "float"])
    assert command.settings_from(args).dtype == "float"
    bad = cli.parser().parse_args(["bench", "--config", "isl,ppcg"])
    with pytest.raises(Exception, match="ppcg"):
        command.settings_from(bad)
    assert cli.main(["bench", "no_such_kernel", "--cpu"]) == 1
    args = cli.parser().parse_args(["bench", "--max-run", "30", "--tag", "sweep_1"])
    settings = command.settings_from(args)
    assert settings.effective_limits().max_run_s == 30.0 and settings.tag == "sweep_1"
    for bad_args in (["--max-run", "0"], ["--tag", "a/b"]):
        with pytest.raises(Exception, match="max-run|tag"):
            command.settings_from(cli.parser().parse_args(["bench", *bad_args]))


def test_size_overrides_replace_the_parameters_a_kernel_has():
    args = cli.parser().parse_args(["bench", "--paper", "--size", "T=1000", "--size", "n=64"])
    settings = command.settings_from(args)
    assert settings.sizes == (("T", 1000), ("n", 64))
    jacobi, gemm = harness.select_kernels(("jacobi_2d", "gemm"), "paper")
    assert sizes.sizes_for(jacobi, "paper", dict(settings.sizes)) == {"T": 1000, "n": 64}
    assert sizes.sizes_for(gemm, "paper", {"T": 1000}) == sizes.FULL["gemm"]  # no T in gemm
    for bad in ("T", "T=0", "T=x", "=3", "T=-2"):
        with pytest.raises(Exception, match="--size"):
            command.settings_from(cli.parser().parse_args(["bench", "--size", bad]))


def test_results_are_saved_after_every_kernel(tmp_path):
    settings = harness.Settings(kernels=("jacobi_1d", "trmv"), configs=("isl",), mode="small",
                                repeats=2, use_gpu=False, out_dir=tmp_path, jobs=1)
    seen = []
    final = harness.run_bench(settings, on_kernel=lambda part: seen.append(
        [k["name"] for k in part["kernels"]]))
    assert seen == [["jacobi_1d"], ["jacobi_1d", "trmv"]]
    assert [k["name"] for k in final["kernels"]] == ["jacobi_1d", "trmv"]
    assert final["machine"]["polycuda_commit"]  # this checkout is a git repository


def test_config_names_map_to_options():
    expected = {
        "isl": Options(scheduler="isl"),
        "isl-noreg": Options(scheduler="isl", private_promotion=False),
        "isl-rt2x2": Options(scheduler="isl", register_tiles=(2, 2)),
        "shared": Options(shared_promotion=True),
        "no-shared": Options(shared_promotion=False),
        "pluto": Options(scheduler="pluto"),
        "isl-dist": Options(scheduler="isl-distributed"),
        "superposition": Options(scheduler="superposition"),
        "pluto-sum": Options(scheduler="pluto", intra_wavefront="sum"),
        "intra": Options(scheduler="pluto", balanced_wavefront=True),
        "inter": Options(scheduler="pluto", balanced_wavefront=True, eliminate_false_deps=True),
        "red-1block": Options(reduction_blocks=1),
        "red-pass": Options(reduction_combine="pass"),
        "no-rows": Options(row_reductions=False, column_reductions=False),
        "no-columns": Options(column_reductions=False),
        "no-dual": Options(dual_reductions=False),
        "no-chain": Options(chain_reductions=False),
        "no-producer": Options(producer_fusion=False),
        "grid-loops": Options(host_loops="grid"),
        "launch-loops": Options(host_loops="launches"),
        "isl-launches": Options(scheduler="isl", host_loops="launches"),
        "isl-grid": Options(scheduler="isl", host_loops="grid"),
        "sup-grid": Options(scheduler="superposition", host_loops="grid"),
        "default": Options(),
    }
    assert {c: configs.Variant(c).options() for c in configs.CONFIG_OPTIONS} == expected
    assert "Di et al. 'intra'" in configs.CONFIG_LABELS["intra"]
    assert "'intra+inter'" in configs.CONFIG_LABELS["inter"]
    # every configuration is its own build job, and the job builds with its configuration
    jobs = harness.build_jobs(["sor_1d"], configs.variants(("isl", "pluto", "intra", "inter")),
                              gpu=True)
    assert len({job.key for job in jobs}) == len(jobs) == 6
    assert builds.BuildJob("sor_1d", "cuda", "inter").options() == expected["inter"]
    assert builds.BuildJob("sor_1d", builds.REFERENCE).options() == Options()
    args = cli.parser().parse_args(["bench", "--config", "isl,pluto,intra,inter"])
    assert command.settings_from(args).configs == ("isl", "pluto", "intra", "inter")


# -- tile-size sweep ----------------------------------------------------------------------------
def test_tile_candidates_and_entry_names():
    assert configs.parse_tiles("16,64;32,32;8,8,32") == ((16, 64), (32, 32), (8, 8, 32))
    assert configs.parse_tiles(" 16, 64 ; 16,64;") == ((16, 64),)
    for bad in ("", ";", "16,x", "0,8"):
        with pytest.raises(ValueError):
            configs.parse_tiles(bad)
    names = [v.name for v in configs.variants(("isl", "intra"), ((16, 64), (8, 8, 32)))]
    assert names == ["isl", "isl@16x64", "isl@8x8x32", "intra", "intra@16x64", "intra@8x8x32"]
    assert configs.config_of("intra@8x8x32") == "intra" and configs.config_of("isl") == "isl"
    assert configs.Variant("intra", (8, 8, 32)).options() == Options(
        scheduler="pluto", balanced_wavefront=True, tile_sizes=(8, 8, 32))
    args = cli.parser().parse_args(["bench", "--tiles", "16,64;32,32"])
    assert command.settings_from(args).tiles == ((16, 64), (32, 32))
    with pytest.raises(Exception, match="--tiles"):
        command.settings_from(cli.parser().parse_args(["bench", "--tiles", "16;a"]))


def test_staging_choices_and_entry_names():
    assert configs.parse_stagings("global,smem,smem227,smem") == (0, 48, 227)
    for bad in ("", "shared", "smem0", "smemx", "smem2000"):
        with pytest.raises(ValueError, match="staging"):
            configs.parse_stagings(bad)
    names = [v.name for v in configs.variants(("inter",), ((8, 64, 64),), ("kernels", "grid"),
                                              (0, 48, 200))]
    assert names == ["inter", "inter@smem", "inter@smem200", "inter@grid", "inter@grid+smem",
                     "inter@grid+smem200", "inter@8x64x64", "inter@8x64x64+smem",
                     "inter@8x64x64+smem200", "inter@8x64x64+grid", "inter@8x64x64+grid+smem",
                     "inter@8x64x64+grid+smem200"]
    assert configs.Variant("pluto", (), "kernels", 200).options() == Options(
        scheduler="pluto", shared_staging=True, shared_memory_kib=200)
    assert configs.Variant("pluto").options() == Options(scheduler="pluto")
    names = [v.name for v in configs.variants(("inter",), ((8, 64, 64),), ("kernels",), (227,),
                                              ((4, 64),))]
    assert names == ["inter@smem227", "inter@b4x64+smem227", "inter@8x64x64+smem227",
                     "inter@8x64x64+b4x64+smem227"]
    assert configs.Variant("inter", (8, 64, 64), blocks=(4, 64)).options().block_sizes == (4, 64)
    args = cli.parser().parse_args(["bench", "--blocks", "4,64;8,64"])
    assert command.settings_from(args).blocks == ((4, 64), (8, 64))
    args = cli.parser().parse_args(["bench", "--staging", "global,smem227"])
    assert command.settings_from(args).stagings == (0, 227)
    with pytest.raises(Exception, match="--staging"):
        command.settings_from(cli.parser().parse_args(["bench", "--staging", "l1"]))


def test_tile_sweep_builds_and_measures_named_entries(tmp_path):
    settings = harness.Settings(kernels=("jacobi_1d",), configs=("isl", "pluto"), mode="small",
                                repeats=2, use_gpu=False, out_dir=tmp_path, jobs=1,
                                tiles=((4, 8), (8, 8)))
    results = harness.run_bench(settings)
    assert results["tiles"] == [[4, 8], [8, 8]]
    (kernel,) = results["kernels"]
    entries = kernel["entries"]
    assert list(entries) == ["sequential", "isl", "isl@4x8", "isl@8x8",
                             "pluto", "pluto@4x8", "pluto@8x8"]
    assert all(e["status"] == "ok" for e in entries.values()), entries
    assert entries["pluto@4x8"]["config"] == "pluto"
    assert entries["pluto@4x8"]["tile_sizes"] == [4, 8] and entries["pluto"]["tile_sizes"] == []
    assert set(kernel["best_by_config"]) == {"isl", "pluto"}
    for config, best in kernel["best_by_config"].items():
        group = {n: e["median_s"] for n, e in entries.items() if e.get("config") == config}
        assert best == min(group, key=group.__getitem__)
    assert kernel["best"] in kernel["best_by_config"].values()
    assert "with default tiles and 2 tile-size candidates" in results["summary_text"]


def _timed(role: str, median_s: float | None, status: str = "ok") -> dict:
    return {"role": role, "status": status, "median_s": median_s, "reason": "", "notes": []}


def test_best_by_config_picks_the_lowest_median():
    kernel = {"name": "k", "memory_bound": True, "flops_per_run": 1e9, "bytes_per_run": 1e9,
              "entries": {"sequential": _timed("baseline", 8.0),
                          "isl": _timed("config", 2.0),
                          "isl@16x64": _timed("config", None, "FAILED"),
                          "pluto": _timed("config", 3.0),
                          "pluto@16x64": _timed("config", 1.0),
                          "pluto@32x32": _timed("config", 1.5),
                          "intra": _timed("config", None, "FAILED")}}
    results = report.derive({"kernels": [kernel], "ceilings": None, "configs": ["isl", "pluto"],
                             "tiles": [[16, 64], [32, 32]], "mode": "full", "machine": {}})
    assert kernel["best_by_config"] == {"isl": "isl", "pluto": "pluto@16x64", "intra": None}
    assert kernel["best"] == "pluto@16x64" and kernel["best_speedups"] == {"sequential": 8.0}
    assert results["summary"]["geomean_speedup_over_sequential"] == pytest.approx(8.0)
    text = report.table(results)
    head, _, row = text.splitlines()[:3]
    assert head.split()[:7] == ["kernel", "seq", "ms", "isl", "ms", "pluto", "ms"]
    assert "1000@16x64" in row and "2000" in row and "FAILED" in row and "pluto@16x64" in row


# -- paper sizes --------------------------------------------------------------------------------
def test_paper_sizes_are_table_two_extents_with_fewer_time_steps():
    kernels = harness.select_kernels((), "paper")
    assert [k.name for k in kernels] == list(sizes.PAPER_KERNELS) and len(kernels) == 8
    table_two = {1: (65536, 65536), 2: (1000, 4096), 3: (256, 256)}  # (T, extent)
    for kernel in kernels:
        at = sizes.sizes_for(kernel, "paper")
        extents = {v for p, v in at.items() if p != "T"}
        dims = 1 if kernel.name.endswith("_1d") else 3 if "_3d" in kernel.name else 2
        assert extents == {table_two[dims][1]} and 1 <= at["T"] < table_two[dims][0]
        if dims > 1:  # the full mode's reduction, reused
            assert at == sizes.FULL[kernel.name]
    gemm = harness.select_kernels(("gemm",), "paper")[0]
    assert sizes.sizes_for(gemm, "paper") == sizes.FULL["gemm"]
    settings = command.settings_from(cli.parser().parse_args(["bench", "--paper"]))
    assert settings.mode == "paper" and settings.effective_limits().max_run_s == 2.0
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["bench", "--paper", "--quick"])
    assert environment.results_path(Path("o"), None, "paper", datetime.date(2026, 1, 2),
                                    "float").name == "2026-01-02-cpu-only-paper-float.json"

