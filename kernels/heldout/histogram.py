"""Weighted histogram: a scatter-add through the data-dependent bin key[i]."""


def histogram(n, nb, key, wt, hist):
    for b in range(nb):
        hist[b] = 0.0
    for i in range(n):
        hist[key[i]] += wt[i]
