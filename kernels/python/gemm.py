"""C = alpha * A * B + beta * C."""


def gemm(ni, nj, nk, alpha, beta, C, A, B):
    for i in range(ni):
        for j in range(nj):
            C[i, j] *= beta
            for k in range(nk):
                C[i, j] += alpha * A[i, k] * B[k, j]
