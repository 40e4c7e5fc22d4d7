"""Loops with indirect subscripts shared by the run-time path's tests and its GPU benchmarks
(tests/unit/test_indirect.py, test_csr.py, bench/indirect_gpu.py, sptrsv_gpu.py): a
scatter-add (a histogram when v is all ones), a move that reads what other iterations write
(RAW and WAR through one array), and CSR loops (SpMV, a triangular solve, a mesh edge loop)."""

SCATTER = """
void scatter(int n, int m, double H[m], int key[n], double v[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    H[key[i]] += v[i];
#pragma endscop
}
"""

MOVE = """
void move(int n, int m, double A[m], int src[n], int dst[n], double v[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[dst[i]] = 0.5 * A[src[i]] + v[i];
#pragma endscop
}
"""

# CSR (compressed sparse rows): loops whose bounds read the row pointers (codegen/csr.py).
# SpMV reads x through col only: the static path, its row loop parallel.
SPMV = """
void spmv(int n, int nnz, double y[n], int rowptr[n + 1], int col[nnz], double val[nnz],
          double x[n]) {
#pragma scop
  for (int i = 0; i < n; i++) {
    y[i] = 0.0;
    for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
      y[i] += val[k] * x[col[k]];
  }
#pragma endscop
}
"""

# Lower-triangular solve, the diagonal last in each row: row i reads x[col[k]], which other
# rows write: the run-time path (levels of rows whose columns are solved).
SPTRSV = """
void sptrsv(int n, int nnz, double x[n], double b[n], int rowptr[n + 1], int col[nnz],
            double val[nnz]) {
#pragma scop
  for (int i = 0; i < n; i++) {
    double s = b[i];
    for (int k = rowptr[i]; k < rowptr[i + 1] - 1; k++)
      s -= val[k] * x[col[k]];
    x[i] = s / val[rowptr[i + 1] - 1];
  }
#pragma endscop
}
"""

# An edge loop of an unstructured mesh in CSR form (node i, its edges ptr[i] .. ptr[i+1]-1 to
# nodes adj[e]): a flux-like update of every node from its neighbours; static path.
MESH = """
void mesh(int n, int ne, double f[n], double u[n], int ptr[n + 1], int adj[ne], double w[ne]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int e = ptr[i]; e < ptr[i + 1]; e++)
      f[i] += w[e] * (u[adj[e]] - u[i]);
#pragma endscop
}
"""
