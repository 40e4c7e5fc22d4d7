/* Deriche's recursive smoothing filter (Deriche 1990) of the w x h image imgIn, with
 * parameter alpha > 0, separably: along each row (j), then along each column (i) of the row
 * result. One pass along a line x is a causal second-order recursion
 *   y1[n] = a1 x[n] + a2 x[n-1] + b1 y1[n-1] + b2 y1[n-2]
 * plus an anti-causal one run backwards
 *   y2[n] = a3 x[n+1] + a4 x[n+2] + b1 y2[n+1] + b2 y2[n+2]
 * (x and y zero outside the line), and the output is y1 + y2, with
 *   k = (1 - e^-a)^2 / (1 + 2 a e^-a - e^-2a), a1 = k, a2 = k e^-a (a - 1),
 *   a3 = k e^-a (a + 1), a4 = -k e^-2a, b1 = 2 e^-a, b2 = -e^-2a.
 * The recursions carry flow dependences along their line (j in the row pass, i in the column
 * pass, written as the outer loop there); the lines are independent. Needs w, h >= 2. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void deriche(int w, int h, DATA_TYPE alpha, DATA_TYPE imgIn[w][h], DATA_TYPE imgOut[w][h],
             DATA_TYPE y1[w][h], DATA_TYPE y2[w][h])
{
  int i, j;
  DATA_TYPE k, a1, a2, a3, a4, b1, b2;
#pragma scop
  k = (SCALAR_VAL(1.0) - exp(-alpha)) * (SCALAR_VAL(1.0) - exp(-alpha))
      / (SCALAR_VAL(1.0) + SCALAR_VAL(2.0) * alpha * exp(-alpha) - exp(-SCALAR_VAL(2.0) * alpha));
  a1 = k;
  a2 = k * exp(-alpha) * (alpha - SCALAR_VAL(1.0));
  a3 = k * exp(-alpha) * (alpha + SCALAR_VAL(1.0));
  a4 = -k * exp(-SCALAR_VAL(2.0) * alpha);
  b1 = SCALAR_VAL(2.0) * exp(-alpha);
  b2 = -exp(-SCALAR_VAL(2.0) * alpha);
  /* rows */
  for (i = 0; i < w; i++) {
    y1[i][0] = a1 * imgIn[i][0];
    y1[i][1] = a1 * imgIn[i][1] + a2 * imgIn[i][0] + b1 * y1[i][0];
    for (j = 2; j < h; j++)
      y1[i][j] = a1 * imgIn[i][j] + a2 * imgIn[i][j - 1] + b1 * y1[i][j - 1] + b2 * y1[i][j - 2];
  }
  for (i = 0; i < w; i++) {
    y2[i][h - 1] = SCALAR_VAL(0.0);
    y2[i][h - 2] = a3 * imgIn[i][h - 1];
    for (j = h - 3; j >= 0; j--)
      y2[i][j] = a3 * imgIn[i][j + 1] + a4 * imgIn[i][j + 2] + b1 * y2[i][j + 1]
                 + b2 * y2[i][j + 2];
  }
  for (i = 0; i < w; i++)
    for (j = 0; j < h; j++)
      imgOut[i][j] = y1[i][j] + y2[i][j];
  /* columns of the row result */
  for (j = 0; j < h; j++) {
    y1[0][j] = a1 * imgOut[0][j];
    y1[1][j] = a1 * imgOut[1][j] + a2 * imgOut[0][j] + b1 * y1[0][j];
  }
  for (i = 2; i < w; i++)
    for (j = 0; j < h; j++)
      y1[i][j] = a1 * imgOut[i][j] + a2 * imgOut[i - 1][j] + b1 * y1[i - 1][j] + b2 * y1[i - 2][j];
  for (j = 0; j < h; j++) {
    y2[w - 1][j] = SCALAR_VAL(0.0);
    y2[w - 2][j] = a3 * imgOut[w - 1][j];
  }
  for (i = w - 3; i >= 0; i--)
    for (j = 0; j < h; j++)
      y2[i][j] = a3 * imgOut[i + 1][j] + a4 * imgOut[i + 2][j] + b1 * y2[i + 1][j]
                 + b2 * y2[i + 2][j];
  for (i = 0; i < w; i++)
    for (j = 0; j < h; j++)
      imgOut[i][j] = y1[i][j] + y2[i][j];
#pragma endscop
}
