/* Cholesky factorization, in place: A = L L^T for symmetric positive-definite A, L lower
 * triangular, computed in and from the lower triangle (j <= i; the upper one is not touched).
 * Right-looking: step k takes the square root of the pivot, scales column k below it, and
 * subtracts the outer product of that column with itself from the trailing lower triangle. The
 * k loop carries the flow dependences; within a step, i and j carry none. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void cholesky(int n, DATA_TYPE A[n][n])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < n; k++) {
    A[k][k] = sqrt(A[k][k]);
    for (i = k + 1; i < n; i++)
      A[i][k] /= A[k][k];
    for (i = k + 1; i < n; i++)
      for (j = k + 1; j <= i; j++)
        A[i][j] -= A[i][k] * A[j][k];
  }
#pragma endscop
}
