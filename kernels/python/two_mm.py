"""D = alpha * A * B * C + beta * D through tmp = alpha * A * B."""


def two_mm(ni, nj, nk, nl, alpha, beta, tmp, A, B, C, D):
    for i in range(ni):
        for j in range(nj):
            tmp[i, j] = 0.0
            for k in range(nk):
                tmp[i, j] += alpha * A[i, k] * B[k, j]
    for i in range(ni):
        for q in range(nl):
            D[i, q] *= beta
            for j in range(nj):
                D[i, q] += tmp[i, j] * C[j, q]
