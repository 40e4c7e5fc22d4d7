"""Cooperative launches in the CPU emulator: cudaLaunchCooperativeKernel runs every thread of the
grid as fibers of one scheduler, so grid.sync() is a real grid-wide barrier; missing grid
barriers, oversized grids and deadlocks must show up as wrong results or errors."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from polycuda.errors import LaunchError
from polycuda.ir.expr import BinOp, Const, Var
from polycuda.runtime import build, emulate, launch
from tests.unit.test_runtime import make_scop, needs_nvcc, random

PRELUDE = """\
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#define PC_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) return (int)e_; } \\
  while (0)
"""

# The code generator's wavefront shape: the sequential loop inside the kernel, blocks striding
# over a 1-D Jacobi, phases separated by GRID_SYNC; the grid as large as the device holds.
JACOBI_TEMPLATE = """
__global__ void __launch_bounds__(64) NAME_kernel(int T, int n, double *__restrict__ A,
                                                   double *__restrict__ B) {
  cooperative_groups::grid_group pc_grid = cooperative_groups::this_grid();
  for (int c0 = 0; c0 < T; c0 += 1) {
    for (int i = 1 + blockIdx.x * 64 + threadIdx.x; i < n - 1; i += gridDim.x * 64)
      B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0;
    GRID_SYNC
    for (int i = 1 + blockIdx.x * 64 + threadIdx.x; i < n - 1; i += gridDim.x * 64)
      A[i] = (B[i - 1] + B[i] + B[i + 1]) / 3.0;
    GRID_SYNC
  }
}
extern "C" int pc_NAME_dev(long long T, long long n, double *A, double *B) {
  int pc_dev = 0, pc_sms = 0, pc_per_sm = 0;
  PC_CHECK(cudaGetDevice(&pc_dev));
  PC_CHECK(cudaDeviceGetAttribute(&pc_sms, cudaDevAttrMultiProcessorCount, pc_dev));
  PC_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&pc_per_sm, NAME_kernel, 64, 0));
  long long pc_need = (n - 2 + 63) / 64, pc_max = (long long)pc_sms * pc_per_sm;
  int g = (int)(pc_need < pc_max ? pc_need : pc_max);
  if (g < 1) g = 1;
  int pc_a0 = (int)T; int pc_a1 = (int)n; double *pc_a2 = A; double *pc_a3 = B;
  void *pc_args[] = {(void *)&pc_a0, (void *)&pc_a1, (void *)&pc_a2, (void *)&pc_a3};
  PC_CHECK(cudaLaunchCooperativeKernel((void *)NAME_kernel, dim3(g), dim3(64), pc_args, 0, 0));
  return (int)cudaDeviceSynchronize();
}
"""
JACOBI_VARIANTS = {"grid": "pc_grid.sync();", "none": "", "block": "__syncthreads();"}
JACOBI_CU = PRELUDE + "".join(
    JACOBI_TEMPLATE.replace("NAME", f"jacobi_{name}").replace("GRID_SYNC", sync)
    for name, sync in JACOBI_VARIANTS.items())


def jacobi_scop(name):
    return make_scop(name, [("T", "param", "int"), ("n", "param", "int"),
                            ("A", "array", "double", (Var("n"),)),
                            ("B", "array", "double", (Var("n"),))], written=("A", "B"))


def one_array(name, shape=None, params=("n",), dtype="double"):
    """The Scop of an entry (params..., T *A) that writes A of `shape` (default (n,))."""
    args = [(p, "param", "int") for p in params]
    return make_scop(name, args + [("A", "array", dtype, shape or (Var("n"),))], written=("A",))


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("emulate-cooperative-cache")


@pytest.fixture(scope="module")
def jacobi_lib(cache):
    return emulate.build_emulated(JACOBI_CU, cache=cache)


def jacobi_matches(kernel, seed, T=4, n=3000):
    """Whether the kernel (run with `seed`) gives the sequential result on random arrays."""
    A, B = random(n, seed=10 + seed), random(n, seed=20 + seed)
    A_ref, B_ref = A.copy(), B.copy()
    for _ in range(T):
        B_ref[1:-1] = (A_ref[:-2] + A_ref[1:-1] + A_ref[2:]) / 3.0
        A_ref[1:-1] = (B_ref[:-2] + B_ref[1:-1] + B_ref[2:]) / 3.0
    kernel.set_seed(seed)
    kernel(T, n, A, B)
    return np.allclose(A, A_ref, rtol=1e-14) and np.allclose(B, B_ref, rtol=1e-14)


def test_grid_sync_wavefront_matches_sequential_reference(jacobi_lib):
    # n = 3000 needs 47 blocks of 64; the device holds 2 SMs x 16: 32 blocks that stride.
    kernel = launch.load(jacobi_lib, jacobi_scop("jacobi_grid"), "emulate", device_entry=True)
    for seed in range(4):
        assert jacobi_matches(kernel, seed)
    assert jacobi_matches(kernel, 0, T=3, n=200)  # fewer blocks than the device holds


def test_portable_ucontext_fibers(cache):
    lib = emulate.build_emulated(JACOBI_CU, flags=("-DPC_EMU_UCONTEXT",), cache=cache)
    kernel = launch.load(lib, jacobi_scop("jacobi_grid"), "emulate", device_entry=True)
    assert jacobi_matches(kernel, 0, T=2)


@pytest.mark.parametrize("variant", ["none", "block"],
                         ids=["grid-sync-removed", "syncthreads-instead-of-grid-sync"])
def test_missing_grid_sync_gives_wrong_results(jacobi_lib, variant):
    # "block": each block stays in step with itself only; blocks must drift apart to see it.
    kernel = launch.load(jacobi_lib, jacobi_scop(f"jacobi_{variant}"), "emulate",
                         device_entry=True)
    assert not all(jacobi_matches(kernel, seed) for seed in range(4))


# Small kernels, one entry each, in one library.
MISC_CU = PRELUDE + """
namespace cg = cooperative_groups;

