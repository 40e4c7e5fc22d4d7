/* y = A^T (A x) for an m x n matrix A: tmp = A x row by row, and each row then adds its
 * share tmp[i] * A[i][:] to y. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void atax(int m, int n, DATA_TYPE A[m][n], DATA_TYPE x[n], DATA_TYPE y[n], DATA_TYPE tmp[m])
{
  int i, j;
#pragma scop
  for (j = 0; j < n; j++)
    y[j] = SCALAR_VAL(0.0);
  for (i = 0; i < m; i++) {
    tmp[i] = SCALAR_VAL(0.0);
    for (j = 0; j < n; j++)
      tmp[i] += A[i][j] * x[j];
    for (j = 0; j < n; j++)
      y[j] += A[i][j] * tmp[i];
  }
#pragma endscop
}
