"""y = A^T (A x), with tmp = A x."""


def atax(m, n, A, x, y, tmp):
    for j in range(n):
        y[j] = 0.0
    for i in range(m):
        tmp[i] = 0.0
        for j in range(n):
            tmp[i] += A[i, j] * x[j]
        for j in range(n):
            y[j] += A[i, j] * tmp[i]
