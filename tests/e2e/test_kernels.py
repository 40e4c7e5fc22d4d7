"""Every kernel of the suite, compiled by polycuda and verified against its oracle.

C kernels: against the user's own C compiled by gcc; targets c and openmp (parallel loops in a
shuffled order) and the generated CUDA executed by the CPU emulator (all blocks and threads).
Python kernels: against the Python function itself. On a GPU (`pytest -m gpu`) the CUDA
code runs on the device, with NumPy arrays (copies) and with CuPy arrays (in place).
A kernel whose math needs prepared inputs (kernel.prepare_inputs: a positive-definite matrix for
cholesky, a dominant diagonal for lu) is verified on those, as Program.verify draws its own
unprepared ones (cholesky's oracle would take square roots of negative numbers).
"""

import numpy as np
import pytest

import polycuda
from kernels import suite
from polycuda.options import Options
from polycuda.program import CPU_TARGETS
from polycuda.verify import Comparison, compare, copy_arguments

C_KERNELS = [k.name for k in suite.KERNELS]
PY_KERNELS = [k.name for k in suite.KERNELS if k.python_module]


def _c_program(name: str, **options) -> polycuda.Program:
    kernel = suite.by_name(name)
    return polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(**options))


def _verify_on(prog: polycuda.Program, named: dict[str, object], targets: tuple[str, ...]
               ) -> list[Comparison]:
    """Program.verify on the given inputs (named as prog.scop.args): the oracle and each target
    on copies, parallel loops shuffled on the CPU targets; the oracle's results must be finite
    (the comparison takes NaN as equal to NaN)."""
    expected = copy_arguments(named)
    prog._reference(expected)
    for name in prog.scop.written_arrays():
        if not prog.scop.array(name).local:
            assert np.all(np.isfinite(expected[name])), f"the oracle's {name} is not finite"
    results = []
    for target in targets:
        actual = copy_arguments(named)
        kernel = prog.kernel(target, shuffle_parallel=target in CPU_TARGETS)
        kernel(*[actual[a.name] for a in prog.scop.args])
        results.append(compare(prog.scop, target, expected, actual))
    return results


@pytest.mark.parametrize("name", C_KERNELS)
def test_c_kernel_verifies_on_cpu_targets_and_emulated_cuda(name):
    prog, kernel = _c_program(name), suite.by_name(name)
    targets = ("c", "openmp", "emulate")
    if kernel.prepare_inputs is None:
        results = prog.verify(dict(kernel.small), targets=targets)
    else:
        args = suite.random_args(kernel, kernel.small, np.random.default_rng(1))
        named = {a.name: v for a, v in zip(suite.c_args(kernel), args)}
        results = _verify_on(prog, named, targets)
    assert len(results) == 3 and all(r.ok for r in results), [r.message for r in results]


@pytest.mark.parametrize("name", PY_KERNELS)
def test_python_kernel_verifies(name):
    kernel = suite.by_name(name)
    fn = polycuda.jit(suite.python_function(kernel), target="openmp")
    args = suite.random_args(kernel, kernel.small, np.random.default_rng(1))
    prog = fn.program(*args)
    targets = ("openmp", "emulate")
    if kernel.prepare_inputs is None:
        results = prog.verify(sizes=dict(kernel.small), targets=targets)
    else:
        entry = fn.entry_arguments(prog, tuple(args), {})
        results = _verify_on(prog, {a.name: v for a, v in zip(prog.scop.args, entry)}, targets)
    assert len(results) == 2 and all(r.ok for r in results), [r.message for r in results]


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


@pytest.mark.parametrize("scheduler", ["isl", "pluto"])
@pytest.mark.parametrize("name", C_KERNELS)
def test_c_kernel_emulated_with_each_scheduler(name, scheduler):
    # the default picks one scheduler per kernel; the other one's CUDA (with private registers
    # and reduction kernels) must verify too: Pluto's two_mm once kept a register unloaded
    prog, kernel = _c_program(name, scheduler=scheduler), suite.by_name(name)
    if kernel.prepare_inputs is None:
        results = prog.verify(dict(kernel.small), targets=("emulate",))
    else:
        args = suite.random_args(kernel, kernel.small, np.random.default_rng(2))
        results = _verify_on(prog, {a.name: v for a, v in zip(suite.c_args(kernel), args)},
                             ("emulate",))
    assert results and all(r.ok for r in results), [r.message for r in results]


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
