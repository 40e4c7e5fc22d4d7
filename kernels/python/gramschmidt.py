"""QR factorization A = Q R by modified Gram-Schmidt; A's later columns are updated in place."""

import math


def gramschmidt(m, n, A, R, Q):
    for k in range(n):
        R[k, k] = 0.0
        for i in range(m):
            R[k, k] += A[i, k] * A[i, k]
        R[k, k] = math.sqrt(R[k, k])
        for i in range(m):
            Q[i, k] = A[i, k] / R[k, k]
        for j in range(k + 1, n):
            R[k, j] = 0.0
            for i in range(m):
                R[k, j] += Q[i, k] * A[i, j]
            for i in range(m):
                A[i, j] -= Q[i, k] * R[k, j]
