"""Random inputs of verify: index arrays drawn so that the original program (the oracle, which
checks nothing) stays within every array, and checked on the data before it runs."""

from __future__ import annotations

import numpy as np
import pytest

import polycuda
from polycuda.analysis import index_check, index_values
from polycuda.errors import UserError
from polycuda.verify import random_arguments

# A neighbour list: cell l's k-th neighbour nb[l][k] owns P entries of d from off[nb[l][k]].
NEIGHBOURS = """
void nbl(int L, int K, int N, int P, int off[N], int nb[L][K], double x[L], double d[100]) {
#pragma scop
  for (int l = 0; l < L; l++)
    for (int k = 0; k < K; k++)
      for (int j = off[nb[l][k]]; j < off[nb[l][k]] + P; j++)
        d[j] += x[l];
#pragma endscop
}
"""

NESTED = """
void nested(int n, int m, double A[m], int p[8], int q[n], double y[m]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[p[q[i]] + 2] = y[p[q[i]]] + 1.0;
#pragma endscop
}
"""


@pytest.mark.parametrize("sizes", [{"N": 5}, {"P": 40}, {"N": 5, "P": 90}])
def test_neighbour_list_values_keep_the_oracle_in_bounds(sizes):
    """Was: nb drawn in 1..9 whatever N (off[nb] past off), off drawn up to 100 whatever P
    (d[off + P - 1] past d): heap corruption in the oracle."""
    prog = polycuda.compile(NEIGHBOURS, filename="nbl.c")
    values = {"L": 12, "K": 12, "N": 12, "P": 12, **sizes}
    ranges = index_values.derive(prog.scop, values)
    assert not ranges.uncovered
    assert ranges.ranges == {"off": (0, 100 - values["P"]), "nb": (0, values["N"] - 1)}
    for seed in range(4):
        args = random_arguments(prog.scop, values, seed)
        assert args["nb"].min() >= 0 and args["nb"].max() < values["N"]
        assert args["off"].min() >= 0 and args["off"].max() + values["P"] <= 100
    assert all(r.ok for r in prog.verify(sizes=values, targets=("c", "openmp")))


def test_sizes_without_in_bounds_values_are_refused():
    prog = polycuda.compile(NEIGHBOURS, filename="nbl.c")
    with pytest.raises(UserError, match=r"no values of the index array\(s\) off, nb keep every"
                                        r" access .* P=120"):
        prog.verify(sizes={"L": 4, "K": 4, "N": 5, "P": 120}, targets=("c",))


def test_nested_reads_are_bounded_by_the_array_they_index():
    prog = polycuda.compile(NESTED, filename="nested.c")
    ranges = index_values.derive(prog.scop, {"n": 20, "m": 6}).ranges
    assert ranges == {"p": (0, 3), "q": (0, 7)}  # p + 2 < m; q indexes p[8]
    args = random_arguments(prog.scop, {"n": 20, "m": 6})
    assert args["q"].max() <= 7 and args["p"].max() <= 3 and len(set(args["q"])) > 1


def test_host_check_refuses_data_that_would_leave_an_array():
    prog = polycuda.compile(NEIGHBOURS, filename="nbl.c")
    values = {"L": 3, "K": 2, "N": 4, "P": 10}
    args = random_arguments(prog.scop, values)
    assert index_check.check_accesses(prog.scop, values, args) == []
    args["nb"][2, 1] = 4  # off[4]: one past off
    with pytest.raises(index_check.IndexAccessError, match=r"reads 'off' at index 4 along "
                                                           r"dimension 0, outside 0\.\.3"):
        index_check.check_accesses(prog.scop, values, args)
    args["nb"][2, 1], args["off"][3] = 3, 91  # d[91 + 9]
    with pytest.raises(index_check.IndexAccessError, match=r"writes 'd' at index 100"):
        index_check.check_accesses(prog.scop, values, args)


GUARDED = """
void guarded(int n, int m, double A[m], int idx[n], double y[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    y[i] = (idx[i] < m) ? A[idx[i]] : 0.0;
#pragma endscop
}
"""


def test_host_check_follows_the_branch_that_reads():
    prog = polycuda.compile(GUARDED, filename="guarded.c")
    values = {"n": 4, "m": 3}
    args = random_arguments(prog.scop, values)
    assert index_values.derive(prog.scop, values).ranges["idx"][1] > 2  # the guard counts
    args["idx"][:] = [0, 2, 7, 1]  # 7 only where the branch is not taken
    assert index_check.check_accesses(prog.scop, values, args) == []
    args["idx"][0] = -1
    with pytest.raises(index_check.IndexAccessError, match=r"reads 'A' at index -1"):
        index_check.check_accesses(prog.scop, values, args)
