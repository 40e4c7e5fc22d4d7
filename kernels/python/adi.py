"""ADI (Peaceman-Rachford) steps of the 2-D heat equation with a fixed border: per step, a
tridiagonal solve along every interior column (u -> v), then along every interior row (v -> u),
each by the Thomas algorithm with p, q as work arrays (see kernels/c/adi.c)."""


def adi(T, n, u, v, p, q):
    half = float(n - 1) * float(n - 1) / (2.0 * T)
    diag = 1.0 + 2.0 * half
    expl = 1.0 - 2.0 * half
    for t in range(T):
        for j in range(1, n - 1):
            v[0, j] = u[0, j]
            p[0, j] = 0.0
            q[0, j] = u[0, j]
            for i in range(1, n - 1):
                p[i, j] = half / (diag - half * p[i - 1, j])
                q[i, j] = ((half * u[i, j - 1] + expl * u[i, j] + half * u[i, j + 1]
                            + half * q[i - 1, j]) / (diag - half * p[i - 1, j]))
            v[n - 1, j] = u[n - 1, j]
            for i in range(n - 2, 0, -1):
                v[i, j] = p[i, j] * v[i + 1, j] + q[i, j]
        for i in range(1, n - 1):
            p[i, 0] = 0.0
            q[i, 0] = u[i, 0]
            for j in range(1, n - 1):
                p[i, j] = half / (diag - half * p[i, j - 1])
                q[i, j] = ((half * v[i - 1, j] + expl * v[i, j] + half * v[i + 1, j]
                            + half * q[i, j - 1]) / (diag - half * p[i, j - 1]))
            for j in range(n - 2, 0, -1):
                u[i, j] = p[i, j] * u[i, j + 1] + q[i, j]
