// A ptxas miscompile that polycuda works around (polycuda/ir/c_expr.py, C_HELPERS): optimised
// builds fuse a chain of two 32-bit integer max (or min) operations, one of whose operands is a
// negation, into one VIMNMX3 and lose the negation. Seen with CUDA 13.0 on the H200 for sm_80,
// sm_90, sm_90a and the driver's JIT; right with -Xptxas -O0. Reported upstream as pytorch issue
// 190973 (ptxas 12.8 to 13.3). Build and run:
//   nvcc -O3 -arch=sm_90 ptxas_minmax3.cu -o repro && ./repro              (32-bit: wrong)
//   nvcc -O3 -arch=sm_90 -DPC_WORKAROUND ptxas_minmax3.cu -o repro && ./repro   (right)
// Exit status 1 when some result differs from the host's.
#include <cstdio>

#ifdef PC_WORKAROUND  // polycuda's helpers: 64-bit max/min in inline PTX, which NVVM cannot narrow
template <bool Max> __host__ __device__ static inline long long minmax64(long long a, long long b) {
#ifdef __CUDA_ARCH__
  long long r;
  if (Max) asm("max.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b));
  else asm("min.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b));
  return r;
#else
  return (a > b) == Max ? a : b;
#endif
}
__host__ __device__ static inline int imax(int a, int b) { return (int)minmax64<true>(a, b); }
__host__ __device__ static inline int imin(int a, int b) { return (int)minmax64<false>(a, b); }
#else
__host__ __device__ static inline int imax(int a, int b) { return a > b ? a : b; }
__host__ __device__ static inline int imin(int a, int b) { return a < b ? a : b; }
#endif

__host__ __device__ int f0(int x, int y) { return imax(imax(x, -y), x - 7); }
__host__ __device__ int f1(int x, int y) { return imin(imin(x, -y), x + 7); }
__host__ __device__ int f2(int x, int y) { return imax(imax(x + 1, -(y / 4)), x - 7); }

__global__ void run(const int *xs, const int *ys, int *out, int m) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= m) return;
  out[3 * t] = f0(xs[t], ys[t]);
  out[3 * t + 1] = f1(xs[t], ys[t]);
  out[3 * t + 2] = f2(xs[t], ys[t]);
}

int main() {
  const int m = 41 * 41;
  static int xs[m], ys[m], out[3 * m];
  for (int a = 0; a < 41; a++)
    for (int b = 0; b < 41; b++) { xs[41 * a + b] = a - 20; ys[41 * a + b] = 3 * b - 60; }
  int *dx, *dy, *dout;
  cudaMalloc(&dx, sizeof xs); cudaMalloc(&dy, sizeof ys); cudaMalloc(&dout, sizeof out);
  cudaMemcpy(dx, xs, sizeof xs, cudaMemcpyHostToDevice);
  cudaMemcpy(dy, ys, sizeof ys, cudaMemcpyHostToDevice);
  run<<<(m + 127) / 128, 128>>>(dx, dy, dout, m);
  const cudaError_t err = cudaDeviceSynchronize();
  cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost);
  int wrong[3] = {0, 0, 0};
  for (int t = 0; t < m; t++) {
    wrong[0] += out[3 * t] != f0(xs[t], ys[t]);
    wrong[1] += out[3 * t + 1] != f1(xs[t], ys[t]);
    wrong[2] += out[3 * t + 2] != f2(xs[t], ys[t]);
  }
  printf("%s; wrong of %d: max chain %d, min chain %d, max chain with a quotient %d\n",
         cudaGetErrorString(err), m, wrong[0], wrong[1], wrong[2]);
  return err != cudaSuccess || wrong[0] + wrong[1] + wrong[2] ? 1 : 0;
}
