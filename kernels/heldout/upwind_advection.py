"""1-D upwind advection, the upwind side chosen by the velocity's sign."""


def upwind_advection(T, n, c: float, u, vel, un):
    for t in range(T):
        for i in range(1, n - 1):
            if vel[i] > 0.0:
                un[i] = u[i] - c * vel[i] * (u[i] - u[i - 1])
            else:
                un[i] = u[i] - c * vel[i] * (u[i + 1] - u[i])
        for i in range(1, n - 1):
            u[i] = un[i]
