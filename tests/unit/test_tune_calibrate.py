"""Calibration: the least-squares fit of Section 3.3, the calibration files, and the
microbenchmarks compiled here (run on a GPU by `python -m polycuda.tune.calibrate`)."""

from __future__ import annotations

import dataclasses
import shutil

import numpy as np
import pytest

from polycuda.errors import InvalidConfigError
from polycuda.tune import calibrate, occupancy
from polycuda.tune.model import Calibration

CAL = Calibration("test", 5e-6, ((32, 2e-8), (1024, 6e-8)), ((1, 3e-6), (32, 4e-6)), 0, 0, 0)


def test_fit_recovers_known_parameters():
    # T_i of the simplified nest generated with known alpha, beta, gamma: the fit returns them
    alpha, beta, gamma = 3e-9, 2e-10, 1.5e-9
    props = occupancy.reference_device()
    rows, times = [], []
    for m1, m2 in calibrate.FIT_TILES:
        b = occupancy.occupancy(props, m2, 32, 4 * (m1 + m2 + 1)).blocks
        row = calibrate.simplified_terms(CAL, (m1, m2), m2, b, props.sm_count)
        rows.append(row)
        times.append(alpha * row[0] + beta * row[1] + gamma * row[2] + row[3])
    assert calibrate.fit(rows, times) == pytest.approx((alpha, beta, gamma), rel=1e-6)
    with pytest.raises(InvalidConfigError, match=">= 3 runs"):
        calibrate.fit(rows[:2], times[:2])


def test_fit_keeps_every_coefficient_non_negative():
    # times that the unconstrained least squares fits only with a negative third coefficient
    rows = [(1.0, 0.0, 1.0, 0.0), (2.0, 1.0, 0.0, 0.0), (3.0, 1.0, 2.0, 0.0), (1.0, 2.0, 3.0, 0.0)]
    times = [1.0, 2.0, 2.5, 0.5]
    free = np.linalg.lstsq(np.array([r[:3] for r in rows]), np.array(times), rcond=None)[0]
    assert (free < 0).any()
    alpha, beta, gamma = calibrate.fit(rows, times)
    assert min(alpha, beta, gamma) >= 0 and max(alpha, beta, gamma) > 0


def test_simplified_nest_terms():
    # one wavefront of B x P full 2 x 4 tiles on 4 threads, B = 2: T = sigma_ker + sigma_blk(2)
    # + B T_TILE, T_TILE = alpha 5 + beta 8 + gamma 6 + 7 sigma_thd(4 threads)
    a, b, c, d = calibrate.simplified_terms(CAL, (2, 4), 4, 2, 132)
    assert (a, b, c) == (10, 16, 12)
    assert d == pytest.approx(5e-6 + CAL.blk(2) + 2 * 7 * 2e-8)


def test_reference_calibration_is_the_h100_measurement(tmp_path, capsys):
    # measured on the H100 by `python -m polycuda.tune.calibrate` (bench/results/
    # 2026-11-25-calibration-nvidia-h100-80gb-hbm3.json); its negative fit is flagged
    ref = calibrate.reference_calibration()
    assert ref.measured and ref.gpu == "NVIDIA H100 80GB HBM3"
    assert '"status": "measured"' in calibrate.to_json(ref)
    assert 1e-6 < ref.sigma_ker < 1e-4  # a launch: microseconds
    assert calibrate.load_calibration(None, tmp_path) == ref
    assert "reference calibration" in capsys.readouterr().err


def test_cached_calibration_round_trip(tmp_path, capsys):
    measured = dataclasses.replace(CAL, gpu="Some GPU", alpha=1e-9, measured=True)
    path = calibrate.cache_path("Some GPU", tmp_path)
    assert path.name == "calibration-some-gpu.json"
    path.write_text(calibrate.to_json(measured, {"fit_runs": []}))
    assert calibrate.load_calibration("Some GPU", tmp_path) == measured
    assert capsys.readouterr().err == ""
    path.write_text('{"gpu": "x"}')
    with pytest.raises(InvalidConfigError, match="missing fields"):
        calibrate.load_calibration("Some GPU", tmp_path)


def test_calibrate_without_gpu_is_a_clear_error(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(occupancy, "current_device",
                        lambda: (occupancy.reference_device(), False))
    assert calibrate.main(["--out", str(tmp_path)]) == 1
    assert "no GPU" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
def test_microbenchmarks_compile_and_report_resources():
    found = occupancy.kernel_resources(calibrate.microbench_source(), "sm_90")
    assert {"pc_cal_empty", "pc_cal_sync", "pc_cal_tile"} <= set(found)
    assert found["pc_cal_tile"].smem_bytes == 0  # dynamic shared memory only
