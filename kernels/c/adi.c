/* Alternating direction implicit (Peaceman-Rachford) time stepping of the heat equation
 * u_t = u_xx + u_yy on the unit square, n x n grid points (spacing 1 / (n - 1)), T steps of
 * length 1 / T, Dirichlet boundary: u's border keeps its input values. With r = dt / dx^2,
 * each step is two half steps, each implicit along one direction and explicit along the other:
 *   columns:  -r/2 v[i-1][j] + (1 + r) v[i][j] - r/2 v[i+1][j]
 *               = r/2 u[i][j-1] + (1 - r) u[i][j] + r/2 u[i][j+1]   for each interior column j
 *   rows:     the same with u and v exchanged and along j, for each interior row i.
 * Each tridiagonal system is solved by the Thomas algorithm, x[i] = p[i] x[i+1] + q[i]: a
 * forward recursion for p and q, then a backward one for x. The recursions carry flow
 * dependences along their line (i in the column half step, j in the row half step); the lines
 * are independent; the t loop carries the flow dependences from one half step to the next. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void adi(int T, int n, DATA_TYPE u[n][n], DATA_TYPE v[n][n], DATA_TYPE p[n][n],
         DATA_TYPE q[n][n])
{
  int t, i, j;
  DATA_TYPE half, diag, expl; /* r / 2, 1 + r, 1 - r */
#pragma scop
  half = (DATA_TYPE)(n - 1) * (DATA_TYPE)(n - 1) / (SCALAR_VAL(2.0) * T);
  diag = SCALAR_VAL(1.0) + SCALAR_VAL(2.0) * half;
  expl = SCALAR_VAL(1.0) - SCALAR_VAL(2.0) * half;
  for (t = 0; t < T; t++) {
    for (j = 1; j < n - 1; j++) {
      v[0][j] = u[0][j];
      p[0][j] = SCALAR_VAL(0.0);
      q[0][j] = u[0][j];
      for (i = 1; i < n - 1; i++) {
        p[i][j] = half / (diag - half * p[i - 1][j]);
        q[i][j] = (half * u[i][j - 1] + expl * u[i][j] + half * u[i][j + 1] + half * q[i - 1][j])
                  / (diag - half * p[i - 1][j]);
      }
      v[n - 1][j] = u[n - 1][j];
      for (i = n - 2; i >= 1; i--)
        v[i][j] = p[i][j] * v[i + 1][j] + q[i][j];
    }
    for (i = 1; i < n - 1; i++) {
      p[i][0] = SCALAR_VAL(0.0);
      q[i][0] = u[i][0];
      for (j = 1; j < n - 1; j++) {
        p[i][j] = half / (diag - half * p[i][j - 1]);
        q[i][j] = (half * v[i - 1][j] + expl * v[i][j] + half * v[i + 1][j] + half * q[i][j - 1])
                  / (diag - half * p[i][j - 1]);
      }
      for (j = n - 2; j >= 1; j--)
        u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
    }
  }
#pragma endscop
}
