"""Lower triangle (j <= i) of A += alpha x x^T."""


def syr(n, alpha, A, x):
    for i in range(n):
        for j in range(i + 1):
            A[i, j] += alpha * x[i] * x[j]
