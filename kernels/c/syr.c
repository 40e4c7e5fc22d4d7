/* Symmetric rank-1 update of the lower triangle (j <= i) of the n x n matrix A:
 * A += alpha x x^T. Every entry is independent; the domain is a triangle. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif

void syr(int n, DATA_TYPE alpha, DATA_TYPE A[n][n], DATA_TYPE x[n])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++)
      A[i][j] += alpha * x[i] * x[j];
#pragma endscop
}
