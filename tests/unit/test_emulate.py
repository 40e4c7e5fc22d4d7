"""The CPU emulator of generated CUDA: hand-written .cu files following polycuda.codegen.abi
run on host memory with every block and thread; wrong mappings and races must show up."""

from __future__ import annotations

import numpy as np
import pytest

from polycuda.errors import BuildError, LaunchError
from polycuda.ir.expr import BinOp, Const, Var
from polycuda.runtime import build, emulate, launch
from tests.unit.test_runtime import make_scop, needs_nvcc, random

PRELUDE = """\
#include <cuda_runtime.h>
#include <stdio.h>
#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) return (int)e_; } \\
  while (0)
"""

# Jacobi 2-D: a 2-D grid of 2-D blocks, grid-stride over rows and columns; T steps A->B->A.
JACOBI_KERNEL = """
__global__ void __launch_bounds__(128) sweep(const double *__restrict__ src,
                                              double *__restrict__ dst, int n) {
  for (int i = 1 + ROW_START; i < n - 1; i += gridDim.y * blockDim.y)
    for (int j = 1 + blockIdx.x * blockDim.x + threadIdx.x; j < n - 1;
         j += gridDim.x * blockDim.x)
      dst[i * n + j] = 0.2 * (src[i * n + j] + src[(i - 1) * n + j] + src[(i + 1) * n + j]
                              + src[i * n + j - 1] + src[i * n + j + 1]);
}
"""
JACOBI_ENTRIES = """
extern "C" int pc_jacobi_dev(long long T, long long n, double *A, double *B) {
  dim3 grid(3, 2), block(16, 8);  /* fewer threads than points: the loops stride */
  for (long long t = 0; t < T; t++) {
    sweep<<<grid, block>>>(A, B, (int)n);
    sweep<<<dim3(2, 3), dim3(32, 4, 1), 0, 0>>>(B, A,
                                                 (int)n);  // a launch over two lines
  }
  CHECK(cudaGetLastError());
  return (int)cudaDeviceSynchronize();
}
extern "C" int pc_jacobi(long long T, long long n, double *A, double *B) {
  size_t bytes = (size_t)(n * n) * sizeof(double);
  double *dA = NULL, *dB = NULL;
  CHECK(cudaMalloc((void **)&dA, bytes));
  CHECK(cudaMalloc(&dB, bytes));
  CHECK(cudaMemcpy(dA, A, bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B, bytes, cudaMemcpyHostToDevice));
  int err = pc_jacobi_dev(T, n, dA, dB);
  if (!err) err = (int)cudaMemcpy(A, dA, bytes, cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(B, dB, bytes, cudaMemcpyDeviceToHost);
  cudaFree(dA);
  cudaFree(dB);
  return err;
}
"""
JACOBI_CU = PRELUDE + JACOBI_KERNEL.replace(
    "ROW_START", "blockIdx.y * blockDim.y + threadIdx.y") + JACOBI_ENTRIES
# The wrong mapping: rows start at threadIdx.y alone, so every block does the same rows.
JACOBI_WRONG_CU = PRELUDE + JACOBI_KERNEL.replace("ROW_START", "threadIdx.y") + JACOBI_ENTRIES
JACOBI = make_scop("jacobi", [("T", "param", "int"), ("n", "param", "int"),
                              ("A", "array", "double", (Var("n"), Var("n"))),
                              ("B", "array", "double", (Var("n"), Var("n")))],
                   written=("A", "B"))

