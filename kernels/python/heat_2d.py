"""2-D heat equation, explicit Euler with r = 0.125: T steps of two sweeps, A -> B then B -> A."""


def heat_2d(T, n, A, B):
    for t in range(T):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                B[i, j] = A[i, j] + 0.125 * (A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1]
                                             - 4.0 * A[i, j])
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = B[i, j] + 0.125 * (B[i - 1, j] + B[i + 1, j] + B[i, j - 1] + B[i, j + 1]
                                             - 4.0 * B[i, j])
