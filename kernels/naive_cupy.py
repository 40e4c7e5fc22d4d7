"""Naive CuPy baselines: the kernels as a Python user would write them with whole-array
expressions (slices for the stencils, `@` for matrix-vector and matrix-matrix products).

Each function takes the kernel's own arguments (see kernels/suite.py) plus the array module
`xp`, which defaults to CuPy, imported only when needed; kernels/naive_numpy.py runs the very
same functions on NumPy. The BLAS-3 forms (gemm, two_mm, three_mm, syr2k, doitgen, covariance)
are cuBLAS calls: the suite lists them as library baselines (`cupy_blas`), not as naive code.
The Gauss-Seidel sweeps (sor_*) and trisolv have no whole-array form and are absent.
"""

from __future__ import annotations

__all__ = (
    "atax", "bicg", "covariance", "doitgen", "fdtd_2d", "gemm", "gemver", "gesummv", "heat_2d",
    "heat_3d", "jacobi_1d", "jacobi_2d", "jacobi_3d", "jacobi_3d_27pt", "mvt", "syr", "syr2k",
    "three_mm", "trmv", "two_mm",
)


def _module(xp):
    if xp is None:
        import cupy as xp
    return xp


def _nb(A, *offsets):
    """The interior of A shifted by `offsets`: `_nb(A, -1, 0)[p, q]` is A[p, q + 1]."""
    return A[tuple(slice(1 + d, size - 1 + d) for size, d in zip(A.shape, offsets))]


# -- stencils: one slice expression per sweep --------------------------------------------------
def jacobi_1d(T, n, A, B, xp=None):
    for _ in range(T):
        B[1:-1] = (A[:-2] + A[1:-1] + A[2:]) / 3.0
        A[1:-1] = (B[:-2] + B[1:-1] + B[2:]) / 3.0


def jacobi_2d(T, n, A, B, xp=None):
    for _ in range(T):
        B[1:-1, 1:-1] = 0.2 * (_nb(A, 0, 0) + _nb(A, -1, 0) + _nb(A, 1, 0) + _nb(A, 0, -1)
                               + _nb(A, 0, 1))
        A[1:-1, 1:-1] = 0.2 * (_nb(B, 0, 0) + _nb(B, -1, 0) + _nb(B, 1, 0) + _nb(B, 0, -1)
                               + _nb(B, 0, 1))


def _seven_point_mean(A):
    return (_nb(A, 0, 0, 0) + _nb(A, -1, 0, 0) + _nb(A, 1, 0, 0) + _nb(A, 0, -1, 0)
            + _nb(A, 0, 1, 0) + _nb(A, 0, 0, -1) + _nb(A, 0, 0, 1)) / 7.0


def jacobi_3d(T, n, A, B, xp=None):
    for _ in range(T):
        B[1:-1, 1:-1, 1:-1] = _seven_point_mean(A)
        A[1:-1, 1:-1, 1:-1] = _seven_point_mean(B)


def _binomial_27(A):
    # weight 1/8 at the centre, halved per non-zero offset: 1/16 faces, 1/32 edges, 1/64 corners
    out = 0.125 * _nb(A, 0, 0, 0)
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            for dk in (-1, 0, 1):
                if (di, dj, dk) != (0, 0, 0):
                    out = out + 0.125 / 2 ** (abs(di) + abs(dj) + abs(dk)) * _nb(A, di, dj, dk)
    return out


def jacobi_3d_27pt(T, n, A, B, xp=None):
    for _ in range(T):
        B[1:-1, 1:-1, 1:-1] = _binomial_27(A)
        A[1:-1, 1:-1, 1:-1] = _binomial_27(B)


def heat_2d(T, n, A, B, xp=None):
    for _ in range(T):
        for src, dst in ((A, B), (B, A)):
            c = _nb(src, 0, 0)
            dst[1:-1, 1:-1] = c + 0.125 * (_nb(src, -1, 0) + _nb(src, 1, 0) + _nb(src, 0, -1)
                                           + _nb(src, 0, 1) - 4.0 * c)


def heat_3d(T, n, A, B, xp=None):
    for _ in range(T):
        for src, dst in ((A, B), (B, A)):
            c = _nb(src, 0, 0, 0)
            dst[1:-1, 1:-1, 1:-1] = c + 0.125 * (
                _nb(src, -1, 0, 0) + _nb(src, 1, 0, 0) + _nb(src, 0, -1, 0) + _nb(src, 0, 1, 0)
                + _nb(src, 0, 0, -1) + _nb(src, 0, 0, 1) - 6.0 * c)


def fdtd_2d(T, nx, ny, ex, ey, hz, fict, xp=None):
    for t in range(T):
        ey[0, :] = fict[t]
        ey[1:, :] -= 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] -= 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] -= 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1])


# -- BLAS-1/2: matrix-vector products with `@` ---------------------------------------------------
def atax(m, n, A, x, y, tmp, xp=None):
    tmp[:] = A @ x
    y[:] = A.T @ tmp


def bicg(n, m, A, s, q, p, r, xp=None):
    s[:] = A.T @ r
    q[:] = A @ p


def mvt(n, A, x1, x2, y1, y2, xp=None):
    x1 += A @ y1
    x2 += A.T @ y2


def gesummv(n, alpha, beta, A, B, tmp, x, y, xp=None):
    tmp[:] = A @ x
    y[:] = alpha * tmp + beta * (B @ x)


def gemver(n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z, xp=None):
    xp = _module(xp)
    A += xp.outer(u1, v1) + xp.outer(u2, v2)
    x += beta * (A.T @ y) + z
    w += alpha * (A @ x)


def trmv(n, L, x, y, xp=None):
    y[:] = _module(xp).tril(L) @ x


def syr(n, alpha, A, x, xp=None):
    xp = _module(xp)
    A += xp.tril(xp.outer(alpha * x, x))


# -- BLAS-3 through cuBLAS: library baselines ----------------------------------------------------
def gemm(ni, nj, nk, alpha, beta, C, A, B, xp=None):
    C[...] = alpha * (A @ B) + beta * C


def two_mm(ni, nj, nk, nl, alpha, beta, tmp, A, B, C, D, xp=None):
    tmp[...] = alpha * (A @ B)
    D[...] = beta * D + tmp @ C


def three_mm(ni, nj, nk, nl, nm, E, A, B, F, C, D, G, xp=None):
    E[...] = A @ B
    F[...] = C @ D
    G[...] = E @ F


def syr2k(n, m, alpha, beta, C, A, B, xp=None):
    xp = _module(xp)
    C[...] = xp.tril(alpha * (A @ B.T + B @ A.T) + beta * C) + xp.triu(C, 1)


def doitgen(nr, nq, nk, A, C4, acc, xp=None):
    A[...] = (A.reshape(nr * nq, nk) @ C4).reshape(nr, nq, nk)
    acc[:] = A[nr - 1, nq - 1]  # the loop nest leaves the last row's product in acc


def covariance(n, m, data, mean, cov, xp=None):
    mean[:] = data.sum(axis=0) / n
    data -= mean
    cov[...] = data.T @ data / (n - 1)
