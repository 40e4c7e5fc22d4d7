"""x1 += A y1 and x2 += A^T y2."""


def mvt(n, A, x1, x2, y1, y2):
    for i in range(n):
        for j in range(n):
            x1[i] += A[i, j] * y1[j]
    for i in range(n):
        for j in range(n):
            x2[i] += A[j, i] * y2[j]
