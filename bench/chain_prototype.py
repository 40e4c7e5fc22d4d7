"""Hand-written one-pass kernels for atax (tmp = A x, then y = A^T tmp, from one read of A) on the
GPU: each block owns whole rows; per row a block sum gives tmp[i], and the same row, read again
from L1 (or kept in registers), adds tmp[i] * A[i][:] to the block's share of y in shared
memory; one atomicAdd per column per block at the end. Timed with CUDA events against one read
of A and the two-kernel form (cuBLAS's two dgemv through CuPy).

    python bench/chain_prototype.py OUT.json [N]
"""
import json
import sys

import cupy as cp
import numpy as np
from cuda_events import timeit

SRC = r'''
extern "C" {
__device__ __forceinline__ double warp_sum(double v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}
// the block's sum of v, in every thread; red holds 32 doubles
__device__ __forceinline__ double block_sum(double v, double *red) {
  int w = threadIdx.x >> 5, lane = threadIdx.x & 31, nw = blockDim.x >> 5;
  v = warp_sum(v);
  if (lane == 0) red[w] = v;
  __syncthreads();
  double t = lane < nw ? red[lane] : 0.0;
  t = warp_sum(t);
  __syncthreads();
  return t;
}
// C1: y partials in shared memory, x from global (L1), the row read twice
__global__ void c1(int m, int n, const double *__restrict__ A, const double *__restrict__ x,
                   double *y, double *tmp) {
  extern __shared__ double ysh[];
  __shared__ double red[32];
  for (int c = threadIdx.x; c < n; c += blockDim.x) ysh[c] = 0.0;
  for (int i = blockIdx.x; i < m; i += gridDim.x) {
    const double *row = A + (size_t)i * n;
    double s = 0.0;
    for (int c = threadIdx.x; c < n; c += blockDim.x) s += row[c] * x[c];
    double t = block_sum(s, red);
    if (threadIdx.x == 0) tmp[i] = t;
    for (int c = threadIdx.x; c < n; c += blockDim.x) ysh[c] += row[c] * t;
  }
  for (int c = threadIdx.x; c < n; c += blockDim.x) atomicAdd(&y[c], ysh[c]);
}
// C2: as C1, x in shared memory too (ysh[0..n), xsh[n..2n))
__global__ void c2(int m, int n, const double *__restrict__ A, const double *__restrict__ x,
                   double *y, double *tmp) {
  extern __shared__ double ysh[];
  double *xsh = ysh + n;
  __shared__ double red[32];
  for (int c = threadIdx.x; c < n; c += blockDim.x) { ysh[c] = 0.0; xsh[c] = x[c]; }
  for (int i = blockIdx.x; i < m; i += gridDim.x) {
    const double *row = A + (size_t)i * n;
    double s = 0.0;
    for (int c = threadIdx.x; c < n; c += blockDim.x) s += row[c] * xsh[c];
    double t = block_sum(s, red);
    if (threadIdx.x == 0) tmp[i] = t;
    for (int c = threadIdx.x; c < n; c += blockDim.x) ysh[c] += row[c] * t;
  }
  for (int c = threadIdx.x; c < n; c += blockDim.x) atomicAdd(&y[c], ysh[c]);
}
// C3: as C1, two rows per round (one block sum pass for both)
__global__ void c3(int m, int n, const double *__restrict__ A, const double *__restrict__ x,
                   double *y, double *tmp) {
  extern __shared__ double ysh[];
  __shared__ double red[64];
  for (int c = threadIdx.x; c < n; c += blockDim.x) ysh[c] = 0.0;
  for (int i = 2 * blockIdx.x; i < m; i += 2 * gridDim.x) {
    const double *r0 = A + (size_t)i * n;
    bool two = i + 1 < m;
    const double *r1 = two ? r0 + n : r0;
    double s0 = 0.0, s1 = 0.0;
    for (int c = threadIdx.x; c < n; c += blockDim.x) { double xc = x[c]; s0 += r0[c] * xc; s1 += r1[c] * xc; }
    int w = threadIdx.x >> 5, lane = threadIdx.x & 31, nw = blockDim.x >> 5;
    s0 = warp_sum(s0); s1 = warp_sum(s1);
    if (lane == 0) { red[w] = s0; red[32 + w] = s1; }
    __syncthreads();
    double t0 = warp_sum(lane < nw ? red[lane] : 0.0), t1 = warp_sum(lane < nw ? red[32 + lane] : 0.0);
    __syncthreads();
    if (threadIdx.x == 0) { tmp[i] = t0; if (two) tmp[i + 1] = t1; }
    if (!two) t1 = 0.0;
    for (int c = threadIdx.x; c < n; c += blockDim.x) ysh[c] += r0[c] * t0 + r1[c] * t1;
  }
  for (int c = threadIdx.x; c < n; c += blockDim.x) atomicAdd(&y[c], ysh[c]);
}
// C4: the row kept in registers (K per thread, n <= K * blockDim.x): one read of A, no reread
#define K 8
__global__ void c4(int m, int n, const double *__restrict__ A, const double *__restrict__ x,
                   double *y, double *tmp) {
  __shared__ double red[32];
  double yr[K], xr[K];
  #pragma unroll
  for (int k = 0; k < K; k++) { int c = threadIdx.x + k * blockDim.x; yr[k] = 0.0; xr[k] = c < n ? x[c] : 0.0; }
  for (int i = blockIdx.x; i < m; i += gridDim.x) {
    const double *row = A + (size_t)i * n;
    double v[K], s = 0.0;
    #pragma unroll
    for (int k = 0; k < K; k++) { int c = threadIdx.x + k * blockDim.x; v[k] = c < n ? row[c] : 0.0; s += v[k] * xr[k]; }
    double t = block_sum(s, red);
    if (threadIdx.x == 0) tmp[i] = t;
    #pragma unroll
    for (int k = 0; k < K; k++) yr[k] += v[k] * t;
  }
  #pragma unroll
  for (int k = 0; k < K; k++) { int c = threadIdx.x + k * blockDim.x; if (c < n) atomicAdd(&y[c], yr[k]); }
}
__global__ void readsum(size_t N, const double *A, double *out) {
  double a = 0.0;
  for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < N; k += (size_t)gridDim.x * blockDim.x) a += A[k];
  if (a == 12345.0) out[0] = a;
}
}
'''
mod = cp.RawModule(code=SRC, options=("-std=c++17",))
n = m = int(sys.argv[2]) if len(sys.argv) > 2 else 8192
rng = np.random.default_rng(1)
A = cp.asarray(rng.random((m, n)))
x = cp.asarray(rng.random(n))
tmp_ref = A @ x
y_ref = A.T @ tmp_ref
props = cp.cuda.runtime.getDeviceProperties(0)
sms = props["multiProcessorCount"]
out = {"gpu": props["name"].decode(), "n": n, "m": m, "sms": sms, "variants": {}}


