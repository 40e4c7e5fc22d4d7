"""Runtime: cached builds, ctypes calls of hand-written entries (polycuda.codegen.abi),
argument checks, array interop, tool discovery. No GPU needed; nvcc tests skip without it."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import threading

import numpy as np
import pytest

from polycuda.errors import BuildError, LaunchError, ToolNotFoundError
from polycuda.frontend.builder import ScopBuilder
from polycuda.ir.expr import BinOp, Const, Ref, Var
from polycuda.ir.scop import Scop
from polycuda.runtime import arrays, build, device, launch

HAVE_NVCC = shutil.which("nvcc") is not None or os.path.exists("/usr/local/cuda/bin/nvcc")
needs_nvcc = pytest.mark.skipif(not HAVE_NVCC, reason="nvcc (CUDA toolkit) is not installed")


def make_scop(name: str, args: list[tuple], written: tuple[str, ...] = ()) -> Scop:
    """A Scop with the given entry arguments (name, kind, dtype[, shape]).

    Each written array gets one statement `W[i0, ..] = W[i0, ..]` over its whole shape (so
    that the bounds check sees in-bounds accesses): only the signature and the set of
    written arrays matter to the runtime.
    """
    b = ScopBuilder(name)
    for arg in args:
        b.add_arg(arg[0], arg[1], arg[2], tuple(arg[3]) if len(arg) > 3 else ())
    for w in written:
        shape = b.arrays[w].shape
        for k, extent in enumerate(shape):
            b.enter_loop(f"i{k}", Const(0), BinOp("-", extent, Const(1)), 1)
        ref = Ref(w, tuple(Var(f"i{k}") for k in range(len(shape))))
        b.add_statement(ref, "=", ref)
        for _ in shape:
            b.exit_loop()
    return b.build()


AXPY_C = """
int pc_axpy(long long n, double a, double *x, double *y) {
  for (long long i = 0; i < n; i++) y[i] = a * x[i] + y[i];
  return 0;
}
int pc_ref_axpy(long long n, double a, double *x, double *y) {
  return pc_axpy(n, a, x, y);
}
"""
AXPY = make_scop("axpy", [("n", "param", "int"), ("a", "scalar", "double"),
                          ("x", "array", "double", (Var("n"),)),
                          ("y", "array", "double", (Var("n"),))], written=("y",))

SCALE2D_C = """
#include <omp.h>
int pc_scale2d(long long n, long long m, float s, int k, float *A, int *B) {
  #pragma omp parallel for
  for (long long i = 0; i < n; i++)
    for (long long j = 0; j < m; j++) {
      A[i * m + j] *= s;
      B[i * m + j] += k + omp_get_num_threads() * 0;
    }
  return n < 0 ? 3 : 0;
}
"""
SCALE2D = make_scop("scale2d", [("n", "param", "int"), ("m", "param", "int"),
                                ("s", "scalar", "float"), ("k", "scalar", "int"),
                                ("A", "array", "float", (Var("n"), Var("m"))),
                                ("B", "array", "int", (Var("n"), Var("m")))],
                    written=("A", "B"))


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("polycuda-cache")


@pytest.fixture(scope="module")
def axpy_kernel(cache):
    return launch.load(build.build_shared(AXPY_C, "c", cache=cache), AXPY, "c")


def random(shape, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-1000, 1000, size=shape).astype(dtype)
    return (rng.random(shape) + 0.5).astype(dtype)


# -- build ---------------------------------------------------------------------------------------
def test_build_then_cache_hit_does_not_compile(tmp_path, monkeypatch):
    lib = build.build_shared(AXPY_C, "c", cache=tmp_path)
    assert lib.exists() and lib.with_suffix(".c").read_text() == AXPY_C
    mtime = lib.stat().st_mtime_ns

    def no_compiler(cmd):
        raise AssertionError(f"compiler called on a cache hit: {cmd}")

    monkeypatch.setattr(build, "run_compiler", no_compiler)
    assert build.build_shared(AXPY_C, "c", cache=tmp_path) == lib
    assert lib.stat().st_mtime_ns == mtime
    with pytest.raises(AssertionError):  # another flag is another library
        build.build_shared(AXPY_C, "c", flags=("-DX=1",), cache=tmp_path)


def test_cache_dir_from_env(tmp_path, monkeypatch):
    monkeypatch.setenv("POLYCUDA_CACHE", str(tmp_path / "c"))
    assert build.cache_dir() == tmp_path / "c"
    lib = build.build_shared(AXPY_C, "reference")
    assert lib.parent == tmp_path / "c"
    monkeypatch.delenv("POLYCUDA_CACHE")
    assert build.cache_dir().parts[-2:] == (".cache", "polycuda")


def test_parallel_builds_of_one_source_agree(tmp_path):
    source = AXPY_C + "\nint pc_parallel_marker(void) { return 7; }\n"
    results, errors = [], []

    def work():
        try:
            results.append(build.build_shared(source, "c", cache=tmp_path))
        except Exception as exc:  # noqa: BLE001 (reported by the assert below)
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(results)) == 1
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp leftovers


def test_build_error_carries_command_and_stderr(tmp_path):
    with pytest.raises(BuildError) as info:
        build.build_shared("int pc_bad(void) { return undefined_name; }", "c", cache=tmp_path)
    assert "undefined_name" in info.value.stderr
    assert info.value.cmd[0] == device.find_cc() and "-shared" in info.value.cmd
    assert "undefined_name" in str(info.value)


def test_unknown_target_is_refused():
    with pytest.raises(Exception, match="target"):
        build.build_shared("", "fortran")


def test_compile_commands_per_target(tmp_path):
    src, out = tmp_path / "k.c", tmp_path / "k.so"
    assert "-fopenmp" in build.compile_command("openmp", "gcc", src, out)
    assert "-O3" in build.compile_command("reference", "gcc", src, out)  # as c, openmp
    cuda = build.compile_command("cuda", "nvcc", src, out, arch="sm_80")
    assert "-arch=sm_80" in cuda and "-Xcompiler" in cuda and "-shared" in cuda
    # the host version's code built as the oracle of `polycuda bench` is, for this machine
    assert cuda[cuda.index("-march=native") - 1] == "-Xcompiler"
    emu = build.compile_command("emulate", "g++", src, out, shared=False)
    assert "-std=c++20" in emu and "-c" in emu and "-shared" not in emu
    assert build.resolve_arch("cuda", "sm_75") == "sm_75"
    assert build.resolve_arch("c", "sm_75") is None


def test_emulated_builds_read_the_precompiled_emulator_header_and_link_its_runtime(tmp_path):
    kernel = ("__global__ void k(double *a) { a[threadIdx.x] += 1.0; }\n"
              'extern "C" int pc_k(double *a) { k<<<1, 32>>>(a); return 0; }\n')
    lib = build.build_shared(kernel, "emulate", cache=tmp_path)
    made = sorted(p.name for p in tmp_path.glob(build.HEADER_PREFIX + "*"))
    stem = made[0].removesuffix(".h")
    assert made == [f"{stem}.h", f"{stem}.h.gch", f"{stem}.o"]
    source = lib.with_suffix(".cpp")
    assert f'#include "{tmp_path / made[0]}"' in source.read_text()
    # g++ -H marks a precompiled header it uses with "!" (one it rejects with "x")
    cmd = build.compile_command("emulate", device.find_cxx(), source, tmp_path / "k.o",
                                ("-H", "-Winvalid-pch"), shared=False)
    assert f"! {tmp_path / made[1]}" in build.run_compiler(cmd).splitlines()
    # the generated file compiles its own code only: the runtime comes from the object
    own = subprocess.run(["nm", "--defined-only", str(tmp_path / "k.o")], capture_output=True,
                         text=True, check=True).stdout
    assert "pc_k" in own and "run_grid" not in own and "pc_emu_set_seed" not in own
    exported = subprocess.run(["nm", "-D", "--defined-only", str(lib)], capture_output=True,
                              text=True, check=True).stdout
    assert " T pc_emu_set_seed" in exported and " T pc_k" in exported
    assert "cudaMalloc" not in exported and "run_grid" not in exported  # hidden: never shared
    a, b = ctypes.CDLL(str(lib)), ctypes.CDLL(str(build.build_shared(kernel + "\n", "emulate",
                                                                    cache=tmp_path)))
    x = (ctypes.c_double * 32)(*range(32))
    assert a.pc_k(x) == 0 and b.pc_k(x) == 0 and list(x) == [i + 2.0 for i in range(32)]
    # each library keeps its own runtime state, as each loaded CUDA library does
    assert a.pc_emu_host_register(x, ctypes.c_ulonglong(8)) == 0
    assert (a.pc_emu_pinned_ranges(), b.pc_emu_pinned_ranges()) == (1, 0)
    # other flags, another header and runtime; the same flags, the same ones
    build.build_shared(kernel, "emulate", flags=("-DPC_EMU_SEED=3ULL",), cache=tmp_path)
    assert len(list(tmp_path.glob(build.HEADER_PREFIX + "*.gch"))) == 2
    assert len(list(tmp_path.glob(build.HEADER_PREFIX + "*.o"))) == 2


@needs_nvcc
def test_compile_only_cuda_with_nvcc():
    build.compile_only("__global__ void k(double *a) { a[threadIdx.x] += 1.0; }\n"
                       'extern "C" int pc_k(double *a) { k<<<1, 32>>>(a); return 0; }\n',
                       "cuda")
    with pytest.raises(BuildError) as info:
        build.compile_only("__global__ void k(double *a) { a[threadIdx.w] = 1; }", "cuda")
    assert "threadIdx" in info.value.stderr


# -- calls through ctypes ------------------------------------------------------------------------
def test_c_entry_on_random_arrays(axpy_kernel):
    n = 1000
    x, y = random(n, seed=1), random(n, seed=2)
    expected = 2.5 * x + y
    axpy_kernel(n, 2.5, x, y)
    np.testing.assert_allclose(y, expected, rtol=1e-15)
    axpy_kernel(y=y, x=x, a=np.float32(-1.0), n=np.int64(n))  # by name, NumPy scalars
    np.testing.assert_allclose(y, expected - x, rtol=1e-14)


def test_reference_target_calls_pc_ref(cache):
    kernel = launch.load(build.build_shared(AXPY_C, "reference", cache=cache), AXPY,
                         "reference")
    x, y = random(10, seed=3), random(10, seed=4)
    expected = x + y
    kernel(10, 1.0, x, y)
    np.testing.assert_allclose(y, expected)


def test_openmp_build_and_mixed_dtypes(cache):
    kernel = launch.load(build.build_shared(SCALE2D_C, "openmp", cache=cache), SCALE2D,
                         "openmp")
    A, B = random((37, 23), np.float32, 5), random((37, 23), np.int32, 6)
    A0, B0 = A.copy(), B.copy()
    kernel(37, 23, 0.5, -7, A, B)
    np.testing.assert_allclose(A, A0 * np.float32(0.5), rtol=1e-6)
    np.testing.assert_array_equal(B, B0 - 7)


def test_nonzero_return_is_a_launch_error(cache):
    kernel = launch.load(build.build_shared(SCALE2D_C, "c", flags=("-fopenmp",), cache=cache),
                         SCALE2D, "c")
    empty = np.zeros((0, 0), np.float32)
    with pytest.raises(LaunchError, match="negative shape"):
        kernel(-1, 0, 1.0, 0, empty, empty.astype(np.int32))
    kernel_raw = kernel.prepare(0, 0, 1.0, 0, empty, empty.astype(np.int32))
    kernel_raw()  # empty arrays are fine


def test_missing_entry_symbol(cache):
    lib = build.build_shared("int pc_other(void) { return 0; }", "c", cache=cache)
    with pytest.raises(LaunchError, match="no entry 'pc_axpy'"):
        launch.load(lib, AXPY, "c")


@pytest.mark.parametrize("args, message", [
    ((10, 1.0, np.ones(10, np.float32), np.ones(10)), "'x' has dtype float, expected double"),
    ((10, 1.0, np.ones(11), np.ones(10)), r"'x' has shape \(11,\), expected \(10,\)"),
    ((10, 1.0, np.ones(20)[::2], np.ones(10)), "'x' is not C-contiguous"),
    ((10, 1.0, np.ones((10, 1)), np.ones(10)), r"expected \(10,\)"),
    ((10.0, 1.0, np.ones(10), np.ones(10)), "param 'n' must be an integer, got float"),
    ((True, 1.0, np.ones(10), np.ones(10)), "param 'n' must be an integer, got bool"),
    ((10, "1", np.ones(10), np.ones(10)), "scalar 'a' .double. must be a real number"),
    ((10, 1.0, [1.0] * 10, np.ones(10)), "'x' must be an array"),
    ((10, 1.0, np.ones(10)), "missing argument"),
    ((10, 1.0, np.ones(10), np.ones(10), 5), "takes 4 arguments"),
    ((2**63, 1.0, np.ones(10), np.ones(10)), "out of the range"),
])
def test_argument_errors(axpy_kernel, args, message):
    with pytest.raises(LaunchError, match=message):
        axpy_kernel(*args)


def test_keyword_errors_and_aliasing(axpy_kernel):
    x = np.ones(10)
    with pytest.raises(LaunchError, match="no argument 'z'"):
        axpy_kernel(10, 1.0, x, x.copy(), z=1)
    with pytest.raises(LaunchError, match="given twice"):
        axpy_kernel(10, 1.0, x, x.copy(), n=10)
    with pytest.raises(LaunchError, match="share memory"):
        axpy_kernel(10, 1.0, x, x)
    ro = np.ones(10)
    ro.flags.writeable = False
    axpy_kernel(10, 1.0, ro, np.ones(10))  # read-only input is fine
    with pytest.raises(LaunchError, match="read-only"):
        axpy_kernel(10, 1.0, np.ones(10), ro)


def test_gpu_array_refused_by_host_target(axpy_kernel):
    with pytest.raises(LaunchError, match="runs on the host but argument 'x' is a GPU array"):
        axpy_kernel(4, 1.0, FakeCuda(random(4)), random(4))


def test_time_calls(axpy_kernel):
    times = launch.time_calls(axpy_kernel, (100, 1.0, random(100), random(100)), repeats=3,
                              warmup=1)
    assert len(times) == 3 and all(t > 0 for t in times)


# -- array interop -------------------------------------------------------------------------------
class FakeCuda:
    """An object with `__cuda_array_interface__` (as CuPy or Numba arrays have)."""

    def __init__(self, host: np.ndarray, strides=None):
        self.__cuda_array_interface__ = {
            "shape": host.shape, "typestr": host.dtype.str, "data": (host.ctypes.data, False),
            "strides": strides, "version": 3}


class FakeTorch:
    """Duck-typed like a torch tensor: data_ptr(), is_cuda, dtype, shape, is_contiguous()."""

    def __init__(self, host: np.ndarray, cuda: bool):
        self.host, self.is_cuda, self.shape = host, cuda, host.shape
        self.dtype = {np.float64: "torch.float64", np.int32: "torch.int32"}[host.dtype.type]

    def data_ptr(self) -> int:
        return self.host.ctypes.data

    def is_contiguous(self) -> bool:
        return bool(self.host.flags.c_contiguous)


class FakeDlpack:
    """Only the DLPack protocol (a CPU array)."""

    def __init__(self, host: np.ndarray):
        self.host = host

    def __dlpack__(self, **kwargs):
        return self.host.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.host.__dlpack_device__()


def test_describe_numpy_cuda_torch_dlpack():
    host = random((3, 4))
    info = arrays.describe(host)
    assert (info.kind, info.dtype, info.shape, info.device) == ("numpy", "double", (3, 4), False)
    assert info.ptr == host.ctypes.data and info.nbytes == 96
    cai = arrays.describe(FakeCuda(host))
    assert (cai.kind, cai.dtype, cai.shape, cai.device, cai.contiguous) == (
        "cuda", "double", (3, 4), True, True)
    assert not arrays.describe(FakeCuda(host, strides=(8, 24))).contiguous
    assert arrays.describe(FakeCuda(host, strides=(32, 8))).contiguous
    torch_like = arrays.describe(FakeTorch(host.astype(np.int32), cuda=True))
    assert (torch_like.kind, torch_like.dtype, torch_like.device) == ("torch", "int", True)
    dl = arrays.describe(FakeDlpack(host))
    assert (dl.kind, dl.dtype, dl.ptr) == ("numpy", "double", host.ctypes.data)
    assert arrays.classify(3.0) is None


def test_torch_cpu_tensor_runs_in_place(axpy_kernel):
    x, y = random(8, seed=7), random(8, seed=8)
    expected = x + y
    axpy_kernel(8, 1.0, FakeTorch(x, cuda=False), FakeTorch(y, cuda=False))
    np.testing.assert_allclose(y, expected)


def test_check_array_messages():
    scop = SCALE2D
    info = arrays.check_array("A", random((2, 3), np.float32), scop.array("A"), {"n": 2, "m": 3})
    assert info.shape == (2, 3)
    with pytest.raises(LaunchError, match=r"expected \(2, 4\) \(shape \(n, m\) at"):
        arrays.check_array("A", random((2, 3), np.float32), scop.array("A"), {"n": 2, "m": 4})
    with pytest.raises(LaunchError, match="non-native"):
        arrays.check_array("A", np.ones((2, 3), ">f4"), scop.array("A"), {"n": 2, "m": 3})


# -- tools ---------------------------------------------------------------------------------------
def test_parse_smi_line_and_gpu_probe_never_raises():
    info = device.parse_smi_line("NVIDIA H100 80GB HBM3, 9.0, 550.54.15")
    assert info == device.GpuInfo("NVIDIA H100 80GB HBM3", "sm_90", "550.54.15")
    assert device.parse_smi_line("No devices were found") is None
    assert device.parse_smi_line("") is None
    probed = device.gpu_info()
    assert probed is None or probed.arch.startswith("sm_")


def test_missing_tools_say_how_to_get_them(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(ToolNotFoundError, match="install gcc"):
        device.find_cc()
    with pytest.raises(ToolNotFoundError, match="g\\+\\+"):
        device.find_cxx()
    fake = tmp_path / "bin" / "nvcc"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    assert device.find_nvcc() == str(fake)


def test_require_cupy_hint(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_cupy(name, *args, **kwargs):
        if name == "cupy":
            raise ImportError("no cupy")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_cupy)
    with pytest.raises(ToolNotFoundError, match="pip install cupy-cuda12x"):
        device.require_cupy()


def test_expected_shape_of_a_product():
    scop = make_scop("p", [("nb", "param", "int"),
                           ("A", "array", "double", (BinOp("*", Var("nb"), Const(4)),))],
                      written=("A",))
    assert arrays.expected_shape(scop.array("A"), {"nb": 3}) == (12,)


def test_generated_accesses_outside_an_array_are_refused_before_running():
    """The safety net behind the passes: the transformed Scop's accesses are checked too."""
    import dataclasses

    import polycuda
    from polycuda.runtime import build, launch

    src = """
void shift(int n, double A[n], double B[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = A[i] * 2.0;
#pragma endscop
}
"""
    prog = polycuda.compile(src, filename="shift.c", options=polycuda.Options(target="c"))
    gen = prog.generate("c")
    stmt = gen.scop.statements[0]
    past = dataclasses.replace(stmt, lhs=dataclasses.replace(
        stmt.lhs, index=(BinOp("+", stmt.lhs.index[0], Const(1)),)))  # B[i + 1]
    broken = dataclasses.replace(gen.scop, statements=(past,))
    kernel = launch.load(build.build_shared(gen.source, "c"), prog.scop, "c",
                         transformed=broken)
    a, b = np.ones(5), np.zeros(5)
    with pytest.raises(LaunchError, match="internal error, nothing was run"):
        kernel(5, a, b)
    assert (b == 0).all()
    launch.load(build.build_shared(gen.source, "c"), prog.scop, "c",
                transformed=gen.scop)(5, a, b)
    assert (b == 2).all()
