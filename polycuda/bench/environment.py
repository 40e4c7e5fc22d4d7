"""What a result was measured on: GPU, driver, CUDA versions, host CPU, date; the results
file's name (<date>-<gpu-slug>[-<mode>][-float].json)."""

from __future__ import annotations

import datetime
import os
import platform
import re
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

from polycuda.runtime import device


def slug(text: str) -> str:
    """Lower-case words joined by dashes: "NVIDIA H100 80GB HBM3" -> "nvidia-h100-80gb-hbm3"."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "unknown"


def host_cpu() -> str:
    """The CPU model name (Linux /proc/cpuinfo, else platform.processor())."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def nvcc_version() -> str | None:
    """The last line of `nvcc --version` ("Cuda compilation tools, release 13.0, V13.0.88")."""
    try:
        nvcc = device.find_nvcc()
        done = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=60,
                              check=False)
    except Exception:  # noqa: BLE001 (no toolkit: reported as None)
        return None
    lines = [ln for ln in done.stdout.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else None


def cupy_versions(cupy: ModuleType | None) -> dict[str, Any]:
    """CuPy's version and the CUDA runtime and driver versions it reports (e.g. 13000)."""
    if cupy is None:
        return {}
    info: dict[str, Any] = {"cupy": cupy.__version__}
    try:
        info["runtime"] = int(cupy.cuda.runtime.runtimeGetVersion())
        info["driver_api"] = int(cupy.cuda.runtime.driverGetVersion())
    except Exception as exc:  # noqa: BLE001 (reported, not fatal)
        info["error"] = str(exc)
    return info


def describe(gpu: device.GpuInfo | None, cupy: ModuleType | None) -> dict[str, Any]:
    """The machine section of the results JSON."""
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "polycuda_commit": git_commit(),
        "gpu": ({"name": gpu.name, "arch": gpu.arch, "driver": gpu.driver} if gpu else None),
        "cuda": {"nvcc": nvcc_version(), **cupy_versions(cupy)},
        "host": {"cpu": host_cpu(), "cores": os.cpu_count(), "machine": platform.machine(),
                 "system": platform.system(), "python": platform.python_version(),
                 "omp_num_threads": os.environ.get("OMP_NUM_THREADS")},
    }


def git_commit() -> str | None:
    """The commit of the polycuda checkout that runs: the POLYCUDA_COMMIT variable when set
    (a copy of the tree on a GPU machine may carry a stale .git: it reported e7ed92e for a
    later tree), else git's, else None."""
    if os.environ.get("POLYCUDA_COMMIT"):
        return os.environ["POLYCUDA_COMMIT"]
    root = Path(__file__).resolve().parents[2]
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        out = None
    return (out.stdout.strip() if out else "") or None


def gpu_slug(gpu: device.GpuInfo | None) -> str:
    return slug(gpu.name) if gpu else "cpu-only"


def results_path(out_dir: Path, gpu: device.GpuInfo | None, mode: str,
                 today: datetime.date | None = None, dtype: str = "double",
                 tag: str = "") -> Path:
    """<out_dir>/<YYYY-MM-DD>-<gpu-slug>[-<mode>][-float][-<tag>].json: the mode unless full,
    the dtype unless double (float and double runs of one day do not overwrite each other)."""
    day = (today or datetime.date.today()).isoformat()
    suffix = ("" if mode == "full" else f"-{mode}") + ("" if dtype == "double" else f"-{dtype}")
    suffix += f"-{tag}" if tag else ""
    return Path(out_dir) / f"{day}-{gpu_slug(gpu)}{suffix}.json"
