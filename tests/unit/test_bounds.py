"""Accesses checked against the actual arrays before anything runs (issue: heap corruption)."""

from __future__ import annotations

import numpy as np
import pytest

import polycuda
from polycuda.analysis.bounds import BoundsChecker, OutOfBoundsError
from polycuda.cli import main
from polycuda.errors import LaunchError
from polycuda.sizes import resolve_sizes


def add1(n, A, B):
    for i in range(n):
        A[i] = B[i] + 1.0


def shift_left(n, A, B):
    for i in range(n):
        B[i - 1] = A[i]


def negative_range(n, A):
    for i in range(-n, 0):
        A[i] = 5.0


def rows_cols(A):
    for i in range(3):
        for j in range(4):
            A[i, j] = 1.0 * i + j


def read_ahead(n, A, B):
    for i in range(n):
        A[i] = B[i + 1]


@pytest.mark.parametrize("target", ["c", "emulate"])
def test_loop_past_the_array_is_refused_and_nothing_is_written(target):
    fn = polycuda.jit(add1, target="c")
    A, B = np.random.default_rng(1).random(4), np.random.default_rng(2).random(4)
    before = A.copy()
    for n in (8, 100000):
        kernel = fn.program(n, A, B).kernel(target)
        with pytest.raises(OutOfBoundsError, match=r"S0 writes 'A' at index 0\.\.%d along "
                           r"dimension 0, outside 0\.\.3 \(shape \(4,\)\)" % (n - 1)):
            kernel(n, A, B, 4, 4)
    np.testing.assert_array_equal(A, before)


def test_in_bounds_call_still_runs_and_matches_python():
    fn = polycuda.jit(add1, target="c")
    rng = np.random.default_rng(3)
    A, B = rng.random(6), rng.random(6)
    expected = A.copy()
    add1(4, expected, B)
    fn(4, A, B)
    np.testing.assert_array_equal(A, expected)


def test_subscript_before_the_buffer_is_refused():
    fn = polycuda.jit(shift_left, target="c")
    with pytest.raises(OutOfBoundsError, match=r"writes 'B' at index -1\.\.2") as err:
        fn(4, np.ones(4), np.ones(4))
    assert "does not wrap around as in Python" in str(err.value)
    assert "B[i - 1] = A[i]" in str(err.value)  # the source line is shown


def test_python_negative_index_is_refused_not_reinterpreted():
    fn = polycuda.jit(negative_range, target="c")
    A = np.ones(4)
    with pytest.raises(OutOfBoundsError, match=r"index -4\.\.-1"):
        fn(4, A)
    np.testing.assert_array_equal(A, np.ones(4))


def test_transposed_shape_is_refused_on_the_short_dimension():
    fn = polycuda.jit(rows_cols, target="c")
    with pytest.raises(OutOfBoundsError, match=r"index 0\.\.3 along dimension 1, outside "
                                               r"0\.\.2 \(shape \(4, 3\)\)"):
        fn(np.zeros((4, 3)))
    A = np.zeros((3, 4))
    fn(A)
    np.testing.assert_array_equal(A, np.add.outer(np.arange(3.0), np.arange(4.0)))


def test_reads_are_checked_too_and_the_error_is_a_launch_error():
    fn = polycuda.jit(read_ahead, target="c")
    with pytest.raises(LaunchError, match=r"S0 reads 'B' at index 1\.\.4"):
        fn(4, np.ones(4), np.ones(4))


def test_empty_loop_is_never_out_of_bounds():
    fn = polycuda.jit(add1, target="c")
    fn(0, np.ones(4), np.ones(4))


HEAT_FIXED = """
void heat(int T, int n, double A[10][10][10], double B[10][10][10]) {
  int t, i, j, k;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          B[i][j][k] = 0.125 * (A[i+1][j][k] - 2.0 * A[i][j][k] + A[i-1][j][k]) + A[i][j][k];
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          A[i][j][k] = 0.125 * (B[i+1][j][k] - 2.0 * B[i][j][k] + B[i-1][j][k]) + B[i][j][k];
  }
#pragma endscop
}
"""


