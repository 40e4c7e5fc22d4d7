"""Access to the kernel suite (kernels/ at the repository root, not an installed package)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

from polycuda.errors import PolycudaError

REPO_ROOT = Path(__file__).resolve().parents[2]


def _import(name: str) -> ModuleType:
    try:
        return importlib.import_module(name)
    except ImportError:
        if not (REPO_ROOT / "kernels" / "suite.py").is_file():
            raise PolycudaError("polycuda bench needs the repository checkout: kernels/suite.py "
                                f"was not found under {REPO_ROOT}") from None
        sys.path.insert(0, str(REPO_ROOT))
        return importlib.import_module(name)


def suite() -> ModuleType:
    """The module kernels.suite (KERNELS, by_name, random_args, c_args)."""
    return _import("kernels.suite")


def naive_cupy() -> ModuleType:
    """The module kernels.naive_cupy (whole-array CuPy baselines and cuBLAS calls)."""
    return _import("kernels.naive_cupy")
