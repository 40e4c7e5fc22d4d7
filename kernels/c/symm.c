/* Symmetric matrix times a matrix: C = alpha * A B + beta * C, with A symmetric m x m and only
 * its lower triangle (k <= i) stored, B and C m x n. Entry (i, k) of the full A is A[i][k] for
 * k <= i and A[k][i] for k > i. Every C[i][j] is independent of the others (i and j carry no
 * dependence); each k loop is a reduction into C[i][j]. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void symm(int m, int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE C[m][n], DATA_TYPE A[m][m],
          DATA_TYPE B[m][n])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      C[i][j] *= beta;
      for (k = 0; k <= i; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
      for (k = i + 1; k < m; k++)
        C[i][j] += alpha * A[k][i] * B[k][j];
    }
#pragma endscop
}
