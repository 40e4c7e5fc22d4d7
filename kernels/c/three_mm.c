/* Three matrix products: G = (A * B) * (C * D) through E = A * B (ni x nj) and F = C * D
 * (nj x nl); A ni x nk, B nk x nj, C nj x nm, D nm x nl, G ni x nl. E and F are independent. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void three_mm(int ni, int nj, int nk, int nl, int nm, DATA_TYPE E[ni][nj], DATA_TYPE A[ni][nk],
              DATA_TYPE B[nk][nj], DATA_TYPE F[nj][nl], DATA_TYPE C[nj][nm], DATA_TYPE D[nm][nl],
              DATA_TYPE G[ni][nl])
{
  int i, j, k, q;
#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      E[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < nk; k++)
        E[i][j] += A[i][k] * B[k][j];
    }
  for (j = 0; j < nj; j++)
    for (q = 0; q < nl; q++) {
      F[j][q] = SCALAR_VAL(0.0);
      for (k = 0; k < nm; k++)
        F[j][q] += C[j][k] * D[k][q];
    }
  for (i = 0; i < ni; i++)
    for (q = 0; q < nl; q++) {
      G[i][q] = SCALAR_VAL(0.0);
      for (j = 0; j < nj; j++)
        G[i][q] += E[i][j] * F[j][q];
    }
#pragma endscop
}
