"""In place B = alpha * A^T B, A unit lower triangular (diagonal not read): row i reads the
original rows k > i of B, so the i loop carries anti-dependences."""


def trmm(m, n, alpha, A, B):
    for i in range(m):
        for j in range(n):
            for k in range(i + 1, m):
                B[i, j] += A[k, i] * B[k, j]
            B[i, j] = alpha * B[i, j]
