"""3-D successive over-relaxation (Gauss-Seidel with factor omega, 7-point Laplacian), in place."""


def sor_3d(T, n, omega, A):
    for t in range(T):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    A[i, j, k] = (1.0 - omega) * A[i, j, k] + omega / 6.0 * (
                        A[i - 1, j, k] + A[i + 1, j, k] + A[i, j - 1, k]
                        + A[i, j + 1, k] + A[i, j, k - 1] + A[i, j, k + 1])
