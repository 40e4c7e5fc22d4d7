"""Held-out kernels (kernels/heldout/): codes from outside PolyBench and the project's suite,
written as users write them (flattened a[i * w + j] arrays, ifs on data, argmin, scalars
carried across loops, int counters, float and double), each in C and in Python, verified
against the untransformed program on the c target and the emulated CUDA at a small and an
odd size. Not in kernels/suite.py: neither the bench nor the suite tests pick them up."""

from pathlib import Path

import pytest

import polycuda
from polycuda.errors import UnsupportedConstruct
from polycuda.options import Options
from polycuda.pyfile import programs_of_file

HELDOUT = Path(__file__).resolve().parents[2] / "kernels" / "heldout"
TARGETS = ("c", "emulate")

# per kernel: a small size and an odd or degenerate one (one row, one center, n = 1)
SIZES = {
    "conv2d_5x5": ({"h": 12, "w": 9}, {"h": 5, "w": 7}),
    "histogram": ({"n": 40, "nb": 6}, {"n": 13, "nb": 1}),
    "scan": ({"n": 33}, {"n": 1}),
    "needleman_wunsch": ({"n": 9, "m": 12}, {"n": 2, "m": 5}),
    "kmeans_assign": ({"n": 17, "k": 4, "d": 3}, {"n": 5, "k": 1, "d": 1}),
    "heat_3d_7pt": ({"T": 2, "n": 7}, {"T": 1, "n": 3}),
    "thomas_batch": ({"nb": 5, "n": 9}, {"nb": 1, "n": 2}),
    "black_scholes": ({"n": 40}, {"n": 3}),
    "variance_2pass": ({"n": 9, "m": 6}, {"n": 2, "m": 1}),
    "upwind_advection": ({"T": 3, "n": 17}, {"T": 2, "n": 3}),
    "bilinear_resize": ({"h": 6, "w": 7, "oh": 9, "ow": 11}, {"h": 2, "w": 2, "oh": 3, "ow": 1}),
}
# the Python forms' arrays are sized by their shapes (no h, w parameters for unused sizes)
PY_SIZES = {"bilinear_resize": ({"img_d0": 6, "img_d1": 7, "oh": 9, "ow": 11},
                                {"img_d0": 2, "img_d1": 2, "oh": 3, "ow": 1})}
CASES = [(k, form, s) for k in SIZES for form in ("c", "py") for s in (0, 1)]


def _program(name: str, form: str) -> polycuda.Program:
    path = HELDOUT / f"{name}.{form}"
    if form == "c":
        return polycuda.compile(str(path), function=name, options=Options())
    (prog,) = programs_of_file(path, Options(), name)
    return prog


@pytest.mark.parametrize("name,form,size", CASES,
                         ids=[f"{k}-{f}-{s}" for k, f, s in CASES])
def test_heldout_kernel_verifies(name, form, size):
    sizes = (PY_SIZES.get(name, SIZES[name]) if form == "py" else SIZES[name])[size]
    results = _program(name, form).verify(dict(sizes), targets=TARGETS)
    assert len(results) == len(TARGETS) and all(r.ok for r in results), \
        [r.message for r in results]


def test_every_heldout_file_is_tested():
    assert sorted(p.name for p in HELDOUT.iterdir() if p.suffix in (".c", ".py")) == sorted(
        f"{k}.{f}" for k in SIZES for f in ("c", "py"))


# the else branch takes the if's predicate as it was before the then-branch ran (which flips
# what the condition reads); nested ifs on data; a conditional sum stays a reduction
IF_ON_DATA = """
void ifs(int n, double A[n], double B[n], double s[1]) {
#pragma scop
  for (int i = 0; i < n; i++) {
    if (A[i] > 0.0) {
      A[i] = -A[i];
      if (B[i] < A[i] + 1.0)
        B[i] = 2.0 * B[i];
      else
        s[0] += B[i];
    } else {
      A[i] = A[i] + 3.0;
    }
  }
#pragma endscop
}
"""


def test_if_on_data_else_sees_the_condition_before_the_then_branch():
    prog = polycuda.compile(IF_ON_DATA, options=Options())
    results = prog.verify({"n": 23}, targets=TARGETS)
    assert all(r.ok for r in results), [r.message for r in results]


def test_flattened_subscript_outside_its_row_is_refused():
    text = """
void bad(int n, int m, float a[n * m]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= m; j++)
      a[i * m + j] = 1.0f;
#pragma endscop
}
"""
    with pytest.raises(UnsupportedConstruct, match=r"'a'.*within 0 \.\. m - 1") as err:
        polycuda.compile(text, options=Options())
    assert err.value.loc.line == 6
