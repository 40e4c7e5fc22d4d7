/* Pearson correlation of m variables observed n times (data: n rows of m values): column means,
 * population standard deviations (a column with a deviation below EPS, i.e. constant up to
 * round-off, gets 1 so that its correlations are 0 rather than NaN), the data standardized in
 * place as z = (x - mean) / (sqrt(n) stddev), then corr[i][j] = sum_k z[k][i] z[k][j] for
 * i < j, mirrored, and 1 on the diagonal. The i loops over observations are reductions in the
 * first two nests; the standardization needs both finished (flow dependences through mean and
 * stddev) and the products need it (through data); every column and every pair is
 * independent. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

#define EPS SCALAR_VAL(1.0e-3)

void correlation(int n, int m, DATA_TYPE data[n][m], DATA_TYPE mean[m], DATA_TYPE stddev[m],
                 DATA_TYPE corr[m][m])
{
  int i, j, k;
#pragma scop
  for (j = 0; j < m; j++) {
    mean[j] = SCALAR_VAL(0.0);
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= n;
  }
  for (j = 0; j < m; j++) {
    stddev[j] = SCALAR_VAL(0.0);
    for (i = 0; i < n; i++)
      stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] = sqrt(stddev[j] / n);
    stddev[j] = stddev[j] < EPS ? SCALAR_VAL(1.0) : stddev[j];
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] = (data[i][j] - mean[j]) / (sqrt((DATA_TYPE)n) * stddev[j]);
  for (i = 0; i < m; i++) {
    corr[i][i] = SCALAR_VAL(1.0);
    for (j = i + 1; j < m; j++) {
      corr[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < n; k++)
        corr[i][j] += data[k][i] * data[k][j];
      corr[j][i] = corr[i][j];
    }
  }
#pragma endscop
}
