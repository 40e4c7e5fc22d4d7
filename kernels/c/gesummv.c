/* Sum of two scaled matrix-vector products: y = alpha * A x + beta * B x (A, B n x n), with
 * A x kept in tmp. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void gesummv(int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE A[n][n], DATA_TYPE B[n][n],
             DATA_TYPE tmp[n], DATA_TYPE x[n], DATA_TYPE y[n])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    tmp[i] = SCALAR_VAL(0.0);
    y[i] = SCALAR_VAL(0.0);
    for (j = 0; j < n; j++) {
      tmp[i] += A[i][j] * x[j];
      y[i] += B[i][j] * x[j];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
#pragma endscop
}
