"""gemm's default kernel with parametric sizes (each of a thread's 4x2 points guarded in the k
loop) against the same nest with the sizes as compile-time constants (4096: full tiles, isl
drops the guards), kernel-only (launch.time_calls on CuPy arrays), same inputs, results
compared; cuBLAS (CuPy, alpha A B + beta C) alongside. The cost of the guards that full-tile
isolation would remove (issue 15: gemm >= 40% of cuBLAS).

    python bench/gemm_guards.py OUT.json      # on a GPU
"""
import datetime
import json
import statistics
import sys

import numpy as np
import polycuda
from kernels import suite
from polycuda.options import Options
from polycuda.runtime import launch
from polycuda.verify import copy_arguments, random_arguments

N = 4096
CONST = """
#define NI %d
#define NJ %d
#define NK %d
void gemm_c(double alpha, double beta, double C[NI][NJ], double A[NI][NK], double B[NK][NJ]) {
  int i, j, k;
#pragma scop
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++) {
      C[i][j] *= beta;
      for (k = 0; k < NK; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
#pragma endscop
}
""" % (N, N, N)

def timed(prog, args: dict, repeats: int = 10) -> tuple[np.ndarray, list[float]]:
    """C after one checked run, and the kernel-only seconds of `repeats` more."""
    import cupy as cp

    kernel = prog.kernel("cuda")
    dev = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    ordered = [dev[a.name] for a in prog.scop.args]
    kernel(*ordered)
    cp.cuda.Device().synchronize()
    return cp.asnumpy(dev["C"]), launch.time_calls(kernel, ordered, repeats=repeats)


def cublas_seconds(args: dict, alpha: float, beta: float, repeats: int = 10) -> list[float]:
    import cupy as cp

    a, b, c = (cp.asarray(args[x]) for x in "ABC")
    out = []
    for _ in range(repeats):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        alpha * (a @ b) + beta * c
        stop.record()
        stop.synchronize()
        out.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return out


def main(path: str) -> None:
    import cupy as cp

    alpha, beta = 1.5, 1.2
    options = Options(target="cuda", tuned_sizes=False)
    param = polycuda.compile(str(suite.by_name("gemm").c_path), function="gemm",
                             options=options)
    const = polycuda.compile(CONST, options=options)
    args = random_arguments(param.scop, {"ni": N, "nj": N, "nk": N}, seed=1)
    args.update(alpha=alpha, beta=beta)
    out_p, t_p = timed(param, copy_arguments(args))
    out_c, t_c = timed(const, {"alpha": alpha, "beta": beta,
                               **{x: args[x].copy() for x in "ABC"}})
    t_b = cublas_seconds(args, alpha, beta)
    median = {"parametric": statistics.median(t_p) * 1e3,
              "constant": statistics.median(t_c) * 1e3, "cublas": statistics.median(t_b) * 1e3}
    result = {"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
              "date": datetime.date.today().isoformat(), "n": N, "parametric_s": t_p,
              "constant_s": t_c, "cublas_s": t_b, "median_ms": median,
              "same_result": bool(np.allclose(out_p, out_c, rtol=1e-12, atol=1e-9)),
              "guards_in_constant_kernel": const.generate("cuda").source.count("if ("),
              "note": __doc__}
    print(json.dumps(median), result["same_result"])
    with open(path, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
