/* 1-D upwind advection with a per-cell velocity: the upwind side chosen by an if on the
 * velocity's sign (data); T steps, the flux into a second array, then copied back. */
void upwind_advection(int T, int n, float c, float u[n], float vel[n], float un[n])
{
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++) {
      if (vel[i] > 0.0f)
        un[i] = u[i] - c * vel[i] * (u[i] - u[i - 1]);
      else
        un[i] = u[i] - c * vel[i] * (u[i + 1] - u[i]);
    }
    for (int i = 1; i < n - 1; i++)
      u[i] = un[i];
  }
#pragma endscop
}
