"""Every row A[r, q, :] becomes A[r, q, :] * C4, built in the shared one-row array acc."""


def doitgen(nr, nq, nk, A, C4, acc):
    for r in range(nr):
        for q in range(nq):
            for p in range(nk):
                acc[p] = 0.0
                for s in range(nk):
                    acc[p] += A[r, q, s] * C4[s, p]
            for p in range(nk):
                A[r, q, p] = acc[p]
