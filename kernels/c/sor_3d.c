/* 3-D successive over-relaxation (Gauss-Seidel with relaxation factor omega) for the 7-point
 * Laplace operator, in place, in lexicographic order. Every loop carries a dependence (a DOACROSS
 * nest). The boundary stays fixed. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void sor_3d(int T, int n, DATA_TYPE omega, DATA_TYPE A[n][n][n])
{
  int t, i, j, k;
#pragma scop
  for (t = 0; t < T; t++)
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          A[i][j][k] = (SCALAR_VAL(1.0) - omega) * A[i][j][k]
                       + omega / SCALAR_VAL(6.0) * (A[i - 1][j][k] + A[i + 1][j][k] + A[i][j - 1][k]
                                        + A[i][j + 1][k] + A[i][j][k - 1] + A[i][j][k + 1]);
#pragma endscop
}
