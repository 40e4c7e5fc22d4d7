/* 2-D heat equation, explicit Euler in time and the 5-point Laplacian in space, with
 * r = kappa dt / dx^2 = 0.125 (stable for r <= 1/4). T time steps, each two sweeps (A -> B, then
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

void heat_2d(int T, int n, DATA_TYPE A[n][n], DATA_TYPE B[n][n])
{
  int t, i, j;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        B[i][j] = A[i][j] + SCALAR_VAL(0.125) * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]
                                     - SCALAR_VAL(4.0) * A[i][j]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = B[i][j] + SCALAR_VAL(0.125) * (B[i - 1][j] + B[i + 1][j] + B[i][j - 1] + B[i][j + 1]
                                     - SCALAR_VAL(4.0) * B[i][j]);
  }
#pragma endscop
}
