"""A C file of N small regions (issue 40's "a file of 2000 small regions"), to time
`polycuda compile` of a file whose cost is many regions, not one hard one.

Usage: python3 bench/many_regions.py N OUT.c
       time python3 -m polycuda compile OUT.c -o out.cu --jobs J
The regions cycle through four kinds (a DOALL loop, a 3-point stencil, a 2-D update, a row
reduction into a scalar), each in a function of its own.
"""

from __future__ import annotations

import sys

BODIES = (
    "for (i = 0; i < n; i++) y[i] = a * x[i] + y[i];",
    "for (i = 1; i < n - 1; i++) y[i] = 0.33 * (x[i - 1] + x[i] + x[i + 1]);",
    "for (i = 0; i < n; i++) for (j = 0; j < n; j++) A[i][j] = A[i][j] * a + x[i] * y[j];",
    "for (i = 0; i < n; i++) { s = 0.0; for (j = 0; j < n; j++) s += A[i][j] * x[j]; y[i] = s; }",
)


def source(count: int) -> str:
    """The file's text: functions f0 .. f<count-1>, one region each."""
    return "\n".join(
        f"void f{k}(int n, double a, double x[n], double y[n], double A[n][n])\n{{\n"
        f"  int i, j;\n  double s;\n#pragma scop\n  {BODIES[k % len(BODIES)]}\n"
        "#pragma endscop\n}\n" for k in range(count))


def main() -> None:
    if len(sys.argv) != 3 or not sys.argv[1].isdigit():
        sys.exit(__doc__.split("\n\n")[1])
    with open(sys.argv[2], "w") as f:
        f.write(source(int(sys.argv[1])))


if __name__ == "__main__":
    main()
