#include <math.h>
#include <stdlib.h>
#include <stddef.h>

#ifndef PC_HELPERS_DEFINED
#define PC_HELPERS_DEFINED
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
#endif
#define PC_SHUFFLE_PRIME 1000003L

int pc_gemm(long long ni, long long nj, long long nk, double alpha, double beta, double *C, double *A, double *B) {
  for (long c0 = 0; (c0 <= pc_floord((ni - 1), 8)); c0 += 1) {
    for (long c1 = 0; (c1 <= pc_floord((nj - 1), 32)); c1 += 1) {
      for (long c2 = 0; (c2 <= pc_min(7, ((ni - (8 * c0)) - 1))); c2 += 1) {
        for (long c3 = 0; (c3 <= pc_min(31, ((nj - (32 * c1)) - 1))); c3 += 1) {
          C[(((8 * c0) + c2)) * (nj) + (((32 * c1) + c3))] *= beta;
          for (long c4 = 0; (c4 < nk); c4 += 1) {
            C[(((8 * c0) + c2)) * (nj) + (((32 * c1) + c3))] += ((alpha * A[(((8 * c0) + c2)) * (nk) + (c4)]) * B[(c4) * (nj) + (((32 * c1) + c3))]);
          }
        }
      }
    }
  }
  return 0;
}
