/* Lower-triangular matrix-vector product y = L x: row i of L has entries in columns 0..i
 * only (the upper triangle of the n x n array L is never read). An imperfect triangular nest. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void trmv(int n, DATA_TYPE L[n][n], DATA_TYPE x[n], DATA_TYPE y[n])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++) {
    y[i] = SCALAR_VAL(0.0);
    for (j = 0; j <= i; j++)
      y[i] += L[i][j] * x[j];
  }
#pragma endscop
}
