/* 3-D 7-point heat stencil with a time loop, the grids flattened to 1-D (a[(i*n + j)*n + k]);
 * the interior bound computed before the loops. */
void heat_3d_7pt(int T, int n, double a[n * n * n], double b[n * n * n])
{
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          b[(i * n + j) * n + k] = 0.4 * a[(i * n + j) * n + k]
            + 0.1 * (a[((i - 1) * n + j) * n + k] + a[((i + 1) * n + j) * n + k]
                     + a[(i * n + j - 1) * n + k] + a[(i * n + j + 1) * n + k]
                     + a[(i * n + j) * n + k - 1] + a[(i * n + j) * n + k + 1]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          a[(i * n + j) * n + k] = b[(i * n + j) * n + k];
  }
#pragma endscop
}