# Shared memory: each block reverses its 256 elements in place through a __shared__ tile,
# then sums them with a tree reduction (a barrier per level).
BLOCK_CU = PRELUDE + """
__device__ void block_barrier() { __syncthreads(); }

__global__ void reverse_and_sum(double *A, double *S) {
  __shared__ double tile[256];
  extern __shared__ double partial[];
  int t = threadIdx.x;
  long long g = (long long)blockIdx.x * blockDim.x + t;
  tile[t] = A[g];
  BARRIER_1
  A[g] = tile[blockDim.x - 1 - t];
  partial[t] = A[g];
  block_barrier();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    BARRIER_2
  }
  if (t == 0) S[blockIdx.x] = partial[0];
}

extern "C" int pc_blocks_dev(long long nb, double *A, double *S) {
  reverse_and_sum<<<(unsigned)nb, 256, 256 * sizeof(double)>>>(A, S);
  CHECK(cudaGetLastError());
  return (int)cudaDeviceSynchronize();
}
extern "C" int pc_blocks(long long nb, double *A, double *S) {
  double *dA, *dS;
  CHECK(cudaMalloc(&dA, nb * 256 * sizeof(double)));
  CHECK(cudaMalloc(&dS, nb * sizeof(double)));
  CHECK(cudaMemcpy(dA, A, nb * 256 * sizeof(double), cudaMemcpyHostToDevice));
  int err = pc_blocks_dev(nb, dA, dS);
  if (!err) err = (int)cudaMemcpy(A, dA, nb * 256 * sizeof(double), cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(S, dS, nb * sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(dA);
  cudaFree(dS);
  return err;
}
"""
BLOCK_GOOD_CU = BLOCK_CU.replace("BARRIER_1", "__syncthreads();").replace(
    "BARRIER_2", "__syncthreads();")
BLOCK_RACE_CU = BLOCK_CU.replace("BARRIER_1", "").replace("BARRIER_2", "__syncthreads();")
BLOCK_TREE_RACE_CU = BLOCK_CU.replace("BARRIER_1", "__syncthreads();").replace("BARRIER_2", "")
BLOCKS = make_scop("blocks", [("nb", "param", "int"),
                              ("A", "array", "double", (BinOp("*", Var("nb"), Const(256)),)),
                              ("S", "array", "double", (Var("nb"),))], written=("A", "S"))


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("emulate-cache")


def emulated(cache, source, scop, **load_kwargs):
    return launch.load(emulate.build_emulated(source, cache=cache), scop, "emulate",
                       **load_kwargs)


def jacobi_numpy(T, A, B):
    for _ in range(T):
        for src, dst in ((A, B), (B, A)):
            dst[1:-1, 1:-1] = 0.2 * (src[1:-1, 1:-1] + src[:-2, 1:-1] + src[2:, 1:-1]
                                     + src[1:-1, :-2] + src[1:-1, 2:])


def run_jacobi(kernel, T=3, n=45):
    A, B = random((n, n), seed=1), random((n, n), seed=2)
    A_ref, B_ref = A.copy(), B.copy()
    jacobi_numpy(T, A_ref, B_ref)
    kernel(T, n, A, B)
    return np.allclose(A, A_ref, rtol=1e-13) and np.allclose(B, B_ref, rtol=1e-13)


def run_blocks(kernel, nb=5):
    A = random(nb * 256, seed=3)
    rev = A.reshape(nb, 256)[:, ::-1].reshape(-1).copy()
    S = random(nb, seed=4)
    kernel(nb, A, S)
    return (np.array_equal(A, rev)
            and np.allclose(S, rev.reshape(nb, 256).sum(axis=1), rtol=1e-12))


# -- correct kernels give the numpy result -------------------------------------------------------
def test_grid_stride_stencil_matches_numpy(cache):
    kernel = emulated(cache, JACOBI_CU, JACOBI)
    assert run_jacobi(kernel)
    assert emulate.live_allocations(kernel.lib) == 0  # the entry freed its device arrays


def test_device_entry_in_place(cache):
    kernel = emulated(cache, JACOBI_CU, JACOBI, device_entry=True)
    assert run_jacobi(kernel, T=2, n=20)


def test_shared_tile_and_tree_reduction_with_barriers(cache):
    assert emulate.kernel_barriers(BLOCK_GOOD_CU) == {"reverse_and_sum": True}
    kernel = emulated(cache, BLOCK_GOOD_CU, BLOCKS)
    for seed in range(3):
        kernel.set_seed(seed)
        assert run_blocks(kernel)


