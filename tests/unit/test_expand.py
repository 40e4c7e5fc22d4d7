"""Scalar expansion of region-local temporaries (schedule/expand.py): PolyBench symm's temp2
made one kernel of one thread; expanded, its (i, j) loops run in parallel."""

import pytest

import polycuda
from polycuda.options import Options
from polycuda.pipeline import compile_scop, transform_scop
from polycuda.schedule.expand import expand_scalars

SYMM_SCATTER = """
void symm(int m, int n, double alpha, double beta, double C[m][n], double A[m][m],
          double B[m][n])
{
  int i, j, k;
  double temp2;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      temp2 = 0;
      for (k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
#pragma endscop
}
"""

# `s` carries a value from one i iteration to the next: it must stay one cell.
CARRIED = """
void carried(int n, double A[n], double B[n])
{
  int i;
  double s;
#pragma scop
  s = 0.0;
  for (i = 0; i < n; i++) {
    s = s * 0.5 + A[i];
    B[i] = s;
  }
#pragma endscop
}
"""

# `t` is read before it is written in each iteration (its value from the previous one).
READ_FIRST = """
void read_first(int n, double A[n], double B[n])
{
  int i;
  double t;
#pragma scop
  t = 1.0;
  for (i = 0; i < n; i++) {
    B[i] = t + A[i];
    t = A[i] * 2.0;
  }
#pragma endscop
}
"""

# A scalar inside a time loop: expanded along the innermost two loops only (not along t).
TIME_LOOP = """
void smooth(int T, int n, double A[n][n], double B[n][n])
{
  int t, i, j;
  double v;
#pragma scop
  for (t = 0; t < T; t++)
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++) {
        v = A[i - 1][j] + A[i + 1][j];
        B[i][j] = 0.25 * (v + A[i][j - 1] + A[i][j + 1]);
        A[i][j] = A[i][j] * 0.5 + 0.5 * B[i][j];
      }
#pragma endscop
}
"""


def _scop(source: str, name: str = "x.c"):
    return polycuda.compile(source, filename=name).scop


def test_temp2_gets_a_cell_per_i_j_iteration():
    scop = expand_scalars(_scop(SYMM_SCATTER))
    expanded = scop.array("temp2_x0")
    assert expanded.local and len(expanded.shape) == 2
    writes = [s for s in scop.statements if s.lhs.array == "temp2_x0"]
    assert len(writes) == 2 and all(str(s.lhs.index) == "(Var(name='i'), Var(name='j'))"
                                    for s in writes)
    assert not any(s.lhs.array == "temp2" for s in scop.statements)


@pytest.mark.parametrize("source", [CARRIED, READ_FIRST])
def test_a_value_carried_across_iterations_is_not_expanded(source):
    scop = _scop(source)
    assert expand_scalars(scop) == scop


def test_time_loop_is_not_expanded():
    scop = expand_scalars(_scop(TIME_LOOP))
    (stmt,) = [s for s in scop.statements if s.lhs.array.startswith("v_x")]
    assert [str(e) for e in stmt.lhs.index] == ["Var(name='i')", "Var(name='j')"]


def test_symm_runs_in_one_parallel_kernel_not_one_thread():
    prog = polycuda.compile(SYMM_SCATTER, filename="symm.c", options=Options(target="cuda"))
    source = prog.generate("cuda").source
    assert "dim3(1), dim3(1)" not in source and source.count("<<<") == 1
    off = compile_scop(prog.scop, Options(target="cuda", expand_scalars=False)).source
    assert "dim3(1), dim3(1)" in off  # without expansion: the serial kernel of the issue
    scop = transform_scop(prog.scop, prog.options)
    assert "temp2_x0" in {a.name for a in scop.arrays}


@pytest.mark.parametrize("source,sizes", [(SYMM_SCATTER, {"m": 23, "n": 17}),
                                          (CARRIED, {"n": 40}), (READ_FIRST, {"n": 40}),
                                          (TIME_LOOP, {"T": 3, "n": 19})])
