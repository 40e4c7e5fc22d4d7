"""The benchmarks of Anantpur & Govindarajan 2013 (Table 1), written by us from their
descriptions in Section 4, for the run-time path (issue 17; bench/anantpur_tables.py).

The paper monitors arrays that static analysis could prove free of conflicts (2dconv, fdtd-2d,
gemm, mvt): it treats their accesses as if they could conflict. Here the same happens by writing
the monitored accesses through index arrays (cell numbers of a flattened grid, row and column
numbers), so that the nest takes the run-time path; the index values given by the benchmark are
those of the original program (identity-like maps), so the results are the PolyBench kernels'.
randAcc, randAcc3 and doAll are the synthetic ones: random writes and reads of one array (one
and three reads per iteration), and a permutation (no conflict, one level).

Each entry: (source, a function of (rng, scale) -> the host arguments). scale 1.0 gives the
paper's sizes (64M iterations; gemm 1M, mvt 4K); smaller scales give smoke-test sizes.
"""

from __future__ import annotations

import numpy as np

RAND_ACC = """
void randacc(int n, int m, double A[m], int w[n], int r[n], double v[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[w[i]] = A[w[i]] * 0.5 + A[r[i]] + v[i];
#pragma endscop
}
"""

RAND_ACC3 = """
void randacc3(int n, int m, double A[m], int w[n], int r1[n], int r2[n], int r3[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[w[i]] = (A[r1[i]] + A[r2[i]] + A[r3[i]]) * 0.25;
#pragma endscop
}
"""

DO_ALL = """
void doall(int n, double A[n], double B[n], int p[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    B[p[i]] = A[p[i]] * 2.0 + 1.0;
#pragma endscop
}
"""

# PolyBench's 2dconv over the interior cells c[q] of an n x m grid stored by rows
CONV_2D = """
void conv2d(int q, int nm, int m, double A[nm], double B[nm], int c[q]) {
#pragma scop
  for (int p = 0; p < q; p++)
    B[c[p]] = 0.2 * A[c[p] - m - 1] + 0.5 * A[c[p] - m] - 0.8 * A[c[p] - m + 1]
            - 0.3 * A[c[p] - 1] + 0.6 * A[c[p]] - 0.9 * A[c[p] + 1]
            + 0.4 * A[c[p] + m - 1] + 0.7 * A[c[p] + m] + 0.1 * A[c[p] + m + 1];
#pragma endscop
}
"""

# One time step of PolyBench's fdtd-2d: its three loops, each over the cells it updates (e1: rows
# >= 1, e2: columns >= 1, e3: rows < n-1 and columns < m-1), grids stored by rows. As in the
# paper, the host calls the step in a loop (fdtd_steps) and the levels of each loop may be reused
# from one call to the next. (A time loop inside the region around these three loops would be
# levelized as a whole: analysis/indirect.levelized_depth stops at an imperfect nest.)
FDTD_2D = """
void fdtd(int q1, int q2, int q3, int nm, int m, double fict, double ex[nm], double ey[nm],
          double hz[nm], int e0[m], int e1[q1], int e2[q2], int e3[q3]) {
#pragma scop
  for (int j = 0; j < m; j++)
    ey[e0[j]] = fict;
  for (int p = 0; p < q1; p++)
    ey[e1[p]] = ey[e1[p]] - 0.5 * (hz[e1[p]] - hz[e1[p] - m]);
  for (int p = 0; p < q2; p++)
    ex[e2[p]] = ex[e2[p]] - 0.5 * (hz[e2[p]] - hz[e2[p] - 1]);
  for (int p = 0; p < q3; p++)
    hz[e3[p]] = hz[e3[p]] - 0.7 * (ex[e3[p] + 1] - ex[e3[p]] + ey[e3[p] + m] - ey[e3[p]]);
#pragma endscop
}
"""
FDTD_STEPS = 10  # calls of the step per run (the paper: 10; 50 for its Table 4)

# PolyBench's gemm over the cells of C (cell p is row ri[p], column cj[p], ci[p] = its number)
GEMM = """
void gemm(int q, int ni, int nj, int nk, double alpha, double beta, double C[q],
          double A[ni][nk], double B[nk][nj], int ci[q], int ri[q], int cj[q]) {
#pragma scop
  for (int p = 0; p < q; p++) {
    C[ci[p]] = C[ci[p]] * beta;
    for (int k = 0; k < nk; k++)
      C[ci[p]] = C[ci[p]] + alpha * A[ri[p]][k] * B[k][cj[p]];
  }
#pragma endscop
}
"""

