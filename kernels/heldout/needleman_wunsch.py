"""Needleman-Wunsch scores: each cell the max of three neighbours (a wavefront)."""


def needleman_wunsch(n, m, sa, sb, H, match, mismatch, gap):
    for j in range(m):
        H[0, j] = -gap * j
    for i in range(1, n):
        H[i, 0] = -gap * i
    for i in range(1, n):
        for j in range(1, m):
            diag = H[i - 1, j - 1] + (match if sa[i] == sb[j] else mismatch)
            up = H[i - 1, j] - gap
            left = H[i, j - 1] - gap
            H[i, j] = max(diag, max(up, left))
