"""PPCG's times on the H200, as DESIGN.md records them ("The peer to beat: PPCG on the H200"),
with polycuda's and sequential gcc's times of that run, its stated geometric means and
PolyBench's LARGE sizes; the table and the statements are parsed from DESIGN's own text so that
the numbers here are the numbers there.

Example:
    >>> row = ROWS["gemm"]
    >>> row.ppcg_ms, row.polycuda_ms, row.gcc_ms
    (6.3, 5.94, 515.0)
    >>> UNTIMED["nussinov"]
    "PPCG's code does not build, polycuda refuses `char`"
    >>> large_sizes()["gemm"]
    {'NI': 1000, 'NJ': 1100, 'NK': 1200}
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

DATE = "2026-12-01"
GPU = "NVIDIA H200"
SOURCE = ("DESIGN.md, section \"The peer to beat: PPCG on the H200 (measured 2026-12-01, same "
          "run as polycuda)\"")
SETUP = ("PPCG 0.09.2 (upstream, isl scheduler, default options), PolyBench/C 4.2.1's own files "
         "at LARGE sizes, double (deriche float), time of PolyBench's timed region around the "
         "kernel call: device allocation, copies in and out, all kernels, device free (CUDA "
         "context created before main, CUDA_MODULE_LOADING=EAGER; median of 5 interleaved runs, "
         "1-2 for the slowest). polycuda at 1b5279d with default options, no tuning. "
         "Correctness checked on MEDIUM dumps against gcc -O3 (rtol 1e-6): all correct but "
         "gramschmidt (both compilers and gcc disagree: ill-conditioned) and PPCG's deriche "
         "(float).")
COLUMNS = ("PPCG", "polycuda", "sequential gcc -O3 -march=native")
# The commit of polycuda whose times the table's second column holds (SETUP's words).
DESIGN_COMMIT = re.search(r"polycuda at (\w+)", SETUP).group(1)  # type: ignore[union-attr]

# DESIGN.md's table, verbatim up to line breaks: "name PPCG | polycuda | gcc" in ms, or
# "name: why" for a kernel without times, ';'-separated.
TABLE_TEXT = """\
jacobi-1d 5.19 | 0.86 | 0.68;  jacobi-2d 16.1 | 13.0 | 1228;  seidel-2d 86.4 | 73.7 | 20113;
fdtd-2d 19.6 | 12.4 | 1517;  heat-3d 120 | 16.6 | 2133;  gemm 6.30 | 5.94 | 515;  2mm 15.8 | 8.76 | 2573;
3mm 35.7 | 15.8 | 2971;  atax 4.87 | 4.87 | 6.46;  bicg 6.20 | 4.13 | 14.5;  mvt 6.08 | 4.92 | 21.1;
gesummv 4.68 | 4.67 | 5.83;  gemver 7.94 | 5.54 | 29.3;  doitgen 255 | 202 | 587;
covariance 23.6 | 7.40 | 6939;  correlation 18.4 | 9.51 | 7318;  syrk 6.69 | 3.94 | 660;
syr2k 11.6 | 6.40 | 4124;  symm 6.99 | 6.18 | 2518;  trmm 26.4 | 4.33 | 2420;  lu 51.9 | 40.8 | 5672;
cholesky 36.6 | 30.4 | 1191;  durbin 108 | 3.80 | 2.36;  trisolv 27.2 | 11.1 | 3.50;
gramschmidt 245 | 41.1 | 7596;  ludcmp 73408 | 6249 | 5085;  deriche 155 | 7083 | 383;
adi 634 | 1266 | 13934;  floyd-warshall 76225 | 10858 | 19043;  nussinov: PPCG's code does not
build, polycuda refuses `char`."""

# DESIGN's geometric-mean statements, verbatim up to line breaks (its times are PPCG's over
# polycuda's, as `ratio` below: > 1 means polycuda is faster).
GEOMEAN_TEXT = """\
Geometric mean PPCG / polycuda: 2.14x over the 27 both get right, 2.05x over the first 22 of the
list of 2026-11-24 (jacobi-1d .. durbin without seidel-2d). Below PPCG: deriche 0.02x, adi 0.50x."""
_GEOMEANS = re.compile(r"([\d.]+)x over the (\d+) both get right, ([\d.]+)x over the first (\d+) "
                       r"of the list of [\d-]+ \(([\w-]+) \.\. ([\w-]+) without ([\w-]+)\)")

# The kernels whose time SETUP gives in another type than double ("double (deriche float)")
# and those whose result SETUP calls wrong for either compiler ("all correct but ..."): DESIGN's
# geometric mean over the kernels "both get right" leaves the latter out.
DTYPES: Mapping[str, str] = {"deriche": "float"}
NOT_BOTH_RIGHT: Mapping[str, str] = {
    "gramschmidt": "both compilers and gcc disagree: ill-conditioned",
    "deriche": "PPCG's deriche (float) is wrong"}

# PolyBench/C 4.2.1's LARGE_DATASET sizes (its headers), at which DESIGN's run took
# "PolyBench/C 4.2.1's own files at LARGE sizes"; gemm's "NIxNJxNK" as PolyBench orders them.
LARGE_SIZES_TEXT = """\
jacobi-1d T=500 N=2000; jacobi-2d T=500 N=1300; seidel-2d T=500 N=2000; fdtd-2d T=500
NX=1000 NY=1200; heat-3d T=500 N=120; gemm 1000x1100x1200; 2mm NI=800 NJ=900 NK=1100 NL=1200; 3mm
NI=800 NJ=900 NK=1000 NL=1100 NM=1200; atax, bicg M=1900 N=2100; mvt, gemver, lu, cholesky, durbin,
trisolv, ludcmp N=2000; gesummv N=1300; doitgen NQ=140 NR=150 NP=160; covariance, correlation M=1200
N=1400; syrk, syr2k, symm, trmm, gramschmidt M=1000 N=1200; floyd-warshall N=2800; adi T=500 N=1000;
deriche W=4096 H=2160; nussinov N=2500."""
GEMM_PARAMS = ("NI", "NJ", "NK")
_SIZE_WORD = re.compile(r"\w+=\d+|\d+(x\d+)+")


@dataclass(frozen=True)
class Row:
    """One kernel of DESIGN's table: its PolyBench name, position (0-based), times in ms (PPCG,
    polycuda at DESIGN_COMMIT, sequential gcc -O3 -march=native), the element type of those
    times, whether both compilers got it right and whether it is one of DESIGN's first 22."""

    polybench: str
    index: int
    ppcg_ms: float
    polycuda_ms: float
    gcc_ms: float
    dtype: str = "double"
    both_right: bool = True
    in_first: bool = False


