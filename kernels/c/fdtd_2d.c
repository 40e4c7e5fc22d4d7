/* 2-D finite-difference time-domain (Yee) scheme for a TE wave: per time step the electric field
 * components ey and ex are advanced from the curl of the magnetic field hz, then hz from the curl
 * of (ex, ey). The source is a plane wave: row 0 of ey takes the value fict[t] of step t. The
 * update coefficients stand for dt/(eps dx) = 0.5 and dt/(mu dx) = 0.7. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void fdtd_2d(int T, int nx, int ny, DATA_TYPE ex[nx][ny], DATA_TYPE ey[nx][ny],
             DATA_TYPE hz[nx][ny], DATA_TYPE fict[T])
{
  int t, i, j;
#pragma scop
  for (t = 0; t < T; t++) {
    for (j = 0; j < ny; j++)
      ey[0][j] = fict[t];
    for (i = 1; i < nx; i++)
      for (j = 0; j < ny; j++)
        ey[i][j] = ey[i][j] - SCALAR_VAL(0.5) * (hz[i][j] - hz[i - 1][j]);
    for (i = 0; i < nx; i++)
      for (j = 1; j < ny; j++)
        ex[i][j] = ex[i][j] - SCALAR_VAL(0.5) * (hz[i][j] - hz[i][j - 1]);
    for (i = 0; i < nx - 1; i++)
      for (j = 0; j < ny - 1; j++)
        hz[i][j] = hz[i][j] - SCALAR_VAL(0.7) * (ex[i][j + 1] - ex[i][j] + ey[i + 1][j] - ey[i][j]);
  }
#pragma endscop
}
