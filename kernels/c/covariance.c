/* Sample covariance of m variables observed n times (data: n rows of m values): the column
 * means, the data centred in place, then the upper triangle of the m x m covariance
 * cov[i][j] = sum_k data[k][i] data[k][j] / (n - 1), mirrored into the lower one. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void covariance(int n, int m, DATA_TYPE data[n][m], DATA_TYPE mean[m], DATA_TYPE cov[m][m])
{
  int i, j, k;
#pragma scop
  for (j = 0; j < m; j++) {
    mean[j] = SCALAR_VAL(0.0);
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= n;
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] -= mean[j];
  for (i = 0; i < m; i++)
    for (j = i; j < m; j++) {
      cov[i][j] = SCALAR_VAL(0.0);
      for (k = 0; k < n; k++)
        cov[i][j] += data[k][i] * data[k][j];
      cov[i][j] /= (n - 1);
      cov[j][i] = cov[i][j];
    }
#pragma endscop
}
