"""3-D 7-point heat stencil with a time loop (3-D arrays)."""


def heat_3d_7pt(T, n, a, b):
    for t in range(T):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    b[i, j, k] = 0.4 * a[i, j, k] + 0.1 * (
                        a[i - 1, j, k] + a[i + 1, j, k] + a[i, j - 1, k] + a[i, j + 1, k]
                        + a[i, j, k - 1] + a[i, j, k + 1])
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                for k in range(1, n - 1):
                    a[i, j, k] = b[i, j, k]
