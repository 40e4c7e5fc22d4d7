"""BLAS-2 reductions (issue 15): update statements spelled `X = X op e`, column-split
reductions, and the distribution of nests whose reductions coalesce along different loops;
each checked against the sequential program on the emulator and the C target, and the mapping
read from the kernels, so that a fallback fails."""

import pytest

import polycuda
from polycuda.analysis.reductions import reduction_ops
from polycuda.options import Options

FORMS = """
void forms(int m, int n, DATA_TYPE A[m][n], DATA_TYPE x[n], DATA_TYPE y[m])
{
  int i, j;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      y[i] = BODY;
#pragma endscop
}
"""


def _forms(body, dtype="double", **options):
    text = FORMS.replace("BODY", body).replace("DATA_TYPE", dtype)
    return polycuda.compile(text, options=Options(target="cuda", **options))


@pytest.mark.parametrize("body,op", [("y[i] + A[i][j] * x[j]", "+="),
                                     ("A[i][j] * x[j] + y[i]", "+="),
                                     ("y[i] - A[i][j] * x[j]", "-="),
                                     ("y[i] * (1.0 + A[i][j] * x[j] / 64)", "*="),
                                     ("(1.0 + A[i][j] * x[j] / 64) * y[i]", "*=")])
@pytest.mark.parametrize("dtype", ["float", "double"])
def test_spelled_updates_are_reductions_and_verify(body, op, dtype):
    prog = _forms(body, dtype)
    assert {name: u.op for name, u in reduction_ops(prog.scop).items()} == {"S0": op}
    assert [k.reduction for k in prog.generate("cuda").kernels if k.reduction] == [op]
    for sizes in ({"m": 37, "n": 300}, {"m": 2, "n": 1}):
        assert all(r.ok for r in prog.verify(sizes, targets=("emulate", "c")))


@pytest.mark.parametrize("body", ["y[i] + y[i] * x[j]", "x[j] - y[i]", "y[i] / x[j]",
                                  "y[i] + A[i][j] + x[j]"])
def test_other_assignments_are_not_updates(body):
    """The term reads the cell; the target subtracted from e; not + - *; (y + a) + b, whose
    top operation does not take y alone."""
    assert reduction_ops(_forms(body).scop) == {}
