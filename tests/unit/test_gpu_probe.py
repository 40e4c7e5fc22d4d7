"""`pytest -m gpu` where CUDA code cannot run: every GPU test skipped with the reason
(tests/gpu_probe.py, tests/conftest.py), never a failure such as cudaErrorInsufficientDriver
(issue 40)."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

import pytest

from tests import gpu_probe


class _Driver:
    """libcuda's three calls the probe makes, answering as told."""

    def __init__(self, init: int = 0, devices: int = 1, version: int = 13000):
        self.init, self.devices, self.version = init, devices, version

    def cuInit(self, flags: int) -> int:  # noqa: N802 (the driver's name)
        return self.init

    def cuDeviceGetCount(self, count) -> int:  # noqa: N802
        count._obj.value = self.devices
        return 0

    def cuDriverGetVersion(self, version) -> int:  # noqa: N802
        version._obj.value = self.version
        return 0


@pytest.mark.parametrize("driver, reason", [
    (None, "no CUDA driver (no libcuda here)"),
    (_Driver(init=100), "cuInit failed: CUDA driver error 100 (CUDA_ERROR_NO_DEVICE)"),
    (_Driver(devices=0), "no CUDA device"),
    (_Driver(version=12040), "the CUDA driver supports CUDA 12.4, older than nvcc's CUDA "
                             "13.0: its code would fail with cudaErrorInsufficientDriver"),
    (_Driver(version=13010), None),
])
def test_the_probe_says_why_cuda_code_cannot_run(monkeypatch, driver, reason):
    def load(name):
        if driver is None:
            raise OSError("no libcuda here")
        return driver

    monkeypatch.setattr(gpu_probe, "_nvcc_release", lambda: (13, 0))
    monkeypatch.setattr(ctypes, "CDLL", load)
    found = gpu_probe.probe()
    assert found is None if reason is None else found.startswith(reason), found


def test_no_nvcc_is_a_reason(monkeypatch):
    from polycuda.errors import ToolNotFoundError
    from polycuda.runtime import device

    def find_nvcc() -> str:
        raise ToolNotFoundError("nvcc was not found")

    monkeypatch.setattr(device, "find_nvcc", find_nvcc)
    assert gpu_probe.probe() == "nvcc not found (the GPU tests build with it)"


@pytest.mark.skipif(gpu_probe.no_gpu_reason() is None, reason="CUDA code runs here")
def test_gpu_tests_skip_with_the_reason_where_cuda_cannot_run():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-m", "gpu",
                           "-p", "no:cacheprovider", "tests/e2e/test_tune_gpu.py"],
                          cwd=root, capture_output=True, text=True, timeout=300, check=False,
                          env={**os.environ, "PYTHONPATH": root, "PYTEST_ADDOPTS": ""})
    assert done.returncode == 0, done.stdout[-2000:]
    assert "3 skipped" in done.stdout and "no usable GPU: " in done.stdout, done.stdout[-2000:]
