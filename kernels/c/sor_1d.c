/* 1-D successive over-relaxation (Gauss-Seidel with relaxation factor omega) for the 1-D Laplace
 * equation, in place: each point moves towards the mean of its neighbours, using the left
 * neighbour's value of this step and the right neighbour's value of the previous step. Every loop
 * carries a dependence (a DOACROSS nest). The end points stay fixed. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void sor_1d(int T, int n, DATA_TYPE omega, DATA_TYPE A[n])
{
  int t, i;
#pragma scop
  for (t = 0; t < T; t++)
    for (i = 1; i < n - 1; i++)
      A[i] = (SCALAR_VAL(1.0) - omega) * A[i] + omega * SCALAR_VAL(0.5) * (A[i - 1] + A[i + 1]);
#pragma endscop
}
