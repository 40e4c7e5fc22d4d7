"""Whether this machine runs the CUDA code polycuda builds: the probe behind the skips of
`pytest -m gpu` (tests/conftest.py). It asks the CUDA driver (libcuda, through ctypes), not
CuPy, which only the tuner's GPU tests need; run as `python tests/gpu_probe.py` it prints
why not, or "usable"."""

from __future__ import annotations

import ctypes
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

_PROBE_TIMEOUT_S = 60
_DRIVER_LIBS = ("libcuda.so.1", "libcuda.so", "nvcuda.dll")
_DRIVER_ERRORS = {3: "CUDA_ERROR_NOT_INITIALIZED", 35: "CUDA_ERROR_INSUFFICIENT_DRIVER",
                  100: "CUDA_ERROR_NO_DEVICE", 101: "CUDA_ERROR_INVALID_DEVICE",
                  304: "CUDA_ERROR_OPERATING_SYSTEM", 999: "CUDA_ERROR_UNKNOWN"}


@lru_cache(maxsize=1)
def no_gpu_reason() -> str | None:
    """Why CUDA code cannot run here, or None when it can; asked once per process, in a
    child: the driver initialised in pytest's process would not survive the forks of
    schedule/budget.py, and a broken driver may crash the asker."""
    try:
        done = subprocess.run([sys.executable, str(Path(__file__))], capture_output=True,
                              text=True, timeout=_PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError) as err:
        return f"the GPU probe did not finish ({err})"
    answer = done.stdout.strip().splitlines()[-1:] or [f"the GPU probe exited {done.returncode}"]
    return None if answer == ["usable"] else answer[0]


def probe() -> str | None:
    """no_gpu_reason's answer, in this process: no nvcc, no driver library, cuInit failing
    (no device), no device, or a driver older than nvcc's CUDA (which the runtime reports as
    cudaErrorInsufficientDriver at the first call)."""
    release = _nvcc_release()
    if isinstance(release, str):
        return release
    lib = _driver()
    if isinstance(lib, str):
        return lib
    err = lib.cuInit(0)
    if err:
        return f"cuInit failed: CUDA driver error {err} ({_DRIVER_ERRORS.get(err, '?')})"
    count = ctypes.c_int(0)
    err = lib.cuDeviceGetCount(ctypes.byref(count))
    if err or count.value < 1:
        return f"no CUDA device (cuDeviceGetCount: error {err}, {count.value} devices)"
    version = ctypes.c_int(0)
    lib.cuDriverGetVersion(ctypes.byref(version))
    driver = (version.value // 1000, version.value % 1000 // 10)
    if driver[0] < release[0]:  # CUDA's minor version compatibility holds within a major
        return (f"the CUDA driver supports CUDA {driver[0]}.{driver[1]}, older than nvcc's "
                f"CUDA {release[0]}.{release[1]}: its code would fail with "
                "cudaErrorInsufficientDriver")
    return None


def _nvcc_release() -> tuple[int, int] | str:
    """(major, minor) of nvcc's CUDA, or why there is none."""
    from polycuda.errors import ToolNotFoundError
    from polycuda.runtime import device

    try:
        done = subprocess.run([device.find_nvcc(), "--version"], capture_output=True,
                              text=True, timeout=_PROBE_TIMEOUT_S, check=False)
    except ToolNotFoundError:
        return "nvcc not found (the GPU tests build with it)"
    except (OSError, subprocess.SubprocessError) as err:
        return f"nvcc --version failed ({err})"
    found = re.search(r"release (\d+)\.(\d+)", done.stdout)
    if found is None:
        return f"nvcc --version names no release: {done.stdout.strip()[-200:]!r}"
    return int(found[1]), int(found[2])


def _driver() -> ctypes.CDLL | str:
    """The CUDA driver library, or why it cannot be loaded."""
    errors = []
    for name in _DRIVER_LIBS:
        try:
            return ctypes.CDLL(name)
        except OSError as err:
            errors.append(str(err))
    return f"no CUDA driver ({errors[0]})"


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # polycuda, run as a script
    print(probe() or "usable")
