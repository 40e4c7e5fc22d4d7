/* HAND-WRITTEN OpenMP BASELINE, not polycuda output (bench/indirect_gpu.py, entry "hand").
 * bench/indirect_gpu.py ROWS (A[idx[i]][j] += B[i][j]: rows scattered into rows) as a user
 * parallelizes it by hand: the rows i shared out, each update atomic. Entry and arguments as
 * polycuda's (polycuda/codegen/abi.py: A is m x k, B n x k, row-major); the script checks the
 * indices before calling. */
int pc_rows(long long n, long long m, long long k, double *A, double *B, int *idx) {
  (void)m;
  #pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; i++) {
    double *row = A + (long long)idx[i] * k;
    const double *from = B + i * k;
    for (long long j = 0; j < k; j++) {
      #pragma omp atomic
      row[j] += from[j];
    }
  }
  return 0;
}
