"""Pearson correlation of the m columns of data (n observations): means, standard deviations
(below 1e-3 replaced by 1), data standardized in place, then the upper triangle of corr
mirrored into the lower one, 1 on the diagonal."""

import math


def correlation(n, m, data, mean, stddev, corr):
    for j in range(m):
        mean[j] = 0.0
        for i in range(n):
            mean[j] += data[i, j]
        mean[j] /= n
    for j in range(m):
        stddev[j] = 0.0
        for i in range(n):
            stddev[j] += (data[i, j] - mean[j]) * (data[i, j] - mean[j])
        stddev[j] = math.sqrt(stddev[j] / n)
        stddev[j] = 1.0 if stddev[j] < 1.0e-3 else stddev[j]
    for i in range(n):
        for j in range(m):
            data[i, j] = (data[i, j] - mean[j]) / (math.sqrt(float(n)) * stddev[j])
    for i in range(m):
        corr[i, i] = 1.0
        for j in range(i + 1, m):
            corr[i, j] = 0.0
            for k in range(n):
                corr[i, j] += data[k, i] * data[k, j]
            corr[j, i] = corr[i, j]
