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

__global__ void __launch_bounds__(512) kernel0(int nr, int nq, int nk, double *__restrict__ A, double *__restrict__ C4, double *__restrict__ acc, double *__restrict__ acc_x0) {
  for (int c0 = (int)blockIdx.z; (c0 <= pc_floord(nr, 4)); c0 += (int)gridDim.z) {
    for (int c1 = (int)blockIdx.y; (c1 <= pc_floord(nq, 4)); c1 += (int)gridDim.y) {
      for (int c2 = (int)blockIdx.x; (c2 <= pc_floord((nk - 1), 32)); c2 += (int)gridDim.x) {
        if ((int)threadIdx.z >= pc_max(0, (((-4) * c0) + 1))) {
          const int c3 = (int)threadIdx.z;
          if ((c3 <= pc_min(3, (nr - (4 * c0))))) {
            if ((int)threadIdx.y >= pc_max(0, (((-4) * c1) + 1))) {
              const int c4 = (int)threadIdx.y;
              if ((c4 <= pc_min(3, (nq - (4 * c1))))) {
                if ((int)threadIdx.x >= 0) {
                  const int c5 = (int)threadIdx.x;
                  if ((c5 <= pc_min(31, ((nk - (32 * c2)) - 1)))) {
                    {
                      double pc_p0;
                      pc_p0 = 0.0;
                      for (int c6 = 0; (c6 < nk); c6 += 1) {
                        pc_p0 += (A[(((((4 * c0) + c3) - 1)) * (nq) + ((((4 * c1) + c4) - 1))) * (nk) + (c6)] * C4[(c6) * (nk) + (((32 * c2) + c5))]);
                      }
                      if (((((4 * c0) + c3) == nr) && (((4 * c1) + c4) == nq))) {
                        acc[((32 * c2) + c5)] = pc_p0;
                      }
                      if ((((((((((((((c2 >= 0) && (((4 * c0) + c3) >= 1)) && (c3 >= 0)) && (nr >= ((4 * c0) + c3))) && (c3 <= 3)) && (((4 * c1) + c4) >= 1)) && (c4 >= 0)) && (nq >= ((4 * c1) + c4))) && (c4 <= 3)) && (nk >= (((32 * c2) + c5) + 1))) && (c5 >= 0)) && (c5 <= 31)))) acc_x0[(((((4 * c0) + c3) - 1)) * (pc_max(nq, 0)) + ((((4 * c1) + c4) - 1))) * (nk) + (((32 * c2) + c5))] = pc_p0;
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

__global__ void __launch_bounds__(512) kernel1(int nr, int nq, int nk, double *__restrict__ A, double *__restrict__ C4, double *__restrict__ acc, double *__restrict__ acc_x0) {
  for (int c0 = (int)blockIdx.z; (c0 <= pc_floord((nr - 1), 4)); c0 += (int)gridDim.z) {
    for (int c1 = (int)blockIdx.y; (c1 <= pc_floord((nq - 1), 4)); c1 += (int)gridDim.y) {
      for (int c2 = (int)blockIdx.x; (c2 <= pc_floord((nk - 1), 32)); c2 += (int)gridDim.x) {
        if ((int)threadIdx.z >= 0) {
          const int c3 = (int)threadIdx.z;
          if ((c3 <= pc_min(3, ((nr - (4 * c0)) - 1)))) {
            if ((int)threadIdx.y >= 0) {
              const int c4 = (int)threadIdx.y;
              if ((c4 <= pc_min(3, ((nq - (4 * c1)) - 1)))) {
                if ((int)threadIdx.x >= 0) {
                  const int c5 = (int)threadIdx.x;
                  if ((c5 <= pc_min(31, ((nk - (32 * c2)) - 1)))) {
                    A[((((4 * c0) + c3)) * (nq) + (((4 * c1) + c4))) * (nk) + (((32 * c2) + c5))] = acc_x0[((((4 * c0) + c3)) * (pc_max(nq, 0)) + (((4 * c1) + c4))) * (nk) + (((32 * c2) + c5))];
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}

extern "C" int pc_doitgen_dev(long long nr, long long nq, long long nk, double *A, double *C4, double *acc) {
  double *acc_x0 = NULL;
  PC_CHECK(cudaMalloc((void **)&acc_x0, (size_t)(pc_max(nr, 0)) * (size_t)(pc_max(nq, 0)) * (size_t)(nk) * sizeof(double)));
  kernel0<<<dim3((unsigned)pc_min(pc_max(((nk + 31) / 32), 1LL), 2147483647LL), (unsigned)pc_min(pc_max(((nq / 4) + 1), 1LL), 65535LL), (unsigned)pc_min(pc_max(((nr / 4) + 1), 1LL), 65535LL)), dim3(32, 4, 4)>>>((int)nr, (int)nq, (int)nk, A, C4, acc, acc_x0);
  kernel1<<<dim3((unsigned)pc_min(pc_max(((nk + 31) / 32), 1LL), 2147483647LL), (unsigned)pc_min(pc_max(((nq + 3) / 4), 1LL), 65535LL), (unsigned)pc_min(pc_max(((nr + 3) / 4), 1LL), 65535LL)), dim3(32, 4, 4)>>>((int)nr, (int)nq, (int)nk, A, C4, acc, acc_x0);
  PC_CHECK(cudaGetLastError());
  PC_CHECK(cudaDeviceSynchronize());
  cudaFree(acc_x0);
  return 0;
}

extern "C" int pc_doitgen(long long nr, long long nq, long long nk, double *A, double *C4, double *acc) {
  int err = 0;
  double *d_A = NULL;
  PC_CHECK(cudaMalloc((void **)&d_A, (size_t)(nr) * (size_t)(nq) * (size_t)(nk) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_A, A, (size_t)(nr) * (size_t)(nq) * (size_t)(nk) * sizeof(double), cudaMemcpyHostToDevice));
  double *d_C4 = NULL;
  PC_CHECK(cudaMalloc((void **)&d_C4, (size_t)(nk) * (size_t)(nk) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_C4, C4, (size_t)(nk) * (size_t)(nk) * sizeof(double), cudaMemcpyHostToDevice));
  double *d_acc = NULL;
  PC_CHECK(cudaMalloc((void **)&d_acc, (size_t)(nk) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_acc, acc, (size_t)(nk) * sizeof(double), cudaMemcpyHostToDevice));
  err = pc_doitgen_dev(nr, nq, nk, d_A, d_C4, d_acc);
  if (!err) err = (int)cudaMemcpy(A, d_A, (size_t)(nr) * (size_t)(nq) * (size_t)(nk) * sizeof(double), cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(acc, d_acc, (size_t)(nk) * sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(d_A);
  cudaFree(d_C4);
  cudaFree(d_acc);
  return err;
}

extern "C" void pc_doitgen_fail(int err) {
  fprintf(stderr, "polycuda: pc_doitgen failed: CUDA error %d (%s): %s\n", err,
          cudaGetErrorName((cudaError_t)err), cudaGetErrorString((cudaError_t)err));
  exit(EXIT_FAILURE);
}

#ifdef POLYCUDA_MAIN
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
  long long nr = 64;
  long long nq = 64;
  long long nk = 64;
  for (int a = 1; a < argc; a++) {
    if (strncmp(argv[a], "nr=", 3) == 0) nr = atoll(argv[a] + 3);
    if (strncmp(argv[a], "nq=", 3) == 0) nq = atoll(argv[a] + 3);
    if (strncmp(argv[a], "nk=", 3) == 0) nk = atoll(argv[a] + 3);
  }
  unsigned long long seed = 88172645463325252ULL;
  size_t n_A = (size_t)(nr) * (size_t)(nq) * (size_t)(nk);
  double *A = (double *)malloc(n_A * sizeof(double));
  for (size_t k = 0; k < n_A; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; A[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_C4 = (size_t)(nk) * (size_t)(nk);
  double *C4 = (double *)malloc(n_C4 * sizeof(double));
  for (size_t k = 0; k < n_C4; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; C4[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_acc = (size_t)(nk);
  double *acc = (double *)malloc(n_acc * sizeof(double));
  for (size_t k = 0; k < n_acc; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; acc[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int err = pc_doitgen(nr, nq, nk, A, C4, acc);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (err) { fprintf(stderr, "error %d: %s\n", err, cudaGetErrorString((cudaError_t)err)); return 1; }
  printf("time_ms %.3f\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6);
  double sum_A = 0;
  for (size_t k = 0; k < n_A; k++) sum_A += (double)A[k];
  printf("checksum A %.17g\n", sum_A);
  double sum_acc = 0;
  for (size_t k = 0; k < n_acc; k++) sum_acc += (double)acc[k];
  printf("checksum acc %.17g\n", sum_acc);
  free(A);
  free(C4);
  free(acc);
  return 0;
}
#endif
