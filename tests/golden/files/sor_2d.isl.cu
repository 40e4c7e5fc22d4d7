#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __cplusplus
#define PC_FN template <typename A, typename B> __host__ __device__ static inline auto
PC_FN pc_floord(A n, B d) -> decltype(n + d) { return n < 0 ? -((-n + d - 1) / d) : n / d; }
PC_FN pc_ceild(A n, B d) -> decltype(n + d) { return pc_floord(n + d - 1, d); }
PC_FN pc_min(A a, B b) -> decltype(a + b) { return a < b ? a : b; }
PC_FN pc_max(A a, B b) -> decltype(a + b) { return a > b ? a : b; }
PC_FN pc_mod(A a, B m) -> decltype(a + m) { return ((a % m) + m) % m; }
#undef PC_FN
#else
static inline long long pc_floord(long long n, long long d)
{ return n < 0 ? -((-n + d - 1) / d) : n / d; }
static inline long long pc_ceild(long long n, long long d) { return pc_floord(n + d - 1, d); }
static inline long long pc_min(long long a, long long b) { return a < b ? a : b; }
static inline long long pc_max(long long a, long long b) { return a > b ? a : b; }
static inline long long pc_mod(long long a, long long m) { return ((a % m) + m) % m; }
#endif
#define PC_CHECK(call) do { cudaError_t pc_e = (call); \
    if (pc_e != cudaSuccess) return (int)pc_e; } while (0)

__global__ void __launch_bounds__(256) kernel0(int T, int n, double omega, double *__restrict__ A, int c0) {
  for (int c1 = pc_max(0, pc_floord(((((-2) * n) + c0) + 5), 16)) + pc_mod((int)blockIdx.y - (pc_max(0, pc_floord(((((-2) * n) + c0) + 5), 16))), (int)gridDim.y); (c1 <= pc_min(pc_floord((T - 1), 8), ((c0 - 2) / 16))); c1 += (int)gridDim.y) {
    for (int c2 = pc_max(pc_max(0, pc_floord((((((-2) * T) - n) + c0) + 4), 32)), ((-c1) + pc_floord(((((-n) + c0) + (16 * c1)) - 12), 32))) + pc_mod((int)blockIdx.x - (pc_max(pc_max(0, pc_floord((((((-2) * T) - n) + c0) + 4), 32)), ((-c1) + pc_floord(((((-n) + c0) + (16 * c1)) - 12), 32)))), (int)gridDim.x); (c2 <= pc_min(pc_floord((n - 2), 32), ((-c1) + (((c0 + (16 * c1)) - 1) / 32)))); c2 += (int)gridDim.x) {
      if ((int)threadIdx.y >= pc_max(pc_max(0, (((((-n) - (8 * c1)) - (16 * c2)) + ((n + c0) / 2)) - 14)), ((((-n) - (8 * c1)) + ((c0 + 1) / 2)) + 2))) {
        const int c3 = (int)threadIdx.y;
        if ((c3 <= pc_min(pc_min(pc_min(7, ((T - (8 * c1)) - 1)), ((((-8) * c1) + (c0 / 2)) - 1)), (((((-8) * c1) - (16 * c2)) + ((c0 + 1) / 2)) - 1)))) {
          if ((int)threadIdx.x >= pc_max(pc_max(0, (((-32) * c2) + 1)), ((((((-n) + c0) - (16 * c1)) - (32 * c2)) - (2 * c3)) + 2))) {
            const int c4 = (int)threadIdx.x;
            if ((c4 <= pc_min(pc_min(31, ((n - (32 * c2)) - 2)), ((((c0 - (16 * c1)) - (32 * c2)) - (2 * c3)) - 1)))) {
              A[(((32 * c2) + c4)) * (n) + (((((c0 - (16 * c1)) - (32 * c2)) - (2 * c3)) - c4))] = (((1.0 - omega) * A[(((32 * c2) + c4)) * (n) + (((((c0 - (16 * c1)) - (32 * c2)) - (2 * c3)) - c4))]) + ((omega * 0.25) * (((A[((((32 * c2) + c4) - 1)) * (n) + (((((c0 - (16 * c1)) - (32 * c2)) - (2 * c3)) - c4))] + A[((((32 * c2) + c4) + 1)) * (n) + (((((c0 - (16 * c1)) - (32 * c2)) - (2 * c3)) - c4))]) + A[(((32 * c2) + c4)) * (n) + ((((((c0 - (16 * c1)) - (32 * c2)) - (2 * c3)) - c4) - 1))]) + A[(((32 * c2) + c4)) * (n) + ((((((c0 - (16 * c1)) - (32 * c2)) - (2 * c3)) - c4) + 1))])));
            }
          }
        }
      }
    }
  }
}

extern "C" int pc_sor_2d_dev(long long T, long long n, double omega, double *A) {
  for (long long c0 = 2; (c0 < (((2 * T) + (2 * n)) - 5)); c0 += 1) {
    kernel0<<<dim3((unsigned)pc_min(pc_max(((n + 30) / 32), 1LL), 2147483647LL), (unsigned)pc_min(pc_max(((T + 7) / 8), 1LL), 65535LL)), dim3(32, 8)>>>((int)T, (int)n, omega, A, (int)c0);
  }
  PC_CHECK(cudaGetLastError());
  PC_CHECK(cudaDeviceSynchronize());
  return 0;
}

extern "C" int pc_sor_2d(long long T, long long n, double omega, double *A) {
  int err = 0;
  double *d_A = NULL;
  PC_CHECK(cudaMalloc((void **)&d_A, (size_t)(n) * (size_t)(n) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_A, A, (size_t)(n) * (size_t)(n) * sizeof(double), cudaMemcpyHostToDevice));
  err = pc_sor_2d_dev(T, n, omega, d_A);
  if (!err) err = (int)cudaMemcpy(A, d_A, (size_t)(n) * (size_t)(n) * sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(d_A);
  return err;
}

extern "C" void pc_sor_2d_fail(int err) {
  fprintf(stderr, "polycuda: pc_sor_2d failed: CUDA error %d (%s): %s\n", err,
          cudaGetErrorName((cudaError_t)err), cudaGetErrorString((cudaError_t)err));
  exit(EXIT_FAILURE);
}

#ifdef POLYCUDA_MAIN
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
  long long T = 64;
  long long n = 64;
  double omega = 1.5;
  for (int a = 1; a < argc; a++) {
    if (strncmp(argv[a], "T=", 2) == 0) T = atoll(argv[a] + 2);
    if (strncmp(argv[a], "n=", 2) == 0) n = atoll(argv[a] + 2);
  }
  unsigned long long seed = 88172645463325252ULL;
  size_t n_A = (size_t)(n) * (size_t)(n);
  double *A = (double *)malloc(n_A * sizeof(double));
  for (size_t k = 0; k < n_A; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; A[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int err = pc_sor_2d(T, n, omega, A);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (err) { fprintf(stderr, "error %d: %s\n", err, cudaGetErrorString((cudaError_t)err)); return 1; }
  printf("time_ms %.3f\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6);
  double sum_A = 0;
  for (size_t k = 0; k < n_A; k++) sum_A += (double)A[k];
  printf("checksum A %.17g\n", sum_A);
  free(A);
  return 0;
}
#endif
