"""The catalogue of the project's kernels: where each one's C and Python code lives, its problem
sizes for CPU verification (`small`) and for an H100 (`bench`), and the minimum DRAM traffic and
floating-point work of one run, for the roofline figures.

Example:
    k = by_name("jacobi_2d")
    args = random_args(k, k.small, np.random.default_rng(0))   # in the C argument order
    python_function(k)(*args)
    print(k.bytes_per_run(k.bench) / 2.93e12, "s at the copy bandwidth")

Traffic conventions (`bytes_per_run(params, w=8)`, w = bytes per element):
- stencils and SOR: each sweep reads its source array(s) once and writes its target once; no
  reuse across sweeps or time steps (the per-step floor of DESIGN.md: 4 n^2 w for jacobi_2d).
  Time tiling can beat this floor: a fraction above 1 then means temporal reuse.
- linear algebra: every input is read once and every output written once (compulsory traffic);
  triangular kernels count only the triangle they touch.
Flop counts (`flops_per_run(params)`) count +, -, *, / of the math with loop-invariant scalar
factors (alpha, 1 - omega, ...) hoisted out of the loops.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

KERNELS_DIR = Path(__file__).resolve().parent
C_DIR = KERNELS_DIR / "c"
CATEGORIES = ("stencil", "doacross", "linalg", "triangular")
SCALAR_TYPES = ("DATA_TYPE", "double", "float")


@dataclass(frozen=True)
class Kernel:
    """One kernel of the suite.

    name: the kernel's name; also the C function's name and, where present, the Python module's
        and function's name.
    c_file: file name under kernels/c/.
    function: the C function (one `#pragma scop` region) and the Python function.
    python_module: module under kernels/python/ holding `function`, or None.
    small, bench: integer size parameters (names as in the C signature); `small` runs the pure
        Python version in well under a second, `bench` fills an H100.
    category: one of CATEGORIES.
    bytes_per_run(params, w=8), flops_per_run(params): see the module docstring.
    memory_bound: whether the roofline ceiling is bandwidth (flops per byte of the traffic floor
        below the machine balance) rather than arithmetic.
    scalars: values of the floating-point scalar arguments (alpha, beta, omega).
    cupy_naive: function of kernels/naive_cupy.py written as a CuPy user would (slices, `@` for
        matrix-vector products), or None.
    cupy_blas: function of kernels/naive_cupy.py that is a cuBLAS call (BLAS-3), or None.
    prepare_inputs(arrays, params): adjusts random inputs in place where the math needs it
        (e.g. a dominant diagonal for a triangular solve), or None.
    """

    name: str
    c_file: str
    function: str
    python_module: str | None
    small: Mapping[str, int] = field(hash=False)
    bench: Mapping[str, int] = field(hash=False)
    category: str
    bytes_per_run: Callable[..., int]
    flops_per_run: Callable[[Mapping[str, int]], int]
    memory_bound: bool
    scalars: Mapping[str, float] = field(default_factory=dict, hash=False)
    cupy_naive: str | None = None
    cupy_blas: str | None = None
    prepare_inputs: Callable[[Mapping[str, object], Mapping[str, int]], None] | None = None

    @property
    def c_path(self) -> Path:
        return C_DIR / self.c_file


@dataclass(frozen=True)
class Arg:
    """One argument of a kernel's C function: kind "param" (int), "scalar" or "array".

    dims: an array's extents, each the name of an int parameter (outermost first).
    """

    name: str
    kind: str
    dims: tuple[str, ...] = ()


# -- traffic and flop helpers --------------------------------------------------------------------
def _tri(n: int) -> int:
    """Entries of an n x n triangle, diagonal included."""
    return n * (n + 1) // 2


def _two_sweep_stencil(dim: int, flops_per_point: int) -> dict:
    """bytes_per_run / flops_per_run of T steps of two sweeps over (n-2)^dim interior points."""
    return {
        "bytes_per_run": lambda p, w=8: 2 * 2 * p["T"] * p["n"] ** dim * w,
        "flops_per_run": lambda p: 2 * p["T"] * (p["n"] - 2) ** dim * flops_per_point,
    }


def _sor(dim: int, flops_per_point: int) -> dict:
    """bytes_per_run / flops_per_run of T in-place sweeps over (n-2)^dim interior points."""
    return {
        "bytes_per_run": lambda p, w=8: 2 * p["T"] * p["n"] ** dim * w,
        "flops_per_run": lambda p: p["T"] * (p["n"] - 2) ** dim * flops_per_point,
    }


def _lu_flops(n: int) -> int:
    """Right-looking LU of an n x n matrix: a division per multiplier, a multiply-subtract per
    trailing entry."""
    return n * (n - 1) // 2 + (n - 1) * n * (2 * n - 1) // 3


def _dominant_diagonal(arrays: Mapping[str, object], params: Mapping[str, int]) -> None:
    """Adds n to L's diagonal: forward substitution with random entries in [0.5, 1.5) grows like
    2^n (overflow beyond n ~ 1000); a dominant diagonal keeps x of the order of b / n."""
    n = params["n"]
    arrays["L"].reshape(-1)[:: n + 1] += n


def _dominant_diagonal_of(name: str) -> Callable[[Mapping[str, object], Mapping[str, int]], None]:
    """prepare_inputs adding 2 n to the diagonal of the n x n array `name`: with off-diagonal
    entries in [0.5, 1.5) it is then strictly diagonally dominant, so elimination without
    pivoting meets no small pivot and its entries stay of the order of the input."""
    def prepare(arrays: Mapping[str, object], params: Mapping[str, int]) -> None:
        n = params["n"]
        arrays[name].reshape(-1)[:: n + 1] += 2 * n
    return prepare


def _positive_definite(arrays: Mapping[str, object], params: Mapping[str, int]) -> None:
    """Makes A symmetric and strictly diagonally dominant with a positive diagonal, hence
    positive definite: Cholesky's square roots are then of positive numbers."""
    a, n = arrays["A"], params["n"]
    a[...] = (a + a.T) / 2
    a.reshape(-1)[:: n + 1] += 2 * n


