"""bench/indirect_gpu.py's OpenMP entries (issue 17: speedup over OpenMP) on the CPU: the
script with the CUDA emulator in place of the GPU, polycuda's OpenMP output and the hand-written
OpenMP baselines checked against the sequential result at tiny sizes."""

from __future__ import annotations

import json

import numpy as np
import pytest

import bench.indirect_gpu as bench
from kernels.indirect import MESH, SCATTER
from tests.unit.test_runtime import needs_nvcc

CASES = ("histogram-256-bins", "rows-random", "mesh-csr", "mesh-edge-list")


@needs_nvcc
def test_openmp_entries_agree_with_sequential(tmp_path):
    """Every OpenMP entry matches the sequential C result, on the threads asked for (3: not
    this machine's count, so that the setting is seen); polycuda's OpenMP runs the run-time
    nests (scatter-adds) in order and says why, the mesh's CSR node loop in parallel; the
    GPU's ratios over both entries are in each row."""
    out = tmp_path / "indirect.json"
    assert bench.main([str(out), "--emulate", "--only", ",".join(CASES), "--repeats", "1",
                       "--threads", "3", "--no-executors"]) == 0
    report = json.loads(out.read_text())
    assert report["openmp_threads"] == 3 and report["target"] == "emulate"
    rows = {r["case"]: r for r in report["cases"]}
    assert sorted(rows) == sorted(CASES)
    for name, row in rows.items():
        assert row["correct"], name
        for entry in row["openmp"].values():
            assert entry["correct"] and entry["threads"] == 3, (name, entry)
            assert entry["worst_relative_error"] <= row["rtol"]
            assert entry["s"] > 0 and entry["spread"]["n"] == 1
        assert row["gpu_speedup_vs_openmp_hand"] == pytest.approx(
            row["openmp"]["hand"]["s"] / row["gpu_inspector_executor_s"])
        assert row["gpu_speedup_vs_openmp_polycuda"] == pytest.approx(
            row["openmp"]["polycuda"]["s"] / row["gpu_inspector_executor_s"])
        assert row["openmp"]["hand"]["what"].startswith("HAND-WRITTEN")
    status = {n: r["openmp"]["polycuda"]["status"] for n, r in rows.items()}
    assert status == {"histogram-256-bins": "sequential", "rows-random": "parallel",
                      "mesh-csr": "parallel", "mesh-edge-list": "sequential"}
    assert "run time" in rows["mesh-edge-list"]["openmp"]["polycuda"]["reason"]
    assert rows["mesh-edge-list"]["atomic_scatter_add"] and rows["mesh-csr"]["levels"] is None


@needs_nvcc
def test_wrong_hand_baseline_fails_the_check(tmp_path, monkeypatch):
    """A hand baseline that loses an update is reported wrong and the script exits 1."""
    hand = tmp_path / "openmp_hand"
    hand.mkdir()
    source = (bench.HAND_DIR / "scatter.c").read_text()
    assert "i < n;" in source
    (hand / "scatter.c").write_text(source.replace("i < n;", "i < n - 1;"))
    monkeypatch.setattr(bench, "HAND_DIR", hand)
    out = tmp_path / "bad.json"
    assert bench.main([str(out), "--emulate", "--only", "histogram-256-bins", "--repeats", "1",
                       "--threads", "2", "--no-executors"]) == 1
    row, = json.loads(out.read_text())["cases"]
    assert not row["openmp"]["hand"]["correct"] and row["openmp"]["polycuda"]["correct"]
    assert not row["correct"]


def test_hand_baselines_refuse_indices_out_of_range():
    """The hand code checks nothing: the script refuses inputs it would run past an array."""
    key = np.array([0, 3], np.int32)
    with pytest.raises(ValueError, match="key"):
        bench.check_indices(SCATTER, {"m": 3, "key": key})
    bench.check_indices(SCATTER, {"m": 4, "key": key})
    mesh = {"n": 2, "ne": 2, "ptr": np.array([0, 2, 1], np.int32),
            "adj": np.array([0, 1], np.int32)}
    with pytest.raises(ValueError, match="ptr"):
        bench.check_indices(MESH, mesh)


def test_threads_must_be_positive(tmp_path):
    with pytest.raises(SystemExit):
        bench.main([str(tmp_path / "x.json"), "--emulate", "--threads", "0"])
