"""search.rank over a whole layout space within its budget (issue 16): the fast paths of the
model (tile_counts along the longest coordinate, wavefronts_work, the hyperplane
intra_wavefronts, KernelModel's per-tile-size memo) give the values of the direct
computation of Di & Xue 2011's eqs. (4), (8)-(12) that they replace, written out here."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest

from polycuda.tune import calibrate, model, occupancy, problem, search
from polycuda.tune.model import Problem
from tests.unit.tune_problems import staged_jacobi


@pytest.fixture(scope="module")
def jacobi():
    """2-D Jacobi 4096^2 x 1000 float, staged (issue 16's problem), without nvcc."""
    return staged_jacobi()[1]


# -- the direct computations the fast paths replace ------------------------------------------------
def direct_intra_wavefronts(tiles, block, intra, warp=32):
    """eq. (4)'s (G, H) by enumerating every point of the tile and its thread."""
    rows = []
    inner = [range(m) for m in tiles[1:]]
    for e in range(tiles[0] if intra == "hyperplane" else sum(tiles) - len(tiles) + 1):
        per_thread = [0] * math.prod(block)
        for p in itertools.product(*inner):
            p0 = e if intra == "hyperplane" else e - sum(p)
            if 0 <= p0 < tiles[0]:
                tid = 0
                for k, v in enumerate(p):
                    tid = tid * block[k] + v % block[k]
                per_thread[tid] += 1
        warps = [max(per_thread[i:i + warp]) for i in range(0, len(per_thread), warp)]
        rows.append((sum(warps), sum(per_thread)))
    return np.array([g for g, _ in rows]), np.array([h for _, h in rows])


def direct_tile_counts(prob: Problem, tiles):
    """Tiles meeting each half-space, and inside all, per wavefront, tile by tile."""
    m = np.array(tiles)
    lo, hi = np.array(prob.lower) // m, np.array(prob.upper) // m
    meet, full = {}, {}
    for t in itertools.product(*[range(a, b + 1) for a, b in zip(lo, hi)]):
        corner = m * np.array(t)
        top = [sum(corner[k] * a[k] + max(a[k], 0) * (m[k] - 1) for k in range(prob.n)) + c
               for a, c in prob.constraints]
        low = [sum(corner[k] * a[k] + min(a[k], 0) * (m[k] - 1) for k in range(prob.n)) + c
               for a, c in prob.constraints]
        if min(top) >= 0:
            meet[sum(t)] = meet.get(sum(t), 0) + 1
            full[sum(t)] = full.get(sum(t), 0) + (min(low) >= 0)
    keys = sorted(meet)
    return tuple(meet[k] for k in keys), tuple(full[k] for k in keys)


def direct_estimate(models, tiles, block, cal, props):
    """search.estimate as it was before the fast paths: eq. (9)'s sum over the wavefronts
    one by one (wavefront_rounds), the tile counts with T_0 as the interval, the staged bytes
    and N_mem recomputed from the footprints (eq. (8)'s intra_wavefronts: tested above)."""
    total = 0.0
    for km in models:
        lay = search.kernel_layout(km, tiles, block)
        used, keep = 0, []
        for f in km.footprints:  # gpu/staging.plan's greedy choice
            if used + f.bytes(lay.tiles) <= km.staging_budget:
                used += f.bytes(lay.tiles)
                keep.append(f)
        occ = (occupancy.occupancy(props, lay.threads, 0, km.smem_bytes + used) if used
               else occupancy.occupancy(props, lay.threads, km.registers, km.smem_bytes))
        volume = math.prod(lay.tiles)
        n_mem = (sum(math.prod(f.box(lay.tiles)) * (2 if f.written else 1) if f in keep
                     else len(f.accesses) * volume for f in km.footprints)
                 if km.staging_budget else None)
        prob = km.problem
        counts = model._tile_counts(prob, lay.tiles, 0)  # T_0 as the interval, as before
        t_tile = model.tile_time(cal, prob, lay, n_mem=n_mem)
        work = sum(model.wavefront_rounds(t, f, occ.blocks, props.sm_count)
                   for t, f in zip(counts.tiles, counts.full))
        rounds = sum(-(-t // (occ.blocks * props.sm_count)) for t in counts.tiles)
        trips = model.scan_trips(lay.tiles, lay.block, prob.intra)
        total += (prob.launches * (work * t_tile + len(counts.tiles) * cal.blk(occ.blocks)
                                   + cal.sigma_ker)
                  + cal.lam * prob.launches * rounds * trips * prob.repeat)
    return total


# -- the tests ------------------------------------------------------------------------------------
@pytest.mark.parametrize("tiles, block", [((3, 5, 7), (2, 7)), ((2, 4, 40), (1, 32)),
                                          ((4, 6, 6), (4, 8)), ((5, 33), (32,)), ((2,), ())])
@pytest.mark.parametrize("intra", ["hyperplane", "sum"])
def test_intra_wavefronts_are_the_enumerated_points(tiles, block, intra):
    g, h = model.intra_wavefronts(tiles, block, intra)
    dg, dh = direct_intra_wavefronts(tiles, block, intra)
    assert g.tolist() == dg.tolist() and h.tolist() == dh.tolist()


SKEWED = Problem.from_box((7, 23, 19), skew=((1, 0, 0), (2, 1, 0), (2, 0, 1)))
HEXAGON = Problem.from_box((13, 29), skew=((1, 0), (1, 1)))


@pytest.mark.parametrize("prob", [SKEWED, HEXAGON, Problem.from_box((9, 10, 11))])
def test_tile_counts_are_the_same_along_every_coordinate_and_tile_by_tile(prob):
    rng = random.Random(3)
    for _ in range(6):
        tiles = tuple(rng.choice((1, 2, 3, 4, 8)) for _ in range(prob.n))
        direct = direct_tile_counts(prob, tiles)
        for axis in range(prob.n):
            counts = model._tile_counts(prob, tiles, axis)
            assert (counts.tiles, counts.full) == direct, (tiles, axis)
        assert model.tile_counts(prob, tiles) == model._tile_counts(prob, tiles, 0)


def test_wavefronts_work_sums_wavefront_rounds():
    for tiles in [(2, 3, 4), (1, 8, 2), (3, 3, 3)]:
        counts = model.tile_counts(SKEWED, tiles)
        for blocks, sms in [(1, 1), (2, 3), (8, 132)]:
            direct = sum(model.wavefront_rounds(t, f, blocks, sms)
                         for t, f in zip(counts.tiles, counts.full))
            assert model.wavefronts_work(SKEWED, tiles, blocks, sms) == pytest.approx(
                direct, rel=1e-12)


def test_rank_values_are_the_direct_model_on_a_sample_of_jacobi(jacobi):
    """Issue 16: the fast rank keeps every model value (to 1e-9) and every exclusion."""
    cal, props = calibrate.reference_calibration(), occupancy.reference_device()
    candidates = search.layouts(jacobi[0])
    sample = random.Random(7).sample(candidates, 150)
    checked = 0
    for lay in sample:
        if any(search.exclusion(search.kernel_layout(km, lay.tiles, lay.block), km, props)
               for km in jacobi):
            continue
        fast = search.estimate(jacobi, lay.tiles, lay.block, cal, props)
        assert fast == pytest.approx(direct_estimate(jacobi, lay.tiles, lay.block, cal, props),
                                     rel=1e-9), lay
        checked += 1
    assert checked > 50


def test_rank_covers_the_whole_space_and_a_reached_limit_says_so(jacobi):
    cal, props = calibrate.reference_calibration(), occupancy.reference_device()
    said = []
    ranked, excluded = search.rank(jacobi, cal, props, limit=50, progress=said.append)
    assert said[-1].startswith("limit of 50 layouts reached: 50 of ")
    assert len(ranked) + sum(excluded.values()) == 50
    small = (on_small_box(jacobi[0], (60, 200, 200)),)
    assert len(search.layouts(small[0])) <= search.RANK_LAYOUTS
    ranked, excluded = search.rank(small, cal, props, progress=said.append)
    assert len(ranked) + sum(excluded.values()) == len(search.layouts(small[0]))
    assert [r.model_s for r in ranked] == sorted(r.model_s for r in ranked)
    for r in ranked[:: max(1, len(ranked) // 20)]:
        assert r.model_s == pytest.approx(direct_estimate(small, r.tiles, r.block, cal, props),
                                          rel=1e-9)


def test_rank_is_the_same_however_slow_the_machine(jacobi, monkeypatch):
    # a count of layouts bounds the ranking, not the clock: a machine where every layout
    # takes an hour ranks the same layouts in the same order
    cal, props = calibrate.reference_calibration(), occupancy.reference_device()
    small = (on_small_box(jacobi[0], (60, 200, 200)),)
    first, _ = search.rank(small, cal, props, limit=3000)
    hours = itertools.count(0, 3600.0)
    monkeypatch.setattr(search.time, "perf_counter", lambda: next(hours))
    again, _ = search.rank(small, cal, props, limit=3000, progress=lambda _: None)
    assert again == first


def on_small_box(km: problem.KernelModel, extents) -> problem.KernelModel:
    """km on a smaller skewed box (the whole space ranks in a second)."""
    import dataclasses

    prob = Problem.from_box(extents, skew=((1, 0, 0), (2, 1, 0), (2, 0, 1)),
                            kind="wavefront", intra=km.problem.intra)
    return dataclasses.replace(km, problem=prob)
