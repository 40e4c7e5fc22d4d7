"""3-D heat equation, explicit Euler with r = 0.125: T steps of two sweeps, A -> B then B -> A."""


def heat_3d(T, n, A, B):
    for t in range(T):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    B[i, j, k] = A[i, j, k] + 0.125 * (
                        A[i - 1, j, k] + A[i + 1, j, k] + A[i, j - 1, k] + A[i, j + 1, k]
                        + A[i, j, k - 1] + A[i, j, k + 1] - 6.0 * A[i, j, k])
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    A[i, j, k] = B[i, j, k] + 0.125 * (
                        B[i - 1, j, k] + B[i + 1, j, k] + B[i, j - 1, k] + B[i, j + 1, k]
                        + B[i, j, k - 1] + B[i, j, k + 1] - 6.0 * B[i, j, k])
