"""A CUDA region keeps its original program beside its kernels and runs it on the host where
the rule of gpu.cost.HostChoice predicts it faster (Options.host_fallback; issue 41, item 2)."""

from __future__ import annotations

import ctypes
import dataclasses

import islpy as isl
import numpy as np
import pytest

import polycuda
from kernels import suite
from polycuda import pipeline, program, show
from polycuda.cli import _options, parser as build_parser
from polycuda.codegen import host_choice
from polycuda.errors import InvalidConfigError, VerificationError
from polycuda.gpu import cost, extents
from polycuda.options import Options
from polycuda.run import RunReport, ran_version
from polycuda.runtime import emulate, launch
from polycuda.verify import random_arguments

TINY = {"ni": 4, "nj": 4, "nk": 4}
SMALL = {"ni": 48, "nj": 48, "nk": 48}
LARGE = {"ni": 4096, "nj": 4096, "nk": 4096}


def _gemm(**changes: object) -> polycuda.Program:
    gemm = suite.by_name("gemm")
    return polycuda.compile(str(gemm.c_path), function=gemm.function,
                            options=Options(**changes))


def _rule(prog: polycuda.Program) -> cost.HostChoice | None:
    """The HostChoice that compile_scop puts in the region's CUDA file."""
    return pipeline.region_host_choice(prog.scop, prog.options)


def test_a_tiny_problem_picks_the_host_and_a_large_one_the_gpu():
    rule = _rule(_gemm())
    assert rule is not None and rule.params == ("ni", "nj", "nk")
    host, gpu = rule.estimates(TINY)
    # 4^3 + 4^2 instances at HOST_INSTANCE_NS; one launch and four copies on the GPU side
    assert host == pytest.approx(80 * cost.HOST_INSTANCE_NS)
    assert gpu > cost.LAUNCH_NS + 4 * cost.COPY_CALL_NS
    assert rule.picks_host(TINY) is True
    assert rule.picks_host(LARGE) is False  # only the rule: nothing runs at 4096^3


def _force(prog: polycuda.Program, kernel: object) -> ctypes.c_int:
    return ctypes.c_int.in_dll(kernel.lib, f"pc_{prog.name}_force")


def test_the_emulator_runs_the_kernels_unless_told_to_let_the_rule_decide():
    """The emulator tests the kernels (the suite's direct calls keep testing them); with
    pc_<name>_force 0 its entries decide by the rule, as on a GPU."""
    prog = _gemm()
    kernel = prog.kernel("emulate")
    assert _force(prog, kernel).value == host_choice.RAN_GPU
    kernel(**random_arguments(prog.scop, TINY, seed=1))
    assert ran_version(prog, kernel) == "gpu"
    assert "#define PC_HOST_VERSION_FORCE 0" in prog.generate("cuda").source  # on a GPU: 0


def test_the_generated_entry_runs_what_the_rule_picks():
    prog = _gemm()
    kernel = prog.kernel("emulate")
    _force(prog, kernel).value = 0  # the rule decides, as on a GPU
    for sizes, ran in ((TINY, "host (sequential)"), (SMALL, "gpu")):
        assert _rule(prog).picks_host(sizes) is (ran != "gpu")
        args = random_arguments(prog.scop, sizes, seed=1)
        expected = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}
        prog._reference(expected)
        kernel(**args)
        assert ran_version(prog, kernel) == ran
        np.testing.assert_allclose(args["C"], expected["C"], rtol=1e-12)
    _force(prog, kernel).value = host_choice.RAN_GPU


def test_the_option_forces_either_side():
    always, never = _gemm(host_fallback="always"), _gemm(host_fallback="never")
    assert _rule(always).picks_host(LARGE) is True
    assert _rule(never) is None
    assert "pc_gemm_host_version" not in never.generate("cuda").source
    kernel = always.kernel("emulate")
    args = random_arguments(always.scop, SMALL, seed=2)
    kernel(**args)
    assert ran_version(always, kernel) == "host (sequential)"
    kernel = never.kernel("emulate")
    kernel(**random_arguments(never.scop, TINY, seed=2))
    assert ran_version(never, kernel) == ""  # no host version in the file
    with pytest.raises(InvalidConfigError):
        Options(host_fallback="sometimes")


