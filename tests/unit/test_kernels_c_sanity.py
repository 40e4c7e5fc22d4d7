"""The project's kernels (kernels/): the catalogue is consistent, every C file compiles (double
and float), and the C, pure-Python and naive NumPy versions of a kernel compute the same arrays
on random inputs. Needs gcc and NumPy, not polycuda."""

from __future__ import annotations

import ctypes
import inspect
import shutil
import subprocess

import numpy as np
import pytest

from kernels import naive_cupy, naive_numpy, suite

GCC = shutil.which("gcc")
needs_gcc = pytest.mark.skipif(GCC is None, reason="gcc not found")
C_FLAGS = ("-std=c99", "-O2", "-Wall", "-Wextra", "-Wno-unknown-pragmas", "-Werror")
SEED = 20240611
WITH_PYTHON = tuple(k for k in suite.KERNELS if k.python_module is not None)
WITH_NAIVE = tuple(k for k in suite.KERNELS if k.cupy_naive or k.cupy_blas)
REQUIRED_PYTHON = ("jacobi_1d", "jacobi_2d", "heat_2d", "gemm", "atax", "mvt", "sor_2d")
C_TYPES = {"param": ctypes.c_int, "scalar": ctypes.c_double, "array": ctypes.c_void_p}


def _ids(kernels):
    return [k.name for k in kernels]


# -- catalogue ----------------------------------------------------------------------------------
def test_catalogue_covers_every_c_file_once():
    names = [k.name for k in suite.KERNELS]
    assert len(names) == len(set(names))
    assert sorted(k.c_file for k in suite.KERNELS) == sorted(
        p.name for p in suite.C_DIR.glob("*.c"))
    assert set(REQUIRED_PYTHON) <= {k.name for k in WITH_PYTHON}
    assert any(k.category == "triangular" for k in WITH_PYTHON)


@pytest.mark.parametrize("kernel", suite.KERNELS, ids=_ids(suite.KERNELS))
def test_catalogue_entry(kernel):
    args = suite.c_args(kernel)
    params = {a.name for a in args if a.kind == "param"}
    assert kernel.category in suite.CATEGORIES
    assert set(kernel.small) == params and set(kernel.bench) == params
    assert set(kernel.scalars) == {a.name for a in args if a.kind == "scalar"}
    assert all(d in params for a in args for d in a.dims)
    for sizes in (kernel.small, kernel.bench):
        for count in (kernel.bytes_per_run(sizes), kernel.bytes_per_run(sizes, w=4),
                      kernel.flops_per_run(sizes)):
            assert isinstance(count, int) and count > 0
    names = [a.name for a in args]
    if kernel.python_module is not None:
        assert list(inspect.signature(suite.python_function(kernel)).parameters) == names
    for fn_name in (kernel.cupy_naive, kernel.cupy_blas):
        if fn_name is not None:
            assert fn_name in naive_cupy.__all__
            params_of = inspect.signature(getattr(naive_cupy, fn_name)).parameters
            assert list(params_of) == names + ["xp"]


@pytest.mark.parametrize("kernel", suite.KERNELS, ids=_ids(suite.KERNELS))
def test_bench_sizes_exceed_l2_when_memory_bound(kernel):
    l2_bytes = 50 * 2**20
    if kernel.memory_bound:
        largest = max(int(np.prod([kernel.bench[d] for d in a.dims]))
                      for a in suite.c_args(kernel) if a.kind == "array")
        assert largest * 8 > l2_bytes


# -- C: compiles, and agrees with the Python version ---------------------------------------------
@needs_gcc
@pytest.mark.parametrize("data_type", ["double", "float"])
@pytest.mark.parametrize("kernel", suite.KERNELS, ids=_ids(suite.KERNELS))
def test_c_compiles(kernel, data_type, tmp_path):
    cmd = [GCC, *C_FLAGS, f"-DDATA_TYPE={data_type}", "-c", str(kernel.c_path),
           "-o", str(tmp_path / "k.o")]
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert result.returncode == 0, f"{' '.join(cmd)}\n{result.stderr}"


def _wrapper_source(kernels) -> str:
    """C that includes each kernel and adds `pc_call_<name>` taking flat array pointers."""
    lines = []
    for kernel in kernels:
        args = suite.c_args(kernel)
        formals = ", ".join(
            {"param": "int", "scalar": "double", "array": "void *"}[a.kind]
            + ("" if a.kind == "array" else " ") + a.name for a in args)
        actuals = ", ".join(
            a.name if a.kind != "array"
            else f"(DATA_TYPE (*){''.join(f'[{d}]' for d in a.dims[1:])}){a.name}"
            for a in args)
        lines += [f'#include "{kernel.c_path}"',
                  f"void pc_call_{kernel.name}({formals})",
                  f"{{\n  {kernel.function}({actuals});\n}}\n"]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def c_library(tmp_path_factory):
    if GCC is None:
        pytest.skip("gcc not found")
    work = tmp_path_factory.mktemp("kernels_c")
    (work / "wrappers.c").write_text(_wrapper_source(WITH_PYTHON))
    cmd = [GCC, *C_FLAGS, "-fPIC", "-shared", str(work / "wrappers.c"), "-o",
           str(work / "libkernels.so"), "-lm"]
    result = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert result.returncode == 0, f"{' '.join(cmd)}\n{result.stderr}"
    return ctypes.CDLL(str(work / "libkernels.so"))


def _run_c(library, kernel, args):
    fn = getattr(library, f"pc_call_{kernel.name}")
    kinds = [a.kind for a in suite.c_args(kernel)]
    fn.argtypes = [C_TYPES[kind] for kind in kinds]
    fn.restype = None
    fn(*[a.ctypes.data if kind == "array" else a for a, kind in zip(args, kinds)])


def _copy(args):
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def _assert_arrays_close(kernel, got, want, rtol, atol_fraction=0.0):
    for arg, g, w in zip(suite.c_args(kernel), got, want):
        if arg.kind == "array":
            atol = atol_fraction * float(np.max(np.abs(w)))
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"array {arg.name}")


@pytest.mark.parametrize("kernel", WITH_PYTHON, ids=_ids(WITH_PYTHON))
def test_c_matches_python(kernel, c_library):
    inputs = suite.random_args(kernel, kernel.small, np.random.default_rng(SEED))
    c_args, py_args = _copy(inputs), _copy(inputs)
    _run_c(c_library, kernel, c_args)
    suite.python_function(kernel)(*py_args)
    _assert_arrays_close(kernel, c_args, py_args, rtol=1e-10)
    changed = [not np.array_equal(a, b) for a, b in zip(py_args, inputs)
               if isinstance(a, np.ndarray)]
    assert any(changed), "the kernel wrote nothing"
    for value in py_args:
        if isinstance(value, np.ndarray):
            assert np.all(np.isfinite(value))


# -- naive whole-array versions (NumPy stands in for CuPy) --------------------------------------
@pytest.mark.parametrize("kernel", WITH_NAIVE, ids=_ids(WITH_NAIVE))
def test_naive_numpy_matches_python(kernel):
    inputs = suite.random_args(kernel, kernel.small, np.random.default_rng(SEED))
    naive_args, py_args = _copy(inputs), _copy(inputs)
    getattr(naive_numpy, kernel.cupy_naive or kernel.cupy_blas)(*naive_args)
    suite.python_function(kernel)(*py_args)
    # `@` and whole-array sums reassociate; centred data (covariance) can cancel to ~0
    _assert_arrays_close(kernel, naive_args, py_args, rtol=1e-10, atol_fraction=1e-13)
