/* HAND-WRITTEN OpenMP BASELINE, not polycuda output (bench/indirect_gpu.py, entry "hand").
 * kernels/indirect.py MESH (node i updated from its CSR edges ptr[i] .. ptr[i+1]-1) as a user
 * parallelizes it by hand: the nodes shared out; every node owns f[i], so no atomics; its
 * edges summed in order into a local, as in the sequential loop. Entry and arguments as
 * polycuda's (polycuda/codegen/abi.py); the script checks the pattern before calling. */
int pc_mesh(long long n, long long ne, double *f, double *u, int *ptr, int *adj, double *w) {
  (void)ne;
  #pragma omp parallel for schedule(static)
  for (long long i = 0; i < n; i++) {
    double s = f[i];
    const double ui = u[i];
    for (int e = ptr[i]; e < ptr[i + 1]; e++)
      s += w[e] * (u[adj[e]] - ui);
    f[i] = s;
  }
  return 0;
}
