"""Two-pass variance per column: the mean, then the sum of squared deviations."""


def variance_2pass(n, m, x, mean, var):
    for j in range(m):
        s = 0.0
        cnt = 0
        for i in range(n):
            s += x[i, j]
            cnt += 1
        mu = s / cnt
        q = 0.0
        for i in range(n):
            q += (x[i, j] - mu) * (x[i, j] - mu)
        mean[j] = mu
        var[j] = q / (cnt - 1)
