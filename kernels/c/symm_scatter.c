/* Symmetric matrix times a matrix, C = alpha * A B + beta * C, in the scatter order PolyBench
 * uses: A symmetric m x m with only its lower triangle (k <= i) stored, B and C m x n. Row i
 * of A contributes its strictly lower entries A[i][k] twice: to C[k][j] (entry (k, i) of the
 * full A, scattered into the earlier rows k < i) and to C[i][j] through the scalar temp2; the
 * diagonal A[i][i] once. The outer i loop carries the scatter; temp2 is set and read within
 * one (i, j) iteration, so it is a private temporary of that iteration. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void symm_scatter(int m, int n, DATA_TYPE alpha, DATA_TYPE beta, DATA_TYPE C[m][n],
                  DATA_TYPE A[m][m], DATA_TYPE B[m][n])
{
  int i, j, k;
  DATA_TYPE temp2;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      temp2 = SCALAR_VAL(0.0);
      for (k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
#pragma endscop
}
