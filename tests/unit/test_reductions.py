"""Reduction loops that would run in one GPU thread are summed by a block (analysis/
reductions.py, mapping._reduction, cuda_target.ReductionPrinter), checked on the emulator."""

import numpy as np
import pytest

import polycuda
from kernels import suite
from polycuda.analysis.reductions import reduction_ops, terms_per_cell
from polycuda.options import Options
from polycuda.verify import compare

# Column norms as gramschmidt computes them: each column k is updated from column k - 1's
# norm, so k is sequential; over i, a reduction and a parallel loop.
NORMS = """
void norms(int m, int n, double A[m][n + 1], double R[n][n], double P[n], int C[n])
{
  int i, k;
#pragma scop
  for (k = 0; k < n; k++) {
    R[k][k] = 0.0;
    for (i = 0; i < m; i++)
      R[k][k] += A[i][k] * A[i][k];
    for (i = 0; i < m; i++)
      A[i][k + 1] += A[i][k] / (1.0 + R[k][k]);
  }
#pragma endscop
}
"""

# Running products and integer differences, each step starting from the previous one's.
CHAINS = """
void chains(int m, int n, double A[m][n], double P[n], int C[n])
{
  int i, k;
#pragma scop
  for (k = 1; k < n; k++) {
    P[k] = P[k - 1];
    for (i = 0; i < m; i++)
      P[k] *= 1.0 + 0.001 * A[i][k];
  }
  for (k = 1; k < n; k++) {
    C[k] = C[k - 1] % 1000;
    for (i = 0; i < m; i++)
      C[k] -= i % 7 + k;
  }
#pragma endscop
}
"""

# x[k] grows by a multiple of itself: each step reads the cell the loop updates (not a
# reduction), and x[k] reads x[k - 1] (k is sequential too).
RECURRENCE = """
void recurrence(int n, double x[n], double A[n][n])
{
  int k, i;
#pragma scop
  for (k = 1; k < n; k++)
    for (i = 0; i < k; i++)
      x[k] += 0.01 * A[k][i] * x[k] + 0.01 * x[k - 1];
#pragma endscop
}
"""


def test_reduction_statements_are_updates_that_do_not_read_their_array():
    prog = polycuda.compile(CHAINS, filename="chains.c")
    assert sorted(u.op for u in reduction_ops(prog.scop).values()) == ["*=", "-="]
    norm, update = reduction_ops(polycuda.compile(NORMS, filename="n.c").scop).values()
    assert norm.op == "+=" and norm.self_reads == ()  # R[k][k] += A[i][k] * A[i][k]
    assert [text.split("->")[-1].strip() for text in update.self_reads] == ["A[i, k] }"]
    (update,) = reduction_ops(polycuda.compile(RECURRENCE, filename="r.c").scop).values()
    assert [text.split("->")[-1].strip() for text in update.self_reads] == [
        "x[k] }", "x[(k - (1))] }"]


def test_each_reduction_loop_is_one_block_not_one_thread():
    source = polycuda.compile(NORMS, filename="norms.c").generate("cuda").source
    assert source.count("dim3(1), dim3(256)") == 1 and "dim3(1), dim3(1)" not in source
    source = polycuda.compile(CHAINS, filename="chains.c").generate("cuda").source
    assert source.count("dim3(1), dim3(256)") == 2
    assert "pc_part[threadIdx.x] = pc_part[threadIdx.x] * pc_part[threadIdx.x + pc_s];" in source
    assert "int pc_acc = (int)0;" in source and "*pc_cell += pc_part[0];" in source
    off = polycuda.compile(CHAINS, filename="chains.c",
                           options=Options(allow_reassociation=False))
    assert "dim3(256)" not in off.generate("cuda").source


@pytest.mark.parametrize("m", [5, 256, 700])  # fewer iterations than threads, equal, more
@pytest.mark.parametrize("source", [NORMS, CHAINS])
def test_reductions_verify_on_the_emulator(source, m):
    prog = polycuda.compile(source, filename="x.c")
    assert all(r.ok for r in prog.verify({"m": m, "n": 9}, targets=("emulate", "c")))


def test_an_update_that_reads_its_own_cell_stays_sequential():
    prog = polycuda.compile(RECURRENCE, filename="r.c")
    source = prog.generate("cuda").source
    assert "pc_part" not in source and "pc_acc" not in source
    assert all(r.ok for r in prog.verify({"n": 40}, targets=("emulate",)))


@pytest.mark.parametrize("name", ["gramschmidt", "durbin", "correlation"])
def test_suite_kernels_with_reductions_verify_on_the_emulator(name):
    kernel = suite.by_name(name)
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function)
    assert all(r.ok for r in prog.verify(dict(kernel.small), targets=("emulate",)))


# -- verify's tolerance from the reduction length ---------------------------------------------
DOT_FLOAT = """
void dot(int n, float x[n], float y[n], float s[1])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    s[0] += x[i] * y[i];
#pragma endscop
}
"""


def test_terms_per_cell_bounds_the_updates_of_one_cell():
    gemm = suite.by_name("gemm")
    scop = polycuda.compile(str(gemm.c_path), function=gemm.function).scop
    assert terms_per_cell(scop, {"ni": 30, "nj": 40, "nk": 50}) == {"C": 50}
    dot = polycuda.compile(DOT_FLOAT, filename="dot.c").scop
    assert terms_per_cell(dot, {"n": 100000}) == {"s": 100000}


def test_a_long_float_reduction_is_compared_with_a_tolerance_of_its_length():
    scop = polycuda.compile(DOT_FLOAT, filename="dot.c").scop
    exact = {"n": 100000, "x": None, "y": None, "s": np.array([1000.0], dtype=np.float32)}
    off = dict(exact, s=np.array([1000.5], dtype=np.float32))  # 5e-4 relative: reordered sum
    assert compare(scop, "cuda", exact, off).ok  # 2 * eps * 1e5 = 2.4e-2 allowed
    short = dict(exact, n=10)
    assert not compare(scop, "cuda", short, dict(off, n=10)).ok  # 10 terms: base 2e-4
