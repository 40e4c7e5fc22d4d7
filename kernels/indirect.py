"""Loops with indirect subscripts shared by the run-time path's tests and its GPU benchmarks
(tests/unit/test_indirect.py, test_csr.py, bench/indirect_gpu.py, sptrsv_gpu.py): a
scatter-add (a histogram when v is all ones), a move that reads what other iterations write
(RAW and WAR through one array), CSR loops (SpMV, a triangular solve, a mesh edge loop), an
edge-list mesh loop (two scatter-adds per edge), and the random CSR patterns of the benchmarks."""

import numpy as np

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

# The same kind of mesh as an edge list (edge e joins nodes a[e] and b[e]): the flux of each
# edge is added to one end and subtracted from the other, two scatter-adds per iteration (the
# form of OP2's res_calc); run-time path, atomicAdd where reassociation is allowed.
MESH_EDGES = """
void edges(int n, int ne, double f[n], double u[n], int a[ne], int b[ne], double w[ne]) {
#pragma scop
  for (int e = 0; e < ne; e++) {
    f[a[e]] += w[e] * (u[b[e]] - u[a[e]]);
    f[b[e]] += w[e] * (u[a[e]] - u[b[e]]);
  }
#pragma endscop
}
"""


def lower_pattern(n: int, per_row: int, rng: np.random.Generator
                  ) -> tuple[np.ndarray, np.ndarray]:
    """(rowptr, col): per row i, the distinct values among `per_row` random columns < i in
    increasing order, then i."""
    rows = np.arange(n)
    draws = np.floor(rng.random((n, per_row)) * rows[:, None]).astype(np.int64)
    draws.sort(axis=1)
    keep = (rows[:, None] > 0) & np.concatenate(
        [np.ones((n, 1), bool), draws[:, 1:] != draws[:, :-1]], axis=1)
    cols = np.concatenate([draws, rows[:, None]], axis=1)
    keep = np.concatenate([keep, np.ones((n, 1), bool)], axis=1)
    counts = keep.sum(axis=1)
    rowptr = np.zeros(n + 1, np.int64)
    rowptr[1:] = np.cumsum(counts)
    return rowptr.astype(np.int32), cols[keep].astype(np.int32)


def mesh_graph(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(ptr, adj) of a mesh-like graph in CSR form: each node's up to 9 edges to nodes spread
    over the whole range (a lower pattern's columns scattered by a multiplicative hash)."""
    ptr, adj = lower_pattern(n, 8, rng)
    return ptr, ((adj.astype(np.int64) * 7919 + 13) % n).astype(np.int32)
