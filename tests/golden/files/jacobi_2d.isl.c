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

int pc_jacobi_2d(long long T, long long n, double *A, double *B) {
  for (long c0 = 0; (c0 < T); c0 += 1) {
    for (long c1 = 0; (c1 <= pc_floord((n - 2), 8)); c1 += 1) {
      for (long c2 = 0; (c2 <= ((n - 2) / 32)); c2 += 1) {
        for (long c3 = pc_max(0, (((-8) * c1) + 1)); (c3 <= pc_min(7, ((n - (8 * c1)) - 2))); c3 += 1) {
          for (long c4 = pc_max(0, (((-32) * c2) + 1)); (c4 <= pc_min(31, ((n - (32 * c2)) - 2))); c4 += 1) {
            B[(((8 * c1) + c3)) * (n) + (((32 * c2) + c4))] = (0.2 * ((((A[(((8 * c1) + c3)) * (n) + (((32 * c2) + c4))] + A[((((8 * c1) + c3) - 1)) * (n) + (((32 * c2) + c4))]) + A[((((8 * c1) + c3) + 1)) * (n) + (((32 * c2) + c4))]) + A[(((8 * c1) + c3)) * (n) + ((((32 * c2) + c4) - 1))]) + A[(((8 * c1) + c3)) * (n) + ((((32 * c2) + c4) + 1))]));
          }
        }
      }
    }
    for (long c1 = 0; (c1 <= pc_floord((n - 2), 8)); c1 += 1) {
      for (long c2 = 0; (c2 <= ((n - 2) / 32)); c2 += 1) {
        for (long c3 = pc_max(0, (((-8) * c1) + 1)); (c3 <= pc_min(7, ((n - (8 * c1)) - 2))); c3 += 1) {
          for (long c4 = pc_max(0, (((-32) * c2) + 1)); (c4 <= pc_min(31, ((n - (32 * c2)) - 2))); c4 += 1) {
            A[(((8 * c1) + c3)) * (n) + (((32 * c2) + c4))] = (0.2 * ((((B[(((8 * c1) + c3)) * (n) + (((32 * c2) + c4))] + B[((((8 * c1) + c3) - 1)) * (n) + (((32 * c2) + c4))]) + B[((((8 * c1) + c3) + 1)) * (n) + (((32 * c2) + c4))]) + B[(((8 * c1) + c3)) * (n) + ((((32 * c2) + c4) - 1))]) + B[(((8 * c1) + c3)) * (n) + ((((32 * c2) + c4) + 1))]));
          }
        }
      }
    }
  }
  return 0;
}
