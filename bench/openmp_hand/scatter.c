/* HAND-WRITTEN OpenMP BASELINE, not polycuda output (bench/indirect_gpu.py, entry "hand").
 * kernels/indirect.py SCATTER (H[key[i]] += v[i]: a histogram when v is all ones) as a user
 * parallelizes it by hand: the iterations shared out, each update atomic. Entry and arguments
 * as polycuda's (polycuda/codegen/abi.py); the script checks the indices before calling. */
int pc_scatter(long long n, long long m, double *H, int *key, double *v) {
  (void)m;
  #pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; i++) {
    #pragma omp atomic
    H[key[i]] += v[i];
  }
  return 0;
}
