/* Durbin's algorithm (Levinson recursion for Yule-Walker equations): solves T y = -r for y, where
 * T is the n x n symmetric Toeplitz matrix with 1 on the diagonal and r[d - 1] on the d-th
 * off-diagonals (r holds r_1 .. r_n). Step k extends the solution of the leading k x k system
 * to k + 1 unknowns: beta is the new pivot, alpha the new reflection coefficient (reduction over
 * i < k), and y[0 .. k - 1] is updated by the reversed y through the work array z (each y[i]
 * reads y[k - 1 - i], so the update cannot be done in place). The k loop carries the flow
 * dependences through y, alpha and beta; within a step the i loops carry none, apart from the
 * reduction into alpha. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void durbin(int n, DATA_TYPE r[n], DATA_TYPE y[n], DATA_TYPE z[n])
{
  int i, k;
  DATA_TYPE alpha, beta;
#pragma scop
  y[0] = -r[0];
  beta = SCALAR_VAL(1.0);
  alpha = -r[0];
  for (k = 1; k < n; k++) {
    beta = (SCALAR_VAL(1.0) - alpha * alpha) * beta;
    alpha = r[k];
    for (i = 0; i < k; i++)
      alpha += r[k - 1 - i] * y[i];
    alpha = -alpha / beta;
    for (i = 0; i < k; i++)
      z[i] = y[i] + alpha * y[k - 1 - i];
    for (i = 0; i < k; i++)
      y[i] = z[i];
    y[k] = alpha;
  }
#pragma endscop
}