def test_portable_ucontext_fibers(cache):
    lib = emulate.build_emulated(BLOCK_GOOD_CU, flags=("-DPC_EMU_UCONTEXT",), cache=cache)
    assert run_blocks(launch.load(lib, BLOCKS, "emulate"), nb=2)


def test_fiber_stacks_are_given_back_after_a_launch(cache):
    """Each fiber's stack and guard page are two memory mappings: kept per loaded library,
    a few hundred libraries reached Linux's limit of 65530 in the CPU suite's process."""
    def mappings() -> int:
        with open("/proc/self/maps") as maps:
            return sum(1 for _ in maps)

    before = mappings()  # a library of its own (the comment), loaded here
    kernel = emulated(cache, BLOCK_GOOD_CU + "// fibers given back\n", BLOCKS)
    assert run_blocks(kernel, nb=8)  # 8 blocks of 256 threads: 2048 fibers in one wave
    assert mappings() - before < 200  # the library's own segments; kept stacks: 4096


# -- wrong kernels are caught -------------------------------------------------------------------
def test_wrong_mapping_is_caught(cache):
    assert not run_jacobi(emulated(cache, JACOBI_WRONG_CU, JACOBI))


@pytest.mark.parametrize("source", [BLOCK_RACE_CU, BLOCK_TREE_RACE_CU],
                         ids=["missing-barrier-after-load", "missing-barrier-in-tree"])
def test_missing_barrier_is_caught_for_every_seed(cache, source):
    kernel = emulated(cache, source, BLOCKS)
    for seed in range(5):
        kernel.set_seed(seed)
        assert not run_blocks(kernel)


