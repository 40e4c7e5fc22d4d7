"""PPCG's times on the reference GPU, as DESIGN.md records them ("The peer to beat: PPCG on the
reference GPU"), with polycuda's times of that run, sequential gcc -O3 and PolyBench's LARGE
sizes; parsed from DESIGN's own text so that the numbers here are the numbers there.

Example:
    >>> row = ROWS["gemm"]
    >>> row.ppcg_ms, row.default_ms, row.gcc_ms
    (6.13, 5.86, 869.0)
    >>> large_sizes()["gemm"]
    {'NI': 1000, 'NJ': 1100, 'NK': 1200}
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

DATE = "2026-11-24"
GPU = "NVIDIA H100 80GB HBM3"
SOURCE = ("DESIGN.md, section \"The peer to beat: PPCG on the reference GPU (measured "
          "2026-11-24, same run as polycuda)\"")
SETUP = ("PPCG 0.09.2 (upstream, isl scheduler, default options), PolyBench/C 4.2.1 problems at "
         "LARGE sizes, double precision, time of the whole drop-in function: device allocation, "
         "copies in and out, all kernels, device free (CUDA context created beforehand; median "
         "of 3)")
COLUMNS = ("PPCG", "polycuda default", "polycuda --scheduler pluto", "sequential gcc -O3")

# DESIGN.md's table, verbatim up to line breaks: "name PPCG | default | pluto | gcc -O3" in ms,
# ';'-separated.
TABLE_TEXT = """\
jacobi-1d 4.45 | 4.60 | 0.82 | 0.96;  jacobi-2d 16.1 | 15.2 | 13.4 | 1505;
seidel-2d 85.9 | 95.5 | 75.6 | 21813;  fdtd-2d 19.7 | 215.5 | 31.2 | 1713;
heat-3d 118.7 | 19.4 | 127.7 | 2768;  gemm 6.13 | 5.86 | 6.31 | 869;
2mm 13.1 | 13.7 | 306.9 | 3123;  3mm 27.4 | 28.2 | 29.4 | 4029;  atax 5.72 | 6.26 | 218.4 | 8.0;
bicg 5.94 | 5.75 | 5.58 | 23.0;  mvt 5.29 | 4.80 | 4.98 | 25.0;  gesummv 4.09 | 4.72 | 4.50 | 5.8;
gemver 7.51 | 7.83 | 1194 | 26.2;  doitgen 268 | 534 | 7487 | 559;
covariance 19.3 | 17.7 | 1197 | 8817;  correlation 16.8 | 16.1 | 1473 | 7746;
syrk 6.64 | 6.70 | 6.71 | 870;  syr2k 9.60 | 9.77 | 10.0 | 4340;  symm 6.03 | 26848 | 52151 | 2910;
trmm 26.3 | 84.3 | 87.7 | 2036;  lu 55.7 | 875 | 41.9 | 5761;  cholesky 35.9 | 41.7 | 32.8 | 1522;
durbin 112 | 107 | 126 | 2.9;  trisolv 27.6 | 21.7 | 10.0 | 3.9;
gramschmidt 249 | 314 | 1623 | 9099."""

# DESIGN.md's PolyBench LARGE sizes, verbatim up to line breaks (gemm's "NIxNJxNK" as PolyBench
# orders them).
LARGE_SIZES_TEXT = """\
jacobi-1d T=500 N=2000; jacobi-2d T=500 N=1300; seidel-2d T=500 N=2000; fdtd-2d T=500
NX=1000 NY=1200; heat-3d T=500 N=120; gemm 1000x1100x1200; 2mm NI=800 NJ=900 NK=1100 NL=1200; 3mm
NI=800 NJ=900 NK=1000 NL=1100 NM=1200; atax, bicg M=1900 N=2100; mvt, gemver, lu, cholesky, durbin,
trisolv, ludcmp N=2000; gesummv N=1300; doitgen NQ=140 NR=150 NP=160; covariance, correlation M=1200
N=1400; syrk, syr2k, symm, trmm, gramschmidt M=1000 N=1200; floyd-warshall N=2800; adi T=500 N=1000;
deriche W=4096 H=2160."""
GEMM_PARAMS = ("NI", "NJ", "NK")
_SIZE_WORD = re.compile(r"\w+=\d+|\d+(x\d+)+")

# DESIGN's geometric means are over the first 22 kernels of its list (durbin, trisolv and
# gramschmidt, where the sequential CPU code wins, left out); the figures it states:
GEOMEAN_FIRST = 22
DESIGN_GEOMEANS = {"ppcg_over_default": 1.9, "ppcg_over_best_of_default_and_pluto": 1.35,
                   "gcc_over_ppcg": 36.8, "gcc_over_default": 19.6}


@dataclass(frozen=True)
class Row:
    """One kernel of DESIGN's table: its PolyBench name, position (0-based) and times in ms."""

    polybench: str
    index: int
    ppcg_ms: float
    default_ms: float
    pluto_ms: float
    gcc_ms: float

    @property
    def in_design_geomean(self) -> bool:
        """Whether DESIGN's geometric means count this kernel (the first GEOMEAN_FIRST)."""
        return self.index < GEOMEAN_FIRST


