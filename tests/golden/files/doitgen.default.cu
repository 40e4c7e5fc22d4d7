#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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
#define PC_CHECK(call) do { cudaError_t pc_e = (call); \
    if (pc_e != cudaSuccess) return (int)pc_e; } while (0)
#ifndef PC_ELEMENTS_DEFINED
#define PC_ELEMENTS_DEFINED
/* The product of an array's extents, saturated at 2^62 (index_guard compares it with 2^31 - 1;
   the extents are at most 2^63 - 1 each: no product of two may overflow). */
static inline long long pc_elements(long long d) { return d; }
template <typename... T> static inline long long pc_elements(long long d, T... rest) {
  long long tail = pc_elements(rest...);
  if (d <= 0 || tail <= 0) return 0;
  const long long cap = 1LL << 62;
  return tail > cap / d ? cap : d * tail;
}
#endif


#include <pthread.h>
#include <string.h>
#ifndef PC_HOST_SUPPORT_DEFINED
#define PC_HOST_SUPPORT_DEFINED
/* polycuda host side (Options.host_buffers / host_copies): an entry's state in static storage,
   guarded by its mutex; calls of one entry from several threads run one after another. In an
   unnamed namespace: two generated files linked into one program keep their own definitions. */
namespace {
template <int N> struct pc_host_state {  /* N: device buffer slots */
  pthread_mutex_t lock;
  void *buf[N];
  size_t bytes[N];
  char *stage;  /* page-locked staging buffer: two halves of `chunk` bytes */
  size_t chunk;
  cudaEvent_t ready[2];  /* recorded after the last copy engine transfer of each half */
  int at_exit;
};
#define PC_HOST_STATE_INIT {PTHREAD_MUTEX_INITIALIZER, {0}, {0}, NULL, 0, {NULL, NULL}, 0}
struct pc_host_guard {  /* holds the entry's mutex until every return */
  pthread_mutex_t *m;
  explicit pc_host_guard(pthread_mutex_t *mutex) : m(mutex) { pthread_mutex_lock(m); }
  ~pc_host_guard() { pthread_mutex_unlock(m); }
};
/* Device buffer k of the entry, at least `bytes` long: kept from earlier calls, or (re)allocated
   when a call needs more (never shrunk: a smaller call uses the front of it). */
template <int N> static int pc_host_buffer(pc_host_state<N> *s, int k, size_t bytes, void **p) {
  if (bytes == 0) bytes = 1;
  if (s->buf[k] && s->bytes[k] < bytes) {
    void *old = s->buf[k];
    s->buf[k] = NULL;
    s->bytes[k] = 0;
    PC_CHECK(cudaFree(old));
  }
  if (!s->buf[k]) {
    void *fresh = NULL;
    PC_CHECK(cudaMalloc(&fresh, bytes));
    s->buf[k] = fresh;
    s->bytes[k] = bytes;
  }
  *p = s->buf[k];
  return 0;
}
/* The staging buffer and its events, made on the first copy that needs them (chunk: the same
   constant in every call of an entry). */
template <int N> static int pc_host_stage(pc_host_state<N> *s, size_t chunk) {
  if (!s->stage) {
    void *p = NULL;
    PC_CHECK(cudaMallocHost(&p, 2 * chunk));
    s->stage = (char *)p;
    s->chunk = chunk;
  }
  for (int h = 0; h < 2; h++)
    if (!s->ready[h]) PC_CHECK(cudaEventCreateWithFlags(&s->ready[h], cudaEventDisableTiming));
  return 0;
}
/* Host to device through the staging buffer (double buffering): while the copy engine sends
   chunk c from one half, the CPU copies chunk c + 1 into the other; a half is refilled only
   after its event says the transfer out of it is done. Stream 0, so the kernels that follow
   in stream order see every chunk. */
template <int N> static int pc_stage_in(pc_host_state<N> *s, size_t chunk, void *dev,
                                        const void *host, size_t bytes) {
  PC_CHECK((cudaError_t)pc_host_stage(s, chunk));
  for (size_t off = 0, c = 0; off < bytes; off += chunk, c++) {
    const int h = (int)(c & 1);
    const size_t n = bytes - off < chunk ? bytes - off : chunk;
    PC_CHECK(cudaEventSynchronize(s->ready[h]));
    memcpy(s->stage + h * chunk, (const char *)host + off, n);
    PC_CHECK(cudaMemcpyAsync((char *)dev + off, s->stage + h * chunk, n,
                             cudaMemcpyHostToDevice, 0));
    PC_CHECK(cudaEventRecord(s->ready[h], 0));
  }
  return 0;
}
/* Device to host through the staging buffer: the transfer of chunk c + 1 into one half runs
   while the CPU copies chunk c out of the other. */
template <int N> static int pc_stage_out(pc_host_state<N> *s, size_t chunk, void *host,
                                         const void *dev, size_t bytes) {
  PC_CHECK((cudaError_t)pc_host_stage(s, chunk));
  const size_t chunks = (bytes + chunk - 1) / chunk;
  for (size_t c = 0; c <= chunks; c++) {
    if (c < chunks) {
      const int h = (int)(c & 1);
      const size_t off = c * chunk, n = bytes - off < chunk ? bytes - off : chunk;
      PC_CHECK(cudaMemcpyAsync(s->stage + h * chunk, (const char *)dev + off, n,
                               cudaMemcpyDeviceToHost, 0));
      PC_CHECK(cudaEventRecord(s->ready[h], 0));
    }
    if (c > 0) {
      const int h = (int)((c - 1) & 1);
      const size_t off = (c - 1) * chunk, n = bytes - off < chunk ? bytes - off : chunk;
      PC_CHECK(cudaEventSynchronize(s->ready[h]));
      memcpy((char *)host + off, s->stage + h * chunk, n);
    }
  }
  return 0;
}
/* The user's arrays page-locked for one call (host_copies "register"); unregistered at every
   return. An array that cannot be registered (already page-locked by the caller, read-only
   memory, ...) is copied as pageable memory. */
template <int N> struct pc_host_pins {
  void *p[N];
  int n = 0;
  void pin(void *ptr, size_t bytes, size_t min_bytes) {
    if (bytes < min_bytes || bytes == 0) return;
    if (cudaHostRegister(ptr, bytes, cudaHostRegisterDefault) == cudaSuccess) p[n++] = ptr;
    else (void)cudaGetLastError();  /* not an error of the call: copied as pageable memory */
  }
  ~pc_host_pins() {
    for (int k = 0; k < n; k++) (void)cudaHostUnregister(p[k]);
  }
};
/* Frees what `s` holds and forgets it (even where a free fails); the first error, or 0. */
template <int N> static int pc_host_release(pc_host_state<N> *s) {
  pc_host_guard guard(&s->lock);
  int err = 0;
  for (int k = 0; k < N; k++) {
    if (s->buf[k]) {
      const int e = (int)cudaFree(s->buf[k]);
      if (!err) err = e;
    }
    s->buf[k] = NULL;
    s->bytes[k] = 0;
  }
  if (s->stage) {
    const int e = (int)cudaFreeHost(s->stage);
    if (!err) err = e;
  }
  s->stage = NULL;
  s->chunk = 0;
  for (int h = 0; h < 2; h++) {
    if (s->ready[h]) (void)cudaEventDestroy(s->ready[h]);
    s->ready[h] = NULL;
  }
  return err;
}
}  // namespace
#endif

