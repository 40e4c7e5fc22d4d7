/* 1-D smoothing with clamped borders written as conditionals in the subscripts. */
void clamp_ternary(int tsteps, int n, double A[n], double B[n])
{
#pragma scop
  for (int t = 0; t < tsteps; t++) {
    for (int x = 0; x < n; x++)
      B[x] = (A[(x == 0) ? x : x - 1] + A[x] + A[(x == n - 1) ? x : x + 1]) / 3.0;
    for (int x = 0; x < n; x++)
      A[x] = B[x];
  }
#pragma endscop
}
