/* Two-pass variance of each column of an n x m matrix flattened to 1-D: the mean, then the
 * sum of squared deviations, two scalar reductions one after the other; an int counter. */
void variance_2pass(int n, int m, double x[n * m], double mean[m], double var[m])
{
#pragma scop
  for (int j = 0; j < m; j++) {
    double s = 0.0;
    int cnt = 0;
    for (int i = 0; i < n; i++) {
      s += x[i * m + j];
      cnt += 1;
    }
    double mu = s / cnt;
    double q = 0.0;
    for (int i = 0; i < n; i++)
      q += (x[i * m + j] - mu) * (x[i * m + j] - mu);
    mean[j] = mu;
    var[j] = q / (cnt - 1);
  }
#pragma endscop
}
