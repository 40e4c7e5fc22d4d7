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

__global__ void __launch_bounds__(256) kernel0(int n, double alpha, double beta, double *__restrict__ A, double *__restrict__ u1, double *__restrict__ v1, double *__restrict__ u2, double *__restrict__ v2, double *__restrict__ w, double *__restrict__ x, double *__restrict__ y, double *__restrict__ z) {
  for (int c0 = (int)blockIdx.y; (c0 <= pc_floord((n - 1), 8)); c0 += (int)gridDim.y) {
    for (int c1 = (int)blockIdx.x; (c1 <= ((n - 1) / 32)); c1 += (int)gridDim.x) {
      if ((int)threadIdx.y >= 0) {
        const int c2 = (int)threadIdx.y;
        if ((c2 <= pc_min(7, ((n - (8 * c0)) - 1)))) {
          if ((int)threadIdx.x >= 0) {
            const int c3 = (int)threadIdx.x;
            if ((c3 <= pc_min(31, ((n - (32 * c1)) - 1)))) {
              A[(((8 * c0) + c2)) * (n) + (((32 * c1) + c3))] = ((A[(((8 * c0) + c2)) * (n) + (((32 * c1) + c3))] + (u1[((8 * c0) + c2)] * v1[((32 * c1) + c3)])) + (u2[((8 * c0) + c2)] * v2[((32 * c1) + c3)]));
            }
          }
        }
      }
    }
  }
}

__global__ void __launch_bounds__(256) kernel1(int n, double alpha, double beta, double *__restrict__ A, double *__restrict__ u1, double *__restrict__ v1, double *__restrict__ u2, double *__restrict__ v2, double *__restrict__ w, double *__restrict__ x, double *__restrict__ y, double *__restrict__ z) {
  for (int c0 = (int)blockIdx.x; (c0 <= pc_floord((n - 1), 256)); c0 += (int)gridDim.x) {
    if ((int)threadIdx.x >= 0) {
      const int c1 = (int)threadIdx.x;
      if ((c1 <= pc_min(255, ((n - (256 * c0)) - 1)))) {
        {
          double pc_p0;
          if ((((((((n >= 1) && (c0 >= 0)) && (n >= ((256 * c0) + 1))) && (n >= (((256 * c0) + c1) + 1))) && (c1 >= 0)) && (c1 <= 255)))) pc_p0 = x[((256 * c0) + c1)];
          for (int c2 = 0; (c2 < n); c2 += 1) {
            pc_p0 = (pc_p0 + ((beta * A[(c2) * (n) + (((256 * c0) + c1))]) * y[c2]));
          }
          if ((((((c0 >= 0) && (n >= (((256 * c0) + c1) + 1))) && (c1 >= 0)) && (c1 <= 255)))) x[((256 * c0) + c1)] = pc_p0;
        }
      }
    }
  }
}

__global__ void __launch_bounds__(256) kernel2(int n, double alpha, double beta, double *__restrict__ A, double *__restrict__ u1, double *__restrict__ v1, double *__restrict__ u2, double *__restrict__ v2, double *__restrict__ w, double *__restrict__ x, double *__restrict__ y, double *__restrict__ z) {
  for (int c0 = (int)blockIdx.x; (c0 <= pc_floord((n - 1), 256)); c0 += (int)gridDim.x) {
    if ((int)threadIdx.x >= 0) {
      const int c1 = (int)threadIdx.x;
      if ((c1 <= pc_min(255, ((n - (256 * c0)) - 1)))) {
        x[((256 * c0) + c1)] = (x[((256 * c0) + c1)] + z[((256 * c0) + c1)]);
      }
    }
  }
}

