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


# The demo's problem sizes (T time steps of two n x n sweeps): enough work that the sequential
# reference runs well above run.MEANINGFUL_S, more on the GPU, whose target is fast; the CPU
# targets share the machine's cores with their reference, so a smaller size keeps the demo
# short there (RunReport.caveat says when a machine makes even that too little).
SIZES = {"cuda": {"T": 40, "n": 2048}, "openmp": {"T": 20, "n": 1024}, "c": {"T": 20, "n": 1024}}
REPEATS = 5


def next_steps(sizes: dict[str, int], target: str) -> str:
    """What to try after the demo (run on `target` at `sizes`): the commands, on the example
    written to a file."""
    size = " ".join(f"--size {k}={v}" for k, v in sizes.items())
    bigger = " ".join(f"--size {k}={2 * v}" for k, v in sizes.items())
    steps = [("polycuda demo --source > jacobi_2d.c", "the example as a file"),
             ("polycuda show schedule jacobi_2d.c", "which loops run in parallel, and why"),
             (f"polycuda run jacobi_2d.c {bigger}", "more work: a steadier speedup"),
             (f"polycuda tune jacobi_2d.c {size} --dump-sizes sizes.json",
              "tile sizes for this GPU (then run --tuned sizes.json)" if target == "cuda"
              else "tile sizes, on a machine with an NVIDIA GPU"),
             ("polycuda compile jacobi_2d.c -o jacobi_2d.cu", "the code, for your program")]
    width = max(len(command) for command, _ in steps)
    return "\n".join(["next:"] + [f"  {command:{width}s}  # {why}" for command, why in steps]
                     + ["  the user guide: docs/guide/ (the Python API, reading `show`, tuning)"])


def demo(target: str = "auto", progress: bool = True, source: bool = False) -> int:
    """Compile the example for `target` (auto: the GPU if present, else OpenMP), run it on
    random data against the sequential C at SIZES, print the generated code's size and the
    timings of both (run.run_and_time: the same warm-up and REPEATS timed runs each, in pairs;
    medians, their spread, and a caveat where the work is too small or the runs disagree),
    then what to try next. With `source`, print the example's C instead."""
    if source:
        print(EXAMPLE, end="")
        return 0
    prog = compile_c(EXAMPLE, filename="jacobi_2d.c",
                     options=Options(target=target, progress=progress))
    resolved = prog.resolve_target(None)
    fallback = target == "auto" and resolved != "cuda"
    print(f"polycuda demo: 2-D Jacobi, target {resolved}"
          f"{' (no GPU found: OpenMP on the CPU)' if fallback else ''}")
    gen = prog.generate()
    print(f"  generated {len(gen.source.splitlines())} lines of {resolved} code "
          f"in {gen.seconds:.2f} s, {len(gen.kernels)} kernel(s)")
    sizes = SIZES.get(resolved, SIZES["c"])
    report = run_and_time(prog, sizes, repeats=REPEATS)
    print(report.render())
    print(next_steps(sizes, resolved))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(demo())
