"""Durbin's algorithm: y solves T y = -r, T the symmetric Toeplitz matrix with unit diagonal and
r[d - 1] on its d-th off-diagonals; z is a work array (each step reverses y)."""


def durbin(n, r, y, z):
    y[0] = -r[0]
    beta = 1.0
    alpha = -r[0]
    for k in range(1, n):
        beta = (1.0 - alpha * alpha) * beta
        alpha = r[k]
        for i in range(k):
            alpha += r[k - 1 - i] * y[i]
        alpha = -alpha / beta
        for i in range(k):
            z[i] = y[i] + alpha * y[k - 1 - i]
        for i in range(k):
            y[i] = z[i]
        y[k] = alpha
