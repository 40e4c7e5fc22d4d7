/* HAND-WRITTEN OpenMP BASELINE, not polycuda output (bench/indirect_gpu.py, entry "hand").
 * kernels/indirect.py MESH_EDGES (edge e adds its flux to node a[e] and subtracts it from node
 * b[e]) as a user parallelizes it by hand: the edges shared out, both scatter-adds atomic.
 * Entry and arguments as polycuda's (polycuda/codegen/abi.py); the script checks the indices
 * before calling. */
int pc_edges(long long n, long long ne, double *f, double *u, int *a, int *b, double *w) {
  (void)n;
  #pragma omp parallel for schedule(static)
  for (long long e = 0; e < ne; e++) {
    const double ua = u[a[e]], ub = u[b[e]];
    #pragma omp atomic
    f[a[e]] += w[e] * (ub - ua);
    #pragma omp atomic
    f[b[e]] += w[e] * (ua - ub);
  }
  return 0;
}
