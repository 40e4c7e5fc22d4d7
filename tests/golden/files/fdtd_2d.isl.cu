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

__global__ void __launch_bounds__(256) kernel0(int T, int nx, int ny, double *__restrict__ ex, double *__restrict__ ey, double *__restrict__ hz, double *__restrict__ fict, int c0) {
  for (int c1 = (int)blockIdx.y; (c1 <= pc_floord((nx - 1), 8)); c1 += (int)gridDim.y) {
    for (int c2 = (int)blockIdx.x; (c2 <= pc_floord((ny - 1), 32)); c2 += (int)gridDim.x) {
      if ((int)threadIdx.y >= 0) {
        const int c3 = (int)threadIdx.y;
        if ((c3 <= pc_min(7, ((nx - (8 * c1)) - 1)))) {
          if ((int)threadIdx.x >= pc_max(0, (((-32) * c2) + 1))) {
            const int c4 = (int)threadIdx.x;
            if ((c4 <= pc_min(31, ((ny - (32 * c2)) - 1)))) {
              ex[(((8 * c1) + c3)) * (ny) + (((32 * c2) + c4))] = (ex[(((8 * c1) + c3)) * (ny) + (((32 * c2) + c4))] - (0.5 * (hz[(((8 * c1) + c3)) * (ny) + (((32 * c2) + c4))] - hz[(((8 * c1) + c3)) * (ny) + ((((32 * c2) + c4) - 1))])));
            }
          }
        }
      }
    }
  }
}

__global__ void __launch_bounds__(256) kernel1(int T, int nx, int ny, double *__restrict__ ex, double *__restrict__ ey, double *__restrict__ hz, double *__restrict__ fict, int c0) {
  for (int c1 = (int)blockIdx.x; (c1 <= pc_floord((ny - 1), 256)); c1 += (int)gridDim.x) {
    if ((int)threadIdx.x >= 0) {
      const int c2 = (int)threadIdx.x;
      if ((c2 <= pc_min(255, ((ny - (256 * c1)) - 1)))) {
        ey[(0) * (ny) + (((256 * c1) + c2))] = fict[c0];
        for (int c3 = 1; (c3 < nx); c3 += 1) {
          ey[(c3) * (ny) + (((256 * c1) + c2))] = (ey[(c3) * (ny) + (((256 * c1) + c2))] - (0.5 * (hz[(c3) * (ny) + (((256 * c1) + c2))] - hz[((c3 - 1)) * (ny) + (((256 * c1) + c2))])));
          if ((ny >= (((256 * c1) + c2) + 2))) {
            hz[((c3 - 1)) * (ny) + (((256 * c1) + c2))] = (hz[((c3 - 1)) * (ny) + (((256 * c1) + c2))] - (0.7 * (((ex[((c3 - 1)) * (ny) + ((((256 * c1) + c2) + 1))] - ex[((c3 - 1)) * (ny) + (((256 * c1) + c2))]) + ey[(((c3 - 1) + 1)) * (ny) + (((256 * c1) + c2))]) - ey[((c3 - 1)) * (ny) + (((256 * c1) + c2))])));
          }
        }
      }
    }
  }
}

extern "C" int pc_fdtd_2d_dev(long long T, long long nx, long long ny, double *ex, double *ey, double *hz, double *fict) {
  for (long long c0 = 0; (c0 < T); c0 += 1) {
    kernel0<<<dim3((unsigned)pc_min(pc_max(((ny + 31) / 32), 1LL), 2147483647LL), (unsigned)pc_min(pc_max(((nx + 7) / 8), 1LL), 65535LL)), dim3(32, 8)>>>((int)T, (int)nx, (int)ny, ex, ey, hz, fict, (int)c0);
    kernel1<<<dim3((unsigned)pc_min(pc_max(((ny + 255) / 256), 1LL), 2147483647LL)), dim3(256)>>>((int)T, (int)nx, (int)ny, ex, ey, hz, fict, (int)c0);
  }
  PC_CHECK(cudaGetLastError());
  PC_CHECK(cudaDeviceSynchronize());
  return 0;
}