def test_default_sizes_shrink_to_fixed_extents_and_verify():
    prog = polycuda.compile(HEAT_FIXED, filename="heat.c")
    values = resolve_sizes(prog.scop)
    assert values["n"] <= 10
    assert not BoundsChecker(prog.scop).violations(values)
    assert BoundsChecker(prog.scop).violations({"T": 2, "n": 12})
    assert all(r.ok for r in prog.verify(targets=("c", "openmp")))


def test_given_size_that_overruns_a_fixed_extent_is_named(tmp_path, capsys):
    path = tmp_path / "heat.c"
    path.write_text(HEAT_FIXED)
    assert main(["verify", str(path), "--targets", "c", "--size", "n=14"]) == 1
    err = capsys.readouterr().err
    assert f"{path}:9:" in err and "S0 writes 'B' at index 1..12" in err
    assert "shape (10, 10, 10)" in err


@pytest.mark.gpu
@pytest.mark.parametrize("n", [8, 100000])
def test_cuda_call_on_device_arrays_past_their_end_is_refused(n):
    cupy = pytest.importorskip("cupy")
    fn = polycuda.jit(add1, target="cuda")
    A, B = cupy.asarray(np.random.default_rng(4).random(4)), cupy.ones(4)
    before = cupy.asnumpy(A)
    with pytest.raises(OutOfBoundsError, match=r"S0 writes 'A' at index 0\.\.%d" % (n - 1)):
        fn(n, A, B)
    np.testing.assert_array_equal(cupy.asnumpy(A), before)
    fn(4, A, B)  # in bounds: runs on the device, in place
    np.testing.assert_array_equal(cupy.asnumpy(A), np.full(4, 2.0))


BRANCHES = """
void branches(int n, double T[n], double B[n]) {
#pragma scop
  for (int x = 0; x < n; x++)
    B[x] = %s;
#pragma endscop
}
"""


@pytest.mark.parametrize("expr", [
    "(x == 0) ? T[x] : T[x - 1]",
    "(x > 0 && T[x - 1] > 0.5) ? 1.0 : (x >= n - 1 || T[x + 1] > 0.0) ? T[x] : 2.0",
    "(x < 1) ? 0.0 : ((x > n - 2) ? T[x - 1] : T[x + 1])",
])
def test_access_counts_only_where_its_branch_is_taken(expr):
    prog = polycuda.compile(BRANCHES % expr, filename="branches.c")
    assert not BoundsChecker(prog.scop).violations({"n": 12})
    assert all(r.ok for r in prog.verify(targets=("c",)))


@pytest.mark.parametrize("expr, bad", [
    ("(x == 0) ? T[x - 1] : T[x]", r"index -1\.\.-1"),
    ("(x < n - 1 || T[x + 1] > 0.0) ? T[x] : 2.0", r"index 12\.\.12"),  # || runs it at x = n-1
    ("(T[x] > 0.5) ? T[x + 1] : T[x]", r"index 1\.\.12"),  # a condition on values: not used
])
def test_access_on_a_taken_branch_is_still_refused(expr, bad):
    prog = polycuda.compile(BRANCHES % expr, filename="branches.c")
    with pytest.raises(OutOfBoundsError, match=bad):
        BoundsChecker(prog.scop).check({"n": 12})


def first_or_previous(n, T, B):
    for x in range(n):
        B[x] = T[x] if x == 0 else T[x - 1]


def test_python_conditional_expression_is_checked_on_its_branch():
    T, B = np.arange(6.0), np.zeros(6)
    polycuda.jit(first_or_previous, target="c")(6, T, B)
    np.testing.assert_array_equal(B, [0.0, 0.0, 1.0, 2.0, 3.0, 4.0])
