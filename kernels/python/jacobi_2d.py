"""2-D Jacobi, 5-point average: T steps of two sweeps, A -> B then B -> A (boundary fixed)."""


def jacobi_2d(T, n, A, B):
    for t in range(T):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                B[i, j] = 0.2 * (A[i, j] + A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = 0.2 * (B[i, j] + B[i - 1, j] + B[i + 1, j] + B[i, j - 1] + B[i, j + 1])