#ifndef PC_HOST_OVERLAP_DEFINED
#define PC_HOST_OVERLAP_DEFINED
/* polycuda host side, host_overlap: copies on a stream of their own, ordered with the kernels
   (stream 0) by events. Used under the entry's mutex (pc_host_state.lock). */
namespace {
template <int N> struct pc_overlap_state {  /* N: device buffer slots */
  cudaStream_t copy;  /* not synchronized with stream 0: only the events order them */
  cudaEvent_t in[N], out[N];  /* per array argument: after its copy in; after its last
                                 writer, before its copy out */
};
/* The copy stream and the events, made on the first call that needs them. */
template <int N> static int pc_host_streams(pc_overlap_state<N> *s) {
  if (!s->copy) PC_CHECK(cudaStreamCreateWithFlags(&s->copy, cudaStreamNonBlocking));
  for (int k = 0; k < N; k++) {
    if (!s->in[k]) PC_CHECK(cudaEventCreateWithFlags(&s->in[k], cudaEventDisableTiming));
    if (!s->out[k]) PC_CHECK(cudaEventCreateWithFlags(&s->out[k], cudaEventDisableTiming));
  }
  return 0;
}
/* Destroys what `s` holds and forgets it (pc_<name>_release, exit). */
template <int N> static void pc_overlap_release(pc_overlap_state<N> *s) {
  if (s->copy) (void)cudaStreamDestroy(s->copy);
  s->copy = NULL;
  for (int k = 0; k < N; k++) {
    if (s->in[k]) (void)cudaEventDestroy(s->in[k]);
    if (s->out[k]) (void)cudaEventDestroy(s->out[k]);
    s->in[k] = s->out[k] = NULL;
  }
}
/* Waits for the copy stream at every return of the host entry (after an error too: no copy
   may still read or write the user's arrays once they are unregistered and handed back). */
struct pc_host_copies {
  cudaStream_t s;
  ~pc_host_copies() { if (s) (void)cudaStreamSynchronize(s); }
};
/* What the driver of an overlapped call needs: per array argument k, the event of its copy in
   (in[k]), and for a copy out the event after its last writer (out[k]), the host and device
   pointers and the bytes. NULL: the driver of pc_<name>_dev, nothing to wait for or copy. */
struct pc_overlap {
  cudaStream_t copy;
  const cudaEvent_t *in, *out;
  void *const *host, *const *dev;
  const size_t *bytes;
};
/* Stream 0 (the kernels) waits for array k's copy in. */
static int pc_overlap_wait(const pc_overlap *o, int k) {
  if (o) PC_CHECK(cudaStreamWaitEvent(0, o->in[k], 0));
  return 0;
}
/* Array k's copy out, started once the kernels before it in stream 0 (its last writer among
   them) are done; it runs on the copy stream while later kernels run. Not after an error of
   an earlier launch: the user's array is then left as it was. */
static int pc_overlap_out(const pc_overlap *o, int k) {
  if (!o) return 0;
  PC_CHECK(cudaPeekAtLastError());
  PC_CHECK(cudaEventRecord(o->out[k], 0));
  PC_CHECK(cudaStreamWaitEvent(o->copy, o->out[k], 0));
  PC_CHECK(cudaMemcpyAsync(o->host[k], o->dev[k], o->bytes[k], cudaMemcpyDeviceToHost,
                           o->copy));
  return 0;
}
}  // namespace
#endif

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
/* polycuda: the region's own definitions */

