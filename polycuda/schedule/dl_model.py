"""The Distinct Lines (DL) memory-cost model extended to GPU coalescing (Shirako et al. 2017,
Section 5.2): per-iteration memory transactions of a tiled loop nest, and the partial derivative
that ranks its loops for the innermost thread dimension (thread x).

Example (Figure 8: A[i1][i2] and B[i3][i1] in a nest (i1, i2, i3)):
    >>> refs = (Reference("A", ((1, 0, 0), (0, 1, 0))), Reference("B", ((0, 0, 1), (1, 0, 0))))
    >>> distinct_lines(refs, (64, 40, 3), exact=True)  # t1 ceil(t2/L) + t3 ceil(t1/L)
    134.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import islpy as isl

from polycuda.ir import isl_build
from polycuda.ir.scop import Scop, Statement

WARP = 32  # L: elements of one coalesced transaction (a warp's 32 threads, Section 5.2)
# Tile size at which the derivatives are taken: one warp per loop, the size PolyAST+GPU tiles
# with (Section 3.2: tile sizes equal thread sizes) and the scale at which coalescing shows.
REFERENCE_TILE = 32


@dataclass(frozen=True)
class Reference:
    """One array reference's linear part: rows[m][k] is the coefficient of the statement's
    iterator k in subscript m (constant offsets dropped: references that differ only by them,
    A[i][j] and A[i][j+1], touch the same lines of a tile and count once)."""

    array: str
    rows: tuple[tuple[int, ...], ...]


def references(scop: Scop, stmt: Statement, ctx: isl.Context) -> tuple[Reference, ...]:
    """The distinct affine references of `stmt` (reads and writes; indirect ones left out: their
    lines are unknown at compile time), in source order."""
    found: list[Reference] = []
    for access in isl_build.statement_accesses(scop, stmt):
        if access.indirect:
            continue
        ref = Reference(access.array, _rows(isl.Map.read_from_str(ctx, access.index_map)))
        if ref not in found:
            found.append(ref)
    return tuple(found)


def _rows(access_map: isl.Map) -> tuple[tuple[int, ...], ...]:
    # access_map: { S[i] -> A[f(i)] }, f affine ==> the iterator coefficients of each f_m
    # (of one piece where f is piecewise)
    pma = isl.PwMultiAff.from_map(access_map)
    rows = []
    for m in range(access_map.dim(isl.dim_type.out)):
        pieces: list[tuple[int, ...]] = []
        pma.get_pw_aff(m).foreach_piece(lambda _set, aff: pieces.append(tuple(
            aff.get_coefficient_val(isl.dim_type.in_, k).to_python()
            for k in range(aff.dim(isl.dim_type.in_)))))
        # a piecewise subscript (a clamp A[max(i - 1, 0)]): the piece that moves with the
        # most iterators, not a border's constant piece, which holds a few points
        rows.append(max(pieces, key=lambda row: sum(1 for a in row if a)))
    return tuple(rows)


def _factors(ref: Reference, tiles: tuple[float, ...], exact: bool
             ) -> list[tuple[float, tuple[float, ...]]]:
    """Per subscript: (lines or elements it spans in a tile, d/dt_k of that), the last subscript
    (contiguous in memory) counted in lines of WARP elements."""
    out = []
    for m, row in enumerate(ref.rows):
        span = 1 + sum(abs(a) * (t - 1) for a, t in zip(row, tiles))
        grad = tuple(float(abs(a)) for a in row)
        if m == len(ref.rows) - 1:
            # ceil(span / L) for an aligned start; relaxed to (span + L - 1) / L, the expected
            # number of lines that `span` consecutive elements touch from a random offset,
            # so that the derivative exists (Section 5.2 differentiates DL)
            span = math.ceil(span / WARP) if exact else (span + WARP - 1) / WARP
            grad = tuple(g / WARP for g in grad)
        out.append((float(span), grad))
    return out


def distinct_lines(refs: tuple[Reference, ...], tiles: tuple[float, ...],
                   exact: bool = False) -> float:
    """DL(t_1, ..., t_d): distinct lines (coalesced transactions) a tile of `tiles` touches,
    summed over the references; each line is kept until its last use (Section 5.2)."""
    return sum(math.prod(span for span, _ in _factors(r, tiles, exact)) for r in refs)


def mem_cost(refs: tuple[Reference, ...], tiles: tuple[float, ...]) -> float:
    """mem_cost(t) = Cost_trans * DL(t) / (t_1 ... t_d), with Cost_trans = 1 (Section 5.2)."""
    return distinct_lines(refs, tiles) / math.prod(tiles)


def cost_derivatives(refs: tuple[Reference, ...], depth: int,
                     tile: float = REFERENCE_TILE) -> tuple[float, ...]:
    """d mem_cost / d t_k for each loop k of a nest of `depth` loops, all tiles `tile`: the
    most negative is the most profitable loop, mapped to thread x (Section 5.2). Exact
    derivative of the relaxed DL (a sum of products of affine factors)."""
    tiles = (float(tile),) * depth
    volume = math.prod(tiles)
    lines = distinct_lines(refs, tiles)
    out = []
    for k in range(depth):
        d_lines = 0.0
        for ref in refs:
            factors = _factors(ref, tiles, exact=False)
            for m, (_, grad) in enumerate(factors):
                if grad[k]:
                    d_lines += grad[k] * math.prod(s for n, (s, _) in enumerate(factors)
                                                   if n != m)
        out.append(_stable(d_lines / volume - lines / (volume * tiles[k])))
    return tuple(out)


def _stable(value: float) -> float:
    # 9 significant digits: equal costs compare equal whatever the summation order
    return float(f"{value:.9g}")
