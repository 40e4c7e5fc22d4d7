/* 1-D Jacobi relaxation, 3-point average: T time steps, each two sweeps (A -> B, then
 * B -> A) so that no sweep reads an array it writes. The end points stay fixed. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void jacobi_1d(int T, int n, DATA_TYPE A[n], DATA_TYPE B[n])
{
  int t, i;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < n - 1; i++)
      B[i] = (A[i - 1] + A[i] + A[i + 1]) / SCALAR_VAL(3.0);
    for (i = 1; i < n - 1; i++)
      A[i] = (B[i - 1] + B[i] + B[i + 1]) / SCALAR_VAL(3.0);
  }
#pragma endscop
}
