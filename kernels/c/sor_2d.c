/* 2-D successive over-relaxation (Gauss-Seidel with relaxation factor omega) for the 5-point
 * Laplace operator, in place, in lexicographic order: the north and west neighbours already hold
 * this step's values, the south and east ones the previous step's. Every loop carries a
 * dependence (a DOACROSS nest). The boundary stays fixed. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void sor_2d(int T, int n, DATA_TYPE omega, DATA_TYPE A[n][n])
{
  int t, i, j;
#pragma scop
  for (t = 0; t < T; t++)
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = (SCALAR_VAL(1.0) - omega) * A[i][j]
                  + omega * SCALAR_VAL(0.25) * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
#pragma endscop
}
