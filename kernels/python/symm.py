"""C = alpha * A B + beta * C with A symmetric, only its lower triangle (k <= i) stored."""


def symm(m, n, alpha, beta, C, A, B):
    for i in range(m):
        for j in range(n):
            C[i, j] *= beta
            for k in range(i + 1):
                C[i, j] += alpha * A[i, k] * B[k, j]
            for k in range(i + 1, m):
                C[i, j] += alpha * A[k, i] * B[k, j]
