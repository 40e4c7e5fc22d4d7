/* Forward substitution: solves L x = b for x, L lower triangular with a non-zero diagonal.
 * x[i] needs every x[j] with j < i, so the i loop carries a dependence through x, and the
 * j loop is a reduction over a triangular domain. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif

void trisolv(int n, DATA_TYPE L[n][n], DATA_TYPE b[n], DATA_TYPE x[n])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] /= L[i][i];
  }
#pragma endscop
}
