"""Problem sizes of `polycuda bench`: full (one H100 run of the whole suite in < 10 minutes),
quick (< 2 minutes), small (the suite's verification sizes: a smoke test of seconds), paper
(the stencils of Di et al. 2012, Table II, with fewer time steps).

Full sizes are the suite's `bench` sizes where the sequential gcc -O3 baseline runs in a few
seconds; elsewhere they are cut so that it does, because every kernel's sequential run is also
its correctness oracle at the sizes that are timed:
- stencils and SOR keep their spatial extents (every array > L2) and run fewer time steps;
- cubic kernels (gemm family, syr2k, covariance, doitgen) use 1024 (doitgen 192) instead
  of 4096 (256): the user's gemm loop runs at ~1 GFLOP/s on one core;
- matrix-vector kernels keep n = 8192 (a 512 MiB matrix).
Quick sizes shrink the arrays to 8-32 MiB and the cubic kernels to 384-512.

Paper sizes are Table II's spatial extents, reduced in T like the full mode (and for the same
reason: the sequential oracle must run in seconds), from 1000 x 4096 x 4096 (2-D: Jacobi, SOR,
FDTD, heat), 65536 x 65536 (1-D Jacobi and SOR) and 256 x 256^3 (3-D Jacobi, 7 and 27 points):
- 2-D and 3-D: the extents are the full mode's, so are T (20; FDTD and 27 points 10);
- 1-D: n = 65536 with T = 16384, where sor_1d's oracle (a loop-carried sweep, the slower one)
  runs in 3.0 s and jacobi_1d's in 0.7 s (gcc -O3 -march=native, double, on an AMD EPYC; the
  full mode's 2-D and 3-D oracles take 0.5-1.4 s there).
Without kernel names, paper mode runs these 8 kernels; another kernel named gets full sizes.

PPCG sizes (`--ppcg`) are PolyBench/C 4.2.1's LARGE sizes (ppcg_reference.LARGE_SIZES_TEXT),
at which DESIGN.md's H200 run timed PPCG, or with `--dataset NAME` another of PolyBench's five
datasets (datasets.py: MINI .. EXTRALARGE, no PPCG times there, the sequential ratio only),
mapped onto our kernels' parameters:
- PolyBench's TSTEPS / TMAX is our T: our stencils run t = 0 .. T-1, PolyBench's heat-3d runs
  t = 1 .. TSTEPS, the same 500 steps;
- every other size is PolyBench's name in lower case, with PolyBench's meaning: the arrays have
  PolyBench's extents (atax A[m][n]; bicg A[n][m]; covariance, correlation data[n][m]; syrk,
  syr2k C[n][n], A[n][m]; symm, trmm B[m][n], A[m][m]; gramschmidt A[m][n], R[n][n]; gemm, 2mm,
  3mm as PolyBench; gemm's "1000x1100x1200" is NI x NJ x NK; deriche imgIn[w][h]);
- except doitgen, whose third extent PolyBench calls NP (A[NR][NQ][NP], C4[NP][NP]) and we nk.
seidel-2d has no kernel of ours and nussinov no times in DESIGN's table (PPCG_LEFT_OUT says
why); gramschmidt is checked at other sizes than it is timed at, M and N swapped
(PPCG_CHECK_SIZES says why).
Without kernel names, ppcg mode runs the kernels of DESIGN's table that we have (PPCG_KERNELS, in
its order) whose PPCG time is of the run's element type (ppcg_kernels: deriche's is float, the
others' double); another kernel named gets the dataset's sizes where PolyBench has them, else
full sizes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from polycuda.bench.datasets import DATASETS, PPCG_DATASET, polybench_sizes
from polycuda.bench.ppcg_reference import ROWS, UNTIMED

MODES = ("full", "quick", "small", "paper", "ppcg")

_T_FULL = {"T": 20}
FULL: dict[str, dict[str, int]] = {
    "jacobi_1d": {**_T_FULL, "n": 1 << 24},
    "jacobi_2d": {**_T_FULL, "n": 4096},
    "jacobi_3d": {**_T_FULL, "n": 256},
    "jacobi_3d_27pt": {"T": 10, "n": 256},
    "heat_2d": {**_T_FULL, "n": 4096},
    "heat_3d": {**_T_FULL, "n": 256},
    "fdtd_2d": {"T": 10, "nx": 4096, "ny": 4096},
    "sor_1d": {"T": 64, "n": 1 << 22},
    "sor_2d": {**_T_FULL, "n": 4096},
    "sor_3d": {**_T_FULL, "n": 256},
    "gemm": {"ni": 1024, "nj": 1024, "nk": 1024},
    "two_mm": {"ni": 1024, "nj": 1024, "nk": 1024, "nl": 1024},
    "three_mm": {"ni": 1024, "nj": 1024, "nk": 1024, "nl": 1024, "nm": 1024},
    "atax": {"m": 8192, "n": 8192},
    "bicg": {"n": 8192, "m": 8192},
    "mvt": {"n": 8192},
    "gesummv": {"n": 8192},
    "gemver": {"n": 8192},
    "doitgen": {"nr": 192, "nq": 192, "nk": 192},
    "syr2k": {"n": 1024, "m": 1024},
    "covariance": {"n": 1024, "m": 1024},
    "trmv": {"n": 8192},
    "trisolv": {"n": 8192},
    "syr": {"n": 8192},
}

QUICK: dict[str, dict[str, int]] = {
    "jacobi_1d": {"T": 10, "n": 1 << 21},
    "jacobi_2d": {"T": 10, "n": 1024},
    "jacobi_3d": {"T": 10, "n": 96},
    "jacobi_3d_27pt": {"T": 5, "n": 96},
    "heat_2d": {"T": 10, "n": 1024},
    "heat_3d": {"T": 10, "n": 96},
    "fdtd_2d": {"T": 10, "nx": 1024, "ny": 1024},
    "sor_1d": {"T": 16, "n": 1 << 18},
    "sor_2d": {"T": 10, "n": 1024},
    "sor_3d": {"T": 10, "n": 96},
    "gemm": {"ni": 512, "nj": 512, "nk": 512},
    "two_mm": {"ni": 384, "nj": 384, "nk": 384, "nl": 384},
    "three_mm": {"ni": 384, "nj": 384, "nk": 384, "nl": 384, "nm": 384},
    "atax": {"m": 2048, "n": 2048},
    "bicg": {"n": 2048, "m": 2048},
    "mvt": {"n": 2048},
    "gesummv": {"n": 2048},
    "gemver": {"n": 2048},
    "doitgen": {"nr": 96, "nq": 96, "nk": 96},
    "syr2k": {"n": 512, "m": 512},
    "covariance": {"n": 512, "m": 512},
    "trmv": {"n": 2048},
    "trisolv": {"n": 2048},
    "syr": {"n": 2048},
}

# Di et al. 2012, Table II
PAPER_KERNELS = ("jacobi_1d", "sor_1d", "jacobi_2d", "sor_2d", "fdtd_2d", "heat_2d", "jacobi_3d",
                 "jacobi_3d_27pt")
_PAPER_1D = {"T": 16384, "n": 65536}
PAPER: dict[str, dict[str, int]] = {
    name: dict(_PAPER_1D) if name in ("jacobi_1d", "sor_1d") else dict(FULL[name])
    for name in PAPER_KERNELS
}

# PolyBench name -> suite kernel, for every PolyBench kernel that we have.
POLYBENCH_TO_SUITE: dict[str, str] = {
    "jacobi-1d": "jacobi_1d", "jacobi-2d": "jacobi_2d", "fdtd-2d": "fdtd_2d",
    "heat-3d": "heat_3d", "gemm": "gemm", "2mm": "two_mm", "3mm": "three_mm", "atax": "atax",
    "bicg": "bicg", "mvt": "mvt", "gesummv": "gesummv", "gemver": "gemver",
    "doitgen": "doitgen", "covariance": "covariance", "correlation": "correlation",
    "syrk": "syrk", "syr2k": "syr2k", "symm": "symm_scatter", "trmm": "trmm", "lu": "lu",
    "cholesky": "cholesky", "durbin": "durbin", "trisolv": "trisolv",
    "gramschmidt": "gramschmidt", "ludcmp": "ludcmp", "floyd-warshall": "floyd_warshall",
    "adi": "adi", "deriche": "deriche"}
SUITE_TO_POLYBENCH = {ours: theirs for theirs, ours in POLYBENCH_TO_SUITE.items()}
PPCG_LEFT_OUT: dict[str, str] = {
    "seidel-2d": "no suite kernel: kernels/c/sor_2d.c is 5-point successive over-relaxation "
                 "(factor omega), not PolyBench's 9-point Gauss-Seidel average seidel-2d",
    **{name: f"no times in DESIGN's table: {why}" for name, why in UNTIMED.items()}}
# PolyBench's size names that are not ours in lower case (see the module docstring)
_PARAM_RENAMES: dict[str, dict[str, str]] = {"doitgen": {"NP": "nk"}}


def our_param(polybench: str, param: str) -> str:
    """Our name of PolyBench kernel `polybench`'s size `param`: "T" stays, doitgen's "NP" is
    "nk", the others in lower case ("NX" -> "nx")."""
    default = param if param == "T" else param.lower()
    return _PARAM_RENAMES.get(polybench, {}).get(param, default)


def _suite_sizes(dataset: str) -> dict[str, dict[str, int]]:
    return {POLYBENCH_TO_SUITE[name]: {our_param(name, p): v for p, v in at.items()}
            for name, at in polybench_sizes(dataset).items() if name in POLYBENCH_TO_SUITE}


# PolyBench's sizes per dataset (datasets.DATASETS) by suite kernel, in our parameter names
# (our_param), for the kernels that we have; PPCG is LARGE's.
DATASET_SIZES: dict[str, dict[str, dict[str, int]]] = {d: _suite_sizes(d) for d in DATASETS}
PPCG: dict[str, dict[str, int]] = DATASET_SIZES[PPCG_DATASET]
PPCG_KERNELS = tuple(POLYBENCH_TO_SUITE[name] for name in ROWS if name in POLYBENCH_TO_SUITE)


def ppcg_kernels(dtype: str = "double") -> tuple[str, ...]:
    """The kernels of PPCG_KERNELS whose PPCG time is of element type `dtype`, in its order."""
    return tuple(k for k in PPCG_KERNELS if ROWS[SUITE_TO_POLYBENCH[k]].dtype == dtype)

# Kernels whose problem at PolyBench's sizes is ill-posed, so that no other rounding passes the
# check: ppcg mode checks the same library at other sizes (random inputs, against the oracle
# there), given by a function of the timed ones, and times it at PolyBench's.
def _transposed(sizes: Mapping[str, int]) -> dict[str, int]:
    return {**sizes, "m": sizes["n"], "n": sizes["m"]}


PPCG_CHECK_SIZES: dict[str, tuple[Callable[[Mapping[str, int]], dict[str, int]], str]] = {
    "gramschmidt": (_transposed,
                    ("at PolyBench's sizes M < N (LARGE: M=1000 < N=1200): the columns past the "
                     "M-th are rounding noise (a relative change of 1e-15 in A moves them by up "
                     "to 7e4 relative at LARGE, in NumPy; polycuda's OpenMP code FAILED there "
                     "against gcc -O3 on the CPU), with M and N swapped they have full rank "
                     "and the same code passes")),
}
# Ppcg mode's double kernels in two runs, where one may not last over the device's 10 minutes:
# those whose polycuda code (default options) took under PPCG_SLOW_MS per call in DESIGN's run,
# then the others (see bench/README.md's ppcg section).
PPCG_SLOW_MS = 500.0
PPCG_SLOW = tuple(k for k in ppcg_kernels("double")
                  if ROWS[SUITE_TO_POLYBENCH[k]].polycuda_ms > PPCG_SLOW_MS)
PPCG_PARTS = (tuple(k for k in ppcg_kernels("double") if k not in PPCG_SLOW), PPCG_SLOW)


def sizes_for(kernel: object, mode: str, overrides: Mapping[str, int] | None = None,
              dataset: str = PPCG_DATASET) -> dict[str, int]:
    """The integer parameters of `kernel` (a kernels.suite.Kernel) in `mode` (ppcg mode: at
    PolyBench's `dataset`), with the parameters named in `overrides` (`bench --size`)
    replaced where the kernel has them.

    A kernel missing from the tables (added to the suite later) gets its `bench` sizes in
    full mode and its `small` sizes otherwise; paper and ppcg modes fall back to full sizes.

    Raises:
        ValueError: an unknown mode or dataset.
    """
    if dataset not in DATASET_SIZES:
        raise ValueError(f"unknown dataset {dataset!r}: expected one of {', '.join(DATASETS)}")
    sizes = _mode_sizes(kernel, mode, dataset)
    return {k: (overrides or {}).get(k, v) for k, v in sizes.items()}


def check_sizes_for(kernel: object, mode: str, sizes: Mapping[str, int],
                    dataset: str = PPCG_DATASET) -> dict[str, int] | None:
    """Where ppcg mode checks `kernel` instead of at `sizes` (PPCG_CHECK_SIZES), None to check
    at `sizes` (other modes, other kernels, sizes other than `dataset`'s)."""
    name: str = kernel.name  # type: ignore[attr-defined]
    if (mode != "ppcg" or name not in PPCG_CHECK_SIZES
            or dict(sizes) != DATASET_SIZES[dataset].get(name)):
        return None
    return PPCG_CHECK_SIZES[name][0](sizes)


def parse_size(text: str) -> tuple[str, int]:
    """One `--size NAME=VALUE` (a positive integer); ValueError otherwise."""
    name, eq, value = text.partition("=")
    if not eq or not name.isidentifier() or not value.strip().isdigit() or int(value) < 1:
        raise ValueError(f"expected NAME=VALUE with a positive integer VALUE, got {text!r}")
    return name, int(value)


def _mode_sizes(kernel: object, mode: str, dataset: str = PPCG_DATASET) -> dict[str, int]:
    name: str = kernel.name  # type: ignore[attr-defined]
    small: Mapping[str, int] = kernel.small  # type: ignore[attr-defined]
    if mode == "small":
        return dict(small)
    if mode == "quick":
        return dict(QUICK.get(name) or small)
    if mode == "paper" and name in PAPER:
        return dict(PAPER[name])
    if mode == "ppcg" and name in (polybench := DATASET_SIZES[dataset]):
        return dict(polybench[name])
    if mode in ("full", "paper", "ppcg"):
        bench: Mapping[str, int] = kernel.bench  # type: ignore[attr-defined]
        return dict(FULL.get(name) or bench)
    raise ValueError(f"{mode=} is not one of {MODES}")