def parse_table(text: str) -> dict[str, Row]:
    """The rows of a table in TABLE_TEXT's form, by PolyBench name, in the text's order.

    Raises:
        ValueError: a row without a name and four numbers, or a name given twice.
    """
    rows: dict[str, Row] = {}
    for item in _items(text):
        name, _, rest = item.partition(" ")
        values = [v.strip() for v in rest.split("|")]
        if len(values) != 4 or not all(_is_number(v) for v in values):
            raise ValueError(f"expected 'name ms | ms | ms | ms', got {item!r}")
        if name in rows:
            raise ValueError(f"kernel {name!r} given twice")
        rows[name] = Row(name, len(rows), *(float(v) for v in values))
    return rows


def parse_large_sizes(text: str) -> dict[str, dict[str, int]]:
    """PolyBench LARGE sizes in LARGE_SIZES_TEXT's form: {"atax": {"M": 1900, "N": 2100}, ...}.

    Raises:
        ValueError: an item without sizes, or a size that is not NAME=INTEGER.
    """
    sizes: dict[str, dict[str, int]] = {}
    for item in _items(text):
        words = item.replace(",", " ").split()
        names = list(itertools.takewhile(lambda w: not _SIZE_WORD.fullmatch(w), words))
        values = words[len(names):]
        if not names or not values:
            raise ValueError(f"expected 'kernel[, kernel] NAME=VALUE ...', got {item!r}")
        parsed = _sizes(values, item)
        for name in names:
            sizes[name] = dict(parsed)
    return sizes


def _sizes(values: list[str], item: str) -> dict[str, int]:
    if len(values) == 1 and "=" not in values[0]:  # gemm's NIxNJxNK
        extents = values[0].split("x")
        if len(extents) == len(GEMM_PARAMS) and all(e.isdigit() for e in extents):
            return dict(zip(GEMM_PARAMS, (int(e) for e in extents)))
    pairs = [v.partition("=") for v in values]
    if not all(eq and k.isidentifier() and v.isdigit() for k, eq, v in pairs):
        raise ValueError(f"expected NAME=INTEGER sizes in {item!r}")
    return {k: int(v) for k, _, v in pairs}


def _items(text: str) -> list[str]:
    """The ';'-separated items of a DESIGN line, line breaks joined, the final '.' dropped."""
    joined = " ".join(text.split()).rstrip(".")
    return [item.strip() for item in joined.split(";") if item.strip()]


def _is_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


ROWS: Mapping[str, Row] = parse_table(TABLE_TEXT)


def large_sizes() -> dict[str, dict[str, int]]:
    """PolyBench's LARGE sizes of DESIGN.md, by PolyBench kernel name."""
    return parse_large_sizes(LARGE_SIZES_TEXT)


def geomean(values: Iterable[float]) -> float | None:
    """The geometric mean of positive values; None for none.

    Example:
        >>> geomean([2.0, 8.0])
        4.0
    """
    logs = [math.log(v) for v in values]
    return math.exp(sum(logs) / len(logs)) if logs else None


def ratio(ppcg_ms: float, ours_s: float | None) -> float | None:
    """PPCG's time over ours (ms over seconds): > 1 means polycuda is faster; None unmeasured.

    Example:
        >>> ratio(6.0, 0.003)
        2.0
    """
    return ppcg_ms / (ours_s * 1e3) if ours_s else None


def design_geomeans(rows: Mapping[str, Row] | None = None) -> dict[str, float | None]:
    """DESIGN's stated geometric means recomputed from its rows (the first GEOMEAN_FIRST):
    PPCG's speedup over polycuda's default and over the better of default and pluto per
    kernel, and the speedups of PPCG and of polycuda's default over gcc -O3."""
    first = [r for r in (rows or ROWS).values() if r.in_design_geomean]
    return {
        "ppcg_over_default": geomean(r.default_ms / r.ppcg_ms for r in first),
        "ppcg_over_best_of_default_and_pluto": geomean(
            min(r.default_ms, r.pluto_ms) / r.ppcg_ms for r in first),
        "gcc_over_ppcg": geomean(r.gcc_ms / r.ppcg_ms for r in first),
        "gcc_over_default": geomean(r.gcc_ms / r.default_ms for r in first),
    }
