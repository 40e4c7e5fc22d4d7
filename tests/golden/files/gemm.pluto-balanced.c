#include <math.h>
#include <stdlib.h>
#include <stddef.h>

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
#define PC_SHUFFLE_PRIME 1000003L

int pc_gemm(long long ni, long long nj, long long nk, double alpha, double beta, double *C, double *A, double *B) {
  if ((nj >= 1)) {
    for (long c0 = pc_max((-1), pc_floord(((-ni) + 1), 32)); (c0 <= pc_floord((((3 * ni) + (4 * nj)) - 7), 32)); c0 += 1) {
      for (long c1 = pc_max(0, ((c0 + pc_floord(((((-3) * ni) - (4 * nk)) + 6), 32)) + 1)); (c1 <= (c0 + pc_floord((((-3) * ni) + 2), 32))); c1 += 1) {
        for (long c2 = pc_max(pc_floord(((-ni) + 1), 32), (((c0 - c1) + pc_floord((((-ni) - nk) + 1), 8)) + 1)); (c2 <= pc_min(0, pc_floord((((nk - (8 * c0)) + (8 * c1)) - 1), 24))); c2 += 1) {
          for (long c3 = 0; (c3 <= pc_min(pc_min(7, (((((ni + nk) - (8 * c0)) + (8 * c1)) + (8 * c2)) - 2)), ((((nk - (8 * c0)) + (8 * c1)) - (24 * c2)) - 1))); c3 += 1) {
            for (long c4 = 0; (c4 <= pc_min(7, ((nj - (8 * c1)) - 1))); c4 += 1) {
              for (long c5 = pc_max(0, (((-ni) - (32 * c2)) + 1)); (c5 <= pc_min(pc_min(31, ((-32) * c2)), (((((nk - (8 * c0)) + (8 * c1)) - (24 * c2)) - c3) - 1))); c5 += 1) {
                C[((((-32) * c2) - c5)) * (nj) + (((8 * c1) + c4))] += ((alpha * A[((((-32) * c2) - c5)) * (nk) + ((((((8 * c0) - (8 * c1)) + (24 * c2)) + c3) + c5))]) * B[((((((8 * c0) - (8 * c1)) + (24 * c2)) + c3) + c5)) * (nj) + (((8 * c1) + c4))]);
              }
            }
          }
        }
      }
      for (long c1 = pc_max(0, ((c0 + pc_floord((((-3) * ni) + 2), 32)) + 1)); (c1 <= pc_min(pc_min((c0 + 1), ((c0 + pc_floord((ni - 2), 32)) + 1)), pc_floord((nj - 1), 8))); c1 += 1) {
        if (((((((3 * ni) + (4 * nk)) + (32 * c1)) >= ((32 * c0) + 39)) && (((8 * c0) + (8 * ((ni + 30) / 32))) >= (ni + (8 * c1)))) || ((((32 * c0) + 38) >= (((3 * ni) + (4 * nk)) + (32 * c1))) && ((((ni - 1) % 8) + nk) >= 9)))) {
          for (long c3 = 0; (c3 <= pc_min(7, ((((ni + 7) % 8) + nk) - 9))); c3 += 1) {
            for (long c4 = 0; (c4 <= pc_min(7, ((nj - (8 * c1)) - 1))); c4 += 1) {
              for (long c5 = ((-((ni - 2) % 32)) + 31); (c5 <= pc_min(31, (((((nk - (8 * c0)) + (8 * c1)) - c3) + (24 * ((ni - 2) / 32))) + 23))); c5 += 1) {
                C[(((((-((ni + 30) % 32)) + ni) - c5) + 30)) * (nj) + (((8 * c1) + c4))] += ((alpha * A[(((((-((ni + 30) % 32)) + ni) - c5) + 30)) * (nk) + ((((((8 * c0) - (8 * c1)) + c3) + c5) - (24 * ((ni + 30) / 32))))]) * B[((((((8 * c0) - (8 * c1)) + c3) + c5) - (24 * ((ni + 30) / 32)))) * (nj) + (((8 * c1) + c4))]);
              }
            }
          }
        }
        for (long c2 = pc_max(pc_max((((c0 - c1) - ((ni + 7) / 8)) + 1), (-((ni + 30) / 32))), ((-(((c0 - c1) + 1) / 3)) - 1)); (c2 <= pc_min((c0 - c1), (-(((c0 - c1) + 2) / 3)))); c2 += 1) {
          for (long c3 = pc_max(0, (((((-8) * c0) + (8 * c1)) - (24 * c2)) - 31)); (c3 <= 7); c3 += 1) {
            if (((((ni + (8 * c1)) + (8 * c2)) >= (((8 * c0) + c3) + 1)) && ((8 * c1) >= (((8 * c0) + (24 * c2)) + c3)))) {
              for (long c4 = 0; (c4 <= pc_min(7, ((nj - (8 * c1)) - 1))); c4 += 1) {
                C[(((((8 * c0) - (8 * c1)) - (8 * c2)) + c3)) * (nj) + (((8 * c1) + c4))] *= beta;
              }
            }
            for (long c4 = 0; (c4 <= pc_min(7, ((nj - (8 * c1)) - 1))); c4 += 1) {
              for (long c5 = pc_max(pc_max(0, (((-ni) - (32 * c2)) + 1)), (((((-8) * c0) + (8 * c1)) - (24 * c2)) - c3)); (c5 <= pc_min(pc_min(31, ((-32) * c2)), (((((nk - (8 * c0)) + (8 * c1)) - (24 * c2)) - c3) - 1))); c5 += 1) {
                C[((((-32) * c2) - c5)) * (nj) + (((8 * c1) + c4))] += ((alpha * A[((((-32) * c2) - c5)) * (nk) + ((((((8 * c0) - (8 * c1)) + (24 * c2)) + c3) + c5))]) * B[((((((8 * c0) - (8 * c1)) + (24 * c2)) + c3) + c5)) * (nj) + (((8 * c1) + c4))]);
              }
            }
          }
        }
        for (long c2 = ((-(((c0 - c1) + 2) / 3)) + 1); (c2 <= pc_min(0, pc_floord((((nk - (8 * c0)) + (8 * c1)) - 1), 24))); c2 += 1) {
          for (long c3 = 0; (c3 <= pc_min(7, ((((nk - (8 * c0)) + (8 * c1)) - (24 * c2)) - 1))); c3 += 1) {
            for (long c4 = 0; (c4 <= pc_min(7, ((nj - (8 * c1)) - 1))); c4 += 1) {
              for (long c5 = 0; (c5 <= pc_min(pc_min(31, ((-32) * c2)), (((((nk - (8 * c0)) + (8 * c1)) - (24 * c2)) - c3) - 1))); c5 += 1) {
                C[((((-32) * c2) - c5)) * (nj) + (((8 * c1) + c4))] += ((alpha * A[((((-32) * c2) - c5)) * (nk) + ((((((8 * c0) - (8 * c1)) + (24 * c2)) + c3) + c5))]) * B[((((((8 * c0) - (8 * c1)) + (24 * c2)) + c3) + c5)) * (nj) + (((8 * c1) + c4))]);
              }
            }
          }
        }
      }
    }
  }
  for (long c0 = (pc_floord((((3 * ni) + (4 * nj)) - 7), 32) + 1); (c0 <= pc_floord(((((3 * ni) + (4 * nj)) + (4 * nk)) - 11), 32)); c0 += 1) {
    for (long c1 = pc_max(0, ((c0 + pc_floord(((((-3) * ni) - (4 * nk)) + 6), 32)) + 1)); (c1 <= pc_floord((nj - 1), 8)); c1 += 1) {
      for (long c2 = pc_max(pc_floord(((-ni) + 1), 32), (((c0 - c1) + pc_floord((((-ni) - nk) + 1), 8)) + 1)); (c2 <= pc_min(0, pc_floord((((nk - (8 * c0)) + (8 * c1)) - 1), 24))); c2 += 1) {
        for (long c3 = 0; (c3 <= pc_min(pc_min(7, (((((ni + nk) - (8 * c0)) + (8 * c1)) + (8 * c2)) - 2)), ((((nk - (8 * c0)) + (8 * c1)) - (24 * c2)) - 1))); c3 += 1) {
          for (long c4 = 0; (c4 <= pc_min(7, ((nj - (8 * c1)) - 1))); c4 += 1) {
            for (long c5 = pc_max(0, (((-ni) - (32 * c2)) + 1)); (c5 <= pc_min(pc_min(31, ((-32) * c2)), (((((nk - (8 * c0)) + (8 * c1)) - (24 * c2)) - c3) - 1))); c5 += 1) {
              C[((((-32) * c2) - c5)) * (nj) + (((8 * c1) + c4))] += ((alpha * A[((((-32) * c2) - c5)) * (nk) + ((((((8 * c0) - (8 * c1)) + (24 * c2)) + c3) + c5))]) * B[((((((8 * c0) - (8 * c1)) + (24 * c2)) + c3) + c5)) * (nj) + (((8 * c1) + c4))]);
            }
          }
        }
      }
    }
  }
  return 0;
}