bytes_min = A.nbytes + 4 * n * 8
copy_bw = float(sys.argv[3]) if len(sys.argv) > 3 else 2.954e12
for name, shared_vecs in (("c1", 1), ("c2", 2), ("c3", 1), ("c4", 0)):
    k = mod.get_function(name)
    smem = shared_vecs * n * 8
    if smem > 48 * 1024:
        k.max_dynamic_shared_size_bytes = smem
    for threads in (256, 512, 1024):
        if name == "c4" and n > 8 * threads:
            continue
        for per_sm in (1, 2, 4, 8):
            if smem * per_sm > 220 * 1024 or threads * per_sm > 2048:
                continue
            grid = sms * per_sm
            y = cp.zeros(n); tmp = cp.zeros(m)

            def run():
                y.fill(0)
                k((grid,), (threads,), (np.int32(m), np.int32(n), A, x, y, tmp), shared_mem=smem)
            try:
                t = timeit(run)
            except Exception as e:  # a launch the device refuses (shared memory, registers)
                out["variants"][f"{name}-t{threads}-b{per_sm}"] = {"error": str(e)}
                continue
            ok = bool(cp.allclose(y, y_ref, rtol=1e-9) and cp.allclose(tmp, tmp_ref, rtol=1e-9))
            t["ok"] = ok
            t["fraction_of_copy"] = bytes_min / t["median_s"] / copy_bw
            out["variants"][f"{name}-t{threads}-b{per_sm}"] = t
            print(name, threads, per_sm, f"{t['median_s']*1e3:.3f} ms",
                  f"{t['fraction_of_copy']*100:.1f}%", ok, flush=True)
rs = mod.get_function("readsum"); o = cp.zeros(1)
t = timeit(lambda: rs((sms * 8,), (256,), (np.uint64(A.size), A, o)))
t["fraction_of_copy"] = bytes_min / t["median_s"] / copy_bw
out["variants"]["read-A-once"] = t
print("read A once", f"{t['median_s']*1e3:.3f} ms", f"{t['fraction_of_copy']*100:.1f}%")
t = timeit(lambda: A.T @ (A @ x))
t["fraction_of_copy"] = bytes_min / t["median_s"] / copy_bw
out["variants"]["cublas-two-dgemv"] = t
print("cublas two dgemv", f"{t['median_s']*1e3:.3f} ms", f"{t['fraction_of_copy']*100:.1f}%")
json.dump(out, open(sys.argv[1], "w"), indent=1)
