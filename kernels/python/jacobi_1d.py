"""1-D Jacobi, 3-point average: T steps of two sweeps, A -> B then B -> A (end points fixed)."""


def jacobi_1d(T, n, A, B):
    for t in range(T):
        for i in range(1, n - 1):
            B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0
        for i in range(1, n - 1):
            A[i] = (B[i - 1] + B[i] + B[i + 1]) / 3.0