def _toeplitz_positive_definite(arrays: Mapping[str, object], params: Mapping[str, int]) -> None:
    """Scales r by 1 / (3 n): every row of the unit-diagonal Toeplitz matrix then has off-diagonal
    entries summing below 1, so it is positive definite and Durbin's pivots beta stay in (0, 1]
    (with entries in [0.5, 1.5) it is indefinite: y is finite but solves no well-posed system)."""
    arrays["r"] /= 3 * params["n"]


_AB = {"alpha": 1.5, "beta": 1.2}
_OMEGA = {"omega": 1.25}

# -- the suite -----------------------------------------------------------------------------------
KERNELS: tuple[Kernel, ...] = (
    # stencils: T time steps of two Jacobi-style sweeps (A -> B, B -> A)
    Kernel("jacobi_1d", "jacobi_1d.c", "jacobi_1d", "jacobi_1d",
           small={"T": 3, "n": 20}, bench={"T": 100, "n": 1 << 24},
           category="stencil", memory_bound=True, cupy_naive="jacobi_1d",
           **_two_sweep_stencil(1, 3)),
    Kernel("jacobi_2d", "jacobi_2d.c", "jacobi_2d", "jacobi_2d",
           small={"T": 3, "n": 14}, bench={"T": 100, "n": 4096},
           category="stencil", memory_bound=True, cupy_naive="jacobi_2d",
           **_two_sweep_stencil(2, 5)),
    Kernel("jacobi_3d", "jacobi_3d.c", "jacobi_3d", "jacobi_3d",
           small={"T": 2, "n": 9}, bench={"T": 100, "n": 256},
           category="stencil", memory_bound=True, cupy_naive="jacobi_3d",
           **_two_sweep_stencil(3, 7)),
    # 23 additions inside the weight groups, 4 multiplications, 3 additions joining the groups
    Kernel("jacobi_3d_27pt", "jacobi_3d_27pt.c", "jacobi_3d_27pt", "jacobi_3d_27pt",
           small={"T": 2, "n": 8}, bench={"T": 100, "n": 256},
           category="stencil", memory_bound=True, cupy_naive="jacobi_3d_27pt",
           **_two_sweep_stencil(3, 30)),
    Kernel("heat_2d", "heat_2d.c", "heat_2d", "heat_2d",
           small={"T": 3, "n": 14}, bench={"T": 100, "n": 4096},
           category="stencil", memory_bound=True, cupy_naive="heat_2d",
           **_two_sweep_stencil(2, 7)),
    Kernel("heat_3d", "heat_3d.c", "heat_3d", "heat_3d",
           small={"T": 2, "n": 9}, bench={"T": 100, "n": 256},
           category="stencil", memory_bound=True, cupy_naive="heat_3d",
           **_two_sweep_stencil(3, 9)),
    # per step: ey and ex read themselves and hz (2 x 3 passes), hz reads ex, ey, hz (4 passes)
    Kernel("fdtd_2d", "fdtd_2d.c", "fdtd_2d", "fdtd_2d",
           small={"T": 3, "nx": 12, "ny": 15}, bench={"T": 100, "nx": 4096, "ny": 4096},
           category="stencil", memory_bound=True, cupy_naive="fdtd_2d",
           bytes_per_run=lambda p, w=8: (10 * p["nx"] * p["ny"] + 1) * p["T"] * w,
           flops_per_run=lambda p: p["T"] * (3 * (p["nx"] - 1) * p["ny"]
                                             + 3 * p["nx"] * (p["ny"] - 1)
                                             + 5 * (p["nx"] - 1) * (p["ny"] - 1))),
    # DOACROSS: in-place Gauss-Seidel / SOR sweeps; 1-D needs a long time loop for wavefronts
    Kernel("sor_1d", "sor_1d.c", "sor_1d", "sor_1d",
           small={"T": 3, "n": 20}, bench={"T": 512, "n": 1 << 23},
           category="doacross", memory_bound=True, scalars=_OMEGA, **_sor(1, 4)),
    Kernel("sor_2d", "sor_2d.c", "sor_2d", "sor_2d",
           small={"T": 3, "n": 14}, bench={"T": 100, "n": 4096},
           category="doacross", memory_bound=True, scalars=_OMEGA, **_sor(2, 6)),
    Kernel("sor_3d", "sor_3d.c", "sor_3d", "sor_3d",
           small={"T": 2, "n": 9}, bench={"T": 100, "n": 256},
           category="doacross", memory_bound=True, scalars=_OMEGA, **_sor(3, 8)),
    # dense linear algebra
    Kernel("gemm", "gemm.c", "gemm", "gemm",
           small={"ni": 14, "nj": 16, "nk": 18}, bench={"ni": 4096, "nj": 4096, "nk": 4096},
           category="linalg", memory_bound=False, scalars=_AB, cupy_blas="gemm",
           bytes_per_run=lambda p, w=8: (p["ni"] * p["nk"] + p["nk"] * p["nj"]
                                         + 2 * p["ni"] * p["nj"]) * w,
           flops_per_run=lambda p: 2 * p["ni"] * p["nj"] * p["nk"] + 2 * p["ni"] * p["nj"]),
    Kernel("two_mm", "two_mm.c", "two_mm", "two_mm",
           small={"ni": 12, "nj": 14, "nk": 16, "nl": 18},
           bench={"ni": 4096, "nj": 4096, "nk": 4096, "nl": 4096},
           category="linalg", memory_bound=False, scalars=_AB, cupy_blas="two_mm",
           bytes_per_run=lambda p, w=8: (p["ni"] * p["nk"] + p["nk"] * p["nj"]
                                         + p["nj"] * p["nl"] + 2 * p["ni"] * p["nl"]
                                         + p["ni"] * p["nj"]) * w,
           flops_per_run=lambda p: (2 * p["ni"] * p["nj"] * p["nk"] + p["ni"] * p["nj"]
                                    + 2 * p["ni"] * p["nl"] * p["nj"] + p["ni"] * p["nl"])),
    Kernel("three_mm", "three_mm.c", "three_mm", "three_mm",
           small={"ni": 12, "nj": 13, "nk": 14, "nl": 15, "nm": 16},
           bench={"ni": 4096, "nj": 4096, "nk": 4096, "nl": 4096, "nm": 4096},
           category="linalg", memory_bound=False, cupy_blas="three_mm",
           bytes_per_run=lambda p, w=8: (p["ni"] * p["nk"] + p["nk"] * p["nj"]
                                         + p["nj"] * p["nm"] + p["nm"] * p["nl"]
                                         + p["ni"] * p["nj"] + p["nj"] * p["nl"]
                                         + p["ni"] * p["nl"]) * w,
           flops_per_run=lambda p: 2 * (p["ni"] * p["nj"] * p["nk"] + p["nj"] * p["nl"] * p["nm"]
                                        + p["ni"] * p["nl"] * p["nj"])),
    Kernel("atax", "atax.c", "atax", "atax",
           small={"m": 14, "n": 18}, bench={"m": 8192, "n": 8192},
           category="linalg", memory_bound=True, cupy_naive="atax",
           bytes_per_run=lambda p, w=8: (p["m"] * p["n"] + 2 * p["n"] + p["m"]) * w,
           flops_per_run=lambda p: 4 * p["m"] * p["n"]),
    Kernel("bicg", "bicg.c", "bicg", "bicg",
           small={"n": 14, "m": 18}, bench={"n": 8192, "m": 8192},
           category="linalg", memory_bound=True, cupy_naive="bicg",
           bytes_per_run=lambda p, w=8: (p["n"] * p["m"] + 2 * p["n"] + 2 * p["m"]) * w,
           flops_per_run=lambda p: 4 * p["n"] * p["m"]),
    Kernel("mvt", "mvt.c", "mvt", "mvt",
           small={"n": 16}, bench={"n": 8192},
           category="linalg", memory_bound=True, cupy_naive="mvt",
           bytes_per_run=lambda p, w=8: (p["n"] ** 2 + 6 * p["n"]) * w,
           flops_per_run=lambda p: 4 * p["n"] ** 2),
    Kernel("gesummv", "gesummv.c", "gesummv", "gesummv",
           small={"n": 16}, bench={"n": 8192},
           category="linalg", memory_bound=True, scalars=_AB, cupy_naive="gesummv",
           bytes_per_run=lambda p, w=8: (2 * p["n"] ** 2 + 3 * p["n"]) * w,
           flops_per_run=lambda p: 4 * p["n"] ** 2 + 3 * p["n"]),
    # A is read, written, and read again: w = alpha A x needs all of x = beta A^T y + z first
    Kernel("gemver", "gemver.c", "gemver", "gemver",
           small={"n": 16}, bench={"n": 8192},
           category="linalg", memory_bound=True, scalars=_AB, cupy_naive="gemver",
           bytes_per_run=lambda p, w=8: (3 * p["n"] ** 2 + 10 * p["n"]) * w,
           flops_per_run=lambda p: 8 * p["n"] ** 2 + 3 * p["n"]),
    Kernel("doitgen", "doitgen.c", "doitgen", "doitgen",
           small={"nr": 5, "nq": 6, "nk": 7}, bench={"nr": 256, "nq": 256, "nk": 256},
           category="linalg", memory_bound=False, cupy_blas="doitgen",
           bytes_per_run=lambda p, w=8: (2 * p["nr"] * p["nq"] * p["nk"] + p["nk"] ** 2) * w,
           flops_per_run=lambda p: 2 * p["nr"] * p["nq"] * p["nk"] ** 2),
    # triangular domains
    Kernel("syr2k", "syr2k.c", "syr2k", "syr2k",
           small={"n": 14, "m": 16}, bench={"n": 4096, "m": 4096},
           category="triangular", memory_bound=False, scalars=_AB, cupy_blas="syr2k",
           bytes_per_run=lambda p, w=8: (2 * _tri(p["n"]) + 2 * p["n"] * p["m"]) * w,
           flops_per_run=lambda p: _tri(p["n"]) * (4 * p["m"] + 2)),
    Kernel("covariance", "covariance.c", "covariance", "covariance",
           small={"n": 18, "m": 14}, bench={"n": 4096, "m": 4096},
           category="triangular", memory_bound=False, cupy_blas="covariance",
           bytes_per_run=lambda p, w=8: (2 * p["n"] * p["m"] + p["m"] + p["m"] ** 2) * w,
           flops_per_run=lambda p: (2 * p["n"] * p["m"] + p["m"]
                                    + _tri(p["m"]) * (2 * p["n"] + 1))),
    Kernel("trmv", "trmv.c", "trmv", "trmv",
           small={"n": 20}, bench={"n": 8192},
           category="triangular", memory_bound=True, cupy_naive="trmv",
           bytes_per_run=lambda p, w=8: (_tri(p["n"]) + 2 * p["n"]) * w,
           flops_per_run=lambda p: 2 * _tri(p["n"])),
    Kernel("trisolv", "trisolv.c", "trisolv", "trisolv",
           small={"n": 20}, bench={"n": 8192},
           category="triangular", memory_bound=True, prepare_inputs=_dominant_diagonal,
           bytes_per_run=lambda p, w=8: (_tri(p["n"]) + 2 * p["n"]) * w,
           flops_per_run=lambda p: p["n"] ** 2),
    Kernel("syr", "syr.c", "syr", "syr",
           small={"n": 20}, bench={"n": 8192},
           category="triangular", memory_bound=True, scalars={"alpha": 1.5}, cupy_naive="syr",
           bytes_per_run=lambda p, w=8: (2 * _tri(p["n"]) + p["n"]) * w,
           flops_per_run=lambda p: 2 * _tri(p["n"])),
    # PolyBench/C 4.2.1 kernels written from their math; bench sizes are PolyBench's LARGE ones
    Kernel("symm", "symm.c", "symm", "symm",
           small={"m": 10, "n": 12}, bench={"m": 1000, "n": 1200},
           category="triangular", memory_bound=False, scalars=_AB,
           bytes_per_run=lambda p, w=8: (_tri(p["m"]) + 3 * p["m"] * p["n"]) * w,
           flops_per_run=lambda p: p["m"] * p["n"] * (2 * p["m"] + 2)),
    # the same product in PolyBench's scatter order, with its scalar temporary temp2
    Kernel("symm_scatter", "symm_scatter.c", "symm_scatter", None,
           small={"m": 10, "n": 12}, bench={"m": 1000, "n": 1200},
           category="triangular", memory_bound=False, scalars=_AB,
           bytes_per_run=lambda p, w=8: (_tri(p["m"]) + 3 * p["m"] * p["n"]) * w,
           flops_per_run=lambda p: p["m"] * p["n"] * (2 * p["m"] + 2)),
    Kernel("trmm", "trmm.c", "trmm", "trmm",
           small={"m": 10, "n": 12}, bench={"m": 1000, "n": 1200},
           category="triangular", memory_bound=False, scalars={"alpha": 1.5},
           bytes_per_run=lambda p, w=8: (_tri(p["m"] - 1) + 2 * p["m"] * p["n"]) * w,
           flops_per_run=lambda p: p["m"] ** 2 * p["n"]),
    Kernel("syrk", "syrk.c", "syrk", "syrk",
           small={"n": 12, "m": 10}, bench={"n": 1200, "m": 1000},
           category="triangular", memory_bound=False, scalars=_AB,
           bytes_per_run=lambda p, w=8: (2 * _tri(p["n"]) + p["n"] * p["m"]) * w,
           flops_per_run=lambda p: _tri(p["n"]) * (2 * p["m"] + 2)),
    # means n m + m, deviations 3 n m + m, standardization 2 n m + m, products m (m - 1) n
    Kernel("correlation", "correlation.c", "correlation", "correlation",
           small={"n": 14, "m": 12}, bench={"n": 1400, "m": 1200},
           category="triangular", memory_bound=False,
           bytes_per_run=lambda p, w=8: (2 * p["n"] * p["m"] + 2 * p["m"] + p["m"] ** 2) * w,
           flops_per_run=lambda p: (6 * p["n"] * p["m"] + 3 * p["m"]
                                    + p["m"] * (p["m"] - 1) * p["n"])),
    Kernel("lu", "lu.c", "lu", "lu",
           small={"n": 12}, bench={"n": 2000},
           category="triangular", memory_bound=False, prepare_inputs=_dominant_diagonal_of("A"),
           bytes_per_run=lambda p, w=8: 2 * p["n"] ** 2 * w,
           flops_per_run=lambda p: _lu_flops(p["n"])),
    Kernel("cholesky", "cholesky.c", "cholesky", "cholesky",
           small={"n": 12}, bench={"n": 2000},
           category="triangular", memory_bound=False, prepare_inputs=_positive_definite,
           bytes_per_run=lambda p, w=8: 2 * _tri(p["n"]) * w,
           flops_per_run=lambda p: (p["n"] - 1) * p["n"] * (2 * p["n"] - 1) // 6
           + p["n"] * (p["n"] - 1)),
    # per step k: 3 for beta, 2 k + 2 for alpha, 2 k for z
    Kernel("durbin", "durbin.c", "durbin", "durbin",
           small={"n": 16}, bench={"n": 2000},
           category="triangular", memory_bound=False, prepare_inputs=_toeplitz_positive_definite,
           bytes_per_run=lambda p, w=8: 3 * p["n"] * w,
           flops_per_run=lambda p: 2 * p["n"] * (p["n"] - 1) + 5 * (p["n"] - 1)),
    # full column rank needs m >= n: at the LARGE sizes (m < n) the columns k >= m are round-off
    # (every configuration, OpenMP included, FAILED the check there in full mode on the H100,
    # kernel-only-triangular.json of 2026-11-25), so full mode runs LARGE's extents transposed
    Kernel("gramschmidt", "gramschmidt.c", "gramschmidt", "gramschmidt",
           small={"m": 14, "n": 10}, bench={"m": 1200, "n": 1000},
           category="triangular", memory_bound=False,
           bytes_per_run=lambda p, w=8: (3 * p["m"] * p["n"] + _tri(p["n"])) * w,
           flops_per_run=lambda p: 3 * p["m"] * p["n"] + 2 * p["m"] * p["n"] * (p["n"] - 1)),
    Kernel("ludcmp", "ludcmp.c", "ludcmp", "ludcmp",
           small={"n": 12}, bench={"n": 2000},
           category="triangular", memory_bound=False, prepare_inputs=_dominant_diagonal_of("A"),
           bytes_per_run=lambda p, w=8: (2 * p["n"] ** 2 + 3 * p["n"]) * w,
           flops_per_run=lambda p: _lu_flops(p["n"]) + 2 * p["n"] * (p["n"] - 1) + p["n"]),
    # n^3 additions (comparisons not counted); compulsory traffic as for linear algebra
    Kernel("floyd_warshall", "floyd_warshall.c", "floyd_warshall", "floyd_warshall",
           small={"n": 12}, bench={"n": 2800},
           category="linalg", memory_bound=False,
           bytes_per_run=lambda p, w=8: 2 * p["n"] ** 2 * w,
           flops_per_run=lambda p: p["n"] ** 3),
    # per pass and point: 4 multiplications and 3 additions in each recursion, 1 addition to sum
    # them (the boundary's few saved operations are ignored); imgIn read, the rest written once
    Kernel("deriche", "deriche.c", "deriche", "deriche",
           small={"w": 10, "h": 12}, bench={"w": 4096, "h": 2160},
           category="doacross", memory_bound=True, scalars={"alpha": 0.25},
           bytes_per_run=lambda p, w=8: 4 * p["w"] * p["h"] * w,
           flops_per_run=lambda p: 30 * p["w"] * p["h"]),
    # per half step and interior point: 3 flops for p, 8 for q, 2 for the back substitution;
    # each half step reads its source, writes its target and writes and reads back p and q.
    # Memory-bound in the math, but the LARGE arrays (8 MB) fit the 50 MB L2: no DRAM ceiling
    Kernel("adi", "adi.c", "adi", "adi",
           small={"T": 2, "n": 10}, bench={"T": 500, "n": 1000},
           category="doacross", memory_bound=False,
           bytes_per_run=lambda p, w=8: 12 * p["T"] * p["n"] ** 2 * w,
           flops_per_run=lambda p: 26 * p["T"] * (p["n"] - 2) ** 2),
    # Shirako et al. 2017, Figure 1; as for adi, the LARGE arrays (13.5 MB) fit the L2
    Kernel("jacobi_2d_alt", "jacobi_2d_alt.c", "jacobi_2d_alt", "jacobi_2d_alt",
           small={"T": 3, "n": 14}, bench={"T": 500, "n": 1300},
           category="stencil", memory_bound=False, scalars={"fact": 0.5},
           bytes_per_run=lambda p, w=8: 4 * p["T"] * p["n"] ** 2 * w,
           flops_per_run=lambda p: 2 * p["T"] * (p["n"] - 2) ** 2),
)


