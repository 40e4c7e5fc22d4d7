"""y = alpha * A x + beta * B x, with tmp = A x."""


def gesummv(n, alpha, beta, A, B, tmp, x, y):
    for i in range(n):
        tmp[i] = 0.0
        y[i] = 0.0
        for j in range(n):
            tmp[i] += A[i, j] * x[j]
            y[i] += B[i, j] * x[j]
        y[i] = alpha * tmp[i] + beta * y[i]