extern "C" int pc_fdtd_2d(long long T, long long nx, long long ny, double *ex, double *ey, double *hz, double *fict) {
  int err = 0;
  double *d_ex = NULL;
  PC_CHECK(cudaMalloc((void **)&d_ex, (size_t)(nx) * (size_t)(ny) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_ex, ex, (size_t)(nx) * (size_t)(ny) * sizeof(double), cudaMemcpyHostToDevice));
  double *d_ey = NULL;
  PC_CHECK(cudaMalloc((void **)&d_ey, (size_t)(nx) * (size_t)(ny) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_ey, ey, (size_t)(nx) * (size_t)(ny) * sizeof(double), cudaMemcpyHostToDevice));
  double *d_hz = NULL;
  PC_CHECK(cudaMalloc((void **)&d_hz, (size_t)(nx) * (size_t)(ny) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_hz, hz, (size_t)(nx) * (size_t)(ny) * sizeof(double), cudaMemcpyHostToDevice));
  double *d_fict = NULL;
  PC_CHECK(cudaMalloc((void **)&d_fict, (size_t)(T) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_fict, fict, (size_t)(T) * sizeof(double), cudaMemcpyHostToDevice));
  err = pc_fdtd_2d_dev(T, nx, ny, d_ex, d_ey, d_hz, d_fict);
  if (!err) err = (int)cudaMemcpy(ex, d_ex, (size_t)(nx) * (size_t)(ny) * sizeof(double), cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(ey, d_ey, (size_t)(nx) * (size_t)(ny) * sizeof(double), cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(hz, d_hz, (size_t)(nx) * (size_t)(ny) * sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(d_ex);
  cudaFree(d_ey);
  cudaFree(d_hz);
  cudaFree(d_fict);
  return err;
}

extern "C" void pc_fdtd_2d_fail(int err) {
  fprintf(stderr, "polycuda: pc_fdtd_2d failed: CUDA error %d (%s): %s\n", err,
          cudaGetErrorName((cudaError_t)err), cudaGetErrorString((cudaError_t)err));
  exit(EXIT_FAILURE);
}

#ifdef POLYCUDA_MAIN
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
  long long T = 64;
  long long nx = 64;
  long long ny = 64;
  for (int a = 1; a < argc; a++) {
    if (strncmp(argv[a], "T=", 2) == 0) T = atoll(argv[a] + 2);
    if (strncmp(argv[a], "nx=", 3) == 0) nx = atoll(argv[a] + 3);
    if (strncmp(argv[a], "ny=", 3) == 0) ny = atoll(argv[a] + 3);
  }
  unsigned long long seed = 88172645463325252ULL;
  size_t n_ex = (size_t)(nx) * (size_t)(ny);
  double *ex = (double *)malloc(n_ex * sizeof(double));
  for (size_t k = 0; k < n_ex; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; ex[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_ey = (size_t)(nx) * (size_t)(ny);
  double *ey = (double *)malloc(n_ey * sizeof(double));
  for (size_t k = 0; k < n_ey; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; ey[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_hz = (size_t)(nx) * (size_t)(ny);
  double *hz = (double *)malloc(n_hz * sizeof(double));
  for (size_t k = 0; k < n_hz; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; hz[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_fict = (size_t)(T);
  double *fict = (double *)malloc(n_fict * sizeof(double));
  for (size_t k = 0; k < n_fict; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; fict[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int err = pc_fdtd_2d(T, nx, ny, ex, ey, hz, fict);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (err) { fprintf(stderr, "error %d: %s\n", err, cudaGetErrorString((cudaError_t)err)); return 1; }
  printf("time_ms %.3f\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6);
  double sum_ey = 0;
  for (size_t k = 0; k < n_ey; k++) sum_ey += (double)ey[k];
  printf("checksum ey %.17g\n", sum_ey);
  double sum_ex = 0;
  for (size_t k = 0; k < n_ex; k++) sum_ex += (double)ex[k];
  printf("checksum ex %.17g\n", sum_ex);
  double sum_hz = 0;
  for (size_t k = 0; k < n_hz; k++) sum_hz += (double)hz[k];
  printf("checksum hz %.17g\n", sum_hz);
  free(ex);
  free(ey);
  free(hz);
  free(fict);
  return 0;
}
#endif
