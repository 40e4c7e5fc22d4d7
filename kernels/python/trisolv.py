"""Forward substitution: solve L x = b for lower-triangular L."""


def trisolv(n, L, b, x):
    for i in range(n):
        x[i] = b[i]
        for j in range(i):
            x[i] -= L[i, j] * x[j]
        x[i] /= L[i, i]
