"""PolyBench/C 4.2.1's five datasets (MINI .. EXTRALARGE, the sizes its headers define per
kernel), for `polycuda bench --ppcg --dataset NAME`: issue 41's floor (no kernel below 0.9x of
sequential gcc -O3 at any of them) is measured at these sizes. LARGE is the text DESIGN's PPCG
run names (ppcg_reference.LARGE_SIZES_TEXT); the others are written in the same form, one
item per kernel (or kernels of one size), TSTEPS / TMAX as T, gemm as NI x NJ x NK.

Example:
    >>> polybench_sizes("MINI")["gemm"]
    {'NI': 20, 'NJ': 25, 'NK': 30}
    >>> polybench_sizes("EXTRALARGE")["floyd-warshall"]
    {'N': 5600}
"""

from __future__ import annotations

from polycuda.bench.ppcg_reference import LARGE_SIZES_TEXT, parse_large_sizes

DATASETS = ("MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE")
# The dataset of ppcg mode without --dataset: DESIGN's PPCG times are at it.
PPCG_DATASET = "LARGE"

_TEXTS = {
    "MINI": """\
jacobi-1d T=20 N=30; jacobi-2d T=20 N=30; seidel-2d T=20 N=40; fdtd-2d T=20 NX=20 NY=30;
heat-3d T=20 N=10; gemm 20x25x30; 2mm NI=16 NJ=18 NK=22 NL=24; 3mm NI=16 NJ=18 NK=20 NL=22
NM=24; atax, bicg M=38 N=42; mvt, gemver, lu, cholesky, durbin, trisolv, ludcmp N=40; gesummv
N=30; doitgen NQ=8 NR=10 NP=12; covariance, correlation M=28 N=32; syrk, syr2k, symm, trmm,
gramschmidt M=20 N=30; floyd-warshall N=60; adi T=20 N=20; deriche W=64 H=64; nussinov N=60.""",
    "SMALL": """\
jacobi-1d T=40 N=120; jacobi-2d T=40 N=90; seidel-2d T=40 N=120; fdtd-2d T=40 NX=60 NY=80;
heat-3d T=40 N=20; gemm 60x70x80; 2mm NI=40 NJ=50 NK=70 NL=80; 3mm NI=40 NJ=50 NK=60 NL=70
NM=80; atax, bicg M=116 N=124; mvt, gemver, lu, cholesky, durbin, trisolv, ludcmp N=120;
gesummv N=90; doitgen NQ=20 NR=25 NP=30; covariance, correlation M=80 N=100; syrk, syr2k, symm,
trmm, gramschmidt M=60 N=80; floyd-warshall N=180; adi T=40 N=60; deriche W=192 H=128; nussinov
N=180.""",
    "MEDIUM": """\
jacobi-1d T=100 N=400; jacobi-2d T=100 N=250; seidel-2d T=100 N=400; fdtd-2d T=100 NX=200
NY=240; heat-3d T=100 N=40; gemm 200x220x240; 2mm NI=180 NJ=190 NK=210 NL=220; 3mm NI=180
NJ=190 NK=200 NL=210 NM=220; atax, bicg M=390 N=410; mvt, gemver, lu, cholesky, durbin, trisolv,
ludcmp N=400; gesummv N=250; doitgen NQ=40 NR=50 NP=60; covariance, correlation M=240 N=260;
syrk, syr2k, symm, trmm, gramschmidt M=200 N=240; floyd-warshall N=500; adi T=100 N=200; deriche
W=720 H=480; nussinov N=500.""",
    "LARGE": LARGE_SIZES_TEXT,
    "EXTRALARGE": """\
jacobi-1d T=1000 N=4000; jacobi-2d T=1000 N=2800; seidel-2d T=1000 N=4000; fdtd-2d T=1000
NX=2000 NY=2600; heat-3d T=1000 N=200; gemm 2000x2300x2600; 2mm NI=1600 NJ=1800 NK=2200 NL=2400;
3mm NI=1600 NJ=1800 NK=2000 NL=2200 NM=2400; atax, bicg M=1800 N=2200; mvt, gemver, lu,
cholesky, durbin, trisolv, ludcmp N=4000; gesummv N=2800; doitgen NQ=220 NR=250 NP=270;
covariance, correlation M=2600 N=3000; syrk, syr2k, symm, trmm, gramschmidt M=2000 N=2600;
floyd-warshall N=5600; adi T=1000 N=2000; deriche W=7680 H=4320; nussinov N=5500.""",
}


def polybench_sizes(dataset: str) -> dict[str, dict[str, int]]:
    """PolyBench's sizes of `dataset`, by PolyBench kernel name, in PolyBench's size names.

    Raises:
        ValueError: a dataset that is not one of DATASETS.
    """
    if dataset not in _TEXTS:
        raise ValueError(f"unknown dataset {dataset!r}: expected one of {', '.join(DATASETS)}")
    return parse_large_sizes(_TEXTS[dataset])
