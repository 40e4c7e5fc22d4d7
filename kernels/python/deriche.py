"""Deriche's recursive smoothing filter: causal and anti-causal second-order recursions along
every row, then along every column of the row result (see kernels/c/deriche.c)."""

import math


def deriche(w, h, alpha, imgIn, imgOut, y1, y2):
    k = ((1.0 - math.exp(-alpha)) * (1.0 - math.exp(-alpha))
         / (1.0 + 2.0 * alpha * math.exp(-alpha) - math.exp(-2.0 * alpha)))
    a1 = k
    a2 = k * math.exp(-alpha) * (alpha - 1.0)
    a3 = k * math.exp(-alpha) * (alpha + 1.0)
    a4 = -k * math.exp(-2.0 * alpha)
    b1 = 2.0 * math.exp(-alpha)
    b2 = -math.exp(-2.0 * alpha)
    for i in range(w):
        y1[i, 0] = a1 * imgIn[i, 0]
        y1[i, 1] = a1 * imgIn[i, 1] + a2 * imgIn[i, 0] + b1 * y1[i, 0]
        for j in range(2, h):
            y1[i, j] = (a1 * imgIn[i, j] + a2 * imgIn[i, j - 1] + b1 * y1[i, j - 1]
                        + b2 * y1[i, j - 2])
    for i in range(w):
        y2[i, h - 1] = 0.0
        y2[i, h - 2] = a3 * imgIn[i, h - 1]
        for j in range(h - 3, -1, -1):
            y2[i, j] = (a3 * imgIn[i, j + 1] + a4 * imgIn[i, j + 2] + b1 * y2[i, j + 1]
                        + b2 * y2[i, j + 2])
    for i in range(w):
        for j in range(h):
            imgOut[i, j] = y1[i, j] + y2[i, j]
    for j in range(h):
        y1[0, j] = a1 * imgOut[0, j]
        y1[1, j] = a1 * imgOut[1, j] + a2 * imgOut[0, j] + b1 * y1[0, j]
    for i in range(2, w):
        for j in range(h):
            y1[i, j] = (a1 * imgOut[i, j] + a2 * imgOut[i - 1, j] + b1 * y1[i - 1, j]
                        + b2 * y1[i - 2, j])
    for j in range(h):
        y2[w - 1, j] = 0.0
        y2[w - 2, j] = a3 * imgOut[w - 1, j]
    for i in range(w - 3, -1, -1):
        for j in range(h):
            y2[i, j] = (a3 * imgOut[i + 1, j] + a4 * imgOut[i + 2, j] + b1 * y2[i + 1, j]
                        + b2 * y2[i + 2, j])
    for i in range(w):
        for j in range(h):
            imgOut[i, j] = y1[i, j] + y2[i, j]
