/* Symmetric rank-2k update of the lower triangle (j <= i) of the n x n matrix C:
 * C = alpha * (A B^T + B A^T) + beta * C, with A and B n x m. The upper triangle is not touched. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif

void syr2k(int n, int m, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE C[n][n], DATA_TYPE A[n][m],
           DATA_TYPE B[n][m])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++) {
      C[i][j] *= beta;
      for (k = 0; k < m; k++)
        C[i][j] += alpha * A[i][k] * B[j][k] + alpha * B[i][k] * A[j][k];
    }
#pragma endscop
}
