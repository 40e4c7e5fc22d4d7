"""Same input, same code, on a loaded machine too (issue 40, part 2): the suite's kernels
compiled once quietly and once while busy processes saturate every core give byte-identical
CUDA and OpenMP. Work limits are counted (schedule/budget.py), so load cannot change a schedule."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from kernels import suite
from polycuda.frontend import c as cfront
from polycuda.options import Options
from polycuda.pipeline import compile_scop

pytestmark = pytest.mark.filterwarnings("ignore::polycuda.errors.PolycudaWarning")
# varied kinds: stencils (wavefronts under Pluto), a doacross SOR, dense and triangular algebra,
# reductions, a kernel that auto schedules with superposition
KERNELS = ("jacobi_1d", "jacobi_2d_alt", "sor_2d", "fdtd_2d", "gemm", "atax", "trmm", "lu")
TARGETS = ("cuda", "openmp")


def _sources() -> dict[tuple[str, str], str]:
    out = {}
    for name in KERNELS:
        kernel = suite.by_name(name)
        scop = next(s for s in cfront.parse_file(str(kernel.c_path)) if s.name == kernel.function)
        for target in TARGETS:
            out[name, target] = compile_scop(scop, Options(target=target)).source
    return out


def _busy_processes() -> list[subprocess.Popen]:
    """One spinning process per core: with the compile beside them every core is contended
    (more spinners only slow the compile, and the suite's other workers, further)."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(os.cpu_count() or 1)]


def test_generated_code_is_byte_identical_with_the_cpu_saturated():
    quiet = _sources()
    busy = _busy_processes()
    try:
        loaded = _sources()
    finally:
        for process in busy:
            process.kill()
        for process in busy:
            process.wait()
    differ = [key for key in quiet if quiet[key] != loaded[key]]
    assert not differ, f"code changed under load: {differ}"
