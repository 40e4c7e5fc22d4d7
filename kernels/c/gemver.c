/* A rank-2 update followed by two matrix-vector products with the updated matrix:
 * A += u1 v1^T + u2 v2^T;  x += beta A^T y + z;  w += alpha A x  (A n x n). */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif

void gemver(int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE A[n][n], DATA_TYPE u1[n],
            DATA_TYPE v1[n], DATA_TYPE u2[n], DATA_TYPE v2[n], DATA_TYPE w[n], DATA_TYPE x[n],
            DATA_TYPE y[n], DATA_TYPE z[n])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x[i] = x[i] + beta * A[j][i] * y[j];
  for (i = 0; i < n; i++)
    x[i] = x[i] + z[i];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      w[i] = w[i] + alpha * A[i][j] * x[j];
#pragma endscop
}
