"""Every kernel of the suite, compiled by polycuda and verified against its oracle.

C kernels: against the user's own C compiled by gcc; targets c and openmp (parallel loops in a
shuffled order) and the generated CUDA executed by the CPU emulator (all blocks and threads).
Python kernels: against the Python function itself. On a GPU (`pytest -m gpu`) the CUDA
code runs on the device, with NumPy arrays (copies) and with CuPy arrays (in place).
"""

import numpy as np
import pytest

import polycuda
from kernels import suite
from polycuda.options import Options

C_KERNELS = [k.name for k in suite.KERNELS]
PY_KERNELS = [k.name for k in suite.KERNELS if k.python_module]


def _c_program(name: str, **options) -> polycuda.Program:
    kernel = suite.by_name(name)
    return polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(**options))


@pytest.mark.parametrize("name", C_KERNELS)
def test_c_kernel_verifies_on_cpu_targets_and_emulated_cuda(name):
    prog = _c_program(name)
    results = prog.verify(dict(suite.by_name(name).small), targets=("c", "openmp", "emulate"))
    assert len(results) == 3 and all(r.ok for r in results)


@pytest.mark.parametrize("name", PY_KERNELS)
def test_python_kernel_verifies(name):
    kernel = suite.by_name(name)
    fn = polycuda.jit(suite.python_function(kernel), target="openmp")
    args = suite.random_args(kernel, kernel.small, np.random.default_rng(1))
    prog = fn.program(*args)
    results = prog.verify(sizes=dict(kernel.small), targets=("openmp", "emulate"))
    assert all(r.ok for r in results)


def test_python_kernel_call_runs_in_place():
    kernel = suite.by_name("jacobi_2d")
    py = suite.python_function(kernel)
    args = suite.random_args(kernel, kernel.small, np.random.default_rng(2))
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    py(*expected)
    polycuda.jit(py, target="c")(*args)
    for got, want in zip(args, expected):
        if isinstance(want, np.ndarray):
            np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.gpu
@pytest.mark.parametrize("name", C_KERNELS)
def test_c_kernel_verifies_on_the_gpu(name):
    prog = _c_program(name, target="cuda")
    results = prog.verify(dict(suite.by_name(name).small), targets=("cuda",))
    assert all(r.ok for r in results)


@pytest.mark.gpu
@pytest.mark.parametrize("name", PY_KERNELS)
def test_python_kernel_in_place_on_cupy_arrays(name):
    cupy = pytest.importorskip("cupy")
    kernel = suite.by_name(name)
    py = suite.python_function(kernel)
    host = suite.random_args(kernel, kernel.small, np.random.default_rng(3))
    expected = [a.copy() if isinstance(a, np.ndarray) else a for a in host]
    py(*expected)
    device = [cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in host]
    polycuda.jit(py, target="cuda")(*device)
    for got, want in zip(device, expected):
        if isinstance(want, np.ndarray):
            np.testing.assert_allclose(cupy.asnumpy(got), want, rtol=1e-9, atol=1e-12)
