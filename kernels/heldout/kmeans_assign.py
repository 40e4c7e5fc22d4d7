"""k-means assignment: argmin over centers (value and index) under a data-dependent if."""


def kmeans_assign(n, k, d, x, cen, assign, mind):
    for i in range(n):
        best = 1e300
        bi = 0
        for c in range(k):
            dist = 0.0
            for t in range(d):
                diff = x[i, t] - cen[c, t]
                dist += diff * diff
            if dist < best:
                best = dist
                bi = c
        assign[i] = bi
        mind[i] = best
