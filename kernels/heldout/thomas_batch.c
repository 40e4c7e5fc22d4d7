/* Tridiagonal (Thomas) solver, one independent system per row of a batch: forward
 * elimination with the previous row's coefficients, then back substitution. */
void thomas_batch(int nb, int n, double a[nb][n], double b[nb][n], double c[nb][n],
                  double d[nb][n], double cp[nb][n], double dp[nb][n], double x[nb][n])
{
#pragma scop
  for (int r = 0; r < nb; r++) {
    cp[r][0] = c[r][0] / b[r][0];
    dp[r][0] = d[r][0] / b[r][0];
    for (int i = 1; i < n; i++) {
      double m = 1.0 / (b[r][i] - a[r][i] * cp[r][i - 1]);
      cp[r][i] = c[r][i] * m;
      dp[r][i] = (d[r][i] - a[r][i] * dp[r][i - 1]) * m;
    }
    x[r][n - 1] = dp[r][n - 1];
    for (int i = n - 2; i >= 0; i--)
      x[r][i] = dp[r][i] - cp[r][i] * x[r][i + 1];
  }
#pragma endscop
}
