"""Inclusive prefix sum, a scalar carried across the loop."""


def scan(n, a, b):
    s = 0.0
    for i in range(n):
        s += a[i]
        b[i] = s
