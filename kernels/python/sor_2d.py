"""2-D successive over-relaxation (Gauss-Seidel with factor omega, 5-point Laplacian), in place:
north and west neighbours are already updated in this step; every loop carries a dependence."""


def sor_2d(T, n, omega, A):
    for t in range(T):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = (1.0 - omega) * A[i, j] + omega * 0.25 * (
                    A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1])
