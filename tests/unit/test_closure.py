"""Floyd-Warshall's steps in parallel (schedule/closure.py; issue 41 item 3): the min-plus step
reads copies of row and column k, the CUDA entries check that the inputs are non-negative and
run the region as written elsewhere; C's and Python's spellings of the step, and the forms the
rewrite must leave alone."""

from __future__ import annotations

import numpy as np
import pytest

import polycuda
from kernels import suite
from polycuda import pipeline
from polycuda.frontend import c as cfront
from polycuda.ir.expr import Ref, Var, refs
from polycuda.options import Options
from polycuda.run import ran_version
from polycuda.schedule import closure

STEP = """
void fw(int n, {t} path[n][n]) {{
#pragma scop
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        path[i][j] = {rhs};
#pragma endscop
}}
"""


def _scop(rhs: str, t: str = "double"):
    (scop,) = cfront.parse_source(STEP.format(rhs=rhs, t=t), "fw.c")
    return scop


@pytest.mark.parametrize("rhs", [
    "path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j]",
    "path[k][j] + path[i][k] < path[i][j] ? path[k][j] + path[i][k] : path[i][j]",
    "path[i][k] + path[k][j] > path[i][j] ? path[i][j] : path[i][k] + path[k][j]",
    "fmin(path[i][j], path[i][k] + path[k][j])",
])
def test_the_spellings_of_the_step_are_found(rhs):
    (step,) = closure.find(_scop(rhs))
    assert (step.array, step.k, step.row, step.column) == ("path", "k", "i", "j")


@pytest.mark.parametrize("rhs", [
    "path[i][j] < path[i][k] * path[k][j] ? path[i][j] : path[i][k] * path[k][j]",  # not +
    "path[i][j] > path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j]",  # max
    "path[i][j] < path[i][k] + path[i][k] ? path[i][j] : path[i][k] + path[i][k]",  # no row k
    "path[i][j] < path[j][k] + path[k][i] ? path[i][j] : path[j][k] + path[k][i]",  # transposed
])
def test_other_forms_are_left_alone(rhs):
    assert closure.find(_scop(rhs)) == []
    assert closure.rewrite(_scop(rhs)).nonnegative_inputs == ()


def test_the_step_reads_copies_and_its_loops_run_in_parallel():
    scop = closure.rewrite(_scop(
        "path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j]"))
    assert scop.nonnegative_inputs == ("path",)
    step = scop.statements[-1]
    assert step.lhs.array == "path"
    assert {r.array for r in refs(step.rhs)} == {"path", "path_row0", "path_column0"}
    assert Ref("path", (Var("k"), Var("j"))) not in refs(step.rhs)  # row k from its copy
    assert [s.iterators for s in scop.statements] == [("k", "j"), ("k", "i"), ("k", "i", "j")]
    generated = pipeline.compile_scop(scop, Options(target="cuda", host_fallback="always"))
    sized = [k for k in generated.kernels if not k.serial]
    assert any(len(k.block_sizes) == 2 for k in sized)  # auto's choice: i and j on the grid
    # without the rewrite (no host version to fall back on): no kernel has (i, j) on the grid
    plain = pipeline.compile_scop(_scop(
        "path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j]"),
        Options(target="cuda", host_fallback="never"))
    assert plain.scop.nonnegative_inputs == ()
    assert not any(len(k.block_sizes) == 2 for k in plain.kernels if not k.serial)


def _inputs(n: int, seed: int, negative: bool) -> np.ndarray:
    rng = np.random.default_rng(seed)
    path = rng.uniform(0.5, 10.0, (n, n))
    path[rng.random((n, n)) < 0.1] = np.inf  # no edge
    np.fill_diagonal(path, 0.0)
    if negative:
        path[1, 2] = -0.25  # a negative edge, no negative cycle: the result is defined
    return path


def _reference(path: np.ndarray) -> np.ndarray:
    out = path.copy()
    n = len(out)
    for k in range(n):
        for i in range(n):
            for j in range(n):
                s = out[i, k] + out[k, j]
                out[i, j] = out[i, j] if out[i, j] < s else s  # C's ternary, as written
    return out


@pytest.mark.parametrize("frontend", ["c", "python"])
def test_the_kernels_run_on_non_negative_inputs_and_the_host_version_elsewhere(frontend):
    kernel_info = suite.by_name("floyd_warshall")
    n = 24
    if frontend == "c":
        prog = polycuda.compile(str(kernel_info.c_path), function=kernel_info.function)
    else:
        prog = polycuda.jit(suite.python_function(kernel_info)).program(
            n, _inputs(n, seed=3, negative=False))
    assert "closure steps" in [s.name for s in prog.generate("cuda").steps]
    assert prog.generate("cuda").scop.nonnegative_inputs == ("path",)
    kernel = prog.kernel("emulate")
    for negative, ran in ((False, "gpu"), (True, "host (sequential)")):
        path = _inputs(n, seed=3, negative=negative)
        expected = _reference(path)
        shapes = {p: n for p in prog.scop.params if p.startswith("path_d")}  # Python's
        kernel(n=n, path=path, **shapes)
        assert ran_version(prog, kernel) == ran
        np.testing.assert_array_equal(path, expected)  # exact: the same operations


def test_nan_and_negative_zero_inputs_run_the_host_version():
    kernel_info = suite.by_name("floyd_warshall")
    prog = polycuda.compile(str(kernel_info.c_path), function=kernel_info.function)
    kernel = prog.kernel("emulate")
    for bad in (np.nan, -0.0, -np.inf):
        path = _inputs(8, seed=5, negative=False)
        path[3, 4] = bad
        expected = _reference(path)
        kernel(n=8, path=path)
        assert ran_version(prog, kernel) == "host (sequential)", bad
        np.testing.assert_array_equal(path, expected)


def test_no_rewrite_without_the_host_version_or_off_cuda():
    scop = _scop("path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j]")
    for options in (Options(target="cuda", host_fallback="never"), Options(target="openmp")):
        assert pipeline.transform_scop(scop, options).nonnegative_inputs == ()


def test_int_elements_are_checked_for_negative_values_only():
    scop = _scop("path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j]",
                 t="int")
    source = pipeline.compile_scop(pipeline.transform_scop(scop, Options(target="cuda")),
                                   Options(target="cuda")).source
    assert "if (pc_v < 0) ok = 0;" in source
