/* A batch of small matrix products done in place: every row A[r][q][:] of the nr x nq x nk
 * array A is replaced by A[r][q][:] * C4 (C4 nk x nk). The row's new values are built in the
 * one-row array acc first, because the product needs the whole old row. acc is shared by all
 * (r, q): its reuse puts false (anti and output) dependences on the r and q loops. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void doitgen(int nr, int nq, int nk, DATA_TYPE A[nr][nq][nk], DATA_TYPE C4[nk][nk],
             DATA_TYPE acc[nk])
{
  int r, q, p, s;
#pragma scop
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < nk; p++) {
        acc[p] = SCALAR_VAL(0.0);
        for (s = 0; s < nk; s++)
          acc[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < nk; p++)
        A[r][q][p] = acc[p];
    }
#pragma endscop
}
