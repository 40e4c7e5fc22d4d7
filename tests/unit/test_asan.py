"""Verify under AddressSanitizer: the suite's indirect kernels and a few fuzzer programs, the
original (the oracle) and the c and openmp builds all instrumented, in a process that loads
libasan first. No access may leave its array (issue 40: index arrays drawn so that the oracle
wrote past its buffers, heap corruption)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from polycuda.errors import PolycudaError
from polycuda.runtime import build

ROOT = Path(__file__).parents[2]
FUZZ_SEEDS = (3, 11)  # generated affine programs (tests/fuzz), their own sizes
# grids stored by rows (n x m cells, nm = n * m): the defaults (12 each) leave no stencil
# neighbour inside the grid, and verify refuses them
SIZES = {"2dconv": {"q": 12, "nm": 100, "m": 10},
         "fdtd-2d": {"q1": 12, "q2": 12, "q3": 12, "nm": 100, "m": 10}}


def kernels() -> dict[str, str]:
    """name -> C source: kernels/indirect.py, the Anantpur benchmarks whose index values are
    offset (stencils on cell numbers) or random, a neighbour list, nested index reads."""
    from kernels import anantpur, indirect
    from tests.unit.test_verify_inputs import NEIGHBOURS, NESTED

    found = {k.lower(): v for k, v in vars(indirect).items()
             if k.isupper() and isinstance(v, str) and "#pragma scop" in v}
    found.update({k: src for k, (src, _) in anantpur.BENCHMARKS.items()
                  if k in ("randAcc", "2dconv", "fdtd-2d")})
    found.update(neighbours=NEIGHBOURS, nested=NESTED)
    return found


def verify_all() -> None:
    """Run in the sanitized process: verify every program on c and openmp; print failures."""
    import polycuda
    from tests.fuzz.generator import generate

    programs = [(name, polycuda.compile(src, filename=f"{name}.c"), SIZES.get(name))
                for name, src in sorted(kernels().items())]
    for seed in FUZZ_SEEDS:
        fuzz = generate(seed)
        programs.append((f"fuzz-{seed}", polycuda.compile(fuzz.source, filename="fuzz.c"),
                         fuzz.sizes))
    bad = []
    with build.address_sanitizer():
        for name, prog, sizes in programs:
            for r in prog.verify(sizes=sizes, targets=("c", "openmp"), raise_on_mismatch=False):
                if not r.ok:
                    bad.append(f"{name} {r.target}: {r.message}")
    print("\n".join(bad) or f"verified {len(programs)} programs", flush=True)


OVERRUN = """
void over(int n, double *A) { for (int i = 0; i <= n; i++) A[i] = 1.0; }
"""


def overrun() -> None:
    """Run in the sanitized process: a library that writes one past a NumPy array."""
    import ctypes

    import numpy as np

    with build.address_sanitizer():
        lib = ctypes.CDLL(str(build.build_shared(OVERRUN, "c")))
    A = np.zeros(5)
    lib.over(ctypes.c_int(5), A.ctypes.data_as(ctypes.c_void_p))


def _sanitized(call: str) -> subprocess.CompletedProcess:
    try:
        preload = build.asan_preload()
    except PolycudaError as err:
        pytest.skip(f"no AddressSanitizer: {err}")
    env = {**os.environ, "LD_PRELOAD": preload, "PYTHONPATH": str(ROOT),
           # Python's own allocations are never freed at exit: leaks are not the point here
           "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0:exitcode=23",
           "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "2")}
    code = textwrap.dedent(f"""
        from tests.unit.test_asan import {call.split('(')[0]}
        {call}
    """)
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=600, check=False)


def test_asan_catches_a_write_past_a_numpy_array():
    """The mode itself: without it, this test's other half would prove nothing."""
    done = _sanitized("overrun()")
    assert done.returncode == 23, done.stderr[-2000:]
    assert "AddressSanitizer: heap-buffer-overflow" in done.stderr


@pytest.mark.slow
def test_verify_of_indirect_kernels_and_fuzz_programs_under_asan():
    done = _sanitized("verify_all()")
    assert "AddressSanitizer" not in done.stderr, done.stderr[-4000:]
    assert done.returncode == 0, done.stderr[-4000:]
    assert done.stdout.strip().startswith("verified"), done.stdout
