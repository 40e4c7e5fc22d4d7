"""Lower triangle (j <= i) of C = alpha * A A^T + beta * C."""


def syrk(n, m, alpha, beta, C, A):
    for i in range(n):
        for j in range(i + 1):
            C[i, j] *= beta
            for k in range(m):
                C[i, j] += alpha * A[i, k] * A[j, k]