// Each block keeps its own dynamic, static and namespace-scope shared memory, though every
// block writes its copies before any block reads them; element 31 is never written.
__shared__ double ns_tile[32];
__global__ void blockmem(double *A) {
  extern __shared__ double dyn[];
  __shared__ double tile[32];
  cg::grid_group grid = cg::this_grid();
  int t = threadIdx.x, b = blockIdx.x;
  if (t < 31) {
    dyn[t] = 1000.0 * b + t;
    tile[t] = 2000.0 * b + t;
    ns_tile[t] = 3000.0 * b + t;
  }
  grid.sync();
  A[(b * 3 + 0) * 32 + t] = dyn[(t + 1) % 32];
  A[(b * 3 + 1) * 32 + t] = tile[(t + 1) % 32];
  A[(b * 3 + 2) * 32 + t] = ns_tile[(t + 1) % 32];
}
extern "C" int pc_blockmem_dev(long long nb, double *A) {
  void *args[] = {(void *)&A};
  PC_CHECK(cudaLaunchCooperativeKernel((const void *)blockmem, dim3((unsigned)nb), dim3(32),
                                       args, 32 * sizeof(double), 0));
  return (int)cudaDeviceSynchronize();
}

// Grid of as many blocks of 128 threads as the device holds, plus `extra`.
__global__ void fill(double *A, int n) {
  cg::grid_group grid = cg::this_grid();
  for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
    A[i] = 1.0;
  grid.sync();
}
extern "C" int pc_large_dev(long long extra, long long n, double *A) {
  int sms = 0, per_sm = 0, coop = 0;
  PC_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  PC_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
  PC_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fill, 128, 0));
  if (!coop) return 1000;
  int nn = (int)n;
  void *args[] = {(void *)&A, (void *)&nn};
  PC_CHECK(cudaLaunchCooperativeKernel(fill, dim3(sms * per_sm + (int)extra), dim3(128), args));
  return (int)cudaDeviceSynchronize();
}

