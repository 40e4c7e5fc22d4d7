"""Lower triangle (j <= i) of C = alpha * (A B^T + B A^T) + beta * C."""


def syr2k(n, m, alpha, beta, C, A, B):
    for i in range(n):
        for j in range(i + 1):
            C[i, j] *= beta
            for k in range(m):
                C[i, j] += alpha * A[i, k] * B[j, k] + alpha * B[i, k] * A[j, k]