def test_the_cli_flag_sets_the_option():
    for value in ("auto", "never", "always"):
        args = build_parser().parse_args(["compile", "x.c", "--host-fallback", value])
        assert _options(args).host_fallback == value
    assert _options(build_parser().parse_args(["compile", "x.c"])).host_fallback == "auto"


@pytest.mark.parametrize("sizes", [TINY, SMALL])
def test_both_versions_verify_on_the_emulator(sizes):
    [result] = _gemm().verify(sizes, targets=("emulate",))
    assert result.ok and result.target == "emulate"


def test_verify_checks_the_host_version_where_the_kernels_run(monkeypatch):
    """A wrong host version is caught at sizes where the rule picks the kernels."""
    real = host_choice._original

    def broken(scop, flag):
        lines = real(scop, flag)
        return [line.replace("*= beta", "*= -beta") for line in lines]

    monkeypatch.setattr(host_choice, "_original", broken)
    program._generate.cache_clear()  # the source with the broken host version
    try:
        prog = _gemm()
        assert _rule(prog).picks_host(SMALL) is False
        with pytest.raises(VerificationError, match="host version"):
            prog.verify(SMALL, targets=("emulate",))
    finally:
        program._generate.cache_clear()


def test_device_arrays_count_no_gpu_copies_and_the_host_round_trip():
    rule = _rule(_gemm())
    host, gpu = rule.estimates(TINY)
    host_dev, gpu_dev = rule.estimates(TINY, on_device=True)
    elements = {"C": 16, "A": 16, "B": 16}
    # the host entry copies C, A, B in and C out; the device entry's host version copies
    # C, A, B out and C back: the same bytes here, in as many copies
    copies_ns = sum(elements.values()) * 8 / cost.HOST_COPY_BYTES_PER_NS + (
        elements["C"] * 8 / cost.HOST_COPY_BYTES_PER_NS) + 4 * cost.COPY_CALL_NS
    assert gpu - gpu_dev == pytest.approx(copies_ns + cost.GPU_CALL_NS)  # nothing page-locked
    assert host_dev - host == pytest.approx(copies_ns)
    assert rule.picks_host(TINY, on_device=True) is False  # copies cost more than the work
    # the rule on numbers: zero copies to the GPU's side on device arrays
    assert cost.host_and_gpu_ns(0.0, 0.0, (500.0, 2), on_device=True) == (
        500.0 / cost.HOST_COPY_BYTES_PER_NS + 2 * cost.COPY_CALL_NS, 0.0)
    assert cost.host_and_gpu_ns(0.0, 0.0, (500.0, 2))[0] == 0.0


def test_the_device_entry_runs_the_host_version_on_device_arrays():
    prog = _gemm(host_fallback="always")
    gen = prog.generate("emulate")
    kernel = launch.load(emulate.build_emulated(gen.source), prog.scop, "emulate",
                         transformed=gen.scop, device_entry=True)
    args = random_arguments(prog.scop, TINY, seed=4)
    expected = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}
    prog._reference(expected)
    kernel(**args)
    assert ran_version(prog, kernel) == "host (sequential)"
    np.testing.assert_allclose(args["C"], expected["C"], rtol=1e-12)


def test_show_schedule_prints_the_rule_and_run_says_which_ran():
    text = show.show("schedule", (_gemm(target="cuda"),))
    assert "host version: the original program on the host where host < gpu" in text
    assert "ni, nj, nk" in text and "HOST_INSTANCE_NS" in text and "COPY_CALL_NS" in text
    assert "pc_launch_ns" in text and "copies: C x2 (2 on device arrays)" in text
    assert "host version" not in show.show("schedule", (_gemm(target="cuda",
                                                              host_fallback="never"),))
    report = RunReport("gemm", "cuda", TINY, ran="host (sequential)")
    assert "ran: host (sequential)" in report.render()


