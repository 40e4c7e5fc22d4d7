/* QR factorization of the m x n matrix A by modified Gram-Schmidt: A = Q R with Q m x n of
 * orthonormal columns and R n x n upper triangular. Step k normalizes column k of A (the norm
 * is a reduction over i, kept in R[k][k]) into column k of Q, then for every later column j
 * computes R[k][j] = q_k . a_j (a reduction over i) and removes that component from a_j in
 * place. The k loop carries the flow dependences (A's columns j > k change at every step);
 * within a step, the columns j carry none. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void gramschmidt(int m, int n, DATA_TYPE A[m][n], DATA_TYPE R[n][n], DATA_TYPE Q[m][n])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < n; k++) {
    R[k][k] = SCALAR_VAL(0.0);
    for (i = 0; i < m; i++)
      R[k][k] += A[i][k] * A[i][k];
    R[k][k] = sqrt(R[k][k]);
    for (i = 0; i < m; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (j = k + 1; j < n; j++) {
      R[k][j] = SCALAR_VAL(0.0);
      for (i = 0; i < m; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (i = 0; i < m; i++)
        A[i][j] -= Q[i][k] * R[k][j];
    }
  }
#pragma endscop
}
