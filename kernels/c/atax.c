/* y = A^T (A x) for an m x n matrix A: tmp = A x row by row, and each row then adds its
 * share tmp[i] * A[i][:] to y. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif

void atax(int m, int n, DATA_TYPE A[m][n], DATA_TYPE x[n], DATA_TYPE y[n], DATA_TYPE tmp[m])
{
  int i, j;
#pragma scop
  for (j = 0; j < n; j++)
    y[j] = 0.0;
  for (i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < n; j++)
      tmp[i] += A[i][j] * x[j];
    for (j = 0; j < n; j++)
      y[j] += A[i][j] * tmp[i];
  }
#pragma endscop
}
