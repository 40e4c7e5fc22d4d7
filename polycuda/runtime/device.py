"""Finding the tools and the GPU a run needs: nvcc, the C/C++ compilers, the GPU, CuPy.

A missing tool raises ToolNotFoundError with a message that says how to get it; probing for
the GPU never raises (no GPU is an answer, not an error).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from polycuda.errors import ToolNotFoundError

DEFAULT_ARCH = "sm_90"  # the reference GPU (H100); used when no GPU is found
_SMI_TIMEOUT_S = 10


@dataclass(frozen=True)
class GpuInfo:
    """The first NVIDIA GPU: its name, its arch ("sm_90") and the driver version."""

    name: str
    arch: str
    driver: str


def find_nvcc() -> str:
    """Path of nvcc: on PATH, then $CUDA_HOME/bin, then /usr/local/cuda/bin.

    Raises:
        ToolNotFoundError: no nvcc; the message says how to install the CUDA toolkit.
    """
    found = shutil.which("nvcc")
    if found:
        return found
    dirs = [Path(os.environ["CUDA_HOME"]) / "bin"] if os.environ.get("CUDA_HOME") else []
    dirs.append(Path("/usr/local/cuda/bin"))
    for directory in dirs:
        candidate = directory / "nvcc"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    raise ToolNotFoundError(
        "nvcc (the CUDA compiler) was not found on PATH, in $CUDA_HOME/bin or in "
        "/usr/local/cuda/bin; install the CUDA toolkit (https://developer.nvidia.com/"
        "cuda-downloads, or `apt install nvidia-cuda-toolkit`) and put its bin/ on PATH, "
        "or set CUDA_HOME. Without a GPU, target 'emulate' checks CUDA code with g++ only.")


def find_cc() -> str:
    """Path of the C compiler (gcc, else cc).

    Raises:
        ToolNotFoundError: neither is installed; the message says how to get gcc.
    """
    return _find_first(("gcc", "cc"), "a C compiler (gcc or cc)",
                       "install gcc (`apt install gcc`, `dnf install gcc`, or Xcode's "
                       "command line tools on macOS)")


def find_cxx() -> str:
    """Path of the C++ compiler (g++, else c++), used by target 'emulate'.

    Raises:
        ToolNotFoundError: neither is installed; the message says how to get g++.
    """
    return _find_first(("g++", "c++"), "a C++20 compiler (g++ or c++)",
                       "install g++ 10 or newer (`apt install g++`, `dnf install gcc-c++`)")


def _find_first(names: tuple[str, ...], what: str, how: str) -> str:
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    raise ToolNotFoundError(f"{what} was not found on PATH; {how}")


@lru_cache(maxsize=1)
def gpu_info() -> GpuInfo | None:
    """The first NVIDIA GPU as reported by nvidia-smi, or None (no GPU, no driver, timeout).

    Example:
        >>> gpu_info()                                      # doctest: +SKIP
        GpuInfo(name='NVIDIA H100 80GB HBM3', arch='sm_90', driver='550.54.15')
    """
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    cmd = [smi, "--query-gpu=name,compute_cap,driver_version", "--format=csv,noheader"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=_SMI_TIMEOUT_S,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return parse_smi_line(done.stdout.strip().splitlines()[0] if done.stdout.strip() else "")


def parse_smi_line(line: str) -> GpuInfo | None:
    """GpuInfo from one `name, compute_cap, driver_version` CSV line; None if malformed."""
    parts = [p.strip() for p in line.split(",")]
    if len(parts) != 3 or not parts[0]:
        return None
    major, _, minor = parts[1].partition(".")
    if not (major.isdigit() and minor.isdigit()):
        return None
    return GpuInfo(name=parts[0], arch=f"sm_{major}{minor}", driver=parts[2])


def require_cupy() -> ModuleType:
    """The cupy module, imported on demand.

    Raises:
        ToolNotFoundError: CuPy is not installed; the message names the pip package.
    """
    try:
        import cupy  # type: ignore[import-not-found, unused-ignore]  # optional, lazy
    except ImportError as exc:
        raise ToolNotFoundError(
            "CuPy is needed for device arrays and CUDA-event timing; install the wheel of "
            "your CUDA version: `pip install cupy-cuda12x` (CUDA 12) or "
            "`pip install cupy-cuda13x` (CUDA 13)") from exc
    return cupy
