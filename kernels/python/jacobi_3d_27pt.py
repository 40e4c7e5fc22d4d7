"""3-D Jacobi over the 3x3x3 neighbourhood with the binomial weights 8/64 (centre), 4/64 (6 faces),
2/64 (12 edges), 1/64 (8 corners): T steps of two sweeps, A -> B then B -> A."""


def jacobi_3d_27pt(T, n, A, B):
    for t in range(T):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    B[i, j, k] = (
                        0.125 * A[i, j, k]
                        + 0.0625 * (A[i - 1, j, k] + A[i + 1, j, k] + A[i, j - 1, k]
                                    + A[i, j + 1, k] + A[i, j, k - 1] + A[i, j, k + 1])
                        + 0.03125 * (A[i - 1, j - 1, k] + A[i - 1, j + 1, k]
                                     + A[i + 1, j - 1, k] + A[i + 1, j + 1, k]
                                     + A[i - 1, j, k - 1] + A[i - 1, j, k + 1]
                                     + A[i + 1, j, k - 1] + A[i + 1, j, k + 1]
                                     + A[i, j - 1, k - 1] + A[i, j - 1, k + 1]
                                     + A[i, j + 1, k - 1] + A[i, j + 1, k + 1])
                        + 0.015625 * (A[i - 1, j - 1, k - 1] + A[i - 1, j - 1, k + 1]
                                      + A[i - 1, j + 1, k - 1] + A[i - 1, j + 1, k + 1]
                                      + A[i + 1, j - 1, k - 1] + A[i + 1, j - 1, k + 1]
                                      + A[i + 1, j + 1, k - 1] + A[i + 1, j + 1, k + 1]))
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    A[i, j, k] = (
                        0.125 * B[i, j, k]
                        + 0.0625 * (B[i - 1, j, k] + B[i + 1, j, k] + B[i, j - 1, k]
                                    + B[i, j + 1, k] + B[i, j, k - 1] + B[i, j, k + 1])
                        + 0.03125 * (B[i - 1, j - 1, k] + B[i - 1, j + 1, k]
                                     + B[i + 1, j - 1, k] + B[i + 1, j + 1, k]
                                     + B[i - 1, j, k - 1] + B[i - 1, j, k + 1]
                                     + B[i + 1, j, k - 1] + B[i + 1, j, k + 1]
                                     + B[i, j - 1, k - 1] + B[i, j - 1, k + 1]
                                     + B[i, j + 1, k - 1] + B[i, j + 1, k + 1])
                        + 0.015625 * (B[i - 1, j - 1, k - 1] + B[i - 1, j - 1, k + 1]
                                      + B[i - 1, j + 1, k - 1] + B[i - 1, j + 1, k + 1]
                                      + B[i + 1, j - 1, k - 1] + B[i + 1, j - 1, k + 1]
                                      + B[i + 1, j + 1, k - 1] + B[i + 1, j + 1, k + 1]))
