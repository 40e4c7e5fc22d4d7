"""1-D successive over-relaxation (Gauss-Seidel with factor omega), in place: every loop carries
a dependence."""


def sor_1d(T, n, omega, A):
    for t in range(T):
        for i in range(1, n - 1):
            A[i] = (1.0 - omega) * A[i] + omega * 0.5 * (A[i - 1] + A[i + 1])
