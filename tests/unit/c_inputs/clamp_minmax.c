/* 1-D smoothing with clamped borders written with min and max in the subscripts. */
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
void clamp_minmax(int tsteps, int n, double A[n], double B[n])
{
#pragma scop
  for (int t = 0; t < tsteps; t++) {
    for (int i = 0; i < n; i++)
      B[i] = 0.25 * A[max(i - 1, 0)] + 0.5 * A[i] + 0.25 * A[min(i + 1, n - 1)];
    for (int i = 0; i < n; i++)
      A[i] = B[i];
  }
#pragma endscop
}
