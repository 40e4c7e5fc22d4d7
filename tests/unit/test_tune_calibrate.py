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


def test_fit_relative_recovers_alpha_beta_gamma_lam():
    rng = np.random.default_rng(1)
    rows = [tuple(rng.uniform(1, 1000, 4)) + (rng.uniform(0, 1e-5),) for _ in range(30)]
    truth = (2e-9, 5e-10, 3e-8, 5e-8)
    times = [sum(c * t for c, t in zip(truth, r[:4])) + r[4] for r in rows]
    assert calibrate.fit_relative(rows, times) == pytest.approx(truth, rel=1e-6)
    # the paper's three coefficients alone (rows without l)
    short = [(*r[:3], r[4]) for r in rows]
    times3 = [sum(c * t for c, t in zip(truth[:3], r[:3])) + r[3] for r in short]
    assert calibrate.fit_relative(short, times3) == pytest.approx(truth[:3], rel=1e-6)
    # relative, not absolute: one slow run does not decide the fit
    weighted = calibrate.fit_relative(rows + [rows[0]], times + [times[0] * 1000])
    assert min(weighted) >= 0
    with pytest.raises(InvalidConfigError, match="> 0"):
        calibrate.fit_relative(rows, [0.0] * len(rows))
    with pytest.raises(InvalidConfigError, match="runs with times"):
        calibrate.fit_relative(rows[:2], times[:2])


def test_a_new_calibration_of_the_reference_gpu_keeps_the_kernel_fit():
    ref = calibrate.reference_calibration()
    assert ref.lam > 0  # fitted on the H100's measured SOR kernels
    fresh = dataclasses.replace(ref, sigma_ker=1e-5, alpha=1.0, beta=2.0, gamma=3.0, lam=0.0,
                                note="measured")
    kept = calibrate.adopt_reference_fit(fresh)
    assert (kept.alpha, kept.beta, kept.gamma, kept.lam) == (ref.alpha, ref.beta, ref.gamma,
                                                             ref.lam)
    assert kept.sigma_ker == 1e-5 and "simplified_fit" in kept.note
    other = dataclasses.replace(fresh, gpu="Another GPU")
    assert calibrate.adopt_reference_fit(other) == other
    # a GPU with a calibration of its own packaged keeps that one's kernel fit, not the H100's
    h200 = calibrate.packaged_calibration("NVIDIA H200")
    kept = calibrate.adopt_reference_fit(dataclasses.replace(fresh, gpu="NVIDIA H200"))
    assert (kept.beta, kept.gamma, kept.lam) == (h200.beta, h200.gamma, h200.lam)
    assert kept.lam != ref.lam


def test_each_packaged_calibration_is_of_its_gpu_and_fitted_on_kernels(tmp_path, capsys):
    # the H200's: sigmas measured there (bench/results/2026-11-28-calibration-nvidia-h200.json),
    # alpha..lam fitted on its SOR kernels (2026-11-28-nvidia-h200-tune-reevaluate.json)
    for gpu in calibrate.PACKAGED:
        cal = calibrate.packaged_calibration(gpu)
        assert cal.gpu == gpu and cal.measured and cal.lam > 0
        assert 1e-6 < cal.sigma_ker < 1e-4
    assert calibrate.packaged_calibration("Another GPU") is None
    assert calibrate.packaged_calibration(None) is None
    # no calibration cached: the one packaged for the GPU, said so; else the reference
    h200 = calibrate.load_calibration("NVIDIA H200", tmp_path)
    assert h200 == calibrate.packaged_calibration("NVIDIA H200")
    assert "packaged for it" in capsys.readouterr().err
    assert calibrate.load_calibration("Another GPU", tmp_path) == \
        calibrate.reference_calibration()
    assert "reference calibration" in capsys.readouterr().err