# Small kernels, one entry each, in one library (one build for all the tests below).
MISC_CU = PRELUDE + """
__global__ void shift(const double *A, double *B) {
  __shared__ double tile[64];  /* each thread reads its neighbour's element: no barrier */
  int t = threadIdx.x;
  tile[t] = A[blockIdx.x * 64 + t];
  B[blockIdx.x * 64 + t] = tile[(t + 1) % 64];
}
extern "C" int pc_shift_dev(long long n, double *A, double *B) {
  shift<<<n / 64, 64>>>(A, B);
  return (int)cudaGetLastError();
}

__global__ void early_exit(double *A, int n) {
  __shared__ double tile[32];
  if (threadIdx.x >= n) return;
  tile[threadIdx.x] = A[threadIdx.x];
  __syncthreads();
  A[threadIdx.x] = tile[n - 1 - threadIdx.x];
  int all = __syncthreads_and(1);
  int count = __syncthreads_count(threadIdx.x < 4);
  if (threadIdx.x == 0) A[n] = all * 100 + count;
}
extern "C" int pc_exit_dev(long long n, double *A) {
  early_exit<<<1, 32>>>(A, (int)n);
  return (int)cudaDeviceSynchronize();
}

__global__ void split(double *A) {
  if (threadIdx.x < 16) {
    A[threadIdx.x] += 1.0;
    __syncthreads();  /* SPLIT-1 */
  } else {
    __syncthreads();  /* SPLIT-2 */
  }
}
extern "C" int pc_split_dev(long long n, double *A) {
  split<<<1, 32>>>(A);
  return (int)cudaDeviceSynchronize();
}

__global__ void trap_fibers(double *A, int n) {
  A[blockIdx.x * 8 + threadIdx.x] += 1.0;
  __syncthreads();
  if (n > 16 && blockIdx.x == 1 && threadIdx.x == 3) __trap();
  __syncthreads();
}
__global__ void trap_sequential(double *A, int n) {
  A[blockIdx.x * 8 + threadIdx.x] += 1.0;
  if (n > 16 && blockIdx.x == 1 && threadIdx.x == 3) __trap();
}
extern "C" int pc_trap_dev(long long fibers, long long n, double *A) {
  if (fibers) trap_fibers<<<2, 8>>>(A, (int)n);
  else trap_sequential<<<2, 8>>>(A, (int)n);
  return (int)cudaDeviceSynchronize();
}

__global__ void config(double *A) { A[threadIdx.x] = 1.0; }
extern "C" int pc_config_dev(long long which, long long n, double *A) {
  switch (which) {
    case 0: config<<<1, 2048>>>(A); break;
    case 1: config<<<0, 32>>>(A); break;
    case 2: config<<<dim3(1, 70000), 32>>>(A); break;
    case 3: config<<<1, 32, 64 * 1024>>>(A); break;
  }
  return (int)cudaGetLastError();
}

__global__ void optin(double *A) {
  extern __shared__ double buf[];
  buf[threadIdx.x] = A[threadIdx.x];
  __syncthreads();
  A[threadIdx.x] = buf[31 - threadIdx.x];
}
extern "C" int pc_optin_dev(long long n, double *A) {
  CHECK(cudaFuncSetAttribute(optin, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
  optin<<<1, 32, 100 * 1024>>>(A);
  return (int)cudaGetLastError();
}

__global__ void uninit(double *A) {
  __shared__ double tile[32];
  if (threadIdx.x < 31) tile[threadIdx.x] = 1.0;  /* tile[31] never written */
  __syncthreads();
  A[blockIdx.x * 32 + threadIdx.x] = tile[31 - threadIdx.x];
}
extern "C" int pc_uninit_dev(long long n, double *A) {
  uninit<<<n / 32, 32>>>(A);
  return (int)cudaGetLastError();
}

__global__ void lost_update(double *A) {
  __shared__ double old;  /* each block adds 1 to A[0]: a race between blocks */
  if (threadIdx.x == 0) old = A[0];
  __syncthreads();
  if (threadIdx.x == 0) A[0] = old + 1.0;
}
extern "C" int pc_lost_dev(long long n, double *A) {
  lost_update<<<8, 2>>>(A);
  return (int)cudaDeviceSynchronize();
}

extern "C" int pc_copy(long long n, double *A) {
  double *d;
  CHECK(cudaMalloc(&d, n * sizeof(double)));
  int err = (int)cudaMemcpy(A, d, n * sizeof(double), cudaMemcpyHostToDevice);  /* swapped */
  if (!err) err = (int)cudaMemcpy(d, A, (n + 1) * sizeof(double), cudaMemcpyHostToDevice);
  cudaFree(d);
  return err;
}
"""


def one_array(name, shape=None, params=("n",)):
    """The Scop of an entry (params..., double *A) that writes A of `shape` (default (n,))."""
    args = [(p, "param", "int") for p in params]
    return make_scop(name, args + [("A", "array", "double", shape or (Var("n"),))],
                     written=("A",))


@pytest.fixture(scope="module")
def misc_lib(cache):
    return emulate.build_emulated(MISC_CU, cache=cache)


def test_race_between_threads_without_any_barrier(misc_lib):
    assert emulate.kernel_barriers(MISC_CU)["shift"] is False
    scop = make_scop("shift", [("n", "param", "int"), ("A", "array", "double", (Var("n"),)),
                               ("B", "array", "double", (Var("n"),))], written=("B",))
    kernel = launch.load(misc_lib, scop, "emulate", device_entry=True)
    A = random(256, seed=5)
    for seed in range(3):
        B = random(256, seed=6)
        kernel.set_seed(seed)
        kernel(256, A, B)
        assert not np.array_equal(B, np.roll(A.reshape(4, 64), -1, axis=1).reshape(-1))


def test_race_between_blocks_of_an_ordinary_launch(misc_lib):
    """Blocks that the emulated device holds at once interleave, as on a GPU: 8 blocks
    each adding 1 to one element lose updates (block after block, they never would)."""
    kernel = launch.load(misc_lib, one_array("lost"), "emulate", device_entry=True)
    totals = set()
    for seed in range(4):
        A = np.zeros(1) + 0.5
        kernel.set_seed(seed)
        kernel(1, A)
        totals.add(A[0] - 0.5)
    assert min(totals) < 8 and totals <= set(map(float, range(1, 9)))