// The emulated device: SMs, cooperative launch, occupancy of several block sizes.
__global__ void nothing(int *A) {}
extern "C" int pc_device(long long n, int *A) {
  PC_CHECK(cudaDeviceGetAttribute(&A[0], cudaDevAttrMultiProcessorCount, 0));
  PC_CHECK(cudaDeviceGetAttribute(&A[1], cudaDevAttrCooperativeLaunch, 0));
  PC_CHECK(cudaDeviceGetAttribute(&A[2], cudaDevAttrMaxThreadsPerMultiProcessor, 0));
  int sizes[] = {1, 32, 33, 64, 100, 1000, 1024, 0, 2048};
  for (int i = 0; i < 9; i++)
    PC_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&A[3 + i], nothing, sizes[i], 0));
  PC_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&A[12], nothing, 32, 100 * 1024));
  PC_CHECK(cudaFuncSetAttribute(nothing, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                227 * 1024));
  PC_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&A[13], nothing, 32, 100 * 1024));
  PC_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&A[14], nothing, 32, 64 * 1024));
  A[15] = cudaDeviceGetAttribute(&A[16], cudaDevAttrMultiProcessorCount, 1);
  A[16] = cudaGetLastError();  /* and clears it */
  return 0;
}

// Kernels whose barriers are wrong, chosen by `which`; 2 blocks of 32 threads.
__global__ void mixed(double *A) {
  cg::grid_group grid = cg::this_grid();
  if (threadIdx.x == 0) grid.sync(); /* MIXED-GRID */
  else __syncthreads(); /* MIXED-BLOCK */
}
__global__ void master_exits(double *A, int whole_block) {
  if (blockIdx.x == 1 && (whole_block || threadIdx.x == 0)) return;
  A[blockIdx.x * 32 + threadIdx.x] = 1.0;
  cg::this_grid().sync();
}
__global__ void divergent(double *A) {
  if (threadIdx.x < 16) __syncthreads(); /* DIVERGENT-1 */
  else __syncthreads(); /* DIVERGENT-2 */
  cg::this_grid().sync();
}
__global__ void grid_sync_only(double *A) { cg::this_grid().sync(); }
__global__ void grid_sync_and_block_sync(double *A) {
  __syncthreads();
  cg::this_grid().sync();
}
extern "C" int pc_bad_dev(long long which, long long n, double *A) {
  int whole_block = which == 2;
  void *args[] = {(void *)&A, (void *)&whole_block};
  switch (which) {
    case 0: PC_CHECK(cudaLaunchCooperativeKernel((void *)mixed, 2, 32, args)); break;
    case 1: case 2:
      PC_CHECK(cudaLaunchCooperativeKernel((void *)master_exits, 2, 32, args));
      break;
    case 3: PC_CHECK(cudaLaunchCooperativeKernel((void *)divergent, 2, 32, args)); break;
    case 4: grid_sync_only<<<2, 32>>>(A); break;
    case 5: grid_sync_and_block_sync<<<2, 32>>>(A); break;
  }
  return (int)cudaDeviceSynchronize();
}

// Threads that returned do not count at grid.sync(), while thread (0,0,0) of each block stays:
// each block's first 16 threads shift A by one element across block boundaries.
__global__ void partial(double *A, int nb) {
  if (threadIdx.x >= 16) return;
  cg::grid_group grid = cg::this_grid();
  int i = blockIdx.x * 16 + threadIdx.x;
  double v = A[(i + 1) % (16 * nb)];
  grid.sync();
  A[i] = v;
}
extern "C" int pc_partial_dev(long long n, double *A) {
  int nb = (int)(n / 16);
  void *args[] = {(void *)&A, (void *)&nb};
  PC_CHECK(cudaLaunchCooperativeKernel((void *)partial, dim3(nb), dim3(32), args, 0,
                                       (cudaStream_t)0));
  return (int)cudaDeviceSynchronize();
}

