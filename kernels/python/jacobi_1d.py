"""1-D Jacobi, 3-point average: T steps of two sweeps, A -> B then B -> A (end points fixed)."""


def jacobi_1d(T, n, A, B):
    for t in range(T):
        for i in range(1, n - 1):
            B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0
        for i in range(1, n - 1):
            A[i] = (B[i - 1] + B[i] + B[i + 1]) / 3.0


if __name__ == "__main__":  # the README's Python example (docs/examples/jacobi_1d.py links here)
    import numpy as np

    import polycuda

    jacobi_1d = polycuda.jit(target="openmp")(jacobi_1d)  # the loops above, as OpenMP
    A, B = np.random.rand(1 << 16), np.random.rand(1 << 16)
    jacobi_1d(100, A.size, A, B)                    # runs the generated OpenMP code
    for c in jacobi_1d.verify(4, 64, A[:64].copy(), B[:64].copy()):  # against the loops
        print(c.target, c.ok, c.worst)
    try:
        jacobi_1d(100, 2 * A.size, A, B)            # nothing runs
    except polycuda.UserError as err:
        print(type(err).__name__, err)
