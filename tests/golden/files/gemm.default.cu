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

__global__ void __launch_bounds__(256) kernel0(int ni, int nj, int nk, double alpha, double beta, double *__restrict__ C, double *__restrict__ A, double *__restrict__ B) {
  for (int c0 = (int)blockIdx.y; (c0 <= pc_floord((ni - 1), 8)); c0 += (int)gridDim.y) {
    for (int c1 = (int)blockIdx.x; (c1 <= pc_floord((nj - 1), 32)); c1 += (int)gridDim.x) {
      if ((int)threadIdx.y >= 0) {
        const int c2 = (int)threadIdx.y;
        if ((c2 <= pc_min(7, ((ni - (8 * c0)) - 1)))) {
          if ((int)threadIdx.x >= 0) {
            const int c3 = (int)threadIdx.x;
            if ((c3 <= pc_min(31, ((nj - (32 * c1)) - 1)))) {
              {
                double pc_p0;
                if (((((((((((((nj >= 1) && (c0 >= 0)) && (ni >= ((8 * c0) + 1))) && (c1 >= 0)) && (nj >= ((32 * c1) + 1))) && (ni >= (((8 * c0) + c2) + 1))) && (c2 >= 0)) && (c2 <= 7)) && (nj >= (((32 * c1) + c3) + 1))) && (c3 >= 0)) && (c3 <= 31)))) pc_p0 = C[(((8 * c0) + c2)) * (nj) + (((32 * c1) + c3))];
                pc_p0 *= beta;
                for (int c4 = 0; (c4 < nk); c4 += 1) {
                  pc_p0 += ((alpha * A[(((8 * c0) + c2)) * (nk) + (c4)]) * B[(c4) * (nj) + (((32 * c1) + c3))]);
                }
                if ((((((((((c0 >= 0) && (c1 >= 0)) && (ni >= (((8 * c0) + c2) + 1))) && (c2 >= 0)) && (c2 <= 7)) && (nj >= (((32 * c1) + c3) + 1))) && (c3 >= 0)) && (c3 <= 31)))) C[(((8 * c0) + c2)) * (nj) + (((32 * c1) + c3))] = pc_p0;
              }
            }
          }
        }
      }
    }
  }
}

extern "C" int pc_gemm_dev(long long ni, long long nj, long long nk, double alpha, double beta, double *C, double *A, double *B) {
  kernel0<<<dim3((unsigned)pc_min(pc_max(((nj + 31) / 32), 1LL), 2147483647LL), (unsigned)pc_min(pc_max(((ni + 7) / 8), 1LL), 65535LL)), dim3(32, 8)>>>((int)ni, (int)nj, (int)nk, alpha, beta, C, A, B);
  PC_CHECK(cudaGetLastError());
  PC_CHECK(cudaDeviceSynchronize());
  return 0;
}

extern "C" int pc_gemm(long long ni, long long nj, long long nk, double alpha, double beta, double *C, double *A, double *B) {
  int err = 0;
  double *d_C = NULL;
  PC_CHECK(cudaMalloc((void **)&d_C, (size_t)(ni) * (size_t)(nj) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_C, C, (size_t)(ni) * (size_t)(nj) * sizeof(double), cudaMemcpyHostToDevice));
  double *d_A = NULL;
  PC_CHECK(cudaMalloc((void **)&d_A, (size_t)(ni) * (size_t)(nk) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_A, A, (size_t)(ni) * (size_t)(nk) * sizeof(double), cudaMemcpyHostToDevice));
  double *d_B = NULL;
  PC_CHECK(cudaMalloc((void **)&d_B, (size_t)(nk) * (size_t)(nj) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_B, B, (size_t)(nk) * (size_t)(nj) * sizeof(double), cudaMemcpyHostToDevice));
  err = pc_gemm_dev(ni, nj, nk, alpha, beta, d_C, d_A, d_B);
  if (!err) err = (int)cudaMemcpy(C, d_C, (size_t)(ni) * (size_t)(nj) * sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(d_C);
  cudaFree(d_A);
  cudaFree(d_B);
  return err;
}

extern "C" void pc_gemm_fail(int err) {
  fprintf(stderr, "polycuda: pc_gemm failed: CUDA error %d (%s): %s\n", err,
          cudaGetErrorName((cudaError_t)err), cudaGetErrorString((cudaError_t)err));
  exit(EXIT_FAILURE);
}

#ifdef POLYCUDA_MAIN
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
  long long ni = 64;
  long long nj = 64;
  long long nk = 64;
  double alpha = 1.5;
  double beta = 1.5;
  for (int a = 1; a < argc; a++) {
    if (strncmp(argv[a], "ni=", 3) == 0) ni = atoll(argv[a] + 3);
    if (strncmp(argv[a], "nj=", 3) == 0) nj = atoll(argv[a] + 3);
    if (strncmp(argv[a], "nk=", 3) == 0) nk = atoll(argv[a] + 3);
  }
  unsigned long long seed = 88172645463325252ULL;
  size_t n_C = (size_t)(ni) * (size_t)(nj);
  double *C = (double *)malloc(n_C * sizeof(double));
  for (size_t k = 0; k < n_C; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; C[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_A = (size_t)(ni) * (size_t)(nk);
  double *A = (double *)malloc(n_A * sizeof(double));
  for (size_t k = 0; k < n_A; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; A[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_B = (size_t)(nk) * (size_t)(nj);
  double *B = (double *)malloc(n_B * sizeof(double));
  for (size_t k = 0; k < n_B; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; B[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int err = pc_gemm(ni, nj, nk, alpha, beta, C, A, B);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (err) { fprintf(stderr, "error %d: %s\n", err, cudaGetErrorString((cudaError_t)err)); return 1; }
  printf("time_ms %.3f\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6);
  double sum_C = 0;
  for (size_t k = 0; k < n_C; k++) sum_C += (double)C[k];
  printf("checksum C %.17g\n", sum_C);
  free(C);
  free(A);
  free(B);
  return 0;
}
#endif
