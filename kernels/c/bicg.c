/* The two products of a biconjugate-gradient step with one n x m matrix A: s = A^T r (length
 * m) and q = A p (length n), computed in one pass over A. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void bicg(int n, int m, DATA_TYPE A[n][m], DATA_TYPE s[m], DATA_TYPE q[n], DATA_TYPE p[m],
          DATA_TYPE r[n])
{
  int i, j;
#pragma scop
  for (j = 0; j < m; j++)
    s[j] = SCALAR_VAL(0.0);
  for (i = 0; i < n; i++) {
    q[i] = SCALAR_VAL(0.0);
    for (j = 0; j < m; j++) {
      s[j] += r[i] * A[i][j];
      q[i] += A[i][j] * p[j];
    }
  }
#pragma endscop
}
