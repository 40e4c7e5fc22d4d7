/* Triangular matrix times a matrix, in place: B = alpha * A^T B, with A m x m unit lower
 * triangular (its diagonal is 1 and not read; only k > i is read) and B m x n. Row i of the
 * result needs the original rows k > i of B, so row i must be written before any row k > i:
 * the i loop carries anti-dependences (read B[k][j] at i, written at k); j carries none; the k
 * loop is a reduction into B[i][j]. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void trmm(int m, int n, DATA_TYPE alpha, DATA_TYPE A[m][m], DATA_TYPE B[m][n])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      for (k = i + 1; k < m; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
#pragma endscop
}