# -- lookup and arguments ------------------------------------------------------------------------
def by_name(name: str) -> Kernel:
    """The kernel called `name`; KeyError lists the known names."""
    for kernel in KERNELS:
        if kernel.name == name:
            return kernel
    raise KeyError(f"{name=} is not in the suite: {[k.name for k in KERNELS]}")


def c_args(kernel: Kernel) -> tuple[Arg, ...]:
    """The arguments of the kernel's C function, read from its prototype in kernel.c_path.

    Raises:
        ValueError: no definition of kernel.function, or an argument of an unexpected form.
    """
    text = kernel.c_path.read_text()
    match = re.search(rf"\bvoid\s+{kernel.function}\s*\(([^)]*)\)\s*{{", text)
    if match is None:
        raise ValueError(f"no definition of {kernel.function}() in {kernel.c_path}")
    return tuple(_c_arg(decl.strip(), kernel) for decl in match.group(1).split(","))


def _c_arg(decl: str, kernel: Kernel) -> Arg:
    match = re.fullmatch(r"(\w+)\s+(\w+)\s*((?:\[\s*\w+\s*\])*)", decl)
    if match is None:
        raise ValueError(f"unexpected argument {decl!r} of {kernel.function}()")
    ctype, name, subscripts = match.groups()
    dims = tuple(re.findall(r"\[\s*(\w+)\s*\]", subscripts))
    if ctype == "int" and not dims:
        return Arg(name, "param")
    if ctype in SCALAR_TYPES:
        return Arg(name, "array", dims) if dims else Arg(name, "scalar")
    raise ValueError(f"unexpected type {ctype!r} of argument {name!r} of {kernel.function}()")


