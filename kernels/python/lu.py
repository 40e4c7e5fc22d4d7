"""In-place LU factorization without pivoting by right-looking Gaussian elimination: L (unit
diagonal) below the diagonal, U on and above it; the k loop carries the dependences."""


def lu(n, A):
    for k in range(n):
        for i in range(k + 1, n):
            A[i, k] /= A[k, k]
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                A[i, j] -= A[i, k] * A[k, j]
