"""y = L x for the lower triangle of L (columns 0..i of row i)."""


def trmv(n, L, x, y):
    for i in range(n):
        y[i] = 0.0
        for j in range(i + 1):
            y[i] += L[i, j] * x[j]