def test_returned_threads_do_not_hold_a_barrier(misc_lib):
    # As bar.sync (and the H100): a barrier waits for the threads that have not exited.
    scop = one_array("exit", (BinOp("+", Var("n"), Const(1)),))
    A = random(17)
    expected = np.concatenate([A[:16][::-1], [104.0]])
    launch.load(misc_lib, scop, "emulate", device_entry=True)(16, A)
    np.testing.assert_array_equal(A, expected)


def test_threads_at_different_barriers_are_an_error(misc_lib):
    lines = [MISC_CU[:MISC_CU.index(f"SPLIT-{k}")].count("\n") + 1 for k in (1, 2)]
    kernel = launch.load(misc_lib, one_array("split"), "emulate", device_entry=True)
    with pytest.raises(LaunchError) as info:
        kernel(32, random(32))
    message = str(info.value)
    assert "wait at different __syncthreads() calls" in message
    assert all(f"at line {line}" in message for line in lines)


@pytest.mark.parametrize("fibers", [1, 0], ids=["fibers", "sequential"])
def test_trap_in_a_thread_is_a_launch_error(misc_lib, fibers):
    kernel = launch.load(misc_lib, one_array("trap", params=("fibers", "n")), "emulate",
                         device_entry=True)
    with pytest.raises(LaunchError, match=r"cudaErrorLaunchFailure.*__trap\(\) \(block "
                                          r"\(1,0,0\), thread \(3,0,0\)\)"):
        kernel(fibers, 17, random(17))
    A = random(16)
    expected = A + 1
    kernel(fibers, 16, A)  # the next call starts from a clean error state
    np.testing.assert_array_equal(A, expected)


def test_barrier_in_a_macro_runs_with_fibers(cache):
    source = PRELUDE + """
#define SYNC __syncthreads
__global__ void k(double *A) {
  double v = A[(threadIdx.x + 1) % 32];
  SYNC();
  A[threadIdx.x] = v;
}
extern "C" int pc_macro_dev(long long n, double *A) {
  k<<<1, 32>>>(A);
  return (int)cudaGetLastError();
}
"""
    assert emulate.kernel_barriers(source) == {"k": True}
    A = random(32)
    expected = np.roll(A, -1)
    emulated(cache, source, one_array("macro"), device_entry=True)(32, A)
    np.testing.assert_array_equal(A, expected)


@pytest.mark.parametrize("which", range(4), ids=["block-2048", "grid-0", "grid-y-70000",
                                                 "shared-64k-without-attribute"])
def test_invalid_launch_configuration(misc_lib, which):
    # The GPU (CUDA 13, H100) answers each of these with cudaErrorInvalidValue.
    kernel = launch.load(misc_lib, one_array("config", params=("which", "n")), "emulate",
                         device_entry=True)
    with pytest.raises(LaunchError, match="cudaErrorInvalidValue.*invalid launch configuration"):
        kernel(which, 4, random(4))


def test_dynamic_shared_memory_above_48k_with_the_attribute(misc_lib):
    A = random(32)
    expected = A[::-1].copy()
    launch.load(misc_lib, one_array("optin"), "emulate", device_entry=True)(32, A)
    np.testing.assert_array_equal(A, expected)


def test_copy_of_the_wrong_kind_or_size_fails(misc_lib):
    kernel = launch.load(misc_lib, one_array("copy"), "emulate")
    with pytest.raises(LaunchError, match="cudaErrorInvalidValue.*not inside one cudaMalloc"):
        kernel(8, random(8))


def test_unwritten_shared_memory_reads_as_nan(misc_lib):
    A = random(64)
    launch.load(misc_lib, one_array("uninit"), "emulate", device_entry=True)(64, A)
    assert np.isnan(A[::32]).all() and not np.isnan(A.reshape(2, 32)[:, 1:]).any()


