/* 3-D heat equation, explicit Euler in time and the 7-point Laplacian in space, with
 * r = kappa dt / dx^2 = 0.125 (stable for r <= 1/6). T time steps, each two sweeps (A -> B, then
 * B -> A) over the interior; the boundary holds a fixed temperature. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void heat_3d(int T, int n, DATA_TYPE A[n][n][n], DATA_TYPE B[n][n][n])
{
  int t, i, j, k;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          B[i][j][k] = A[i][j][k]
                       + SCALAR_VAL(0.125) * (A[i - 1][j][k] + A[i + 1][j][k] + A[i][j - 1][k] + A[i][j + 1][k]
                                  + A[i][j][k - 1] + A[i][j][k + 1] - SCALAR_VAL(6.0) * A[i][j][k]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          A[i][j][k] = B[i][j][k]
                       + SCALAR_VAL(0.125) * (B[i - 1][j][k] + B[i + 1][j][k] + B[i][j - 1][k] + B[i][j + 1][k]
                                  + B[i][j][k - 1] + B[i][j][k + 1] - SCALAR_VAL(6.0) * B[i][j][k]);
  }
#pragma endscop
}
