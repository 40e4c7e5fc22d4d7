"""A += u1 v1^T + u2 v2^T;  x += beta A^T y + z;  w += alpha A x."""


def gemver(n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    for i in range(n):
        for j in range(n):
            A[i, j] = A[i, j] + u1[i] * v1[j] + u2[i] * v2[j]
    for i in range(n):
        for j in range(n):
            x[i] = x[i] + beta * A[j, i] * y[j]
    for i in range(n):
        x[i] = x[i] + z[i]
    for i in range(n):
        for j in range(n):
            w[i] = w[i] + alpha * A[i, j] * x[j]
