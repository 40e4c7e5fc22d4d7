"""The execution-time model of Di & Xue 2011 (eqs. 3-12, Section 3.4) with worked numbers,
its tile counts against brute-force enumeration, and the DOALL extension."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

from polycuda.errors import InvalidConfigError
from polycuda.tune import model
from polycuda.tune.model import Calibration, Layout, Problem

SOR1 = ((1, 0), (1, 1))  # Di & Xue 2011, Fig. 2: y = (t, t + i)
SOR2 = ((1, 0, 0), (1, 1, 0), (1, 0, 1))
SOR3 = ((1, 0, 0, 0), (1, 1, 0, 0), (1, 0, 1, 0), (1, 0, 0, 1))
CAL = Calibration("test", sigma_ker=5.0, sigma_thd=((32, 0.01), (1024, 0.01)),
                  sigma_blk=((1, 2.0), (32, 2.0)), alpha=1.0, beta=0.1, gamma=0.5)


def test_intra_tile_wavefronts_worked():
    # tile 2 x 4 on 4 threads: points per wavefront e = p0 + p1 are 1, 2, 2, 2, 1; one warp
    g, h = model.intra_wavefronts((2, 4), (4,))
    assert list(h) == [1, 2, 2, 2, 1] and list(g) == [1, 1, 1, 1, 1]
    # tile 2 x 64 on 64 threads (2 warps): wavefront e holds p1 in {e - 1, e}; only e = 32
    # spans both warps, so sum G = 32 + 2 + 32 over 65 wavefronts
    g, h = model.intra_wavefronts((2, 64), (64,))
    assert (len(g), int(g.sum()), int(h.sum())) == (65, 66, 128)
    # skewed wavefronts of a 4 x 64 tile hold 4 consecutive p1: on 16 threads, one each
    g, h = model.intra_wavefronts((4, 64), (16,))
    assert int(h.sum()) == 256 and int(g.max()) == 1 and int(h.max()) == 4
    # hyperplane wavefronts of 64 points on 16 threads: 4 rounds of the one warp each
    g, h = model.intra_wavefronts((4, 64), (16,), intra="hyperplane")
    assert list(h) == [64] * 4 and list(g) == [4] * 4
    # hyperplane wavefronts: m_0 wavefronts of all the inner points
    g, h = model.intra_wavefronts((3, 8, 8), (8, 8), intra="hyperplane")
    assert list(h) == [64, 64, 64] and list(g) == [2, 2, 2]


def test_tile_time_eq8_worked():
    # eq. (8): alpha * 5 + (5 + 2) sigma_thd + beta * 8 + gamma * N_mem, N_mem = 8/2 + 8/4 = 6
    prob = Problem.from_box((4, 16), SOR1)
    assert model.memory_accesses(prob, (2, 4)) == 6
    assert model.tile_time(CAL, prob, Layout((2, 4), (4,))) == pytest.approx(
        5 + 7 * 0.01 + 0.8 + 3.0)


@pytest.mark.parametrize("tiles, bound", [
    ((10**6, 64), 64),  # 1-D SOR: D -> m_2 (Di & Xue 2011, Section 5)
    ((10**6, 16, 48), 16 * 48 / (16 + 48)),  # 2-D SOR: m_2 m_3 / (m_2 + m_3)
    ((10**6, 4, 8, 16), 4 * 8 * 16 / (32 + 64 + 128)),  # 3-D SOR
])
def test_data_reuse_tends_to_section5_bounds(tiles, bound):
    prob = Problem.from_box((2,) * len(tiles))
    reuse = np.prod(tiles, dtype=float) / model.memory_accesses(prob, tiles)
    assert reuse == pytest.approx(bound, rel=1e-3) and reuse < bound


def test_wavefront_rounds_eqs_10_to_12():
    # 300 tiles, B = 2, P = 132: I = ceil(300 / 264) = 2; the slowest SM runs B tiles, then
    # ceil(36 / 132) = 1: 3 T_TILE
    assert model.wavefront_rounds(300, 300, 2, 132) == 3
    # a full last round (eq. (12)'s modulo would give 0): 2 rounds of B
    assert model.wavefront_rounds(528, 528, 2, 132) == 4
    # Section 3.4: 100 border tiles at 0.5 T_TILE -> (200 + 50) / 300 of the rounds
    assert model.wavefront_rounds(300, 200, 2, 132) == pytest.approx(2.5)


def _brute_counts(extents, skew, tiles):
    s = np.array(skew)
    points = {tuple(s @ np.array(x)) for x in itertools.product(*[range(e) for e in extents])}
    per_tile: dict[tuple[int, ...], int] = {}
    for y in points:
        key = tuple(v // m for v, m in zip(y, tiles))
        per_tile[key] = per_tile.get(key, 0) + 1
    meet: dict[int, int] = {}
    full: dict[int, int] = {}
    for key, count in per_tile.items():
        w = sum(key)
        meet[w] = meet.get(w, 0) + 1
        full[w] = full.get(w, 0) + (count == np.prod(tiles))
    order = sorted(meet)
    return tuple(meet[w] for w in order), tuple(full[w] for w in order)


@pytest.mark.parametrize("extents, skew, tiles", [
    ((5, 13), SOR1, (2, 4)), ((6, 9), ((1, 0), (2, 1)), (3, 4)), ((9, 30), SOR1, (4, 8)),
    ((3, 5, 6, 4), SOR3, (2, 2, 3, 2)),
])
def test_tile_counts_match_enumeration(extents, skew, tiles):
    counts = model.tile_counts(Problem.from_box(extents, skew), tiles)
    assert (counts.tiles, counts.full) == _brute_counts(extents, skew, tiles)


def test_tile_counts_full_exact_meet_over_approximates_at_corners():
    counts = model.tile_counts(Problem.from_box((4, 7, 6), SOR2), (2, 3, 4))
    meet, full = _brute_counts((4, 7, 6), SOR2, (2, 3, 4))
    assert counts.full == full
    assert all(a >= b for a, b in zip(counts.tiles, meet)) and sum(counts.tiles) <= \
        sum(meet) + 1


def test_total_time_eq9_worked():
    # 1-D SOR, T = 2, n = 4, tiles 2 x 2 on 2 threads: three wavefronts of one tile each, the
    # middle one full (tiles T1 = 0 and 2 are border tiles: 0.5 T_TILE)
    prob = Problem.from_box((2, 4), SOR1)
    counts = model.tile_counts(prob, (2, 2))
    assert (counts.tiles, counts.full) == ((1, 1, 1), (0, 1, 0))
    layout = Layout((2, 2), (2,))
    # T_TILE = alpha * 3 + (3 + 2) * 0.01 + beta * 4 + gamma * (2 + 2) = 5.45
    t_tile = model.tile_time(CAL, prob, layout)
    assert t_tile == pytest.approx(3 + 0.05 + 0.4 + 2.0)
    est = model.total_time(prob, layout, CAL, blocks_per_sm=4, sms=132)
    assert est.total == pytest.approx(2 * t_tile + 3 * 2.0 + 5.0)
    assert (est.wavefronts, est.tiles) == (3, 3)
    a, b, c, d = model.linear_terms(prob, layout, CAL, 4, 132)
    assert CAL.alpha * a + CAL.beta * b + CAL.gamma * c + d == pytest.approx(est.total)
    with pytest.raises(InvalidConfigError, match="no resident block"):
        model.total_time(prob, layout, CAL, blocks_per_sm=0, sms=132)


def test_doall_extension():
    # 2-D DOALL 64 x 64, tiles 16 x 32 on 8 x 32 threads (8 warps, 2 rounds: 16 warps), 3
    # accesses per point, each warp access one segment; run 10 times: 8 full tiles in one
    # wavefront on 132 SMs -> one round
    prob = Problem.from_box((64, 64), kind="doall", accesses=3, launches=10)
    layout = Layout((16, 32), (8, 32))
    assert model.tile_terms(CAL, prob, layout) == (16, 512, 48, 0.0)
    # the same tile on 32 x 8 threads: each warp access spans 4 rows (4 segments)
    assert model.tile_terms(CAL, prob, Layout((32, 16), (32, 8))) == (16, 512, 192, 0.0)
    t_tile = 16 * 1.0 + 512 * 0.1 + 48 * 0.5
    est = model.total_time(prob, layout, CAL, blocks_per_sm=8, sms=132, max_warps=0)
    assert est.total == pytest.approx(10 * (t_tile + 5.0)) and est.wavefronts == 1
    # memory-level parallelism: 8 tiles on 132 SMs leave one block of 8 warps per SM, of
    # the 64 an SM holds: the transfers take 8 times as long
    est = model.total_time(prob, layout, CAL, blocks_per_sm=8, sms=132)
    assert est.total == pytest.approx(10 * (t_tile + 7 * 48 * 0.5 + 5.0))


def test_memory_parallelism_counts_the_resident_warps():
    # 2-D DOALL 4096 x 4096: 8192 tiles of 32 x 64; on 64 threads (2 warps), 8 resident
    # blocks hold 16 warps (4x the transfers' time), 32 blocks all 64 (1x)
    prob = Problem.from_box((4096, 4096), kind="doall", accesses=2)
    small = Layout((32, 64), (1, 64))
    per_tile = model.tile_terms(CAL, prob, small)[2]
    work = model.wavefronts_work(prob, small.tiles, 8, 132)
    assert model.total_terms(prob, small, CAL, 8, 132)[2] == pytest.approx(4 * work * per_tile)
    work = model.wavefronts_work(prob, small.tiles, 32, 132)
    assert model.total_terms(prob, small, CAL, 32, 132)[2] == pytest.approx(work * per_tile)


def test_warp_transfers_follow_the_strides_not_the_member_order():
    # doubles, rows of 4096: contiguous along the last member (x)
    a = model.WarpAccess("A", 8, (8 * 4096, 8), 0)
    # 32 threads on x: 8 sectors when aligned, 9 when not (3 of 4 alignments)
    assert model.warp_transfers(((a,),), (1, 32)) == pytest.approx((8 + 3 * 9) / 4 / 8)
    assert model.warp_transfers(((a,),), (8, 4)) == pytest.approx((8 + 3 * 16) / 4 / 8)
    # the same access with the contiguous member first: a block long on x is now the
    # uncoalesced one (32 rows of 8 bytes: 32 sectors)
    t = model.WarpAccess("A", 8, (8, 8 * 4096), 0)
    assert model.warp_transfers(((t,),), (1, 32)) == pytest.approx(32 / 8)
    assert model.warp_transfers(((t,),), (32, 1)) == model.warp_transfers(((a,),), (1, 32))
    # a 3-point stencil along x: the neighbours fall in the same sectors (one access's worth
    # plus the edges), not three accesses' worth
    nbrs = tuple(model.WarpAccess("A", 8, (8 * 4096, 8), 8 * k) for k in (-1, 0, 1))
    assert model.warp_transfers((nbrs,), (1, 32)) < 1.3
    # two statements: the mean of their transfers, as Problem.accesses is a mean
    assert model.warp_transfers(((a,), (t,)), (1, 32)) == pytest.approx(
        (model.warp_transfers(((a,),), (1, 32)) + 32 / 8) / 2)
    # the tile_terms c of a Problem with statements uses them, not blockDim.x
    prob = Problem.from_box((64, 64), kind="doall", accesses=3, statements=((t,),))
    warps = 16  # 16 x 32 tile on 32 x 8 threads: 8 warps, 2 rounds
    assert model.tile_terms(CAL, prob, Layout((32, 16), (32, 8)))[2] == pytest.approx(
        warps * model.warp_transfers(((t,),), (32, 8)))


def test_bad_problem():
    with pytest.raises(InvalidConfigError, match="unimodular"):
        Problem.from_box((4, 4), ((2, 0), (0, 1)))
    with pytest.raises(InvalidConfigError, match="kind"):
        Problem.from_box((4, 4), kind="other")
    with pytest.raises(InvalidConfigError, match="one entry per tile size"):
        model.intra_wavefronts((4, 4, 4), (4,))


def test_points_per_wavefront_is_the_convolution_of_the_extents():
    for tiles in ((2, 4), (3, 5, 7), (4, 1, 6, 2)):
        _, h = model.intra_wavefronts(tiles, tiles[1:])
        assert list(model.points_per_wavefront(tiles)) == list(h)


def test_scan_trips_worked():
    # tile 3 x 4 x 2 (skewed-sum wavefronts e = p0 + p1 + p2, 0 <= e <= 6): p1 ranges over
    # [max(0, e - 3), min(3, e)] and p2 over [max(0, e - 5), min(1, e)]; extents 1,2,3,4,3,2,1
    # and 1,2,2,2,2,2,1. On a 1 x 2 block the p1 loop is sequential: trips = extents of p1
    assert model.scan_trips((3, 4, 2), (1, 2)) == 1 + 2 + 3 + 4 + 3 + 2 + 1
    # on 4 x 1 threads p1 takes one trip and p2 is the loop: 1 + 2 + 2 + 2 + 2 + 2 + 1
    assert model.scan_trips((3, 4, 2), (4, 1)) == 12
    # 2 x 2 threads: ceil(p1 extent / 2) * ceil(p2 extent / 2)
    assert model.scan_trips((3, 4, 2), (2, 2)) == 1 + 1 + 2 + 2 + 2 + 1 + 1
    # hyperplane wavefronts: m_0 wavefronts scanning the whole inner box
    assert model.scan_trips((3, 8, 8), (2, 8), intra="hyperplane") == 3 * 4
    # 1-D SOR 4 x 64 on 16 threads: p1 in [max(0, e - 3), min(63, e)], at most 4 values
    assert model.scan_trips((4, 64), (16,)) == 67
    with pytest.raises(InvalidConfigError, match="one entry per tile size"):
        model.scan_trips((4, 4, 4), (4,))


def test_scan_trips_against_enumeration():
    for tiles, block in (((3, 5, 4), (2, 3)), ((2, 3, 4, 5), (1, 2, 4)), ((5, 7), (3,))):
        points = np.array(list(itertools.product(*[range(m) for m in tiles])))
        e_of = points.sum(axis=1)
        total = 0
        for e in range(int(e_of.max()) + 1):
            inner = points[e_of == e][:, 1:]
            extents = inner.max(axis=0) - inner.min(axis=0) + 1
            total += int(np.prod(-(-extents // np.array(block))))
        assert model.scan_trips(tiles, block) == total


def test_latency_term_is_rounds_times_trips():
    # 1-D SOR, T = 2, n = 4, tiles 2 x 2 on 2 threads: three wavefronts of one tile, one
    # round each (eq. (10)); a tile's scan: e = 0, 1, 2 with p1 extents 1, 2, 1 -> 3 trips
    prob = Problem.from_box((2, 4), SOR1)
    layout = Layout((2, 2), (2,))
    assert model.scan_trips((2, 2), (2,)) == 3
    assert model.latency_term(prob, layout, 4, 132) == 3 * 3
    # an 8 x 8 box in 2 x 2 tiles: wavefronts of 1, 2, 3, 4, 3, 2, 1 tiles; on 2 SMs of one
    # resident block each: 1, 1, 2, 2, 2, 1, 1 rounds (eq. (10))
    box = Problem.from_box((8, 8))
    assert model.tile_counts(box, (2, 2)).tiles == (1, 2, 3, 4, 3, 2, 1)
    assert model.latency_term(box, layout, 1, 2) == 10 * 3
    cal = replace(CAL, lam=0.25)
    est = model.total_time(prob, layout, cal, blocks_per_sm=4, sms=132)
    assert est.total == pytest.approx(model.total_time(prob, layout, CAL, 4, 132).total
                                      + 0.25 * 9)
    # the fit rows: lam's term is in d, the other three unchanged
    a, b, c, d = model.linear_terms(prob, layout, cal, 4, 132)
    assert CAL.alpha * a + CAL.beta * b + CAL.gamma * c + d == pytest.approx(est.total)
    # DOALL kernels: no latency term (not measured there)
    doall = Problem.from_box((64, 64), kind="doall")
    assert model.latency_term(doall, Layout((16, 32), (8, 32)), 8, 132) == 0.0


@pytest.mark.parametrize("prob, layout", [
    (Problem.from_box((64, 2048), SOR1), Layout((16, 64), (16,))),
    (Problem.from_box((64, 64), kind="doall", accesses=3, launches=10), Layout((16, 32), (8, 32))),
])
def test_total_terms_are_total_time_at_unit_coefficients_to_the_last_bit(prob, layout):
    """(a, b, c, l, d) from one evaluation: the same floats as total_time with alpha, beta,
    gamma and lam one at a time (the refit re-ranks on them, tune/search.py)."""
    cal = replace(CAL, lam=0.25)
    zero = Calibration(CAL.gpu, 0.0, ((1, 0.0),), ((1, 0.0),), 0.0, 0.0, 0.0)
    a, b, c, lat, d = model.total_terms(prob, layout, cal, 4, 132)
    units = [model.total_time(prob, layout, replace(zero, alpha=x, beta=y, gamma=z), 4, 132).total
             for x, y, z in ((1.0, 0, 0), (0, 1.0, 0), (0, 0, 1.0))]
    base = model.total_time(prob, layout, replace(cal, alpha=0.0, beta=0.0, gamma=0.0, lam=0.0),
                            4, 132).total
    assert (a, b, c, d) == (*units, base)
    assert lat == model.latency_term(prob, layout, 4, 132)
    assert cal.alpha * a + cal.beta * b + cal.gamma * c + cal.lam * lat + d == pytest.approx(
        model.total_time(prob, layout, cal, 4, 132).total)