@dataclass(frozen=True)
class Geomeans:
    """DESIGN's statements: the geometric mean of PPCG's time over polycuda's over the kernels
    both get right and over the first kernels of the list of 2026-11-24 (from `first_from` to
    `first_to` in the table's order, without `first_without`), with the kernel counts it gives,
    and the kernels it calls below PPCG with their ratios."""

    both_right: float
    both_right_kernels: int
    first: float
    first_kernels: int
    first_from: str
    first_to: str
    first_without: str
    below: Mapping[str, float]


def parse_table(text: str) -> dict[str, Row]:
    """The timed rows of a table in TABLE_TEXT's form, by PolyBench name, in the text's order
    (items "name: why" have no times: parse_untimed).

    Raises:
        ValueError: a row without a name and three numbers, or a name given twice.
    """
    rows: dict[str, Row] = {}
    for item in _items(text):
        name, _, rest = item.partition(" ")
        if name.endswith(":"):
            continue
        values = [v.strip() for v in rest.split("|")]
        if len(values) != len(COLUMNS) or not all(_is_number(v) for v in values):
            raise ValueError(f"expected 'name ms | ms | ms' or 'name: why', got {item!r}")
        if name in rows:
            raise ValueError(f"kernel {name!r} given twice")
        rows[name] = Row(name, len(rows), *(float(v) for v in values))
    return rows


def parse_untimed(text: str) -> dict[str, str]:
    """The items "name: why" of a table in TABLE_TEXT's form: {"nussinov": "PPCG's code ..."}."""
    untimed = {}
    for item in _items(text):
        name, sep, why = item.partition(": ")
        if sep and " " not in name:
            untimed[name] = why.strip()
    return untimed


def parse_geomeans(text: str) -> Geomeans:
    """DESIGN's geometric-mean statements in GEOMEAN_TEXT's form.

    Raises:
        ValueError: text without both statements or without "Below PPCG: name ratio, ...".
    """
    joined = " ".join(text.split())
    found = _GEOMEANS.search(joined)
    below = re.search(r"Below PPCG: (.*?)\.(\s|$)", joined)
    if not found or not below:
        raise ValueError(f"expected DESIGN's geometric-mean statements, got {text!r}")
    pairs = [p.split() for p in below.group(1).split(",")]
    if not all(len(p) == 2 and p[1].endswith("x") and _is_number(p[1][:-1]) for p in pairs):
        raise ValueError(f"expected 'Below PPCG: name 0.5x, ...', got {below.group(0)!r}")
    g = found.groups()
    return Geomeans(float(g[0]), int(g[1]), float(g[2]), int(g[3]), g[4], g[5], g[6],
                    {name: float(x[:-1]) for name, x in pairs})


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


def annotate(rows: Mapping[str, Row], statements: Geomeans) -> dict[str, Row]:
    """`rows` with each one's dtype (DTYPES), whether both compilers got it right
    (NOT_BOTH_RIGHT) and whether it is one of the first kernels of `statements`.

    Raises:
        ValueError: a kernel of `statements` or of the module's tables that `rows` lack.
    """
    named = {statements.first_from, statements.first_to, statements.first_without,
             *statements.below, *DTYPES, *NOT_BOTH_RIGHT}
    if missing := sorted(named - set(rows)):
        raise ValueError(f"kernels {missing} are not rows of the table")
    span = range(rows[statements.first_from].index, rows[statements.first_to].index + 1)
    return {name: dataclasses.replace(
        row, dtype=DTYPES.get(name, "double"), both_right=name not in NOT_BOTH_RIGHT,
        in_first=row.index in span and name != statements.first_without)
        for name, row in rows.items()}


STATED: Geomeans = parse_geomeans(GEOMEAN_TEXT)
ROWS: Mapping[str, Row] = annotate(parse_table(TABLE_TEXT), STATED)
UNTIMED: Mapping[str, str] = parse_untimed(TABLE_TEXT)
# The figures DESIGN states, by design_geomeans' keys.
DESIGN_GEOMEANS = {"ratio_both_right": STATED.both_right, "ratio_first": STATED.first}


def large_sizes() -> dict[str, dict[str, int]]:
    """PolyBench's LARGE sizes, by PolyBench kernel name."""
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
    """DESIGN's stated geometric means recomputed from its rows: PPCG's time over polycuda's
    over the kernels both get right and over the first 22, with the kernel counts."""
    rows = rows or ROWS
    right = [r for r in rows.values() if r.both_right]
    first = [r for r in rows.values() if r.in_first]
    return {
        "ratio_both_right": geomean(r.ppcg_ms / r.polycuda_ms for r in right),
        "kernels_both_right": len(right),
        "ratio_first": geomean(r.ppcg_ms / r.polycuda_ms for r in first),
        "kernels_first": len(first),
    }
