/* k-means assignment step: each point's nearest center (argmin: value and index), the
 * running minimum updated under a data-dependent if. */
void kmeans_assign(int n, int k, int d, double x[n][d], double cen[k][d], int assign[n],
                   double mind[n])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    double best = 1e300;
    int bi = 0;
    for (int c = 0; c < k; c++) {
      double dist = 0.0;
      for (int t = 0; t < d; t++) {
        double diff = x[i][t] - cen[c][t];
        dist += diff * diff;
      }
      if (dist < best) {
        best = dist;
        bi = c;
      }
    }
    assign[i] = bi;
    mind[i] = best;
  }
#pragma endscop
}
