/* LU factorization without pivoting, in place: A = L U with L unit lower triangular (stored
 * below the diagonal) and U upper triangular (on and above it), by right-looking Gaussian
 * elimination: step k divides column k below the pivot by A[k][k], then subtracts the outer
 * product of that column and row k from the trailing submatrix. The k loop carries the flow
 * dependences (step k reads what step k - 1 wrote); within a step, i and j carry none. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void lu(int n, DATA_TYPE A[n][n])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < n; k++) {
    for (i = k + 1; i < n; i++)
      A[i][k] /= A[k][k];
    for (i = k + 1; i < n; i++)
      for (j = k + 1; j < n; j++)
        A[i][j] -= A[i][k] * A[k][j];
  }
#pragma endscop
}
