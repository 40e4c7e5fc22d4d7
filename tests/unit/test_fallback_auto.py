"""cpu_fallback_per_level "auto" (issue 17; Anantpur & Govindarajan 2013, Section 3.5.2, last
paragraph): the host runs a run-time nest in order when its iterations per level fall below
(GPU cost of one level) / (host cost of one iteration), on the emulator; every result checked
against the sequential program; and what `polycuda run` reports."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import polycuda
from kernels.indirect import MOVE
from polycuda.errors import InvalidConfigError
from polycuda.options import Options
from polycuda.run import Fallback, run_and_time
from polycuda.tune import level_cost
from tests.unit.test_executors import KINDS, call_and_check, counter, move_args
from tests.unit.test_runtime import needs_nvcc

N = 600  # iterations: more than two blocks of 256
# threshold under the reference costs: the crossover near 850 iterations per level
REFERENCE_T = level_cost.REFERENCE_LEVEL_S / level_cost.REFERENCE_HOST_ITERATION_S
ADVERSARIAL = {  # (src, dst) of MOVE: A[dst[i]] = 0.5 * A[src[i]] + v[i]
    "chain": (np.arange(N), np.arange(N) + 1),  # N levels of one
    "all_to_one": (np.full(N, 3), np.full(N, 3)),  # N levels of one (WAW and RAW)
    "duplicates": (np.random.default_rng(3).integers(0, 5, N),
                   np.random.default_rng(4).integers(0, 5, N)),
}


def test_reference_threshold_is_the_measured_crossover():
    # bench/results/...-indirect-executors.json: 27 us per level, 32 ns per iteration
    assert 800 < REFERENCE_T < 900


@needs_nvcc
@pytest.mark.parametrize("pattern", sorted(ADVERSARIAL))
def test_auto_falls_back_on_many_small_levels(pattern):
    prog = polycuda.compile(MOVE)  # auto is the default
    kernel = prog.kernel("emulate")
    call_and_check(prog, kernel, move_args(*ADVERSARIAL[pattern], N + 1))
    assert counter(kernel, "executor") == KINDS["host"]
    assert counter(kernel, "fallback_below", np.ctypeslib.ctypes.c_double) > N / 2


@needs_nvcc
def test_auto_keeps_a_wide_loop_on_the_gpu():
    """Two levels of 1024 iterations each (> the reference threshold): the GPU; a
    permutation (one level) too."""
    n = 2048
    src = np.r_[np.arange(n // 2), np.arange(n // 2)]
    dst = np.r_[np.arange(n // 2) + n // 2, np.arange(n // 2)]  # the second half reads the first
    prog = polycuda.compile(MOVE)
    kernel = prog.kernel("emulate")
    call_and_check(prog, kernel, move_args(src, dst, n + 1))
    assert counter(kernel, "executor") == KINDS["levels"] and counter(kernel, "levels") == 2
    perm = np.random.default_rng(8).permutation(N)
    call_and_check(prog, kernel, move_args(perm, perm, N + 1))
    assert counter(kernel, "executor") == KINDS["levels"] and counter(kernel, "levels") == 1


@needs_nvcc
def test_host_cost_is_then_measured_on_the_loop():
    """The fallback times the loop over >= HOST_SAMPLE_MIN iterations; the next call decides
    with that cost (and says so), the result still the sequential one."""
    n = 2 * executor_min()
    prog = polycuda.compile(MOVE)
    kernel = prog.kernel("emulate")
    for call in range(2):
        call_and_check(prog, kernel, move_args(np.arange(n), np.arange(n) + 1, n + 1, call))
        assert counter(kernel, "executor") == KINDS["host"]
    assert counter(kernel, "host_measured") == 1 and counter(kernel, "host_used_measured") == 1
    host_s = counter(kernel, "host_iter_s", np.ctypeslib.ctypes.c_double)
    assert 0 < host_s < 1e-3


def executor_min() -> int:
    from polycuda.codegen import executor_cuda

    return executor_cuda.HOST_SAMPLE_MIN


@needs_nvcc
@pytest.mark.parametrize("threshold, kind", [(0.0, "levels"), (4.0, "host"), (1e9, "host")])
def test_explicit_thresholds_behave_as_before(threshold, kind):
    """0: never (the paper's code, no fallback parts); 4 on a chain: the host; a wide
    permutation stays on the GPU under any threshold (one level)."""
    prog = polycuda.compile(MOVE)
    kernel = prog.kernel("emulate", cpu_fallback_per_level=threshold)
    call_and_check(prog, kernel, move_args(np.arange(40), np.arange(40) + 1, 41))
    levels = counter(kernel, "levels")
    if threshold:
        assert counter(kernel, "executor") == KINDS[kind] and levels * threshold > 40
    else:
        assert levels == 40
    perm = np.random.default_rng(8).permutation(40)
    call_and_check(prog, kernel, move_args(perm, perm, 41))
    assert counter(kernel, "levels") == 1


@needs_nvcc
@pytest.mark.parametrize("fallback", ["auto", 0.0, 8.0])
def test_verify_on_random_inputs(fallback):
    prog = polycuda.compile(MOVE, options=Options(cpu_fallback_per_level=fallback))
    prog.verify(sizes={"n": 300, "m": 40}, targets=("c", "openmp", "emulate"))


@needs_nvcc
def test_run_reports_the_decision(monkeypatch):
    prog = polycuda.compile(MOVE)
    monkeypatch.setattr(prog, "resolve_target", lambda target: "emulate")
    # random src, dst over 4 cells: many levels of few iterations each
    report = run_and_time(prog, {"n": 200, "m": 4}, repeats=1)
    text = report.render()
    assert report.verified, text
    assert "executor: sequential on the host; levels inspected in" in text
    assert "ran on the host: at most" in text and "iterations/level < threshold" in text
    assert "GPU level cost 26.89 us [reference H100]" in text
    # the reference, or the loop's own cost if an earlier test's call measured it (the
    # library, loaded once per process, keeps it)
    assert re.search(r"host iteration cost [0-9.]+ ns \[(reference host|measured on this "
                     r"loop)\]", text), text


def test_fallback_render():
    auto = Fallback(1000.0, 30e-6, True, 30e-9, True)
    assert auto.render(10, 20000, False) == (
        "ran on the GPU: 2000.0 iterations/level >= threshold 1000.0 (GPU level cost 30.00 us "
        "[measured], host iteration cost 30.0 ns [measured on this loop])")
    assert auto.render(1, 500, False).startswith("ran on the GPU: one level")
    assert Fallback(4.0).render(3, 9, True) == (
        "ran on the host: at most 3.0 iterations/level < threshold 4.0 (explicit "
        "--cpu-fallback-per-level)")
    assert "fallback off" in Fallback(0.0).render(5, 5, False)


def test_options_and_cli():
    assert Options().cpu_fallback_per_level == "auto"
    for bad in ("never", -1.0, float("inf"), True):
        with pytest.raises(InvalidConfigError, match="cpu_fallback_per_level"):
            Options(cpu_fallback_per_level=bad)
    for good in ("auto", 0, 16.0):
        opts = Options(cpu_fallback_per_level=good)
        assert Options.from_text(opts.to_text()) == opts
    from polycuda.cli import _options, parser

    for text, value in (("auto", "auto"), ("0", 0.0), ("900", 900.0)):
        args = parser().parse_args(["compile", "f.c", "--cpu-fallback-per-level", text])
        assert _options(args).cpu_fallback_per_level == value
    with pytest.raises(SystemExit):
        parser().parse_args(["compile", "f.c", "--cpu-fallback-per-level", "often"])


def test_level_cost_cache_beside_the_calibration(tmp_path, monkeypatch):
    """A cached per-GPU level cost is read from the tuner's cache dir (kind runtime-levels);
    without a GPU, the reference H100's."""
    from polycuda.runtime import device
    from polycuda.tune import calibrate

    monkeypatch.setattr(device, "gpu_info", lambda: None)
    assert level_cost.gpu_level_cost(tmp_path) == level_cost.reference()
    info = device.GpuInfo(name="Test GPU 1", arch="sm_90", driver="1")
    monkeypatch.setattr(device, "gpu_info", lambda: info)
    path = calibrate.cache_path("Test GPU 1", tmp_path, level_cost.KIND)
    assert path.parent == calibrate.cache_path("Test GPU 1", tmp_path).parent
    path.write_text(json.dumps({"level_s": 12e-6}))
    cost = level_cost.gpu_level_cost(tmp_path)
    assert cost.seconds == 12e-6 and cost.measured and "Test GPU 1" in cost.source


@needs_nvcc
def test_level_cost_microbenchmark_on_the_emulator():
    """The microbenchmark's chain: the longer one costs more per call (emulated launches)."""
    # medians of 3 and a long chain 10x the short one: one call each was seen to tie under
    # the load of a parallel test run
    assert level_cost.measure("emulate", short=8, long=80, repeats=3) > 0