# -- orders are shuffled and reproducible --------------------------------------------------------
ORDER_CU = PRELUDE + """
__device__ int counter;
__global__ void order(int *blocks, int *threads) {
  int ticket = atomicAdd(&counter, 1);
  if (threadIdx.x == 0) blocks[blockIdx.x] = ticket / 8;
  if (blockIdx.x == 0) threads[threadIdx.x] = ticket;
}
extern "C" int pc_order(long long n, int *blocks, int *threads) {
  int zero = 0;
  CHECK(cudaMemcpyToSymbol(counter, &zero, sizeof(int)));
  order<<<(unsigned)n, 8>>>(blocks, threads);
  return (int)cudaGetLastError();
}
"""
ORDER = make_scop("order", [("n", "param", "int"), ("blocks", "array", "int", (Var("n"),)),
                            ("threads", "array", "int", (Const(8),))],
                  written=("blocks", "threads"))


def test_orders_are_shuffled_and_seeded(cache):
    kernel = emulated(cache, ORDER_CU, ORDER)

    def orders(seed):
        kernel.set_seed(seed)
        blocks, threads = np.zeros(40, np.int32), np.zeros(8, np.int32)
        kernel(40, blocks, threads)
        return blocks.tolist(), (threads - threads.min()).tolist()

    first = orders(1)
    assert sorted(first[0]) == list(range(40)) and sorted(first[1]) == list(range(8))
    assert first[0] != list(range(40)) and first[1] != list(range(8))
    assert orders(1) == first
    assert orders(2) != first


# -- translation ---------------------------------------------------------------------------------
def test_translate_launch_forms_and_line_numbers():
    source = PRELUDE + """
template <int B> __global__ void tk(float *a) { a[threadIdx.x] *= B; }
__global__ void plain(float *a, int n) { /* k<<<1,1>>>() in a comment */ a[0] = n; }
void host(float *a) {
  tk<4><<<dim3(1, 2), 32, 0, 0>>>(a);
  plain<<<1,1>>>(a, 3);
  printf("<<<not a launch>>>\\n");
}
"""
    text = emulate.translate(source)
    body = text[text.index('#line 1 "kernel.cu"'):].split("\n", 1)[1]
    assert body.count("\n") == source.count("\n")
    assert "pc_emu::launch(false, dim3(1, 2), 32, 0, 0, tk<4>, a)" in body
    assert "pc_emu::launch(false, 1, 1, 0, 0, plain, a, 3)" in body
    assert '"<<<not a launch>>>\\n"' in body and "#include <cuda_runtime.h>" not in body


def test_dynamic_shared_at_namespace_scope_compiles():
    source = PRELUDE + """
extern __shared__ float buf[];
__global__ void k(float *a) { buf[threadIdx.x] = a[threadIdx.x]; __syncthreads(); }
"""
    text = emulate.translate(source)
    assert "#define buf (reinterpret_cast<float *>(pc_emu::dynamic_shared()))" in text
    build.compile_only(source, "emulate")


def test_barrier_through_device_function_is_seen():
    barriers = emulate.kernel_barriers(BLOCK_RACE_CU)  # only block_barrier() has one directly
    assert barriers == {"reverse_and_sum": True}


def test_emulated_build_error_points_into_the_cu_file(cache):
    with pytest.raises(BuildError) as info:
        emulate.build_emulated(PRELUDE + "__global__ void k() { undefined_thing = 1; }\n",
                               cache=cache)
    assert "kernel.cu:5" in info.value.stderr and "undefined_thing" in info.value.stderr


@needs_nvcc
def test_same_sources_compile_with_nvcc():
    # One nvcc run for all of them (their symbols are distinct): nvcc takes seconds a file.
    build.compile_only(f"{JACOBI_CU}\n{BLOCK_GOOD_CU}\n{ORDER_CU}\n{MISC_CU}", "cuda")
