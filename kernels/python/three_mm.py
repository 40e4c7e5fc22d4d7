"""G = (A * B) * (C * D) through E = A * B and F = C * D."""


def three_mm(ni, nj, nk, nl, nm, E, A, B, F, C, D, G):
    for i in range(ni):
        for j in range(nj):
            E[i, j] = 0.0
            for k in range(nk):
                E[i, j] += A[i, k] * B[k, j]
    for j in range(nj):
        for q in range(nl):
            F[j, q] = 0.0
            for k in range(nm):
                F[j, q] += C[j, k] * D[k, q]
    for i in range(ni):
        for q in range(nl):
            G[i, q] = 0.0
            for j in range(nj):
                G[i, q] += E[i, j] * F[j, q]