// cooperative_groups' block barrier in an ordinary launch: seen as a barrier (fibers).
__global__ void rotate(double *A) {
  cg::thread_block block = cg::this_thread_block();
  double v = A[(block.thread_rank() + 1) % 32];
  block.sync();
  A[threadIdx.x] = v;
}
extern "C" int pc_rotate_dev(long long n, double *A) {
  rotate<<<1, 32>>>(A);
  return (int)cudaDeviceSynchronize();
}
"""


@pytest.fixture(scope="module")
def misc_lib(cache):
    return emulate.build_emulated(MISC_CU, cache=cache)


def line_of(marker):
    return MISC_CU[:MISC_CU.index(marker)].count("\n") + 1


def call_with_timeout(fn, *args, seconds=60):
    """fn(*args) in a thread: a hang fails the test instead of blocking the suite."""
    outcome = {}

    def target():
        try:
            outcome["value"] = fn(*args)
        except LaunchError as exc:  # raised again in the test's thread
            outcome["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{fn} did not return within {seconds} s (a hang)"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


def test_shared_memory_is_per_block(misc_lib):
    nb = 8
    kernel = launch.load(misc_lib, one_array("blockmem", (BinOp("*", Var("nb"), Const(96)),),
                                             params=("nb",)), "emulate", device_entry=True)
    for seed in range(3):
        A = random(nb * 96)
        kernel.set_seed(seed)
        kernel(nb, A)
        got = A.reshape(nb, 3, 32)
        t = np.arange(32)
        for b in range(nb):
            for k, base in enumerate((1000.0, 2000.0, 3000.0)):
                expected = np.where(t == 31, base * b, base * b + t + 1)
                assert np.isnan(got[b, k, 30])  # element 31: never written by this block
                np.testing.assert_array_equal(np.delete(got[b, k], 30), np.delete(expected, 30))


def test_device_attributes_and_occupancy(misc_lib):
    A = np.zeros(17, np.int32)
    launch.load(misc_lib, one_array("device", (Const(17),), dtype="int"), "emulate")(17, A)
    # 2 SMs of 1024 threads; blocks per SM: min(32, 1024 / (threads rounded up to warps)),
    # and at most 228 KiB / dynamic shared memory; 0 for a block that cannot be launched
    # (more than 1024 threads, or more dynamic shared memory than the kernel may have).
    assert A[:3].tolist() == [2, 1, 1024]
    assert A[3:12].tolist() == [32, 32, 16, 16, 8, 1, 1, 0, 0]
    assert A[12:15].tolist() == [0, 2, 3]
    assert A[15:].tolist() == [101, 101]  # cudaErrorInvalidDevice for device 1


def test_launch_larger_than_the_device_fails(misc_lib):
    kernel = launch.load(misc_lib, one_array("large", params=("extra", "n")), "emulate",
                         device_entry=True)
    A = np.zeros(5000)
    kernel(0, 5000, A)  # 2 SMs x 8 blocks of 128 threads: exactly the device
    assert (A == 1.0).all()
    with pytest.raises(LaunchError, match=r"error 720.*cudaErrorCooperativeLaunchTooLarge.*17 "
                                          r"blocks of 128 threads.*holds 16 such blocks"):
        kernel(1, 5000, np.zeros(5000))
    A = np.zeros(10)
    kernel(0, 10, A)  # not sticky: the next launch runs
    assert (A == 1.0).all()


BAD_CASES = {
    0: (r"deadlock in block \(\d,0,0\): thread \(0,0,0\) waits at grid.sync\(\) at line "
        rf"{line_of('MIXED-GRID')}, thread \(\d+,0,0\) at __syncthreads\(\) at line "
        rf"{line_of('MIXED-BLOCK')}"),
    1: r"deadlock: thread \(0,0,0\) of block \(1,0,0\) returned while thread .* waits at "
       r"grid.sync\(\) .*a GPU would hang",
    2: r"deadlock: thread \(0,0,0\) of block \(1,0,0\) returned",
    3: (r"wait at different __syncthreads\(\) calls: .* at line "
        rf"{line_of('DIVERGENT-1')}, .* at line {line_of('DIVERGENT-2')}"),
    4: r"grid.sync\(\) in a kernel not launched by cudaLaunchCooperativeKernel",
    5: r"grid.sync\(\) in a kernel not launched by cudaLaunchCooperativeKernel",
}


@pytest.mark.parametrize("which", sorted(BAD_CASES), ids=[
    "grid-sync-beside-syncthreads", "thread-0-returned", "block-returned",
    "divergent-syncthreads", "grid-sync-in-ordinary-launch", "grid-sync-in-ordinary-fibers"])
def test_wrong_barriers_are_errors_not_hangs(misc_lib, which):
    kernel = launch.load(misc_lib, one_array("bad", params=("which", "n")), "emulate",
                         device_entry=True)
    with pytest.raises(LaunchError, match=r"cudaErrorLaunchFailure.*" + BAD_CASES[which]):
        call_with_timeout(kernel, which, 64, random(64))


def test_returned_threads_do_not_count_at_grid_sync(misc_lib):
    kernel = launch.load(misc_lib, one_array("partial"), "emulate", device_entry=True)
    for seed in range(3):
        A = random(64, seed=seed)
        expected = np.roll(A, -1)
        kernel.set_seed(seed)
        call_with_timeout(kernel, 64, A)
        np.testing.assert_array_equal(A, expected)


def test_thread_block_sync_in_an_ordinary_launch(misc_lib):
    assert emulate.kernel_barriers(MISC_CU)["rotate"] is True
    A = random(32)
    expected = np.roll(A, -1)
    launch.load(misc_lib, one_array("rotate"), "emulate", device_entry=True)(32, A)
    np.testing.assert_array_equal(A, expected)


# -- translation ---------------------------------------------------------------------------------
def test_translate_cooperative_launch_forms():
    source = PRELUDE + """
