"""jacobi-2d-alt (Shirako et al. 2017, Figure 1): B = fact * (A[i][j] + A[i][j+1]), then A = B,
over the interior; rows are independent."""


def jacobi_2d_alt(T, n, fact, A, B):
    for t in range(T):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                B[i, j] = fact * (A[i, j] + A[i, j + 1])
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = B[i, j]
