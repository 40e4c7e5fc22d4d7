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

#ifndef PC_OVERLAP_RANGES_DEFINED
#define PC_OVERLAP_RANGES_DEFINED
#include <stdint.h>
/* Whether the byte ranges [a, a + na) and [b, b + nb) share a byte (an empty one never does):
   the entries' check of their array arguments (codegen/overlap_guard.py) */
static inline int pc_overlap_ranges(const void *a, size_t na, const void *b, size_t nb)
{
  const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return na != 0 && nb != 0 && x < y + nb && y < x + na;
}
#endif
/* polycuda: region 'jacobi_1d' as written, run when its arrays share memory */
static int pc_jacobi_1d_original(long long T, long long n, double *A, double *B) {
  for (long pc_v1 = 0; (pc_v1 < T); pc_v1 += 1) {
    for (long pc_v3 = 1; (pc_v3 < (n - 1)); pc_v3 += 1) {
      B[pc_v3] = (((A[(pc_v3 - 1)] + A[pc_v3]) + A[(pc_v3 + 1)]) / 3.0);
    }
    for (long pc_v3 = 1; (pc_v3 < (n - 1)); pc_v3 += 1) {
      A[pc_v3] = (((B[(pc_v3 - 1)] + B[pc_v3]) + B[(pc_v3 + 1)]) / 3.0);
    }
  }
  return 0;
}

int pc_jacobi_1d(long long T, long long n, double *A, double *B) {
  { /* polycuda: the code below assumes distinct arrays (overlap_guard.py) */
    const size_t pc_span_A = (size_t)(n) * sizeof(double);
    const size_t pc_span_B = (size_t)(n) * sizeof(double);
    if (pc_overlap_ranges(A, pc_span_A, B, pc_span_B)) {
      return pc_jacobi_1d_original(T, n, A, B);
    }
  }
  for (long c0 = 0; (c0 <= pc_floord((((6 * T) + n) - 7), 64)); c0 += 1) {
    for (long c1 = pc_max(((c0 + pc_floord((-T), 16)) + 1), ((c0 + 1) / 3)); (c1 <= pc_min(pc_min(c0, pc_floord((((2 * T) + n) - 3), 64)), pc_floord(((n + (32 * c0)) + 29), 96))); c1 += 1) {
      for (long c2 = pc_max(0, (((((-n) - (16 * c0)) + (48 * c1)) + pc_floord(n, 2)) + 1)); (c2 <= pc_min(15, (((T - (16 * c0)) + (16 * c1)) - 1))); c2 += 1) {
        for (long c3 = pc_max(0, ((((32 * c0) - (96 * c1)) + (2 * c2)) + 1)); (c3 <= pc_min(63, ((((n + (32 * c0)) - (96 * c1)) + (2 * c2)) - 2))); c3 += 1) {
          B[(((((-32) * c0) + (96 * c1)) - (2 * c2)) + c3)] = (((A[((((((-32) * c0) + (96 * c1)) - (2 * c2)) + c3) - 1)] + A[(((((-32) * c0) + (96 * c1)) - (2 * c2)) + c3)]) + A[((((((-32) * c0) + (96 * c1)) - (2 * c2)) + c3) + 1)]) / 3.0);
        }
        for (long c3 = pc_max(0, ((((32 * c0) - (96 * c1)) + (2 * c2)) + 2)); (c3 <= pc_min(63, ((((n + (32 * c0)) - (96 * c1)) + (2 * c2)) - 1))); c3 += 1) {
          A[((((((-32) * c0) + (96 * c1)) - (2 * c2)) + c3) - 1)] = (((B[(((((((-32) * c0) + (96 * c1)) - (2 * c2)) + c3) - 1) - 1)] + B[((((((-32) * c0) + (96 * c1)) - (2 * c2)) + c3) - 1)]) + B[(((((((-32) * c0) + (96 * c1)) - (2 * c2)) + c3) - 1) + 1)]) / 3.0);
        }
      }
    }
  }
  return 0;
}
