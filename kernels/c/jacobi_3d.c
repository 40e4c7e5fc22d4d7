/* 3-D Jacobi relaxation, 7-point average (the point and its six face neighbours): T time
 * steps, each two sweeps (A -> B, then B -> A) over the interior. The boundary stays fixed. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void jacobi_3d(int T, int n, DATA_TYPE A[n][n][n], DATA_TYPE B[n][n][n])
{
  int t, i, j, k;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          B[i][j][k] = (A[i][j][k] + A[i - 1][j][k] + A[i + 1][j][k] + A[i][j - 1][k]
                        + A[i][j + 1][k] + A[i][j][k - 1] + A[i][j][k + 1]) / SCALAR_VAL(7.0);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          A[i][j][k] = (B[i][j][k] + B[i - 1][j][k] + B[i + 1][j][k] + B[i][j - 1][k]
                        + B[i][j + 1][k] + B[i][j][k - 1] + B[i][j][k + 1]) / SCALAR_VAL(7.0);
  }
#pragma endscop
}
