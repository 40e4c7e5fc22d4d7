#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include "pc_kernel.h"

#ifndef SCALE
#define SCALE 1.0
#endif

static void print_matrix(FILE *out, int n, real_t A[N][N])
{
  for (int i = 0; i < n; i++)
    fprintf(out, "%f\n", A[i][i]);
}

void smooth(int n, real_t A[N][N], real_t B[N][N])
{
  int i, j;
#pragma scop
  for (i = MAX(1, n - N); i < MIN(n, N - 1); i++)
    for (j = 1; j < N - 1; j++)
      B[i][j] = SCALE * sqrt(fabs(A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]));
#pragma endscop
}

int main(int argc, char **argv)
{
  static real_t A[N][N], B[N][N];
  int n = argc > 1 ? atoi(argv[1]) : N;
  smooth(n, A, B);
  print_matrix(stdout, n, B);
  return 0;
}
