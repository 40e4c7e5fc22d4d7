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
/* polycuda: region 'fdtd_2d' as written, run when its arrays share memory */
static int pc_fdtd_2d_original(long long T, long long nx, long long ny, double *ex, double *ey, double *hz, double *fict) {
  for (long pc_v1 = 0; (pc_v1 < T); pc_v1 += 1) {
    for (long pc_v3 = 0; (pc_v3 < ny); pc_v3 += 1) {
      ey[(0) * (ny) + (pc_v3)] = fict[pc_v1];
    }
    for (long pc_v3 = 1; (pc_v3 < nx); pc_v3 += 1) {
      for (long pc_v5 = 0; (pc_v5 < ny); pc_v5 += 1) {
        ey[(pc_v3) * (ny) + (pc_v5)] = (ey[(pc_v3) * (ny) + (pc_v5)] - (0.5 * (hz[(pc_v3) * (ny) + (pc_v5)] - hz[((pc_v3 - 1)) * (ny) + (pc_v5)])));
      }
    }
    for (long pc_v3 = 0; (pc_v3 < nx); pc_v3 += 1) {
      for (long pc_v5 = 1; (pc_v5 < ny); pc_v5 += 1) {
        ex[(pc_v3) * (ny) + (pc_v5)] = (ex[(pc_v3) * (ny) + (pc_v5)] - (0.5 * (hz[(pc_v3) * (ny) + (pc_v5)] - hz[(pc_v3) * (ny) + ((pc_v5 - 1))])));
      }
    }
    for (long pc_v3 = 0; (pc_v3 < (nx - 1)); pc_v3 += 1) {
      for (long pc_v5 = 0; (pc_v5 < (ny - 1)); pc_v5 += 1) {
        hz[(pc_v3) * (ny) + (pc_v5)] = (hz[(pc_v3) * (ny) + (pc_v5)] - (0.7 * (((ex[(pc_v3) * (ny) + ((pc_v5 + 1))] - ex[(pc_v3) * (ny) + (pc_v5)]) + ey[((pc_v3 + 1)) * (ny) + (pc_v5)]) - ey[(pc_v3) * (ny) + (pc_v5)])));
      }
    }
  }
  return 0;
}

