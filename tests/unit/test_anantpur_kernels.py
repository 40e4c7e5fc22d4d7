"""The paper's benchmarks (kernels/anantpur.py, Anantpur & Govindarajan 2013 Table 1) at small
sizes: each takes the run-time path, gives the sequential program's result on the CPU targets and
the emulated inspector/executor, and, where the paper's Table 2 finds one level (the loops whose
monitored accesses never conflict), finds one level too."""

from __future__ import annotations

import numpy as np
import pytest

import polycuda
from kernels.anantpur import BENCHMARKS
from polycuda.analysis import indirect
from polycuda.run import runtime_levels
from tests.unit.test_runtime import needs_nvcc

ONE_LEVEL = ("doAll", "2dconv", "fdtd-2d", "gemm", "mvt")  # Table 2's Lvls = 1
SCALE = 1 / 4096
# The emulator runs every thread of every level's launch: a quarter of SCALE there (randAcc3:
# 4096 iterations, 16 blocks of 256, 5 levels; SCALE's 16384 took 20 levels and 10 s)
EMULATED_SCALE = SCALE / 4


def _run(prog, target, args):
    actual = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    kernel = prog.kernel(target, allow_reassociation=False)
    kernel(*[actual[a.name] for a in prog.scop.args])
    return actual, kernel


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_benchmark_runs_on_the_run_time_path_and_matches_the_sequential_program(name):
    source, make = BENCHMARKS[name]
    prog = polycuda.compile(source)
    assert indirect.runtime_nests(prog.scop), "the benchmark would not monitor anything"
    args = make(np.random.default_rng(3), SCALE)
    expected = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    prog._reference(expected)
    for name_ in prog.scop.written_arrays():
        assert not np.array_equal(expected[name_], args[name_]), "the test could not fail"
    for target in ("c", "openmp"):
        actual, _ = _run(prog, target, args)
        for arr in prog.scop.written_arrays():
            np.testing.assert_allclose(actual[arr], expected[arr], rtol=1e-12, err_msg=target)


@needs_nvcc
@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_benchmark_levels_on_the_emulated_inspector(name):
    source, make = BENCHMARKS[name]
    prog = polycuda.compile(source)
    args = make(np.random.default_rng(4), EMULATED_SCALE)
    expected = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    prog._reference(expected)
    actual, kernel = _run(prog, "emulate", args)
    for arr in prog.scop.written_arrays():
        np.testing.assert_allclose(actual[arr], expected[arr], rtol=1e-12, err_msg=arr)
    levels = [lv for _, lv, _ in runtime_levels(prog, kernel, "emulate")]
    if name in ONE_LEVEL:
        assert levels == [1] * len(levels)
    else:  # random writes and reads of one array conflict
        assert all(lv > 1 for lv in levels)