__global__ void __launch_bounds__(512) kernel0(int nr, int nq, int nk, const double *__restrict__ A, const double *__restrict__ C4, double *acc, double *acc_x0) {
  __shared__ double pc_sh_C4_0[1024];
  __shared__ double pc_sh_A_0[512];
  for (int c0 = (int)blockIdx.z; (c0 <= (nr / 4)); c0 += (int)gridDim.z) {
    for (int c1 = (int)blockIdx.y; (c1 <= (nq / 4)); c1 += (int)gridDim.y) {
      for (int c2 = (int)blockIdx.x; (c2 <= pc_floord((nk - 1), 32)); c2 += (int)gridDim.x) {
        {
          const int pc_t0 = (int)threadIdx.z;
          const int pc_t1 = (int)threadIdx.y;
          const int pc_t2 = (int)threadIdx.x;
          double pc_c0 = NAN;
          if (((((((((((((((c2 >= 0) && (((4 * c0) + pc_t0) >= 1)) && (pc_t0 >= 0)) && (nr >= ((4 * c0) + pc_t0))) && (pc_t0 <= 3)) && (((4 * c1) + pc_t1) >= 1)) && (pc_t1 >= 0)) && (nq >= ((4 * c1) + pc_t1))) && (pc_t1 <= 3)) && (nk >= (((32 * c2) + pc_t2) + 1))) && (pc_t2 >= 0)) && (pc_t2 <= 31)) || ((((((((((((nr >= 1) && (nq >= 1)) && (nr >= (4 * c0))) && (((4 * c0) + 3) >= nr)) && (nq >= (4 * c1))) && (((4 * c1) + 3) >= nq)) && (c2 >= 0)) && (((4 * c0) + pc_t0) == nr)) && (((4 * c1) + pc_t1) == nq)) && (nk >= (((32 * c2) + pc_t2) + 1))) && (pc_t2 >= 0)) && (pc_t2 <= 31))))) pc_c0 = acc_x0[(((((4 * c0) + pc_t0) - 1)) * (pc_max(nq, 0)) + ((((4 * c1) + pc_t1) - 1))) * (nk) + (((32 * c2) + pc_t2))];
          for (int c3 = 0; (c3 <= ((nk - 1) / 32)); c3 += 1) {
            {
              const int pc_so_A_0_0 = ((c0 == 0) ? 0 : ((4 * c0) - 1));
              const int pc_so_A_0_1 = ((c1 == 0) ? 0 : ((4 * c1) - 1));
              const int pc_so_A_0_2 = (32 * c3);
              const int pc_so_C4_0_0 = (32 * c3);
              const int pc_so_C4_0_1 = (32 * c2);
              __syncthreads();
              for (int pc_e = (int)threadIdx.x + 32 * (int)threadIdx.y + 128 * (int)threadIdx.z; pc_e < 512; pc_e += 512) {
                const int pc_x0 = pc_so_A_0_0 + pc_e / 128;
                const int pc_x1 = pc_so_A_0_1 + (pc_e / 32) % 4;
                const int pc_x2 = pc_so_A_0_2 + (pc_e) % 32;
                const int pc_l = (pc_x0 - pc_so_A_0_0) * 128 + (pc_x1 - pc_so_A_0_1) * 32 + (pc_x2 - pc_so_A_0_2) * 1;
                if (pc_x0 >= 0 && pc_x0 < (nr) && pc_x1 >= 0 && pc_x1 < (nq) && pc_x2 >= 0 && pc_x2 < (nk) && (((((((((((((((c2 >= 0) && (nk >= ((32 * c2) + 1))) && (c3 >= 0)) && (nr >= (pc_x0 + 1))) && (pc_x0 >= 0)) && ((pc_x0 + 1) >= (4 * c0))) && (((4 * c0) + 2) >= pc_x0)) && (nq >= (pc_x1 + 1))) && (pc_x1 >= 0)) && ((pc_x1 + 1) >= (4 * c1))) && (((4 * c1) + 2) >= pc_x1)) && (nk >= (pc_x2 + 1))) && (pc_x2 >= (32 * c3))) && (((32 * c3) + 31) >= pc_x2)))) pc_sh_A_0[pc_l] = A[((pc_x0) * (nq) + (pc_x1)) * (nk) + (pc_x2)];
              }
              for (int pc_e = (int)threadIdx.x + 32 * (int)threadIdx.y + 128 * (int)threadIdx.z; pc_e < 1024; pc_e += 512) {
                const int pc_x0 = pc_so_C4_0_0 + pc_e / 32;
                const int pc_x1 = pc_so_C4_0_1 + (pc_e) % 32;
                const int pc_l = (pc_x0 - pc_so_C4_0_0) * 32 + (pc_x1 - pc_so_C4_0_1) * 1;
                if (pc_x0 >= 0 && pc_x0 < (nk) && pc_x1 >= 0 && pc_x1 < (nk) && (((((((((((((((nr >= 1) && (nq >= 1)) && (c0 >= 0)) && (nr >= (4 * c0))) && (c1 >= 0)) && (nq >= (4 * c1))) && (c2 >= 0)) && (c3 >= 0)) && (nk >= (pc_x0 + 1))) && (pc_x0 >= (32 * c3))) && (((32 * c3) + 31) >= pc_x0)) && (nk >= (pc_x1 + 1))) && (pc_x1 >= (32 * c2))) && (((32 * c2) + 31) >= pc_x1)))) pc_sh_C4_0[pc_l] = C4[(pc_x0) * (nk) + (pc_x1)];
              }
              __syncthreads();
              if ((int)threadIdx.z >= pc_max(0, (((-4) * c0) + 1))) {
                const int c4 = (int)threadIdx.z;
                if ((c4 <= pc_min(3, (nr - (4 * c0))))) {
                  if ((int)threadIdx.y >= pc_max(0, (((-4) * c1) + 1))) {
                    const int c5 = (int)threadIdx.y;
                    if ((c5 <= pc_min(3, (nq - (4 * c1))))) {
                      if ((int)threadIdx.x >= 0) {
                        const int c6 = (int)threadIdx.x;
                        if ((c6 <= pc_min(31, ((nk - (32 * c2)) - 1)))) {
                          if ((c3 == 0)) {
                            pc_c0 = 0.0;
                          }
                          for (int c7 = 0; (c7 <= pc_min(31, ((nk - (32 * c3)) - 1))); c7 += 1) {
                            pc_c0 += (pc_sh_A_0[(((((4 * c0) + c4) - 1)) - pc_so_A_0_0) * 128 + (((((4 * c1) + c5) - 1)) - pc_so_A_0_1) * 32 + ((((32 * c3) + c7)) - pc_so_A_0_2) * 1] * pc_sh_C4_0[((((32 * c3) + c7)) - pc_so_C4_0_0) * 32 + ((((32 * c2) + c6)) - pc_so_C4_0_1) * 1]);
                          }
                          if ((((((32 * c3) + 31) >= nk) && (((4 * c0) + c4) == nr)) && (((4 * c1) + c5) == nq))) {
                            acc[((32 * c2) + c6)] = pc_c0;
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
          if ((((((4 * c0) + 3) >= nr) && (((4 * c1) + 3) >= nq)) && ((nk % 32) == 0))) {
            if ((int)threadIdx.x >= 0) {
              const int c6 = (int)threadIdx.x;
              if ((c6 <= 31)) {
                if (pc_mod((nr - (4 * c0)), (int)blockDim.z) == (int)threadIdx.z && pc_mod((nq - (4 * c1)), (int)blockDim.y) == (int)threadIdx.y) acc[((32 * c2) + c6)] = pc_c0;
              }
            }
          }
          if ((((((((((((((c2 >= 0) && (((4 * c0) + pc_t0) >= 1)) && (pc_t0 >= 0)) && (nr >= ((4 * c0) + pc_t0))) && (pc_t0 <= 3)) && (((4 * c1) + pc_t1) >= 1)) && (pc_t1 >= 0)) && (nq >= ((4 * c1) + pc_t1))) && (pc_t1 <= 3)) && (nk >= (((32 * c2) + pc_t2) + 1))) && (pc_t2 >= 0)) && (pc_t2 <= 31)))) acc_x0[(((((4 * c0) + pc_t0) - 1)) * (pc_max(nq, 0)) + ((((4 * c1) + pc_t1) - 1))) * (nk) + (((32 * c2) + pc_t2))] = pc_c0;
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

static pc_host_state<3> pc_doitgen_state = PC_HOST_STATE_INIT;
static pc_host_state<3> pc_doitgen_dev_state = PC_HOST_STATE_INIT;
static pc_overlap_state<3> pc_doitgen_streams = {};
extern "C" int pc_doitgen_release(void);
static void pc_doitgen_at_exit(void) { (void)pc_doitgen_release(); }

static int pc_doitgen_run(long long nr, long long nq, long long nk, double *A, double *C4, double *acc, const pc_overlap *pc_ov) {
  pc_host_guard pc_guard(&pc_doitgen_dev_state.lock);
  double *acc_x0 = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_doitgen_dev_state, 0, (size_t)(pc_max(nr, 0)) * (size_t)(pc_max(nq, 0)) * (size_t)(nk) * sizeof(double), (void **)&acc_x0));
  if (!pc_doitgen_dev_state.at_exit) {
    pc_doitgen_dev_state.at_exit = 1;
    atexit(pc_doitgen_at_exit);
  }
  PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, 0));  /* A copied in */
  PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, 1));  /* C4 copied in */
  PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, 2));  /* acc copied in */
  if (((nr >= 1) && (nq >= 1))) {
    kernel0<<<dim3((unsigned)pc_min(pc_max(((nk + 31) / 32), 1LL), 2147483647LL), (unsigned)pc_min(pc_max(((nq / 4) + 1), 1LL), 65535LL), (unsigned)pc_min(pc_max(((nr / 4) + 1), 1LL), 65535LL)), dim3(32, 4, 4)>>>((int)nr, (int)nq, (int)nk, A, C4, acc, acc_x0);
  }
  PC_CHECK((cudaError_t)pc_overlap_out(pc_ov, 2));  /* acc final: copied out */
  kernel1<<<dim3((unsigned)pc_min(pc_max(((nk + 31) / 32), 1LL), 2147483647LL), (unsigned)pc_min(pc_max(((nq + 3) / 4), 1LL), 65535LL), (unsigned)pc_min(pc_max(((nr + 3) / 4), 1LL), 65535LL)), dim3(32, 4, 4)>>>((int)nr, (int)nq, (int)nk, A, C4, acc, acc_x0);
  PC_CHECK((cudaError_t)pc_overlap_out(pc_ov, 0));  /* A final: copied out */
  PC_CHECK(cudaGetLastError());
  PC_CHECK(cudaDeviceSynchronize());
  return 0;
}
/* polycuda: pc_doitgen_ran: what the last call ran (1 the kernels, 2 the host version); pc_doitgen_force: 0 the rule
   decides, 1 or 2 runs that version (Program.verify checks both) */
#ifndef PC_HOST_VERSION_FORCE  /* the emulator's: the kernels (cuda_emu_api.h) */
#define PC_HOST_VERSION_FORCE 0
#endif
extern "C" { int pc_doitgen_ran; int pc_doitgen_force = PC_HOST_VERSION_FORCE; }
/* polycuda: region 'doitgen' as written: the host version, run where pc_doitgen_host_version picks it
   or where the arrays share memory */
static int pc_doitgen_original(long long nr, long long nq, long long nk, double *A, double *C4, double *acc) {
  __atomic_store_n(&pc_doitgen_ran, 2, __ATOMIC_RELAXED);
  for (long pc_v1 = 0; (pc_v1 < nr); pc_v1 += 1) {
    for (long pc_v3 = 0; (pc_v3 < nq); pc_v3 += 1) {
      for (long pc_v5 = 0; (pc_v5 < nk); pc_v5 += 1) {
        acc[pc_v5] = 0.0;
        for (long pc_v7 = 0; (pc_v7 < nk); pc_v7 += 1) {
          acc[pc_v5] += (A[((pc_v1) * (nq) + (pc_v3)) * (nk) + (pc_v7)] * C4[(pc_v7) * (nk) + (pc_v5)]);
        }
      }
      for (long pc_v5 = 0; (pc_v5 < nk); pc_v5 += 1) {
        A[((pc_v1) * (nq) + (pc_v3)) * (nk) + (pc_v5)] = acc[pc_v5];
      }
    }
  }
  return 0;
}

/* polycuda: region 'doitgen' as written, its arrays distinct: the host version where the entries run it */
static int pc_doitgen_distinct(long long nr, long long nq, long long nk, double *__restrict__ A, double *__restrict__ C4, double *__restrict__ acc) {
  __atomic_store_n(&pc_doitgen_ran, 2, __ATOMIC_RELAXED);
  for (long pc_v1 = 0; (pc_v1 < nr); pc_v1 += 1) {
    for (long pc_v3 = 0; (pc_v3 < nq); pc_v3 += 1) {
      for (long pc_v5 = 0; (pc_v5 < nk); pc_v5 += 1) {
        acc[pc_v5] = 0.0;
        for (long pc_v7 = 0; (pc_v7 < nk); pc_v7 += 1) {
          acc[pc_v5] += (A[((pc_v1) * (nq) + (pc_v3)) * (nk) + (pc_v7)] * C4[(pc_v7) * (nk) + (pc_v5)]);
        }
      }
      for (long pc_v5 = 0; (pc_v5 < nk); pc_v5 += 1) {
        A[((pc_v1) * (nq) + (pc_v3)) * (nk) + (pc_v5)] = acc[pc_v5];
      }
    }
  }
  return 0;
}

/* polycuda: where a call of region 'doitgen' runs (gpu.cost.HostChoice): the original program on the host
   when its estimated time (ns) is below the kernels' (copies + launches + work) */
static int pc_doitgen_host_version(long long nr, long long nq, long long nk, int pc_on_device) {
  const int pc_force = __atomic_load_n(&pc_doitgen_force, __ATOMIC_RELAXED);
  if (pc_force) return pc_force == 2;
  const double pc_instances = ((double)pc_max(0LL, (long long)(nr)) * (double)pc_max(0LL, (long long)(nq)) * (double)pc_max(0LL, (long long)(nk))) + ((double)pc_max(0LL, (long long)(nr)) * (double)pc_max(0LL, (long long)(nq)) * (double)pc_max(0LL, (long long)(nk)) * (double)pc_max(0LL, (long long)(nk))) + ((double)pc_max(0LL, (long long)(nr)) * (double)pc_max(0LL, (long long)(nq)) * (double)pc_max(0LL, (long long)(nk))) + ((double)pc_max(0LL, (long long)(nk)));
  const double pc_launch_ns = (2000.0) + (2000.0);
  const double pc_bytes = 2.0 * (double)pc_max(0LL, (long long)(nr)) * (double)pc_max(0LL, (long long)(nq)) * (double)pc_max(0LL, (long long)(nk)) * 8.0 + 1.0 * (double)pc_max(0LL, (long long)(nk)) * (double)pc_max(0LL, (long long)(nk)) * 8.0 + 2.0 * (double)pc_max(0LL, (long long)(nk)) * 8.0;
  const double pc_copies = 5.0;
  const double pc_copy_ns = pc_bytes / 50.0 + pc_copies * 8000.0;
  const double pc_pinned = ((double)pc_max(0LL, (long long)(nr)) * (double)pc_max(0LL, (long long)(nq)) * (double)pc_max(0LL, (long long)(nk)) * 8.0 >= 1048576.0 ? 1.0 : 0.0) + ((double)pc_max(0LL, (long long)(nk)) * (double)pc_max(0LL, (long long)(nk)) * 8.0 >= 1048576.0 ? 1.0 : 0.0) + ((double)pc_max(0LL, (long long)(nk)) * 8.0 >= 1048576.0 ? 1.0 : 0.0);
  const double pc_host_ns = pc_instances * 1.0 + (pc_on_device ? pc_copy_ns : 0.0);
  const double pc_gpu_ns = pc_launch_ns * 2.5 + pc_instances * 0.007 + (pc_on_device ? 0.0 : 15000.0 + pc_copy_ns + pc_pinned * 300000.0);
  return pc_host_ns < pc_gpu_ns;
}
/* polycuda: the host version on device arrays (pc_doitgen_dev): copied out, run, the written ones copied back */
static int pc_doitgen_dev_on_host(long long nr, long long nq, long long nk, double *A, double *C4, double *acc) {
  int err = 0;
  const size_t pc_bytes_A = (size_t)(nr) * (size_t)(nq) * (size_t)(nk) * sizeof(double);
  const size_t pc_bytes_C4 = (size_t)(nk) * (size_t)(nk) * sizeof(double);
  const size_t pc_bytes_acc = (size_t)(nk) * sizeof(double);
  double *h_A = (double *)malloc(pc_bytes_A ? pc_bytes_A : 1);
  if (!h_A) err = (int)cudaErrorMemoryAllocation;
  double *h_C4 = (double *)malloc(pc_bytes_C4 ? pc_bytes_C4 : 1);
  if (!h_C4) err = (int)cudaErrorMemoryAllocation;
  double *h_acc = (double *)malloc(pc_bytes_acc ? pc_bytes_acc : 1);
  if (!h_acc) err = (int)cudaErrorMemoryAllocation;
  if (!err) err = (int)cudaMemcpy(h_A, A, pc_bytes_A, cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(h_C4, C4, pc_bytes_C4, cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(h_acc, acc, pc_bytes_acc, cudaMemcpyDeviceToHost);
  if (!err) err = pc_doitgen_distinct(nr, nq, nk, h_A, h_C4, h_acc);
  if (!err) err = (int)cudaMemcpy(A, h_A, pc_bytes_A, cudaMemcpyHostToDevice);
  if (!err) err = (int)cudaMemcpy(acc, h_acc, pc_bytes_acc, cudaMemcpyHostToDevice);
  free(h_A);
  free(h_C4);
  free(h_acc);
  return err;
}

extern "C" int pc_doitgen_dev(long long nr, long long nq, long long nk, double *A, double *C4, double *acc) {
  if (pc_elements((long long)(nr), (long long)(nq), (long long)(nk)) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_doitgen: array A has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if (pc_elements((long long)(nk), (long long)(nk)) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_doitgen: array C4 has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(nk) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_doitgen: array acc has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if (pc_elements((long long)(pc_max(nr, 0)), (long long)(pc_max(nq, 0)), (long long)(nk)) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_doitgen: array acc_x0 has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  { /* polycuda: the code below assumes distinct arrays (overlap_guard.py) */
    const size_t pc_span_A = (size_t)(nr) * (size_t)(nq) * (size_t)(nk) * sizeof(double);
    const size_t pc_span_C4 = (size_t)(nk) * (size_t)(nk) * sizeof(double);
    const size_t pc_span_acc = (size_t)(nk) * sizeof(double);
    if (pc_overlap_ranges(A, pc_span_A, C4, pc_span_C4) ||
        pc_overlap_ranges(A, pc_span_A, acc, pc_span_acc) ||
        pc_overlap_ranges(C4, pc_span_C4, acc, pc_span_acc)) {
      fprintf(stderr, "polycuda: pc_doitgen_dev: a written array shares memory with another array argument; nothing was run\n");
      return (int)cudaErrorInvalidValue;
    }
  }
  if (pc_doitgen_host_version(nr, nq, nk, 1)) return pc_doitgen_dev_on_host(nr, nq, nk, A, C4, acc);
  __atomic_store_n(&pc_doitgen_ran, 1, __ATOMIC_RELAXED);
  return pc_doitgen_run(nr, nq, nk, A, C4, acc, NULL);
}

extern "C" int pc_doitgen(long long nr, long long nq, long long nk, double *A, double *C4, double *acc) {
  if (pc_elements((long long)(nr), (long long)(nq), (long long)(nk)) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_doitgen: array A has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if (pc_elements((long long)(nk), (long long)(nk)) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_doitgen: array C4 has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(nk) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_doitgen: array acc has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if (pc_elements((long long)(pc_max(nr, 0)), (long long)(pc_max(nq, 0)), (long long)(nk)) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_doitgen: array acc_x0 has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  { /* polycuda: the code below assumes distinct arrays (overlap_guard.py) */
    const size_t pc_span_A = (size_t)(nr) * (size_t)(nq) * (size_t)(nk) * sizeof(double);
    const size_t pc_span_C4 = (size_t)(nk) * (size_t)(nk) * sizeof(double);
    const size_t pc_span_acc = (size_t)(nk) * sizeof(double);
    if (pc_overlap_ranges(A, pc_span_A, C4, pc_span_C4) ||
        pc_overlap_ranges(A, pc_span_A, acc, pc_span_acc) ||
        pc_overlap_ranges(C4, pc_span_C4, acc, pc_span_acc)) {
      return pc_doitgen_original(nr, nq, nk, A, C4, acc);
    }
  }
  if (pc_doitgen_host_version(nr, nq, nk, 0)) return pc_doitgen_distinct(nr, nq, nk, A, C4, acc);
  __atomic_store_n(&pc_doitgen_ran, 1, __ATOMIC_RELAXED);
  pc_host_guard pc_guard(&pc_doitgen_state.lock);
  int err = 0;
  const size_t pc_bytes_A = (size_t)(nr) * (size_t)(nq) * (size_t)(nk) * sizeof(double);
  const size_t pc_bytes_C4 = (size_t)(nk) * (size_t)(nk) * sizeof(double);
  const size_t pc_bytes_acc = (size_t)(nk) * sizeof(double);
  pc_host_pins<3> pc_pins;  /* unregisters at every return */
  pc_pins.pin(A, pc_bytes_A, 1048576);
  pc_pins.pin(C4, pc_bytes_C4, 1048576);
  pc_pins.pin(acc, pc_bytes_acc, 1048576);
  double *d_A = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_doitgen_state, 0, pc_bytes_A, (void **)&d_A));
  double *d_C4 = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_doitgen_state, 1, pc_bytes_C4, (void **)&d_C4));
  double *d_acc = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_doitgen_state, 2, pc_bytes_acc, (void **)&d_acc));
  if (!pc_doitgen_state.at_exit) {
    pc_doitgen_state.at_exit = 1;
    atexit(pc_doitgen_at_exit);
  }
  PC_CHECK((cudaError_t)pc_host_streams(&pc_doitgen_streams));
  pc_host_copies pc_copies = {pc_doitgen_streams.copy};  /* waited for at every return */
  PC_CHECK(cudaMemcpyAsync(d_A, A, pc_bytes_A, cudaMemcpyHostToDevice, pc_doitgen_streams.copy));
  PC_CHECK(cudaEventRecord(pc_doitgen_streams.in[0], pc_doitgen_streams.copy));
  PC_CHECK(cudaMemcpyAsync(d_C4, C4, pc_bytes_C4, cudaMemcpyHostToDevice, pc_doitgen_streams.copy));
  PC_CHECK(cudaEventRecord(pc_doitgen_streams.in[1], pc_doitgen_streams.copy));
  PC_CHECK(cudaMemcpyAsync(d_acc, acc, pc_bytes_acc, cudaMemcpyHostToDevice, pc_doitgen_streams.copy));
  PC_CHECK(cudaEventRecord(pc_doitgen_streams.in[2], pc_doitgen_streams.copy));
  void *const pc_host_ptrs[] = {(void *)A, (void *)C4, (void *)acc};
  void *const pc_dev_ptrs[] = {(void *)d_A, (void *)d_C4, (void *)d_acc};
  const size_t pc_bytes[] = {pc_bytes_A, pc_bytes_C4, pc_bytes_acc};
  const pc_overlap pc_ov = {pc_doitgen_streams.copy, pc_doitgen_streams.in, pc_doitgen_streams.out, pc_host_ptrs, pc_dev_ptrs, pc_bytes};
  err = pc_doitgen_run(nr, nq, nk, d_A, d_C4, d_acc, &pc_ov);
  return err;
}

extern "C" int pc_doitgen_release(void) {
  const int err = pc_host_release(&pc_doitgen_state);
  const int dev = pc_host_release(&pc_doitgen_dev_state);
  { pc_host_guard guard(&pc_doitgen_state.lock); pc_overlap_release(&pc_doitgen_streams); }
  return err ? err : dev;
}

extern "C" void pc_doitgen_fail(int err) {
  fprintf(stderr, "polycuda: pc_doitgen failed: CUDA error %d (%s): %s\n", err,
          cudaGetErrorName((cudaError_t)err), cudaGetErrorString((cudaError_t)err));
  exit(EXIT_FAILURE);
}

/* polycuda: end of the region's own definitions */

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
