"""The model of staged wavefront kernels (Options.shared_staging): the shared memory each layout
stages, as the generated kernel allocates it, and the ranking of 2-D Jacobi 4096^2 x 1000 float
layouts measured on the H100 (issue 16; bench/tune_offline.py for the whole report)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from polycuda.gpu.staging import layout
from polycuda.tune import calibrate, occupancy, search
from tests.unit.tune_problems import staged_jacobi

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "bench" / "results"


@pytest.fixture(scope="module")
def jacobi():
    prog, (km,) = staged_jacobi()
    return prog, km


@pytest.mark.parametrize("tiles, block", [((16, 64, 64), (4, 64)), ((8, 8, 32), (8, 32)),
                                          ((48, 96, 192), (2, 192)), ((4, 32, 128), (4, 128))])
def test_staged_bytes_are_the_generated_kernels(jacobi, tiles, block):
    prog, km = jacobi
    gen = prog.generate("cuda", tile_sizes=tiles, block_sizes=block, tuned_sizes=False)
    (kernel,) = gen.kernels
    dtypes = {a.array: gen.scop.array(a.array).dtype for a in kernel.staged}
    assert km.staged_bytes(tiles) == layout(kernel.staged, dtypes)[1]
    assert [f.array for f in km.staged(tiles)] == [a.array for a in kernel.staged]


def test_staged_shared_memory_bounds_the_resident_blocks(jacobi):
    _, km = jacobi
    props = occupancy.reference_device()
    # 2 x 96 x 96 floats: 72 KiB per block, 3 per SM (as __launch_bounds__(256, 3) asks)
    assert search.resident(km, search.kernel_layout(km, (16, 64, 64), (4, 64)),
                           props).blocks == 3
    # one 192 x 288 box staged (216 KiB): 1 block, whatever the registers allow
    assert search.resident(km, search.kernel_layout(km, (48, 96, 192), (2, 192)),
                           props).blocks == 1
    # nothing staged (each box over 227 KiB): every access of every point counted
    assert km.staged_bytes((64, 128, 128)) == 0
    assert km.tile_accesses((64, 128, 128)) == 12 * 64 * 128 * 128


def _recorded() -> list[tuple[tuple, tuple, float]]:
    """(tiles, block, ms) measured on the H100: the hand sweep with explicit sizes of
    ...-t1000-f32lit.json and the layouts tune_suite measured in ...-tune-suite-quick.json."""
    found = []
    f32 = json.loads((RESULTS / "2026-11-23-nvidia-h100-80gb-hbm3-paper-float-t1000-f32lit.json")
                     .read_text())
    for name, entry in f32["kernels"][0]["entries"].items():
        parts = name.removeprefix("inter@").split("+")
        if len(parts) == 3 and parts[1].startswith("b"):
            found.append((tuple(int(v) for v in parts[0].split("x")),
                          tuple(int(v) for v in parts[1][1:].split("x")),
                          entry["median_s"] * 1e3))
    quick = json.loads((RESULTS / "2026-11-25-nvidia-h100-80gb-hbm3-tune-suite-quick.json")
                       .read_text())
    (entry,) = [e for e in quick["entries"] if e["name"] == "jacobi_2d_t1000_float"]
    for m in [*entry["tuned"]["top"], *entry["sweep"]["measured"]]:
        if m["tiles"]:
            found.append((tuple(m["tiles"]), tuple(m["block"]), m["ms"]))
    return found


def test_measured_best_ranks_before_the_old_models_choices(jacobi):
    """Before staging entered the model, its first choices were [48,96,192] b[2,192] and
    [64,128,128] b[4,128] (89.9 and 171 ms measured; nothing or one array staged) and the
    measured best, 16x64x64 on 4x64 threads (41.2 ms), ranked behind 60 layouts."""
    _, km = jacobi
    props = occupancy.reference_device()
    cal = calibrate.reference_calibration()
    rows = [(search.estimate((km,), t, b, cal, props), ms, t, b) for t, b, ms in _recorded()]
    assert len(rows) >= 20
    by_model = sorted(rows)
    best = min(rows, key=lambda r: r[1])
    assert best[2:] == ((16, 64, 64), (4, 64))
    assert by_model.index(best) < 5  # within tune's default top k
    # the fastest quarter measured ranks ahead of every layout measured over 2x the best
    fast = [r for r in rows if r[1] <= 1.25 * best[1]]
    slow = [r for r in rows if r[1] > 2 * best[1]]
    assert max(r[0] for r in fast) < min(r[0] for r in slow)
