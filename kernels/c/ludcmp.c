/* Solves A x = b: LU factorization of A in place without pivoting (right-looking Gaussian
 * elimination, L unit lower triangular below the diagonal, U on and above it), then forward
 * substitution L y = b and back substitution U x = y. The factorization's k loop carries its
 * flow dependences; the forward (back) substitution's i loop carries the dependence through
 * y (x), its j loop is a reduction. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void ludcmp(int n, DATA_TYPE A[n][n], DATA_TYPE b[n], DATA_TYPE x[n], DATA_TYPE y[n])
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
  for (i = 0; i < n; i++) {
    y[i] = b[i];
    for (j = 0; j < i; j++)
      y[i] -= A[i][j] * y[j];
  }
  for (i = n - 1; i >= 0; i--) {
    x[i] = y[i];
    for (j = i + 1; j < n; j++)
      x[i] -= A[i][j] * x[j];
    x[i] /= A[i][i];
  }
#pragma endscop
}
