/* Inclusive prefix sum: a scalar carried across the whole loop. */
void scan(int n, double a[n], double b[n])
{
#pragma scop
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    s += a[i];
    b[i] = s;
  }
#pragma endscop
}
