"""s = A^T r and q = A p in one pass over A."""


def bicg(n, m, A, s, q, p, r):
    for j in range(m):
        s[j] = 0.0
    for i in range(n):
        q[i] = 0.0
        for j in range(m):
            s[j] += r[i] * A[i, j]
            q[i] += A[i, j] * p[j]
