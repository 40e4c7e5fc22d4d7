"""Thomas tridiagonal solver per row of a batch."""


def thomas_batch(nb, n, a, b, c, d, cp, dp, x):
    for r in range(nb):
        cp[r, 0] = c[r, 0] / b[r, 0]
        dp[r, 0] = d[r, 0] / b[r, 0]
        for i in range(1, n):
            m = 1.0 / (b[r, i] - a[r, i] * cp[r, i - 1])
            cp[r, i] = c[r, i] * m
            dp[r, i] = (d[r, i] - a[r, i] * dp[r, i - 1]) * m
        x[r, n - 1] = dp[r, n - 1]
        for i in range(n - 2, -1, -1):
            x[r, i] = dp[r, i] - cp[r, i] * x[r, i + 1]
