/* Matrix-vector products with A and with its transpose, accumulated into existing vectors:
 * x1 += A y1 and x2 += A^T y2 (A n x n). */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif

void mvt(int n, DATA_TYPE A[n][n], DATA_TYPE x1[n], DATA_TYPE x2[n], DATA_TYPE y1[n],
         DATA_TYPE y2[n])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x1[i] += A[i][j] * y1[j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x2[i] += A[j][i] * y2[j];
#pragma endscop
}