# PolyBench's mvt, the two result vectors written through row numbers
MVT = """
void mvt(int n, double x1[n], double x2[n], double y1[n], double y2[n], double A[n][n],
         int r[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      x1[r[i]] = x1[r[i]] + A[i][j] * y1[j];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      x2[r[i]] = x2[r[i]] + A[j][i] * y2[j];
#pragma endscop
}
"""


def _uniform(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.uniform(0.5, 1.5, shape)


def _index(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.int32)


def rand_acc(rng: np.random.Generator, scale: float) -> dict:
    n = max(64, int((1 << 26) * scale))
    return {"n": n, "m": n, "A": _uniform(rng, n), "w": _index(rng.integers(0, n, n)),
            "r": _index(rng.integers(0, n, n)), "v": _uniform(rng, n)}


def rand_acc3(rng: np.random.Generator, scale: float) -> dict:
    n = max(64, int((1 << 26) * scale))
    return {"n": n, "m": n, "A": _uniform(rng, n), "w": _index(rng.integers(0, n, n)),
            **{f"r{k}": _index(rng.integers(0, n, n)) for k in (1, 2, 3)}}


def do_all(rng: np.random.Generator, scale: float) -> dict:
    n = max(64, int((1 << 26) * scale))
    return {"n": n, "A": _uniform(rng, n), "B": _uniform(rng, n),
            "p": _index(rng.permutation(n))}


def _grid(scale: float) -> tuple[int, int]:
    side = max(8, int(8192 * scale ** 0.5))  # 8192^2 = 64M cells
    return side, side


def _cells(n: int, m: int, rows: slice, cols: slice) -> np.ndarray:
    grid = np.arange(n * m).reshape(n, m)
    return _index(grid[rows, cols].ravel())


def conv_2d(rng: np.random.Generator, scale: float) -> dict:
    n, m = _grid(scale)
    c = _cells(n, m, slice(1, n - 1), slice(1, m - 1))
    return {"q": len(c), "nm": n * m, "m": m, "A": _uniform(rng, n * m),
            "B": _uniform(rng, n * m), "c": c}


def fdtd_2d(rng: np.random.Generator, scale: float) -> dict:
    n, m = _grid(scale)
    e1 = _cells(n, m, slice(1, n), slice(0, m))
    e2 = _cells(n, m, slice(0, n), slice(1, m))
    e3 = _cells(n, m, slice(0, n - 1), slice(0, m - 1))
    return {"q1": len(e1), "q2": len(e2), "q3": len(e3), "nm": n * m, "m": m, "fict": 0.75,
            "ex": _uniform(rng, n * m), "ey": _uniform(rng, n * m), "hz": _uniform(rng, n * m),
            "e0": _cells(n, m, slice(0, 1), slice(0, m)), "e1": e1, "e2": e2, "e3": e3}


def gemm(rng: np.random.Generator, scale: float) -> dict:
    side = max(8, int(1024 * scale ** 0.5))  # 1M cells of C
    ni = nj = nk = side
    cells = np.arange(ni * nj)
    return {"q": ni * nj, "ni": ni, "nj": nj, "nk": nk, "alpha": 1.5, "beta": 1.2,
            "C": _uniform(rng, ni * nj), "A": _uniform(rng, ni, nk), "B": _uniform(rng, nk, nj),
            "ci": _index(cells), "ri": _index(cells // nj), "cj": _index(cells % nj)}


def mvt(rng: np.random.Generator, scale: float) -> dict:
    n = max(8, int(4096 * scale ** 0.5))
    return {"n": n, **{name: _uniform(rng, n) for name in ("x1", "x2", "y1", "y2")},
            "A": _uniform(rng, n, n), "r": _index(np.arange(n))}


# name -> (source, arguments); the paper's order (Table 1)
BENCHMARKS = {
    "randAcc": (RAND_ACC, rand_acc),
    "randAcc3": (RAND_ACC3, rand_acc3),
    "doAll": (DO_ALL, do_all),
    "2dconv": (CONV_2D, conv_2d),
    "fdtd-2d": (FDTD_2D, fdtd_2d),
    "gemm": (GEMM, gemm),
    "mvt": (MVT, mvt),
}