def test_the_rule_counts_what_a_triangle_fills_and_what_locking_costs():
    """instance_estimates weighs each statement's bounding box by the part its domain fills
    (LU's update a third, as the exact count says at n = 64), and the host entry's page-locked
    arrays (Options.host_pin_min_kib) cost PIN_CALL_NS each on the GPU's side only."""
    info = suite.by_name("lu")
    rule = _rule(polycuda.compile(str(info.c_path), function=info.function))
    n = cost.FILL_PARAMETER
    exact = sum(k * k + k for k in range(n))  # the update's (n-k-1)^2, the division's n-k-1
    terms = rule.terms({"n": n})
    assert terms["instances"] == pytest.approx(exact, rel=1e-9)
    assert terms["instances"] < 0.4 * n**3  # the bounding boxes' n^3 + n^2
    small, large = rule.terms({"n": 300}), rule.terms({"n": 400})  # A: 0.69 and 1.22 MiB
    assert small["pinned"] == 0 and large["pinned"] == 1
    assert rule.terms({"n": 400}, on_device=True)["pinned"] == 0
    unlocked = dataclasses.replace(rule, pin_min_bytes=0)
    assert unlocked.terms({"n": 400})["pinned"] == 0
    host, gpu = rule.estimates({"n": 400})
    assert gpu - unlocked.estimates({"n": 400})[1] == pytest.approx(cost.PIN_CALL_NS)
    assert host == unlocked.estimates({"n": 400})[0]
    assert "PIN_CALL_NS" in rule.rule() and "PIN_CALL_NS" not in unlocked.rule()


def test_the_host_version_runs_with_its_arrays_distinct_after_the_overlap_check():
    """The entries run pc_<name>_distinct (every array __restrict__) where the rule picks the
    host version, after their check that no written array shares memory; where one does, the
    host entry runs pc_<name>_original, with no such promise."""
    source = _gemm().generate("cuda").source
    assert ("static int pc_gemm_distinct(long long ni, long long nj, long long nk, double alpha, "
            "double beta, double *__restrict__ C, double *__restrict__ A, "
            "double *__restrict__ B)") in source
    entry = source[source.index('extern "C" int pc_gemm('):]
    checked = entry.index("pc_overlap_ranges(")
    assert entry.index("return pc_gemm_original(") > checked
    assert entry.index("return pc_gemm_distinct(") > entry.index("return pc_gemm_original(")
    dev_on_host = source[source.index("static int pc_gemm_dev_on_host("):]
    assert "pc_gemm_distinct(ni, nj, nk, alpha, beta, h_C, h_A, h_B)" in dev_on_host


def test_a_box_fills_itself_and_a_simplex_its_share():
    """cost._fill: a domain that is the product of its ranges fills its box (no counting), a
    triangle about half of it and a 4-D simplex, counted at a smaller parameter so that its
    box stays under FILL_POINTS, about 1/24."""
    ctx = isl.Context()

    def fill(text: str) -> float:
        domain = isl.Set(text, context=ctx)
        box = tuple(extents.extent_pw_aff(domain, k) for k in range(domain.dim(isl.dim_type.set)))
        return cost._fill(domain, box)

    assert fill("[n, m] -> { S[i, j, k, l] : 0 <= i < n and 0 <= j < m and 0 <= k, l < n }") == 1.0
    assert fill("[n] -> { S[i, j] : 0 <= j <= i < n }") == pytest.approx(
        (cost.FILL_PARAMETER + 1) / (2 * cost.FILL_PARAMETER))
    simplex = fill("[n] -> { S[i, j, k, l] : 0 <= l <= k <= j <= i < n }")
    assert 1 / 24 < simplex < 1 / 12
    assert fill("[n] -> { S[i, j] : 0 <= j <= i < n and n < 0 }") == 1.0  # empty at 64