@pytest.mark.parametrize("scheduler", ["isl", "pluto"])
def test_expanded_programs_verify(source, sizes, scheduler):
    prog = polycuda.compile(source, filename="x.c", options=Options(scheduler=scheduler))
    assert all(r.ok for r in prog.verify(sizes, targets=("c", "openmp", "emulate")))


# PolyBench doitgen's row buffer: an argument array, built and read back per (r, q).
DOITGEN = """
void doitgen(int nr, int nq, int nk, double A[nr][nq][nk], double C4[nk][nk], double acc[nk])
{
  int r, q, p, s;
#pragma scop
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < nk; p++) {
        acc[p] = 0.0;
        for (s = 0; s < nk; s++)
          acc[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < nk; p++)
        A[r][q][p] = acc[p];
    }
#pragma endscop
}
"""

# The last write of buf[j] is at i = n - 1 - j: the copy-out reads buf_x[n - 1 - x][x].
SHRINKING = """
void shrinking(int n, double A[n][n], double B[n][n], double buf[n])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < n - i; j++)
      buf[j] = A[i][j] * 2.0 + A[j][i];
    for (j = 0; j < n - i; j++)
      B[i][j] = buf[j] + buf[n - i - 1 - j];
  }
#pragma endscop
}
"""

# Each i touches its own tmp[i]: the i loop is parallel already, nothing to expand.
OWN_ELEMENT = """
void own(int n, double A[n][n], double x[n], double tmp[n])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < n; j++)
      tmp[i] += A[i][j] * x[j];
  }
#pragma endscop
}
"""

# z is rebuilt per k, but the k loop carries y's flow dependence anyway, and z_x[k][i] would be
# quadratic in a problem of 1-D arrays: not expanded.
DURBIN_LIKE = """
void durbin_like(int n, double r[n], double y[n], double z[n])
{
  int k, i;
#pragma scop
  for (k = 1; k < n; k++) {
    for (i = 0; i < k; i++)
      z[i] = y[i] + r[k] * y[k - i - 1];
    for (i = 0; i < k; i++)
      y[i] = z[i];
  }
#pragma endscop
}
"""


def test_doitgen_row_buffer_gets_a_row_per_r_q_and_a_copy_out():
    scop = expand_scalars(_scop(DOITGEN))
    expanded = scop.array("acc_x0")
    assert expanded.local and len(expanded.shape) == 3
    (copy,) = [s for s in scop.statements if s.lhs.array == "acc"]
    assert copy.beta[0] == max(s.beta[0] for s in scop.statements)  # after the region
    assert copy.rhs.array == "acc_x0" and len(copy.rhs.index) == 3
    prog = polycuda.compile(DOITGEN, filename="doitgen.c", options=Options(target="cuda"))
    source = prog.generate("cuda").source
    assert "dim3(1)>>>" not in source and source.count("<<<") <= 2  # no host loop of launches


def test_copy_out_reads_the_cell_of_the_last_write():
    scop = expand_scalars(_scop(SHRINKING))
    (copy,) = [s for s in scop.statements if s.lhs.array == "buf"]
    assert copy.rhs.index[0] != copy.rhs.index[1]  # n - 1 - x0, not a constant


@pytest.mark.parametrize("source", [OWN_ELEMENT, DURBIN_LIKE])
def test_arrays_are_expanded_only_where_it_frees_a_loop_at_bounded_cost(source):
    scop = _scop(source)
    assert expand_scalars(scop) == scop


@pytest.mark.parametrize("source,sizes", [(DOITGEN, {"nr": 5, "nq": 7, "nk": 9}),
                                          (SHRINKING, {"n": 13}),
                                          (DURBIN_LIKE, {"n": 12})])
@pytest.mark.parametrize("scheduler", ["isl", "pluto"])
def test_expanded_arrays_verify(source, sizes, scheduler):
    prog = polycuda.compile(source, filename="x.c", options=Options(scheduler=scheduler))
    assert all(r.ok for r in prog.verify(sizes, targets=("c", "openmp", "emulate")))