def random_args(kernel: Kernel, params: Mapping[str, int], rng: np.random.Generator,
                dtype=np.float64) -> list:
    """Arguments for one call, in the C (and Python) argument order: the int `params`, the
    kernel's scalars, and C-ordered arrays of `dtype` with entries uniform in [0.5, 1.5)
    (never 0, so a missed write or a wrong operand shows), adjusted by kernel.prepare_inputs."""
    args, arrays = [], {}
    for arg in c_args(kernel):
        if arg.kind == "param":
            args.append(int(params[arg.name]))
        elif arg.kind == "scalar":
            args.append(float(kernel.scalars[arg.name]))
        else:
            shape = tuple(int(params[d]) for d in arg.dims)
            arrays[arg.name] = rng.uniform(0.5, 1.5, shape).astype(dtype)
            args.append(arrays[arg.name])
    if kernel.prepare_inputs is not None:
        kernel.prepare_inputs(arrays, params)
    return args


def python_function(kernel: Kernel) -> Callable:
    """The plain Python version of the kernel (kernels/python/<module>.py)."""
    if kernel.python_module is None:
        raise ValueError(f"kernel {kernel.name!r} has no Python version")
    module = importlib.import_module(f"kernels.python.{kernel.python_module}")
    return getattr(module, kernel.function)
