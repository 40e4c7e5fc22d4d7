"""Black-Scholes call and put prices per option (exp/log/sqrt, an if on data)."""
import numpy as np


def black_scholes(n, S, K, Tm, r: float, v: float, call, put):
    for i in range(n):
        sq = np.sqrt(Tm[i])
        d1 = (np.log(S[i] / K[i]) + (r + 0.5 * v * v) * Tm[i]) / (v * sq)
        d2 = d1 - v * sq
        k1 = 1.0 / (1.0 + 0.2316419 * abs(d1))
        n1 = 1.0 - 0.3989423 * np.exp(-0.5 * d1 * d1) * k1 * (0.3193815 + k1 * (-0.3565638
             + k1 * (1.781478 + k1 * (-1.821256 + k1 * 1.330274))))
        if d1 < 0.0:
            n1 = 1.0 - n1
        k2 = 1.0 / (1.0 + 0.2316419 * abs(d2))
        n2 = 1.0 - 0.3989423 * np.exp(-0.5 * d2 * d2) * k2 * (0.3193815 + k2 * (-0.3565638
             + k2 * (1.781478 + k2 * (-1.821256 + k2 * 1.330274))))
        if d2 < 0.0:
            n2 = 1.0 - n2
        disc = K[i] * np.exp(-r * Tm[i])
        call[i] = S[i] * n1 - disc * n2
        put[i] = disc * (1.0 - n2) - S[i] * (1.0 - n1)