template <int B> __global__ void tk(float *a) { a[threadIdx.x] *= B; }
__global__ void k(float *a) {}
int host(float *a) {
  void *args[] = {(void *)&a};
  cudaLaunchCooperativeKernel((void *)k, 1, 32, args);
  cudaLaunchCooperativeKernel((const void*) tk<4>, dim3(1, 2), 32, args, 0,
                              0);  /* over two lines */
  PC_CHECK(cudaLaunchCooperativeKernel(k, 1, 32, args, 16));
  return 0;
}
"""
    text = emulate.translate(source)
    body = text[text.index('#line 1 "kernel.cu"'):].split("\n", 1)[1]
    assert body.count("\n") == source.count("\n")
    assert "#include <cooperative_groups.h>" not in body
    assert "pc_emu::launch_cooperative(k, 1, 32, args)" in body
    assert "pc_emu::launch_cooperative(tk<4>, dim3(1, 2), 32, args, 0, 0)\n" in body
    assert "PC_CHECK(pc_emu::launch_cooperative(k, 1, 32, args, 16))" in body
    build.compile_only(source, "emulate")


@pytest.mark.parametrize("call", ["cudaLaunchCooperativeKernel(kernels[0], 1, 32, args)",
                                  "cudaLaunchCooperativeKernel((void *)k, 1)"])
def test_translate_rejects_cooperative_launches_it_cannot_run(call):
    with pytest.raises(ValueError, match="cudaLaunchCooperativeKernel"):
        emulate.translate(PRELUDE + f"void host(void **args) {{ {call}; }}\n")


@needs_nvcc
def test_same_sources_compile_with_nvcc():
    build.compile_only(f"{JACOBI_CU}\n{MISC_CU}", "cuda")
