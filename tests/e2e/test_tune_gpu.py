"""The tuner on a GPU (`pytest -m gpu`): calibration microbenchmarks run and give positive
overheads; `tune` measures the model's top k; device properties come from CuPy."""

from __future__ import annotations

import pytest

import polycuda
from polycuda.options import Options
from polycuda.tune import calibrate, occupancy, search

pytestmark = pytest.mark.gpu


def test_device_properties_from_cupy():
    props, on_gpu = occupancy.current_device()
    assert on_gpu and props.sm_count > 0 and props.max_threads_per_sm >= 1024


def test_microbenchmarks_measure_positive_overheads():
    props, _ = occupancy.current_device()
    bench = calibrate._Bench(props.arch)
    assert 0 < bench.launches(50, props.sm_count, 128, True) < 1e-3
    assert bench.syncs(4096, props.sm_count, 256) > bench.syncs(0, props.sm_count, 256)
    assert bench.tiles(props.sm_count, 64, 16, 64, reps=3) > 0


def test_tune_measures_the_top_k(tmp_path, monkeypatch):
    monkeypatch.setenv("POLYCUDA_CACHE", str(tmp_path))
    prog = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    result = search.tune(prog, {"T": 64, "n": 4096}, top_k=2, progress=None)
    assert result.measured and all(r.measured_s and r.measured_s > 0 for r in result.top)
    assert result.measured_s_of_choice() == min(r.measured_s for r in result.top)
