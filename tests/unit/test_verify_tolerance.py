"""verify's comparison: the rounding of reassociated sums told apart from wrong results, and
the input set with NaN and infinities."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import polycuda
from polycuda.verify import (TOLERANCES, check_against, compare, copy_arguments,
                             random_arguments, rounding_scales)

LUDCMP = Path(__file__).parents[2] / "kernels" / "c" / "ludcmp.c"


@pytest.fixture(scope="module")
def float_ludcmp():
    return polycuda.compile(str(LUDCMP), defines=("DATA_TYPE=float",))


def test_reassociated_float_lu_solve_is_rounding_not_a_mismatch(float_ludcmp):
    """Was MISMATCH (relative error 9e-4 on x, over the fixed 2e-4): LU without pivoting of
    a random 40 x 40 matrix is ill-conditioned, and the solves' sums, summed in another
    order on the GPU, differ by more than epsilon * length."""
    [result] = float_ludcmp.verify(sizes={"n": 40}, targets=("emulate",), seed=5)
    assert result.ok
    rtol, _ = TOLERANCES["float"]
    assert result.worst["x"] > rtol  # beyond the fixed tolerance: the old rule failed here
    assert "x: within rounding" in result.message
    assert 0.0 < result.rounding["x"] <= 1.0


def test_wrong_value_is_a_mismatch_and_not_rounding(float_ludcmp):
    scop, values = float_ludcmp.scop, {"n": 40}
    inputs = random_arguments(scop, values, seed=5)
    expected = copy_arguments(inputs)
    float_ludcmp._reference(expected)
    scales = rounding_scales(scop, float_ludcmp._reference, inputs, expected, values)
    assert scales["x"] > 0.0
    actual = copy_arguments(expected)
    actual["x"][7] += 1.0 + 8 * scales["x"]
    result = compare(scop, "c", expected, actual, scales)
    assert not result.ok
    assert "x: mismatch at (7,)" in result.message and "not rounding" in result.message


def test_nan_and_infinities_are_one_input_set():
    prog = polycuda.compile(str(LUDCMP), defines=("DATA_TYPE=float",))
    args = random_arguments(prog.scop, {"n": 12}, seed=1, special=True)
    assert np.isnan(args["A"]).any() and np.isposinf(args["A"]).any()
    assert np.isneginf(args["A"]).any() and np.isfinite(args["A"]).mean() > 0.8
    plain = random_arguments(prog.scop, {"n": 12}, seed=1)
    assert np.isfinite(plain["A"]).all()


def test_nan_at_the_same_place_is_equal_and_inf_must_match():
    prog = polycuda.compile(str(LUDCMP), defines=("DATA_TYPE=float",))
    args = random_arguments(prog.scop, {"n": 4}, special=True)
    same = compare(prog.scop, "c", args, copy_arguments(args))
    assert same.ok
    other = copy_arguments(args)
    other["x"][np.isnan(other["x"])] = 1.0
    other["x"][0] = np.inf if not np.isposinf(args["x"][0]) else -np.inf
    assert not compare(prog.scop, "c", args, other).ok


STEP = """
void step(int n, double A[n], double B[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = (A[i] > 0.0) ? 1.0 : 0.0;
#pragma endscop
}
"""


def test_nan_inputs_find_what_finite_inputs_do_not():
    """A target that prints `A[i] > 0.0` as `!(A[i] <= 0.0)` agrees on every finite input
    (the set drawn from [0.5, 1.5]) and differs on NaN, where only the NaN set sees it."""
    prog = polycuda.compile(STEP, filename="step.c")

    def negated(args):
        a = args["A"]
        args["B"][:] = np.where(~(a <= 0.0), 1.0, 0.0)

    finite = check_against(prog.scop, prog._reference, {"c": negated}, {"n": 64},
                           special_values=False)
    assert finite[0].ok
    [both] = check_against(prog.scop, prog._reference, {"c": negated}, {"n": 64})
    assert not both.ok and "with NaN/inf inputs: B: mismatch" in both.message
