"""Solve A x = b: in-place LU without pivoting, then L y = b forwards and U x = y backwards."""


def ludcmp(n, A, b, x, y):
    for k in range(n):
        for i in range(k + 1, n):
            A[i, k] /= A[k, k]
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                A[i, j] -= A[i, k] * A[k, j]
    for i in range(n):
        y[i] = b[i]
        for j in range(i):
            y[i] -= A[i, j] * y[j]
    for i in range(n - 1, -1, -1):
        x[i] = y[i]
        for j in range(i + 1, n):
            x[i] -= A[i, j] * x[j]
        x[i] /= A[i, i]
