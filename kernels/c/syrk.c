/* Symmetric rank-k update of the lower triangle (j <= i) of the n x n matrix C:
 * C = alpha * A A^T + beta * C, with A n x m. The upper triangle is not touched. i and j carry
 * no dependence; the k loop is a reduction into C[i][j]. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void syrk(int n, int m, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE C[n][n], DATA_TYPE A[n][m])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++) {
      C[i][j] *= beta;
      for (k = 0; k < m; k++)
        C[i][j] += alpha * A[i][k] * A[j][k];
    }
#pragma endscop
}
