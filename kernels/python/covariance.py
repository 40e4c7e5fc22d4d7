"""Covariance of the m columns of data (n observations): means, centring in place, then the
upper triangle of cov mirrored into the lower one."""


def covariance(n, m, data, mean, cov):
    for j in range(m):
        mean[j] = 0.0
        for i in range(n):
            mean[j] += data[i, j]
        mean[j] /= n
    for i in range(n):
        for j in range(m):
            data[i, j] -= mean[j]
    for i in range(m):
        for j in range(i, m):
            cov[i, j] = 0.0
            for k in range(n):
                cov[i, j] += data[k, i] * data[k, j]
            cov[i, j] /= n - 1
            cov[j, i] = cov[i, j]