__global__ void __launch_bounds__(256) kernel3(int n, double alpha, double beta, double *__restrict__ A, double *__restrict__ u1, double *__restrict__ v1, double *__restrict__ u2, double *__restrict__ v2, double *__restrict__ w, double *__restrict__ x, double *__restrict__ y, double *__restrict__ z) {
  for (int c0 = (int)blockIdx.x; (c0 <= pc_floord((n - 1), 256)); c0 += (int)gridDim.x) {
    if ((int)threadIdx.x >= 0) {
      const int c1 = (int)threadIdx.x;
      if ((c1 <= pc_min(255, ((n - (256 * c0)) - 1)))) {
        {
          double pc_p0;
          if ((((((((n >= 1) && (c0 >= 0)) && (n >= ((256 * c0) + 1))) && (n >= (((256 * c0) + c1) + 1))) && (c1 >= 0)) && (c1 <= 255)))) pc_p0 = w[((256 * c0) + c1)];
          for (int c2 = 0; (c2 < n); c2 += 1) {
            pc_p0 = (pc_p0 + ((alpha * A[(((256 * c0) + c1)) * (n) + (c2)]) * x[c2]));
          }
          if ((((((c0 >= 0) && (n >= (((256 * c0) + c1) + 1))) && (c1 >= 0)) && (c1 <= 255)))) w[((256 * c0) + c1)] = pc_p0;
        }
      }
    }
  }
}

extern "C" int pc_gemver_dev(long long n, double alpha, double beta, double *A, double *u1, double *v1, double *u2, double *v2, double *w, double *x, double *y, double *z) {
  kernel0<<<dim3((unsigned)pc_min(pc_max(((n + 31) / 32), 1LL), 2147483647LL), (unsigned)pc_min(pc_max(((n + 7) / 8), 1LL), 65535LL)), dim3(32, 8)>>>((int)n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);
  kernel1<<<dim3((unsigned)pc_min(pc_max(((n + 255) / 256), 1LL), 2147483647LL)), dim3(256)>>>((int)n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);
  kernel2<<<dim3((unsigned)pc_min(pc_max(((n + 255) / 256), 1LL), 2147483647LL)), dim3(256)>>>((int)n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);
  kernel3<<<dim3((unsigned)pc_min(pc_max(((n + 255) / 256), 1LL), 2147483647LL)), dim3(256)>>>((int)n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);
  PC_CHECK(cudaGetLastError());
  PC_CHECK(cudaDeviceSynchronize());
  return 0;
}

