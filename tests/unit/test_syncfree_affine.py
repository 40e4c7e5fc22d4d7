"""The sync-free executor without inspector (issue 17, item 3; analysis/affine_writers.py,
codegen/syncfree_affine.py): the closed-form writer proved with isl, SpTRSV on chain, diagonal,
dense and random patterns against the sequential program and the levels path, a read of a
later iteration's cell (falls back to the levels, still correct), a decreasing loop, host
loops around the levelized one, nests where it does not apply, reports, and nvcc."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess

import numpy as np
import pytest

import polycuda
from kernels.indirect import MOVE, SPTRSV
from polycuda.analysis import indirect
from polycuda.analysis.affine_writers import AffineWriters, affine_writers
from polycuda.frontend import c as cfront
from polycuda.options import Options
from polycuda.show import show
from tests.unit.test_csr import assert_same, lower_rows, sptrsv_args
from tests.unit.test_executors import call_and_check, counter, move_args
from tests.unit.test_indirect import run_both
from tests.unit.test_runtime import needs_nvcc

AFFINE, WARP = 3, 4  # executor_cuda.EXECUTOR_CODES
LEVELS = 0

# backward substitution, rows from the last: row i reads x[col[k]] for columns > i (first in
# its row), the diagonal first; the levelized loop runs downwards
USOLVE = """
void usolve(int n, int nnz, double x[n], double b[n], int rowptr[n + 1], int col[nnz],
            double val[nnz]) {
#pragma scop
  for (int i = n - 1; i >= 0; i--) {
    double s = b[i];
    for (int k = rowptr[i] + 1; k < rowptr[i + 1]; k++)
      s -= val[k] * x[col[k]];
    x[i] = s / val[rowptr[i]];
  }
#pragma endscop
}
"""
# host loop around the levelized one; writes shifted by 2: writer(c) = c - 2
SWEEPS = """
void sweeps(int T, int n, double x[n + 2], int key[n], double v[n]) {
#pragma scop
  for (int t = 0; t < T; t++)
    for (int i = 0; i < n; i++)
      x[i + 2] = 0.5 * x[key[i]] + v[i] * t;
#pragma endscop
}
"""
# every iteration writes x[0]: not injective
SAME_CELL = """
void same(int n, double x[n], int key[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    x[0] = x[0] + x[key[i]];
#pragma endscop
}
"""


def nest_of(source):
    scop = cfront.parse_source(source, "k.c")[0]
    nest, = indirect.runtime_nests(scop)
    return scop, nest


def sptrsv_kernel(**changes):
    prog = polycuda.compile(SPTRSV)
    changes.setdefault("cpu_fallback_per_level", 0)  # the levels when it falls back to them
    return prog, prog.kernel("emulate", **changes)


def test_writer_is_the_affine_inverse_of_the_write():
    found = affine_writers(*nest_of(SPTRSV))
    assert isinstance(found, AffineWriters)
    assert found.writer("x") == "[n, nnz, pc_cell0] -> { [(pc_cell0)] : 0 <= pc_cell0 < n }"
    shifted = affine_writers(*nest_of(SWEEPS)).writer("x")  # t (pc_h0) only in its range
    assert "[(-2 + pc_cell0)]" in shifted and "2 <= pc_cell0 <= 1 + n" in shifted


@pytest.mark.parametrize("source, reason", [
    (MOVE, "writes 'A' through a subscript known at run time"),
    (SAME_CELL, "two iterations of loop 'i' may write one element of 'x'"),
])
def test_does_not_apply_and_says_why(source, reason):
    assert reason in affine_writers(*nest_of(source))
    text = show("deps", (polycuda.compile(source),))
    assert "syncfree-affine does not apply" in text and reason in text


@needs_nvcc
@pytest.mark.parametrize("executor", ["syncfree-affine", "syncfree-affine-warp"])
@pytest.mark.parametrize("pattern", ["chain", "diagonal", "dense", "random"])
def test_sptrsv_matches_sequential_and_levels(pattern, executor):
    """One launch, no levels; the sequential result; one thread per row: the same bits as
    the levels path (each row's sum in the same order); one warp per row: within rtol (the
    row's sum reassociated over the lanes)."""
    n = 70 if pattern == "dense" else 300  # 300 rows: tickets cross blocks
    args = sptrsv_args(lower_rows(n, pattern, np.random.default_rng(3)))
    prog, kernel = sptrsv_kernel(runtime_executor=executor)
    assert_same(prog, "emulate", args, runtime_executor=executor)
    affine = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    kernel(*[affine[a.name] for a in prog.scop.args])
    code = AFFINE if executor == "syncfree-affine" else WARP
    assert counter(kernel, "executor") == code and counter(kernel, "levels") == 0
    _, levels = run_both(prog, "emulate", args, runtime_executor="levels")
    if executor == "syncfree-affine":
        np.testing.assert_array_equal(affine["x"], levels["x"])
    else:
        np.testing.assert_allclose(affine["x"], levels["x"], rtol=1e-12)


@needs_nvcc
def test_warp_form_reads_of_own_cell_and_reassociation():
    """One warp per row: a read of the row's own cell falls back to the levels (lanes other
    than 0 would not see lane 0's write); without reassociation, one thread per row."""
    rows = lower_rows(100, "random", np.random.default_rng(4))
    rows[9] = [9] + rows[9]
    args = sptrsv_args(rows)
    args["x"] = np.random.default_rng(6).uniform(0.5, 1.5, 100)
    prog, kernel = sptrsv_kernel(runtime_executor="syncfree-affine-warp")
    assert_same(prog, "emulate", args, runtime_executor="syncfree-affine-warp")
    kernel(*[args[a.name] for a in prog.scop.args])
    assert counter(kernel, "executor") == LEVELS
    kernel = prog.kernel("emulate", runtime_executor="syncfree-affine-warp",
                         allow_reassociation=False)
    args = sptrsv_args(lower_rows(100, "random", np.random.default_rng(4)))
    kernel(*[args[a.name] for a in prog.scop.args])
    assert counter(kernel, "executor") == AFFINE


@needs_nvcc
def test_read_of_a_later_iterations_cell_falls_back_to_levels():
    """Row 5 reads x[7] (an upper element): sequential order reads x[7]'s old value, which
    waiting on a flag cannot give: the check pass sees it and the levels run, correctly."""
    rows = lower_rows(300, "random", np.random.default_rng(4))
    rows[5] = [7] + rows[5]
    args = sptrsv_args(rows)
    args["x"] = np.random.default_rng(5).uniform(0.5, 1.5, 300)  # old values that matter
    prog, kernel = sptrsv_kernel(runtime_executor="syncfree-affine")
    assert_same(prog, "emulate", args, runtime_executor="syncfree-affine")
    call = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    kernel(*[call[a.name] for a in prog.scop.args])
    assert counter(kernel, "executor") == LEVELS and counter(kernel, "levels") > 1
    # a read of its own cell (row 9 reads x[9] before writing it) keeps the one launch
    rows = lower_rows(300, "random", np.random.default_rng(4))
    rows[9] = [9] + rows[9]
    args = sptrsv_args(rows)
    args["x"] = np.random.default_rng(6).uniform(0.5, 1.5, 300)
    assert_same(prog, "emulate", args, runtime_executor="syncfree-affine")
    kernel(*[args[a.name] for a in prog.scop.args])
    assert counter(kernel, "executor") == AFFINE


@needs_nvcc
def test_decreasing_loop_and_auto():
    """Backward substitution: positions count down from n - 1; `auto` (the default) picks the
    affine executor, one warp per row (each row a CSR reduction into a private scalar)."""
    prog = polycuda.compile(USOLVE)
    n = 300
    rng = np.random.default_rng(7)
    rows = [[i] + sorted(rng.choice(np.arange(i + 1, n), min(3, n - 1 - i), replace=False)
                         .tolist()) for i in range(n)]
    args = sptrsv_args(rows)
    args["val"] = rng.uniform(0.1, 0.3, args["nnz"])
    args["val"][args["rowptr"][:-1]] = rng.uniform(1.0, 2.0, n)  # the diagonal (first)
    assert_same(prog, "emulate", args, runtime_executor="auto")
    kernel = prog.kernel("emulate", runtime_executor="auto")
    kernel(*[args[a.name] for a in prog.scop.args])
    assert counter(kernel, "executor") == WARP


@needs_nvcc
def test_host_loop_around_and_a_nest_where_it_does_not_apply():
    prog = polycuda.compile(SWEEPS)
    n = 280
    rng = np.random.default_rng(8)
    key = np.asarray([rng.integers(0, i + 2) for i in range(n)], np.int32)  # cells <= i + 1
    args = {"T": 3, "n": n, "x": rng.uniform(0.5, 1.5, n + 2), "key": key,
            "v": rng.uniform(0.5, 1.5, n)}
    kernel = prog.kernel("emulate", runtime_executor="syncfree-affine")
    call_and_check(prog, kernel, args)
    assert counter(kernel, "executor") == AFFINE
    move = polycuda.compile(MOVE)  # indirect writes: the levels, same result
    kernel = move.kernel("emulate", runtime_executor="syncfree-affine",
                         cpu_fallback_per_level=0)  # a chain: else the host
    call_and_check(move, kernel, move_args(np.arange(50), np.arange(50) + 1, 51))
    assert counter(kernel, "executor") == LEVELS and counter(kernel, "levels") == 50


@needs_nvcc
def test_run_reports_the_executor(monkeypatch):
    from polycuda.run import run_and_time, runtime_executors

    prog = polycuda.compile(SPTRSV, options=Options(runtime_executor="syncfree-affine",
                                                    cpu_fallback_per_level=0))
    monkeypatch.setattr(prog, "resolve_target", lambda target: "emulate")
    # verify's random columns are anywhere in 0..n-1: reads of later rows, the levels
    report = run_and_time(prog, {"n": 60, "nnz": 200}, repeats=1)
    assert report.verified and report.executors[0][0] == "levels"
    assert report.levels[0][1] > 1
    kernel = prog.kernel("emulate")
    args = sptrsv_args(lower_rows(60, "random", np.random.default_rng(9)))
    kernel(*[args[a.name] for a in prog.scop.args])
    affine = dataclasses.replace(report, executors=runtime_executors(prog, kernel, 1))
    assert affine.executors[0][0].startswith("syncfree-affine")
    assert "executor: syncfree-affine (no levels" in affine.render()


def test_options_and_cli():
    opts = Options(runtime_executor="syncfree-affine")
    assert Options.from_text(opts.to_text()) == opts
    from polycuda.cli import _options, parser

    args = parser().parse_args(["compile", "f.c", "--runtime-executor", "syncfree-affine"])
    assert _options(args).runtime_executor == "syncfree-affine"
    # the other executors' code is unchanged: no kernel of this one
    assert "pc_affsync0" not in polycuda.compile(SPTRSV).generate(
        "cuda", runtime_executor="syncfree").source


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
def test_compiles_with_nvcc(tmp_path):
    for executor, kernel in (("syncfree-affine", "pc_affsync0"), ("auto", "pc_affwarp0"),
                             ("syncfree-affine-warp", "pc_affwarp0")):
        source = polycuda.compile(SPTRSV).generate("cuda", runtime_executor=executor,
                                                   reuse_levels=True).source
        assert kernel in source and "pc_affwar0" in source
        path = tmp_path / "sptrsv.cu"
        path.write_text(source)
        subprocess.run(["nvcc", "-c", str(path), "-o", str(tmp_path / "s.o")],
                       check=True, capture_output=True)


@pytest.mark.gpu
@pytest.mark.parametrize("executor", ["syncfree-affine", "syncfree-affine-warp"])
def test_sptrsv_on_the_gpu(executor):
    """On a real GPU (spins, fences, shuffles): lower-triangular rows, one launch, correct."""
    cupy = pytest.importorskip("cupy")
    prog = polycuda.compile(SPTRSV, options=Options(runtime_executor=executor))
    args = sptrsv_args(lower_rows(20000, "random", np.random.default_rng(10)))
    expected = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    prog._reference(expected)
    dev = {k: (cupy.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    kernel = prog.kernel("cuda")
    kernel(*[dev[a.name] for a in prog.scop.args])
    assert counter(kernel, "executor") == (AFFINE if executor == "syncfree-affine" else WARP)
    np.testing.assert_allclose(cupy.asnumpy(dev["x"]), expected["x"], rtol=1e-9)