int pc_fdtd_2d(long long T, long long nx, long long ny, double *ex, double *ey, double *hz, double *fict) {
  { /* polycuda: the code below assumes distinct arrays (overlap_guard.py) */
    const size_t pc_span_ex = (size_t)(nx) * (size_t)(ny) * sizeof(double);
    const size_t pc_span_ey = (size_t)(nx) * (size_t)(ny) * sizeof(double);
    const size_t pc_span_hz = (size_t)(nx) * (size_t)(ny) * sizeof(double);
    const size_t pc_span_fict = (size_t)(T) * sizeof(double);
    if (pc_overlap_ranges(ex, pc_span_ex, ey, pc_span_ey) ||
        pc_overlap_ranges(ex, pc_span_ex, hz, pc_span_hz) ||
        pc_overlap_ranges(ex, pc_span_ex, fict, pc_span_fict) ||
        pc_overlap_ranges(ey, pc_span_ey, hz, pc_span_hz) ||
        pc_overlap_ranges(ey, pc_span_ey, fict, pc_span_fict) ||
        pc_overlap_ranges(hz, pc_span_hz, fict, pc_span_fict)) {
      return pc_fdtd_2d_original(T, nx, ny, ex, ey, hz, fict);
    }
  }
  if ((T >= 1)) {
    for (long c0 = 0; (c0 <= pc_floord((((9 * T) + ny) - 10), 32)); c0 += 1) {
      if (((nx >= 1) && ((nx + ny) >= 3))) {
        for (long c1 = pc_max(pc_max(0, ((c0 - (((((5 * T) + (4 * nx)) + ny) + 22) / 32)) + 1)), (pc_floord((((((-4) * nx) - ny) + (32 * c0)) - 31), 72) + 1)); (c1 <= pc_floord(((((-T) - ny) + (32 * c0)) + 1), 64)); c1 += 1) {
          for (long c2 = pc_max(pc_max((((c0 - c1) - (((T + nx) + 6) / 8)) + 1), ((c0 - (2 * c1)) - ((nx + 6) / 8))), (c1 / 4)); (c2 <= pc_min(pc_floord(((T + ny) - 2), 32), pc_floord(((ny + (8 * c1)) + 6), 32))); c2 += 1) {
            for (long c3 = pc_max(pc_max(0, (((((-nx) + (8 * c0)) - (16 * c1)) - (8 * c2)) + 1)), ((((-ny) - (8 * c1)) + (32 * c2)) + 1)); (c3 <= pc_min(7, ((T - (8 * c1)) - 1))); c3 += 1) {
              for (long c4 = 0; (c4 <= pc_min(7, (((((nx - (8 * c0)) + (16 * c1)) + (8 * c2)) + c3) - 1))); c4 += 1) {
                for (long c5 = pc_max(0, (((8 * c1) - (32 * c2)) + c3)); (c5 <= pc_min(31, ((((ny + (8 * c1)) - (32 * c2)) + c3) - 1))); c5 += 1) {
                  ey[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] = (ey[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] - (0.5 * (hz[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] - hz[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))])));
                }
              }
              for (long c4 = 0; (c4 <= pc_min(7, (((((nx - (8 * c0)) + (16 * c1)) + (8 * c2)) + c3) - 1))); c4 += 1) {
                for (long c5 = pc_max(0, ((((8 * c1) - (32 * c2)) + c3) + 1)); (c5 <= pc_min(31, ((((ny + (8 * c1)) - (32 * c2)) + c3) - 1))); c5 += 1) {
                  ex[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] = (ex[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] - (0.5 * (hz[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] - hz[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))])));
                }
              }
              for (long c4 = 0; (c4 <= pc_min(7, (((((nx - (8 * c0)) + (16 * c1)) + (8 * c2)) + c3) - 1))); c4 += 1) {
                for (long c5 = pc_max(0, ((((8 * c1) - (32 * c2)) + c3) + 1)); (c5 <= pc_min(31, ((((ny + (8 * c1)) - (32 * c2)) + c3) - 1))); c5 += 1) {
                  hz[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))] = (hz[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))] - (0.7 * (((ex[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + ((((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1) + 1))] - ex[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))]) + ey[((((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1) + 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))]) - ey[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))])));
                }
              }
            }
          }
        }
        for (long c1 = pc_max(pc_max(0, (pc_floord(((((-T) - ny) + (32 * c0)) + 1), 64) + 1)), (pc_floord((((((-4) * nx) - ny) + (32 * c0)) - 31), 72) + 1)); (c1 <= pc_floord((((-ny) + (32 * c0)) - 7), 72)); c1 += 1) {
          for (long c2 = pc_max(((c0 - (2 * c1)) - ((nx + 6) / 8)), (c1 / 4)); (c2 <= pc_floord(((ny + (8 * c1)) + 6), 32)); c2 += 1) {
            for (long c3 = pc_max(pc_max(0, (((((-nx) + (8 * c0)) - (16 * c1)) - (8 * c2)) + 1)), ((((-ny) - (8 * c1)) + (32 * c2)) + 1)); (c3 <= 7); c3 += 1) {
              for (long c4 = 0; (c4 <= pc_min(7, (((((nx - (8 * c0)) + (16 * c1)) + (8 * c2)) + c3) - 1))); c4 += 1) {
                for (long c5 = pc_max(0, (((8 * c1) - (32 * c2)) + c3)); (c5 <= pc_min(31, ((((ny + (8 * c1)) - (32 * c2)) + c3) - 1))); c5 += 1) {
                  ey[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] = (ey[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] - (0.5 * (hz[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] - hz[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))])));
                }
              }
              for (long c4 = 0; (c4 <= pc_min(7, (((((nx - (8 * c0)) + (16 * c1)) + (8 * c2)) + c3) - 1))); c4 += 1) {
                for (long c5 = pc_max(0, ((((8 * c1) - (32 * c2)) + c3) + 1)); (c5 <= pc_min(31, ((((ny + (8 * c1)) - (32 * c2)) + c3) - 1))); c5 += 1) {
                  ex[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] = (ex[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] - (0.5 * (hz[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] - hz[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))])));
                }
              }
              for (long c4 = 0; (c4 <= pc_min(7, (((((nx - (8 * c0)) + (16 * c1)) + (8 * c2)) + c3) - 1))); c4 += 1) {
                for (long c5 = pc_max(0, ((((8 * c1) - (32 * c2)) + c3) + 1)); (c5 <= pc_min(31, ((((ny + (8 * c1)) - (32 * c2)) + c3) - 1))); c5 += 1) {
                  hz[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))] = (hz[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))] - (0.7 * (((ex[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + ((((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1) + 1))] - ex[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))]) + ey[((((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1) + 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))]) - ey[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))])));
                }
              }
            }
          }
        }
      }
      for (long c1 = pc_max(pc_max(0, (pc_floord(((((-T) - ny) + (32 * c0)) + 1), 64) + 1)), (pc_floord((((-ny) + (32 * c0)) - 7), 72) + 1)); (c1 <= pc_min(pc_floord((T - 1), 8), (((4 * c0) + 3) / 9))); c1 += 1) {
        if (((nx + ny) <= 2)) {
          for (long c3 = pc_max(0, ((((-ny) + (32 * c0)) - (72 * c1)) + 1)); (c3 <= pc_min(7, ((T - (8 * c1)) - 1))); c3 += 1) {
            for (long c5 = pc_max(0, ((((-32) * c0) + (72 * c1)) + c3)); (c5 <= pc_min(31, ((((ny - (32 * c0)) + (72 * c1)) + c3) - 1))); c5 += 1) {
              ey[(0) * (ny) + (((((32 * c0) - (72 * c1)) - c3) + c5))] = fict[((8 * c1) + c3)];
            }
          }
        } else {
          if ((nx >= 1)) {
            for (long c2 = pc_max(pc_max((((c0 - c1) - (((T + nx) + 6) / 8)) + 1), ((c0 - (2 * c1)) - ((nx + 6) / 8))), (c1 / 4)); (c2 <= (c0 - (2 * c1))); c2 += 1) {
              for (long c3 = pc_max(pc_max(0, (((((-nx) + (8 * c0)) - (16 * c1)) - (8 * c2)) + 1)), ((((-ny) - (8 * c1)) + (32 * c2)) + 1)); (c3 <= pc_min(7, ((T - (8 * c1)) - 1))); c3 += 1) {
                if ((((2 * c1) + c2) == c0)) {
                  for (long c5 = pc_max(0, ((((-32) * c0) + (72 * c1)) + c3)); (c5 <= pc_min(31, ((((ny - (32 * c0)) + (72 * c1)) + c3) - 1))); c5 += 1) {
                    ey[(0) * (ny) + (((((32 * c0) - (72 * c1)) - c3) + c5))] = fict[((8 * c1) + c3)];
                  }
                }
                for (long c4 = pc_max(0, ((((((-8) * c0) + (16 * c1)) + (8 * c2)) + c3) + 1)); (c4 <= pc_min(7, (((((nx - (8 * c0)) + (16 * c1)) + (8 * c2)) + c3) - 1))); c4 += 1) {
                  for (long c5 = pc_max(0, (((8 * c1) - (32 * c2)) + c3)); (c5 <= pc_min(31, ((((ny + (8 * c1)) - (32 * c2)) + c3) - 1))); c5 += 1) {
                    ey[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] = (ey[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] - (0.5 * (hz[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] - hz[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))])));
                  }
                }
                for (long c4 = pc_max(0, (((((-8) * c0) + (16 * c1)) + (8 * c2)) + c3)); (c4 <= pc_min(7, (((((nx - (8 * c0)) + (16 * c1)) + (8 * c2)) + c3) - 1))); c4 += 1) {
                  for (long c5 = pc_max(0, ((((8 * c1) - (32 * c2)) + c3) + 1)); (c5 <= pc_min(31, ((((ny + (8 * c1)) - (32 * c2)) + c3) - 1))); c5 += 1) {
                    ex[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] = (ex[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] - (0.5 * (hz[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] - hz[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))])));
                  }
                }
                for (long c4 = pc_max(0, ((((((-8) * c0) + (16 * c1)) + (8 * c2)) + c3) + 1)); (c4 <= pc_min(7, (((((nx - (8 * c0)) + (16 * c1)) + (8 * c2)) + c3) - 1))); c4 += 1) {
                  for (long c5 = pc_max(0, ((((8 * c1) - (32 * c2)) + c3) + 1)); (c5 <= pc_min(31, ((((ny + (8 * c1)) - (32 * c2)) + c3) - 1))); c5 += 1) {
                    hz[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))] = (hz[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))] - (0.7 * (((ex[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + ((((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1) + 1))] - ex[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))]) + ey[((((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1) + 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))]) - ey[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))])));
                  }
                }
              }
            }
          } else {
            for (long c3 = pc_max(0, ((((-ny) + (32 * c0)) - (72 * c1)) + 1)); (c3 <= pc_min(7, ((T - (8 * c1)) - 1))); c3 += 1) {
              for (long c5 = pc_max(0, ((((-32) * c0) + (72 * c1)) + c3)); (c5 <= pc_min(31, ((((ny - (32 * c0)) + (72 * c1)) + c3) - 1))); c5 += 1) {
                ey[(0) * (ny) + (((((32 * c0) - (72 * c1)) - c3) + c5))] = fict[((8 * c1) + c3)];
              }
            }
          }
        }
      }
    }
  }
  for (long c0 = (pc_floord((((9 * T) + ny) - 10), 32) + 1); (c0 <= pc_floord(((((9 * T) + (4 * nx)) + ny) - 14), 32)); c0 += 1) {
    for (long c1 = pc_max(pc_max(0, ((c0 + pc_floord((((((-5) * T) - (4 * nx)) - ny) + 9), 32)) + 1)), (pc_floord((((((-4) * nx) - ny) + (32 * c0)) - 31), 72) + 1)); (c1 <= pc_floord((T - 1), 8)); c1 += 1) {
      for (long c2 = pc_max(pc_max((((c0 - c1) - (((T + nx) + 6) / 8)) + 1), ((c0 - (2 * c1)) - ((nx + 6) / 8))), (c1 / 4)); (c2 <= pc_min(pc_floord(((T + ny) - 2), 32), pc_floord(((ny + (8 * c1)) + 6), 32))); c2 += 1) {
        for (long c3 = pc_max(pc_max(0, (((((-nx) + (8 * c0)) - (16 * c1)) - (8 * c2)) + 1)), ((((-ny) - (8 * c1)) + (32 * c2)) + 1)); (c3 <= pc_min(7, ((T - (8 * c1)) - 1))); c3 += 1) {
          for (long c4 = 0; (c4 <= pc_min(7, (((((nx - (8 * c0)) + (16 * c1)) + (8 * c2)) + c3) - 1))); c4 += 1) {
            for (long c5 = pc_max(0, (((8 * c1) - (32 * c2)) + c3)); (c5 <= pc_min(31, ((((ny + (8 * c1)) - (32 * c2)) + c3) - 1))); c5 += 1) {
              ey[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] = (ey[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] - (0.5 * (hz[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] - hz[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))])));
            }
          }
          for (long c4 = 0; (c4 <= pc_min(7, (((((nx - (8 * c0)) + (16 * c1)) + (8 * c2)) + c3) - 1))); c4 += 1) {
            for (long c5 = pc_max(0, ((((8 * c1) - (32 * c2)) + c3) + 1)); (c5 <= pc_min(31, ((((ny + (8 * c1)) - (32 * c2)) + c3) - 1))); c5 += 1) {
              ex[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] = (ex[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] - (0.5 * (hz[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + ((((((-8) * c1) + (32 * c2)) - c3) + c5))] - hz[((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))])));
            }
          }
          for (long c4 = 0; (c4 <= pc_min(7, (((((nx - (8 * c0)) + (16 * c1)) + (8 * c2)) + c3) - 1))); c4 += 1) {
            for (long c5 = pc_max(0, ((((8 * c1) - (32 * c2)) + c3) + 1)); (c5 <= pc_min(31, ((((ny + (8 * c1)) - (32 * c2)) + c3) - 1))); c5 += 1) {
              hz[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))] = (hz[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))] - (0.7 * (((ex[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + ((((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1) + 1))] - ex[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))]) + ey[((((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1) + 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))]) - ey[(((((((8 * c0) - (16 * c1)) - (8 * c2)) - c3) + c4) - 1)) * (ny) + (((((((-8) * c1) + (32 * c2)) - c3) + c5) - 1))])));
            }
          }
        }
      }
    }
  }
  return 0;
}
