#include <math.h>
#include <stdlib.h>
#include <stddef.h>

#ifndef PC_HELPERS_DEFINED
#define PC_HELPERS_DEFINED
#ifdef __cplusplus
#define PC_FN template <typename A, typename B> __host__ __device__ static inline auto
PC_FN pc_floord(A n, B d) -> decltype(n + d) { return n < 0 ? -((-n + d - 1) / d) : n / d; }
PC_FN pc_ceild(A n, B d) -> decltype(n + d) { return pc_floord(n + d - 1, d); }
template <bool Max> __host__ __device__ static inline long long pc_minmax64(long long a, long long b) {
#ifdef __CUDA_ARCH__
  long long r;  /* asm: NVVM would narrow a 64-bit max of two ints back to 32 bits */
  if (Max) asm("max.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b));
  else asm("min.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b));
  return r;
#else
  return (a > b) == Max ? a : b;
#endif
}
template <typename T> struct pc_signed_int {
  static constexpr bool value = (T)-1 < (T)0 && (T)1 / (T)2 == (T)0;
};
template <typename T, bool = pc_signed_int<T>::value> struct pc_minmax {
  __host__ __device__ static T min(T a, T b) { return a < b ? a : b; }
  __host__ __device__ static T max(T a, T b) { return a > b ? a : b; }
};
template <typename T> struct pc_minmax<T, true> {
  __host__ __device__ static T min(T a, T b) { return (T)pc_minmax64<false>(a, b); }
  __host__ __device__ static T max(T a, T b) { return (T)pc_minmax64<true>(a, b); }
};
PC_FN pc_min(A a, B b) -> decltype(a + b) { return pc_minmax<decltype(a + b)>::min(a, b); }
PC_FN pc_max(A a, B b) -> decltype(a + b) { return pc_minmax<decltype(a + b)>::max(a, b); }
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

int pc_sor_2d(long long T, long long n, double omega, double *A) {
  for (long c0 = 0; (c0 < (n + pc_floord((((13 * T) - (15 * n)) - 15), 32))); c0 += 1) {
    for (long c1 = pc_max(pc_max(pc_max(((c0 + pc_floord(((((-9) * T) - (9 * n)) - 6), 32)) + 2), (((4 * c0) + 8) / 13)), (pc_floord((((-T) + (8 * c0)) - 7), 18) + 1)), (pc_floord((((((-5) * T) - n) + (32 * c0)) - 22), 64) + 1)); (c1 <= pc_min(pc_min(pc_min(pc_min((pc_floord(((T + (2 * n)) + 3), 8) - 1), (c0 / 2)), pc_floord(((n + (4 * c0)) + 1), 12)), pc_floord(((n + (32 * c0)) + 29), 72)), pc_floord((((9 * n) + (32 * c0)) + 37), 104))); c1 += 1) {
      for (long c2 = pc_max(pc_max(pc_max(pc_max(pc_max(((c0 - (2 * c1)) + pc_floord(((-T) + 1), 8)), (((c0 - c1) - (((T + n) + 1) / 4)) + 1)), ((c0 - (2 * c1)) / 5)), pc_floord((((-n) + (8 * c1)) + 2), 32)), pc_floord((((((-T) - n) + (8 * c0)) - (8 * c1)) + 11), 40)), pc_floord(((((-n) + (8 * c0)) - (8 * c1)) + 12), 72)); (c2 <= pc_min(pc_min(pc_min(pc_min(pc_min((c0 - (2 * c1)), ((c0 - (3 * c1)) + pc_floord((n + 1), 4))), (((T + n) - 3) / 32)), (c1 / 4)), ((((n + (8 * c0)) - (16 * c1)) + 5) / 40)), ((((n + (8 * c0)) - (8 * c1)) + 4) / 72))); c2 += 1) {
        for (long c3 = pc_max(pc_max(pc_max(pc_max(pc_max(0, (((((-8) * c0) + (8 * c1)) + (40 * c2)) + 1)), (((((-n) - (8 * c0)) + (16 * c1)) + (40 * c2)) + 2)), (((((-8) * c0) + (8 * c1)) + (8 * c2)) + 2)), (((((-n) - (8 * c0)) + (8 * c1)) + (72 * c2)) + 3)), ((((((-2) * n) - (8 * c0)) + (24 * c1)) + (8 * c2)) + 4)); (c3 <= pc_min(pc_min(pc_min(pc_min(pc_min(pc_min(7, ((((((2 * T) + (2 * n)) - (8 * c0)) + (8 * c1)) + (8 * c2)) - 6)), ((((T - (8 * c0)) + (16 * c1)) + (8 * c2)) + 6)), (((((-8) * c0) + (24 * c1)) + (8 * c2)) + 12)), (((((T + n) - (8 * c0)) + (8 * c1)) + (40 * c2)) + 28)), (((((-8) * c0) + (16 * c1)) + (40 * c2)) + 37)), ((((n - (8 * c0)) + (8 * c1)) + (72 * c2)) + 59))); c3 += 1) {
          for (long c4 = pc_max(pc_max(pc_max(pc_max(0, ((((-8) * c1) + (32 * c2)) + 1)), (((((8 * c0) - (16 * c1)) - (40 * c2)) + c3) - 30)), ((((((-T) + (8 * c0)) - (16 * c1)) - (8 * c2)) + c3) + 1)), (((((4 * c0) - (12 * c1)) - (4 * c2)) + ((c3 + 1) / 2)) + 1)); (c4 <= pc_min(pc_min(pc_min(pc_min(7, (((n - (8 * c1)) + (32 * c2)) + 29)), (((((n + (8 * c0)) - (16 * c1)) - (40 * c2)) + c3) - 2)), ((((8 * c0) - (16 * c1)) - (8 * c2)) + c3)), (((((n + (4 * c0)) - (12 * c1)) - (4 * c2)) + (c3 / 2)) - 2))); c4 += 1) {
            for (long c5 = pc_max(pc_max(0, ((((((8 * c0) - (16 * c1)) - (40 * c2)) + c3) - c4) + 1)), (((((-n) + (8 * c1)) - (32 * c2)) + c4) + 2)); (c5 <= pc_min(pc_min(31, ((((((n + (8 * c0)) - (16 * c1)) - (40 * c2)) + c3) - c4) - 2)), ((((8 * c1) - (32 * c2)) + c4) - 1))); c5 += 1) {
              A[(((((8 * c1) - (32 * c2)) + c4) - c5)) * (n) + ((((((((-8) * c0) + (16 * c1)) + (40 * c2)) - c3) + c4) + c5))] = (((1.0 - omega) * A[(((((8 * c1) - (32 * c2)) + c4) - c5)) * (n) + ((((((((-8) * c0) + (16 * c1)) + (40 * c2)) - c3) + c4) + c5))]) + ((omega * 0.25) * (((A[((((((8 * c1) - (32 * c2)) + c4) - c5) - 1)) * (n) + ((((((((-8) * c0) + (16 * c1)) + (40 * c2)) - c3) + c4) + c5))] + A[((((((8 * c1) - (32 * c2)) + c4) - c5) + 1)) * (n) + ((((((((-8) * c0) + (16 * c1)) + (40 * c2)) - c3) + c4) + c5))]) + A[(((((8 * c1) - (32 * c2)) + c4) - c5)) * (n) + (((((((((-8) * c0) + (16 * c1)) + (40 * c2)) - c3) + c4) + c5) - 1))]) + A[(((((8 * c1) - (32 * c2)) + c4) - c5)) * (n) + (((((((((-8) * c0) + (16 * c1)) + (40 * c2)) - c3) + c4) + c5) + 1))])));
            }
          }
        }
      }
    }
  }
  return 0;
}