extern "C" int pc_gemver(long long n, double alpha, double beta, double *A, double *u1, double *v1, double *u2, double *v2, double *w, double *x, double *y, double *z) {
  int err = 0;
  double *d_A = NULL;
  PC_CHECK(cudaMalloc((void **)&d_A, (size_t)(n) * (size_t)(n) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_A, A, (size_t)(n) * (size_t)(n) * sizeof(double), cudaMemcpyHostToDevice));
  double *d_u1 = NULL;
  PC_CHECK(cudaMalloc((void **)&d_u1, (size_t)(n) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_u1, u1, (size_t)(n) * sizeof(double), cudaMemcpyHostToDevice));
  double *d_v1 = NULL;
  PC_CHECK(cudaMalloc((void **)&d_v1, (size_t)(n) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_v1, v1, (size_t)(n) * sizeof(double), cudaMemcpyHostToDevice));
  double *d_u2 = NULL;
  PC_CHECK(cudaMalloc((void **)&d_u2, (size_t)(n) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_u2, u2, (size_t)(n) * sizeof(double), cudaMemcpyHostToDevice));
  double *d_v2 = NULL;
  PC_CHECK(cudaMalloc((void **)&d_v2, (size_t)(n) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_v2, v2, (size_t)(n) * sizeof(double), cudaMemcpyHostToDevice));
  double *d_w = NULL;
  PC_CHECK(cudaMalloc((void **)&d_w, (size_t)(n) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_w, w, (size_t)(n) * sizeof(double), cudaMemcpyHostToDevice));
  double *d_x = NULL;
  PC_CHECK(cudaMalloc((void **)&d_x, (size_t)(n) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_x, x, (size_t)(n) * sizeof(double), cudaMemcpyHostToDevice));
  double *d_y = NULL;
  PC_CHECK(cudaMalloc((void **)&d_y, (size_t)(n) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_y, y, (size_t)(n) * sizeof(double), cudaMemcpyHostToDevice));
  double *d_z = NULL;
  PC_CHECK(cudaMalloc((void **)&d_z, (size_t)(n) * sizeof(double)));
  PC_CHECK(cudaMemcpy(d_z, z, (size_t)(n) * sizeof(double), cudaMemcpyHostToDevice));
  err = pc_gemver_dev(n, alpha, beta, d_A, d_u1, d_v1, d_u2, d_v2, d_w, d_x, d_y, d_z);
  if (!err) err = (int)cudaMemcpy(A, d_A, (size_t)(n) * (size_t)(n) * sizeof(double), cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(w, d_w, (size_t)(n) * sizeof(double), cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(x, d_x, (size_t)(n) * sizeof(double), cudaMemcpyDeviceToHost);
  cudaFree(d_A);
  cudaFree(d_u1);
  cudaFree(d_v1);
  cudaFree(d_u2);
  cudaFree(d_v2);
  cudaFree(d_w);
  cudaFree(d_x);
  cudaFree(d_y);
  cudaFree(d_z);
  return err;
}

extern "C" void pc_gemver_fail(int err) {
  fprintf(stderr, "polycuda: pc_gemver failed: CUDA error %d (%s): %s\n", err,
          cudaGetErrorName((cudaError_t)err), cudaGetErrorString((cudaError_t)err));
  exit(EXIT_FAILURE);
}

#ifdef POLYCUDA_MAIN
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
  long long n = 64;
  double alpha = 1.5;
  double beta = 1.5;
  for (int a = 1; a < argc; a++) {
    if (strncmp(argv[a], "n=", 2) == 0) n = atoll(argv[a] + 2);
  }
  unsigned long long seed = 88172645463325252ULL;
  size_t n_A = (size_t)(n) * (size_t)(n);
  double *A = (double *)malloc(n_A * sizeof(double));
  for (size_t k = 0; k < n_A; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; A[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_u1 = (size_t)(n);
  double *u1 = (double *)malloc(n_u1 * sizeof(double));
  for (size_t k = 0; k < n_u1; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; u1[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_v1 = (size_t)(n);
  double *v1 = (double *)malloc(n_v1 * sizeof(double));
  for (size_t k = 0; k < n_v1; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; v1[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_u2 = (size_t)(n);
  double *u2 = (double *)malloc(n_u2 * sizeof(double));
  for (size_t k = 0; k < n_u2; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; u2[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_v2 = (size_t)(n);
  double *v2 = (double *)malloc(n_v2 * sizeof(double));
  for (size_t k = 0; k < n_v2; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; v2[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_w = (size_t)(n);
  double *w = (double *)malloc(n_w * sizeof(double));
  for (size_t k = 0; k < n_w; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; w[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_x = (size_t)(n);
  double *x = (double *)malloc(n_x * sizeof(double));
  for (size_t k = 0; k < n_x; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; x[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_y = (size_t)(n);
  double *y = (double *)malloc(n_y * sizeof(double));
  for (size_t k = 0; k < n_y; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; y[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_z = (size_t)(n);
  double *z = (double *)malloc(n_z * sizeof(double));
  for (size_t k = 0; k < n_z; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; z[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int err = pc_gemver(n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (err) { fprintf(stderr, "error %d: %s\n", err, cudaGetErrorString((cudaError_t)err)); return 1; }
  printf("time_ms %.3f\n", (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6);
  double sum_A = 0;
  for (size_t k = 0; k < n_A; k++) sum_A += (double)A[k];
  printf("checksum A %.17g\n", sum_A);
  double sum_x = 0;
  for (size_t k = 0; k < n_x; k++) sum_x += (double)x[k];
  printf("checksum x %.17g\n", sum_x);
  double sum_w = 0;
  for (size_t k = 0; k < n_w; k++) sum_w += (double)w[k];
  printf("checksum w %.17g\n", sum_w);
  free(A);
  free(u1);
  free(v1);
  free(u2);
  free(v2);
  free(w);
  free(x);
  free(y);
  free(z);
  return 0;
}
#endif
