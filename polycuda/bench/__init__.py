"""`polycuda bench`: the kernel suite against every baseline (sequential gcc -O3, OpenMP, naive
CuPy, cuBLAS, polycuda's configurations: isl, pluto, Di et al.'s intra and inter), with tables,
JSON and plots; `--ppcg` measures as PPCG was and compares with its times (ppcg.py).

Example:
    >>> from polycuda.bench import harness, report                 # doctest: +SKIP
    >>> results = harness.run_bench(harness.Settings(kernels=("gemm",), mode="quick"))
    >>> print(report.table(results)); print(report.summary(results))
"""

from polycuda.bench.report import summary

__all__ = ["summary"]
