"""In-place right-looking Cholesky factorization A = L L^T in the lower triangle."""

import math


def cholesky(n, A):
    for k in range(n):
        A[k, k] = math.sqrt(A[k, k])
        for i in range(k + 1, n):
            A[i, k] /= A[k, k]
        for i in range(k + 1, n):
            for j in range(k + 1, i + 1):
                A[i, j] -= A[i, k] * A[j, k]
