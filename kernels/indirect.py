"""Loops with indirect subscripts shared by the run-time path's tests and its GPU benchmark
(tests/unit/test_indirect.py, bench/indirect_gpu.py): a scatter-add (a histogram when v is
all ones) and a move that reads what other iterations write (RAW and WAR through one array)."""

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
