/* 3-D Jacobi relaxation over the full 3x3x3 neighbourhood: the weights are the tensor product of
 * the 1-D binomial filter (1, 2, 1) / 4, i.e. 8/64 for the point itself, 4/64 for its 6 face
 * neighbours, 2/64 for its 12 edge neighbours and 1/64 for its 8 corner neighbours (they sum to 1).
 * T time steps, each two sweeps (A -> B, then B -> A) over the interior. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void jacobi_3d_27pt(int T, int n, DATA_TYPE A[n][n][n], DATA_TYPE B[n][n][n])
{
  int t, i, j, k;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          B[i][j][k] = SCALAR_VAL(0.125) * A[i][j][k]
              + SCALAR_VAL(0.0625) * (A[i - 1][j][k] + A[i + 1][j][k] + A[i][j - 1][k]
                          + A[i][j + 1][k] + A[i][j][k - 1] + A[i][j][k + 1])
              + SCALAR_VAL(0.03125) * (A[i - 1][j - 1][k] + A[i - 1][j + 1][k]
                           + A[i + 1][j - 1][k] + A[i + 1][j + 1][k]
                           + A[i - 1][j][k - 1] + A[i - 1][j][k + 1]
                           + A[i + 1][j][k - 1] + A[i + 1][j][k + 1]
                           + A[i][j - 1][k - 1] + A[i][j - 1][k + 1]
                           + A[i][j + 1][k - 1] + A[i][j + 1][k + 1])
              + SCALAR_VAL(0.015625) * (A[i - 1][j - 1][k - 1] + A[i - 1][j - 1][k + 1]
                            + A[i - 1][j + 1][k - 1] + A[i - 1][j + 1][k + 1]
                            + A[i + 1][j - 1][k - 1] + A[i + 1][j - 1][k + 1]
                            + A[i + 1][j + 1][k - 1] + A[i + 1][j + 1][k + 1]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          A[i][j][k] = SCALAR_VAL(0.125) * B[i][j][k]
              + SCALAR_VAL(0.0625) * (B[i - 1][j][k] + B[i + 1][j][k] + B[i][j - 1][k]
                          + B[i][j + 1][k] + B[i][j][k - 1] + B[i][j][k + 1])
              + SCALAR_VAL(0.03125) * (B[i - 1][j - 1][k] + B[i - 1][j + 1][k]
                           + B[i + 1][j - 1][k] + B[i + 1][j + 1][k]
                           + B[i - 1][j][k - 1] + B[i - 1][j][k + 1]
                           + B[i + 1][j][k - 1] + B[i + 1][j][k + 1]
                           + B[i][j - 1][k - 1] + B[i][j - 1][k + 1]
                           + B[i][j + 1][k - 1] + B[i][j + 1][k + 1])
              + SCALAR_VAL(0.015625) * (B[i - 1][j - 1][k - 1] + B[i - 1][j - 1][k + 1]
                            + B[i - 1][j + 1][k - 1] + B[i - 1][j + 1][k + 1]
                            + B[i + 1][j - 1][k - 1] + B[i + 1][j - 1][k + 1]
                            + B[i + 1][j + 1][k - 1] + B[i + 1][j + 1][k + 1]);
  }
#pragma endscop
}
