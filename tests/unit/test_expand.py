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
