"""2-D FDTD (Yee) for a TE wave: ey and ex from the curl of hz, then hz from the curl of (ex, ey);
row 0 of ey is driven by the source value fict[t] of each step."""


def fdtd_2d(T, nx, ny, ex, ey, hz, fict):
    for t in range(T):
        for j in range(ny):
            ey[0, j] = fict[t]
        for i in range(1, nx):
            for j in range(ny):
                ey[i, j] = ey[i, j] - 0.5 * (hz[i, j] - hz[i - 1, j])
        for i in range(nx):
            for j in range(1, ny):
                ex[i, j] = ex[i, j] - 0.5 * (hz[i, j] - hz[i, j - 1])
        for i in range(nx - 1):
            for j in range(ny - 1):
                hz[i, j] = hz[i, j] - 0.7 * (ex[i, j + 1] - ex[i, j] + ey[i + 1, j] - ey[i, j])
