/* The jacobi-2d-alt variant of Shirako et al. 2017, Figure 1: T steps of B[i][j] = fact *
 * (A[i][j] + A[i][j + 1]) over the interior, then A = B there. Only the j direction couples
 * points (each row i is independent: a synchronization-free forall), and the t loop carries the
 * flow dependences between the two statements; within a step, j carries no dependence. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void jacobi_2d_alt(int T, int n, DATA_TYPE fact, DATA_TYPE A[n][n], DATA_TYPE B[n][n])
{
  int t, i, j;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        B[i][j] = fact * (A[i][j] + A[i][j + 1]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = B[i][j];
  }
#pragma endscop
}
