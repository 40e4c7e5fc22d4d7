/* Gather from a half-resolution grid; the numerator i - m is negative for i < m, where C's
   '/' rounds toward zero (-1 / 2 == 0), and '%' takes the sign of the dividend. */
void half_gather(int n, int m, double A[n], double B[n], double C[n])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    B[i] = A[(i - m) / 2 + m] + 2.0 * A[i];
    C[i] = A[(i - m) % 2 + 1] * B[i];
  }
#pragma endscop
}
