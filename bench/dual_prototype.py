"""Hand-written one-pass kernels for bicg (q = A p and s = A^T r from one read of A) on the GPU:
the prototypes that gpu/dual_reduction.py and codegen/dual_reduction_code.py follow (v2), timed
with CUDA events against one read of A and cuBLAS's two dgemv (CuPy).

    python bench/dual_prototype.py OUT.json [N]
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
// V1: a thread per column, rows k = blockIdx.y + i*gridDim.y; per row a warp sum + atomic
__global__ void __launch_bounds__(256) v1(int n, int m, const double *A, double *s, double *q,
                                          const double *p, const double *r) {
  int c = blockIdx.x * 256 + threadIdx.x;
  bool in = c < m;
  double pc = in ? p[c] : 0.0, sacc = 0.0;
  #pragma unroll 4
  for (int i = blockIdx.y; i < n; i += gridDim.y) {
    double v = in ? A[(size_t)i * m + c] : 0.0;
    sacc += r[i] * v;
    double t = warp_sum(v * pc);
    if ((threadIdx.x & 31) == 0) atomicAdd(&q[i], t);
  }
  if (in) atomicAdd(&s[c], sacc);
}
// V2: as V1, warp sums of 32 rows gathered in shared memory, one atomic per row per block
__global__ void __launch_bounds__(256) v2(int n, int m, const double *A, double *s, double *q,
                                          const double *p, const double *r) {
  __shared__ double part[8][33];
  int c = blockIdx.x * 256 + threadIdx.x, w = threadIdx.x >> 5, lane = threadIdx.x & 31;
  bool in = c < m;
  double pc = in ? p[c] : 0.0, sacc = 0.0;
  for (int i0 = blockIdx.y * 32; i0 < n; i0 += gridDim.y * 32) {
    #pragma unroll 4
    for (int k = 0; k < 32; k++) {
      int i = i0 + k;
      double v = (in && i < n) ? A[(size_t)i * m + c] : 0.0;
      sacc += (i < n ? r[i] : 0.0) * v;
      double t = warp_sum(v * pc);
      if (lane == 0) part[w][k] = t;
    }
    __syncthreads();
    if (w == 0 && i0 + lane < n) {
      double t = 0.0;
      for (int x = 0; x < 8; x++) t += part[x][lane];
      atomicAdd(&q[i0 + lane], t);
    }
    __syncthreads();
  }
  if (in) atomicAdd(&s[c], sacc);
}
// V3: 32 rows per batch, each lane keeps its 32 products; a transpose-reduction over the warp
// (16+8+4+2+1 shuffles) leaves row k's warp sum in lane k; one atomic per row per warp
__global__ void __launch_bounds__(256) v3(int n, int m, const double *A, double *s, double *q,
                                          const double *p, const double *r) {
  int c = blockIdx.x * 256 + threadIdx.x, lane = threadIdx.x & 31;
  bool in = c < m;
  double pc = in ? p[c] : 0.0, sacc = 0.0;
  for (int i0 = blockIdx.y * 32; i0 < n; i0 += gridDim.y * 32) {
    double t[32];
    #pragma unroll
    for (int k = 0; k < 32; k++) {
      int i = i0 + k;
      double v = (in && i < n) ? A[(size_t)i * m + c] : 0.0;
      sacc += (i < n ? r[i] : 0.0) * v;
      t[k] = v * pc;
    }
    #pragma unroll
    for (int h = 16; h > 0; h >>= 1) {
      bool upper = (lane & h) != 0;
      #pragma unroll
      for (int k = 0; k < h; k++) {
        double send = upper ? t[k] : t[k + h];
        double keep = upper ? t[k + h] : t[k];
        t[k] = keep + __shfl_xor_sync(0xffffffffu, send, h);
      }
    }
    // lane holds in t[0] the sum of row i0 + bitrev? -> row index = lane (see check)
    if (i0 + lane < n) atomicAdd(&q[i0 + lane], t[0]);
  }
  if (in) atomicAdd(&s[c], sacc);
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
A = cp.asarray(rng.random((n, m)))
p = cp.asarray(rng.random(m)); r = cp.asarray(rng.random(n))
q_ref = A @ p; s_ref = A.T @ r
out = {"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "n": n, "m": m, "variants": {}}
sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]

bytes_min = A.nbytes + (n + m) * 8 * 3
for name in ("v1", "v2", "v3"):
    k = mod.get_function(name)
    for ychunks in (8, 16, 33, 64):
        grid = ((m + 255) // 256, ychunks)
        s = cp.zeros(m); q = cp.zeros(n)
        def run():
            s.fill(0); q.fill(0)
            k(grid, (256,), (np.int32(n), np.int32(m), A, s, q, p, r))
        run(); cp.cuda.Device().synchronize()
        err = max(float(cp.max(cp.abs(q - q_ref) / cp.abs(q_ref))), float(cp.max(cp.abs(s - s_ref) / cp.abs(s_ref))))
        t = timeit(run)
        t["max_rel_error"] = err; t["grid"] = list(grid); t["gbytes_per_s"] = bytes_min / t["median_s"] / 1e9
        out["variants"][f"{name}-y{ychunks}"] = t
        print(name, grid, t, flush=True)
rs = mod.get_function("readsum"); o = cp.zeros(1)
t = timeit(lambda: rs((sms * 8,), (256,), (np.uint64(n * m), A, o)))
t["gbytes_per_s"] = A.nbytes / t["median_s"] / 1e9; out["readsum"] = t; print("readsum", t)
t = timeit(lambda: (A @ p, A.T @ r)); t["gbytes_per_s"] = bytes_min / t["median_s"] / 1e9
out["cublas_two_gemv"] = t; print("cublas", t)
json.dump(out, open(sys.argv[1], "w"), indent=1)
