"""The tuner's target problem, shared by its tests: 2-D Jacobi 4096^2 x 1000 float with shared
staging (issue 16), modelled without nvcc (32 registers, no static shared memory)."""

from __future__ import annotations

from pathlib import Path

import polycuda
from polycuda.bench.configs import dtype_defines
from polycuda.options import Options
from polycuda.tune import problem
from polycuda.tune.occupancy import KernelResources

ROOT = Path(__file__).resolve().parents[2]
INTER = {"scheduler": "pluto", "balanced_wavefront": True, "eliminate_false_deps": True,
         "shared_staging": True, "shared_memory_kib": 227}


def staged_jacobi():
    """(the Program, its kernel models at T = 1000, n = 4096)."""
    prog = polycuda.compile(str(ROOT / "kernels" / "c" / "jacobi_2d.c"),
                            options=Options(target="cuda", **INTER),
                            defines=dtype_defines("float"))
    gen = prog.generate("cuda", tile_sizes=(), block_sizes=(), tuned_sizes=False)
    fake = {k.name: KernelResources(k.name, 32, 0) for k in gen.kernels}
    return prog, problem.kernel_models(gen, {"T": 1000, "n": 4096}, fake)
