/* Two chained matrix products: D = alpha * A * B * C + beta * D, through the ni x nj
 * intermediate tmp = alpha * A * B (A ni x nk, B nk x nj, C nj x nl, D ni x nl). */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void two_mm(int ni, int nj, int nk, int nl, DATA_TYPE alpha, DATA_TYPE beta,
            DATA_TYPE tmp[ni][nj], DATA_TYPE A[ni][nk], DATA_TYPE B[nk][nj], DATA_TYPE C[nj][nl],
            DATA_TYPE D[ni][nl])
{
  int i, j, k, q;
#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      tmp[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < nk; k++)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (i = 0; i < ni; i++)
    for (q = 0; q < nl; q++) {
      D[i][q] *= beta;
      for (j = 0; j < nj; j++)
        D[i][q] += tmp[i][j] * C[j][q];
    }
#pragma endscop
}
