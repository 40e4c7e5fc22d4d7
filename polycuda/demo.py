"""The quick-start job: compile, run and verify an embedded 2-D Jacobi stencil."""

from __future__ import annotations

import sys

from polycuda.api import compile as compile_c
from polycuda.options import Options
from polycuda.run import run_and_time

EXAMPLE = """\
#include <math.h>

/* 2-D Jacobi: T time steps, each two 5-point sweeps (A -> B, then B -> A). */
void jacobi_2d(int T, int n, double A[n][n], double B[n][n])
{
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i - 1][j] + B[i + 1][j] + B[i][j - 1] + B[i][j + 1]);
  }
#pragma endscop
}
"""


def demo(target: str = "auto") -> int:
    """Compile the example for `target` (auto: the GPU if present, else OpenMP), run it on
    random data against the sequential C, print the generated code's size and the timings of
    both (run.run_and_time: the same warm-up and the same number of timed runs each)."""
    prog = compile_c(EXAMPLE, filename="jacobi_2d.c", options=Options(target=target))
    resolved = prog.resolve_target(None)
    fallback = target == "auto" and resolved != "cuda"
    print(f"polycuda demo: 2-D Jacobi, target {resolved}"
          f"{' (no GPU found: OpenMP on the CPU)' if fallback else ''}")
    gen = prog.generate()
    print(f"  generated {len(gen.source.splitlines())} lines of {resolved} code "
          f"in {gen.seconds:.2f} s, {len(gen.kernels)} kernel(s)")
    size = 2048 if resolved == "cuda" else 512
    report = run_and_time(prog, {"T": 10, "n": size}, repeats=5)
    print(report.render())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(demo())
