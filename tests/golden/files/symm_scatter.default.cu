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

__global__ void __launch_bounds__(256) kernel0(int m, int n, double alpha, double beta, double *C, const double *__restrict__ A, const double *__restrict__ B, double *temp2, double *temp2_x0) {
  __shared__ double pc_sh_B_0[1024];
  __shared__ double pc_sh_A_1[64];
  __shared__ double pc_sh_A_0[1024];
  for (int c0 = (int)blockIdx.y; (c0 <= pc_floord((m - 1), 8)); c0 += (int)gridDim.y) {
    for (int c1 = (int)blockIdx.x; (c1 <= pc_floord((n - 1), 32)); c1 += (int)gridDim.x) {
      {
        const int pc_t0 = (int)threadIdx.y;
        const int pc_t1 = (int)threadIdx.x;
        double pc_c0 = NAN;
        if ((((((((((c0 >= 0) && (c1 >= 0)) && (m >= (((8 * c0) + pc_t0) + 1))) && (pc_t0 >= 0)) && (pc_t0 <= 7)) && (n >= (((32 * c1) + pc_t1) + 1))) && (pc_t1 >= 0)) && (pc_t1 <= 31)))) pc_c0 = C[(((8 * c0) + pc_t0)) * (n) + (((32 * c1) + pc_t1))];
        double pc_c1 = NAN;
        if ((((((((((c0 >= 0) && (c1 >= 0)) && (m >= (((8 * c0) + pc_t0) + 1))) && (pc_t0 >= 0)) && (pc_t0 <= 7)) && (n >= (((32 * c1) + pc_t1) + 1))) && (pc_t1 >= 0)) && (pc_t1 <= 31)))) pc_c1 = temp2_x0[(((8 * c0) + pc_t0)) * (pc_max(n, 0)) + (((32 * c1) + pc_t1))];
        for (int c2 = 0; (c2 <= (c0 / 4)); c2 += 1) {
          {
            const int pc_so_A_0_0 = ((c0 >= ((4 * c2) + 1)) ? (8 * c0) : ((8 * c0) + 1));
            const int pc_so_A_0_1 = (32 * c2);
            const int pc_so_A_1_0 = (8 * c0);
            const int pc_so_A_1_1 = (8 * c0);
            const int pc_so_B_0_0 = (32 * c2);
            const int pc_so_B_0_1 = (32 * c1);
            __syncthreads();
            for (int pc_e = (int)threadIdx.x + 32 * (int)threadIdx.y; pc_e < 1024; pc_e += 256) {
              const int pc_x0 = pc_so_A_0_0 + pc_e / 32;
              const int pc_x1 = pc_so_A_0_1 + (pc_e) % 32;
              const int pc_l = (pc_x0 - pc_so_A_0_0) * 32 + (pc_x1 - pc_so_A_0_1) * 1;
              if (pc_x0 >= 0 && pc_x0 < (m) && pc_x1 >= 0 && pc_x1 < (m) && (((((((((((c1 >= 0) && (n >= ((32 * c1) + 1))) && (c2 >= 0)) && (m >= (pc_x0 + 1))) && (pc_x0 >= (8 * c0))) && (((8 * c0) + 7) >= pc_x0)) && (pc_x0 >= (pc_x1 + 1))) && (pc_x1 >= (32 * c2))) && (((32 * c2) + 31) >= pc_x1)) || (((((((((c1 >= 0) && (n >= ((32 * c1) + 1))) && (c2 >= 0)) && (c0 >= (4 * c2))) && (m >= (pc_x0 + 1))) && (((32 * c2) + 31) >= pc_x0)) && (pc_x0 >= (pc_x1 + 1))) && (pc_x1 >= (8 * c0))) && (((8 * c0) + 7) >= pc_x1))))) pc_sh_A_0[pc_l] = A[(pc_x0) * (m) + (pc_x1)];
            }
            for (int pc_e = (int)threadIdx.x + 32 * (int)threadIdx.y; pc_e < 64; pc_e += 256) {
              const int pc_x0 = pc_so_A_1_0 + pc_e / 8;
              const int pc_x1 = pc_so_A_1_1 + (pc_e) % 8;
              const int pc_l = (pc_x0 - pc_so_A_1_0) * 8 + (pc_x1 - pc_so_A_1_1) * 1;
              if (pc_x0 >= 0 && pc_x0 < (m) && pc_x1 >= 0 && pc_x1 < (m) && ((((((((((c1 >= 0) && (n >= ((32 * c1) + 1))) && (c2 >= 0)) && (c0 >= (4 * c2))) && (m >= (pc_x0 + 1))) && (pc_x0 >= (8 * c0))) && (((8 * c0) + 7) >= pc_x0)) && (((32 * c2) + 31) >= pc_x0)) && (pc_x1 == pc_x0)))) pc_sh_A_1[pc_l] = A[(pc_x0) * (m) + (pc_x1)];
            }
            for (int pc_e = (int)threadIdx.x + 32 * (int)threadIdx.y; pc_e < 1024; pc_e += 256) {
              const int pc_x0 = pc_so_B_0_0 + pc_e / 32;
              const int pc_x1 = pc_so_B_0_1 + (pc_e) % 32;
              const int pc_l = (pc_x0 - pc_so_B_0_0) * 32 + (pc_x1 - pc_so_B_0_1) * 1;
              if (pc_x0 >= 0 && pc_x0 < (m) && pc_x1 >= 0 && pc_x1 < (n) && ((((((((((((m >= ((8 * c0) + 1)) && (c1 >= 0)) && (c2 >= 0)) && (m >= (pc_x0 + 2))) && (pc_x0 >= (32 * c2))) && (((8 * c0) + 6) >= pc_x0)) && (((32 * c2) + 31) >= pc_x0)) && (n >= (pc_x1 + 1))) && (pc_x1 >= (32 * c1))) && (((32 * c1) + 31) >= pc_x1)) || (((((((((c1 >= 0) && (c2 >= 0)) && (c0 >= (4 * c2))) && (m >= (pc_x0 + 1))) && (pc_x0 >= (8 * c0))) && (((32 * c2) + 31) >= pc_x0)) && (n >= (pc_x1 + 1))) && (pc_x1 >= (32 * c1))) && (((32 * c1) + 31) >= pc_x1))))) pc_sh_B_0[pc_l] = B[(pc_x0) * (n) + (pc_x1)];
            }
            __syncthreads();
            if ((int)threadIdx.y >= 0) {
              const int c3 = (int)threadIdx.y;
              if ((c3 <= pc_min(7, ((m - (8 * c0)) - 1)))) {
                if ((int)threadIdx.x >= 0) {
                  const int c4 = (int)threadIdx.x;
                  if ((c4 <= pc_min(31, ((n - (32 * c1)) - 1)))) {
                    if ((c2 == 0)) {
                      pc_c1 = 0.0;
                    }
                    for (int c5 = 0; (c5 <= pc_min(31, ((((8 * c0) - (32 * c2)) + c3) - 1))); c5 += 1) {
                      pc_c1 += (pc_sh_B_0[((((32 * c2) + c5)) - pc_so_B_0_0) * 32 + ((((32 * c1) + c4)) - pc_so_B_0_1) * 1] * pc_sh_A_0[((((8 * c0) + c3)) - pc_so_A_0_0) * 32 + ((((32 * c2) + c5)) - pc_so_A_0_1) * 1]);
                    }
                    if ((((4 * c2) + 3) >= c0)) {
                      pc_c0 = (((beta * pc_c0) + ((alpha * pc_sh_B_0[((((8 * c0) + c3)) - pc_so_B_0_0) * 32 + ((((32 * c1) + c4)) - pc_so_B_0_1) * 1]) * pc_sh_A_1[((((8 * c0) + c3)) - pc_so_A_1_0) * 8 + ((((8 * c0) + c3)) - pc_so_A_1_1) * 1])) + (alpha * pc_c1));
                    }
                    for (int c5 = ((((8 * c0) - (32 * c2)) + c3) + 1); (c5 <= pc_min(31, ((m - (32 * c2)) - 1))); c5 += 1) {
                      pc_c0 += ((alpha * pc_sh_B_0[((((32 * c2) + c5)) - pc_so_B_0_0) * 32 + ((((32 * c1) + c4)) - pc_so_B_0_1) * 1]) * pc_sh_A_0[((((32 * c2) + c5)) - pc_so_A_0_0) * 32 + ((((8 * c0) + c3)) - pc_so_A_0_1) * 1]);
                    }
                  }
                }
              }
            }
          }
        }
        for (int c2 = ((c0 / 4) + 1); (c2 <= ((m - 1) / 32)); c2 += 1) {
          {
            const int pc_so_A_0_0 = (32 * c2);
            const int pc_so_A_0_1 = (8 * c0);
            const int pc_so_B_0_0 = (32 * c2);
            const int pc_so_B_0_1 = (32 * c1);
            __syncthreads();
            for (int pc_e = (int)threadIdx.x + 32 * (int)threadIdx.y; pc_e < 1024; pc_e += 256) {
              const int pc_x0 = pc_so_A_0_0 + pc_e / 32;
              const int pc_x1 = pc_so_A_0_1 + (pc_e) % 32;
              const int pc_l = (pc_x0 - pc_so_A_0_0) * 32 + (pc_x1 - pc_so_A_0_1) * 1;
              if (pc_x0 >= 0 && pc_x0 < (m) && pc_x1 >= 0 && pc_x1 < (m) && (((((((((((c0 >= 0) && (c1 >= 0)) && (n >= ((32 * c1) + 1))) && ((4 * c2) >= (c0 + 1))) && (m >= (pc_x0 + 1))) && (pc_x0 >= (32 * c2))) && (((32 * c2) + 31) >= pc_x0)) && (pc_x1 >= (8 * c0))) && (((8 * c0) + 7) >= pc_x1)) && (pc_x0 >= (((pc_x0 % 32) + pc_x1) + 1))))) pc_sh_A_0[pc_l] = A[(pc_x0) * (m) + (pc_x1)];
            }
            for (int pc_e = (int)threadIdx.x + 32 * (int)threadIdx.y; pc_e < 1024; pc_e += 256) {
              const int pc_x0 = pc_so_B_0_0 + pc_e / 32;
              const int pc_x1 = pc_so_B_0_1 + (pc_e) % 32;
              const int pc_l = (pc_x0 - pc_so_B_0_0) * 32 + (pc_x1 - pc_so_B_0_1) * 1;
              if (pc_x0 >= 0 && pc_x0 < (m) && pc_x1 >= 0 && pc_x1 < (n) && (((((((((((c0 >= 0) && (c1 >= 0)) && ((4 * c2) >= (c0 + 1))) && (m >= (pc_x0 + 1))) && (pc_x0 >= (32 * c2))) && (((32 * c2) + 31) >= pc_x0)) && (n >= (pc_x1 + 1))) && (pc_x1 >= (32 * c1))) && (((32 * c1) + 31) >= pc_x1)) && ((4 * (pc_x0 / 32)) >= (c0 + 1))))) pc_sh_B_0[pc_l] = B[(pc_x0) * (n) + (pc_x1)];
            }
            __syncthreads();
            if ((int)threadIdx.y >= 0) {
              const int c3 = (int)threadIdx.y;
              if ((c3 <= 7)) {
                if ((int)threadIdx.x >= 0) {
                  const int c4 = (int)threadIdx.x;
                  if ((c4 <= pc_min(31, ((n - (32 * c1)) - 1)))) {
                    for (int c5 = 0; (c5 <= pc_min(31, ((m - (32 * c2)) - 1))); c5 += 1) {
                      pc_c0 += ((alpha * pc_sh_B_0[((((32 * c2) + c5)) - pc_so_B_0_0) * 32 + ((((32 * c1) + c4)) - pc_so_B_0_1) * 1]) * pc_sh_A_0[((((32 * c2) + c5)) - pc_so_A_0_0) * 32 + ((((8 * c0) + c3)) - pc_so_A_0_1) * 1]);
                    }
                  }
                }
              }
            }
          }
        }
        if ((((((((((c0 >= 0) && (c1 >= 0)) && (m >= (((8 * c0) + pc_t0) + 1))) && (pc_t0 >= 0)) && (pc_t0 <= 7)) && (n >= (((32 * c1) + pc_t1) + 1))) && (pc_t1 >= 0)) && (pc_t1 <= 31)))) C[(((8 * c0) + pc_t0)) * (n) + (((32 * c1) + pc_t1))] = pc_c0;
        if ((((((((((c0 >= 0) && (c1 >= 0)) && (m >= (((8 * c0) + pc_t0) + 1))) && (pc_t0 >= 0)) && (pc_t0 <= 7)) && (n >= (((32 * c1) + pc_t1) + 1))) && (pc_t1 >= 0)) && (pc_t1 <= 31)))) temp2_x0[(((8 * c0) + pc_t0)) * (pc_max(n, 0)) + (((32 * c1) + pc_t1))] = pc_c1;
      }
    }
  }
}

static pc_host_state<3> pc_symm_scatter_state = PC_HOST_STATE_INIT;
static pc_host_state<3> pc_symm_scatter_dev_state = PC_HOST_STATE_INIT;
static pc_overlap_state<3> pc_symm_scatter_streams = {};
extern "C" int pc_symm_scatter_release(void);
static void pc_symm_scatter_at_exit(void) { (void)pc_symm_scatter_release(); }

static int pc_symm_scatter_run(long long m, long long n, double alpha, double beta, double *C, double *A, double *B, const pc_overlap *pc_ov) {
  pc_host_guard pc_guard(&pc_symm_scatter_dev_state.lock);
  double *temp2 = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_symm_scatter_dev_state, 0, 1 * sizeof(double), (void **)&temp2));
  double *temp2_x0 = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_symm_scatter_dev_state, 1, (size_t)(pc_max(m, 0)) * (size_t)(pc_max(n, 0)) * sizeof(double), (void **)&temp2_x0));
  if (!pc_symm_scatter_dev_state.at_exit) {
    pc_symm_scatter_dev_state.at_exit = 1;
    atexit(pc_symm_scatter_at_exit);
  }
  PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, 0));  /* C copied in */
  PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, 1));  /* A copied in */
  PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, 2));  /* B copied in */
  kernel0<<<dim3((unsigned)pc_min(pc_max(((n + 31) / 32), 1LL), 2147483647LL), (unsigned)pc_min(pc_max(((m + 7) / 8), 1LL), 65535LL)), dim3(32, 8)>>>((int)m, (int)n, alpha, beta, C, A, B, temp2, temp2_x0);
  PC_CHECK((cudaError_t)pc_overlap_out(pc_ov, 0));  /* C final: copied out */
  PC_CHECK(cudaGetLastError());
  PC_CHECK(cudaDeviceSynchronize());
  return 0;
}
/* polycuda: pc_symm_scatter_ran: what the last call ran (1 the kernels, 2 the host version); pc_symm_scatter_force: 0 the rule
   decides, 1 or 2 runs that version (Program.verify checks both) */
#ifndef PC_HOST_VERSION_FORCE  /* the emulator's: the kernels (cuda_emu_api.h) */
#define PC_HOST_VERSION_FORCE 0
#endif
extern "C" { int pc_symm_scatter_ran; int pc_symm_scatter_force = PC_HOST_VERSION_FORCE; }
/* polycuda: region 'symm_scatter' as written: the host version, run where pc_symm_scatter_host_version picks it
   or where the arrays share memory */
static int pc_symm_scatter_original(long long m, long long n, double alpha, double beta, double *C, double *A, double *B) {
  __atomic_store_n(&pc_symm_scatter_ran, 2, __ATOMIC_RELAXED);
  double temp2[1] = {0};
  for (long pc_v1 = 0; (pc_v1 < m); pc_v1 += 1) {
    for (long pc_v3 = 0; (pc_v3 < n); pc_v3 += 1) {
      temp2[0] = 0.0;
      for (long pc_v5 = 0; (pc_v5 < pc_v1); pc_v5 += 1) {
        C[(pc_v5) * (n) + (pc_v3)] += ((alpha * B[(pc_v1) * (n) + (pc_v3)]) * A[(pc_v1) * (m) + (pc_v5)]);
        temp2[0] += (B[(pc_v5) * (n) + (pc_v3)] * A[(pc_v1) * (m) + (pc_v5)]);
      }
      C[(pc_v1) * (n) + (pc_v3)] = (((beta * C[(pc_v1) * (n) + (pc_v3)]) + ((alpha * B[(pc_v1) * (n) + (pc_v3)]) * A[(pc_v1) * (m) + (pc_v1)])) + (alpha * temp2[0]));
    }
  }
  return 0;
}

/* polycuda: region 'symm_scatter' as written, its arrays distinct: the host version where the entries run it */
static int pc_symm_scatter_distinct(long long m, long long n, double alpha, double beta, double *__restrict__ C, double *__restrict__ A, double *__restrict__ B) {
  __atomic_store_n(&pc_symm_scatter_ran, 2, __ATOMIC_RELAXED);
  double temp2[1] = {0};
  for (long pc_v1 = 0; (pc_v1 < m); pc_v1 += 1) {
    for (long pc_v3 = 0; (pc_v3 < n); pc_v3 += 1) {
      temp2[0] = 0.0;
      for (long pc_v5 = 0; (pc_v5 < pc_v1); pc_v5 += 1) {
        C[(pc_v5) * (n) + (pc_v3)] += ((alpha * B[(pc_v1) * (n) + (pc_v3)]) * A[(pc_v1) * (m) + (pc_v5)]);
        temp2[0] += (B[(pc_v5) * (n) + (pc_v3)] * A[(pc_v1) * (m) + (pc_v5)]);
      }
      C[(pc_v1) * (n) + (pc_v3)] = (((beta * C[(pc_v1) * (n) + (pc_v3)]) + ((alpha * B[(pc_v1) * (n) + (pc_v3)]) * A[(pc_v1) * (m) + (pc_v1)])) + (alpha * temp2[0]));
    }
  }
  return 0;
}

/* polycuda: where a call of region 'symm_scatter' runs (gpu.cost.HostChoice): the original program on the host
   when its estimated time (ns) is below the kernels' (copies + launches + work) */
static int pc_symm_scatter_host_version(long long m, long long n, int pc_on_device) {
  const int pc_force = __atomic_load_n(&pc_symm_scatter_force, __ATOMIC_RELAXED);
  if (pc_force) return pc_force == 2;
  const double pc_instances = ((double)pc_max(0LL, (long long)(m)) * (double)pc_max(0LL, (long long)(n))) + (0.5079365079365079 * (double)pc_max(0LL, (long long)((m - 1))) * (double)pc_max(0LL, (long long)(n)) * (double)pc_max(0LL, (long long)((m - 1)))) + (0.5079365079365079 * (double)pc_max(0LL, (long long)((m - 1))) * (double)pc_max(0LL, (long long)(n)) * (double)pc_max(0LL, (long long)((m - 1)))) + ((double)pc_max(0LL, (long long)(m)) * (double)pc_max(0LL, (long long)(n)));
  const double pc_launch_ns = (2000.0);
  const double pc_bytes = 2.0 * (double)pc_max(0LL, (long long)(m)) * (double)pc_max(0LL, (long long)(n)) * 8.0 + 1.0 * (double)pc_max(0LL, (long long)(m)) * (double)pc_max(0LL, (long long)(m)) * 8.0 + 1.0 * (double)pc_max(0LL, (long long)(m)) * (double)pc_max(0LL, (long long)(n)) * 8.0;
  const double pc_copies = 4.0;
  const double pc_copy_ns = pc_bytes / 50.0 + pc_copies * 8000.0;
  const double pc_pinned = ((double)pc_max(0LL, (long long)(m)) * (double)pc_max(0LL, (long long)(n)) * 8.0 >= 1048576.0 ? 1.0 : 0.0) + ((double)pc_max(0LL, (long long)(m)) * (double)pc_max(0LL, (long long)(m)) * 8.0 >= 1048576.0 ? 1.0 : 0.0) + ((double)pc_max(0LL, (long long)(m)) * (double)pc_max(0LL, (long long)(n)) * 8.0 >= 1048576.0 ? 1.0 : 0.0);
  const double pc_host_ns = pc_instances * 1.0 + (pc_on_device ? pc_copy_ns : 0.0);
  const double pc_gpu_ns = pc_launch_ns * 2.5 + pc_instances * 0.007 + (pc_on_device ? 0.0 : 15000.0 + pc_copy_ns + pc_pinned * 300000.0);
  return pc_host_ns < pc_gpu_ns;
}
/* polycuda: the host version on device arrays (pc_symm_scatter_dev): copied out, run, the written ones copied back */
static int pc_symm_scatter_dev_on_host(long long m, long long n, double alpha, double beta, double *C, double *A, double *B) {
  int err = 0;
  const size_t pc_bytes_C = (size_t)(m) * (size_t)(n) * sizeof(double);
  const size_t pc_bytes_A = (size_t)(m) * (size_t)(m) * sizeof(double);
  const size_t pc_bytes_B = (size_t)(m) * (size_t)(n) * sizeof(double);
  double *h_C = (double *)malloc(pc_bytes_C ? pc_bytes_C : 1);
  if (!h_C) err = (int)cudaErrorMemoryAllocation;
  double *h_A = (double *)malloc(pc_bytes_A ? pc_bytes_A : 1);
  if (!h_A) err = (int)cudaErrorMemoryAllocation;
  double *h_B = (double *)malloc(pc_bytes_B ? pc_bytes_B : 1);
  if (!h_B) err = (int)cudaErrorMemoryAllocation;
  if (!err) err = (int)cudaMemcpy(h_C, C, pc_bytes_C, cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(h_A, A, pc_bytes_A, cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(h_B, B, pc_bytes_B, cudaMemcpyDeviceToHost);
  if (!err) err = pc_symm_scatter_distinct(m, n, alpha, beta, h_C, h_A, h_B);
  if (!err) err = (int)cudaMemcpy(C, h_C, pc_bytes_C, cudaMemcpyHostToDevice);
  free(h_C);
  free(h_A);
  free(h_B);
  return err;
}

extern "C" int pc_symm_scatter_dev(long long m, long long n, double alpha, double beta, double *C, double *A, double *B) {
  if (pc_elements((long long)(m), (long long)(n)) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_symm_scatter: array C has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if (pc_elements((long long)(m), (long long)(m)) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_symm_scatter: array A has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if (pc_elements((long long)(m), (long long)(n)) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_symm_scatter: array B has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if (pc_elements((long long)(pc_max(m, 0)), (long long)(pc_max(n, 0))) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_symm_scatter: array temp2_x0 has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  { /* polycuda: the code below assumes distinct arrays (overlap_guard.py) */
    const size_t pc_span_C = (size_t)(m) * (size_t)(n) * sizeof(double);
    const size_t pc_span_A = (size_t)(m) * (size_t)(m) * sizeof(double);
    const size_t pc_span_B = (size_t)(m) * (size_t)(n) * sizeof(double);
    if (pc_overlap_ranges(C, pc_span_C, A, pc_span_A) ||
        pc_overlap_ranges(C, pc_span_C, B, pc_span_B)) {
      fprintf(stderr, "polycuda: pc_symm_scatter_dev: a written array shares memory with another array argument; nothing was run\n");
      return (int)cudaErrorInvalidValue;
    }
  }
  if (pc_symm_scatter_host_version(m, n, 1)) return pc_symm_scatter_dev_on_host(m, n, alpha, beta, C, A, B);
  __atomic_store_n(&pc_symm_scatter_ran, 1, __ATOMIC_RELAXED);
  return pc_symm_scatter_run(m, n, alpha, beta, C, A, B, NULL);
}

extern "C" int pc_symm_scatter(long long m, long long n, double alpha, double beta, double *C, double *A, double *B) {
  if (pc_elements((long long)(m), (long long)(n)) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_symm_scatter: array C has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if (pc_elements((long long)(m), (long long)(m)) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_symm_scatter: array A has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if (pc_elements((long long)(m), (long long)(n)) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_symm_scatter: array B has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if (pc_elements((long long)(pc_max(m, 0)), (long long)(pc_max(n, 0))) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_symm_scatter: array temp2_x0 has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  { /* polycuda: the code below assumes distinct arrays (overlap_guard.py) */
    const size_t pc_span_C = (size_t)(m) * (size_t)(n) * sizeof(double);
    const size_t pc_span_A = (size_t)(m) * (size_t)(m) * sizeof(double);
    const size_t pc_span_B = (size_t)(m) * (size_t)(n) * sizeof(double);
    if (pc_overlap_ranges(C, pc_span_C, A, pc_span_A) ||
        pc_overlap_ranges(C, pc_span_C, B, pc_span_B)) {
      return pc_symm_scatter_original(m, n, alpha, beta, C, A, B);
    }
  }
  if (pc_symm_scatter_host_version(m, n, 0)) return pc_symm_scatter_distinct(m, n, alpha, beta, C, A, B);
  __atomic_store_n(&pc_symm_scatter_ran, 1, __ATOMIC_RELAXED);
  pc_host_guard pc_guard(&pc_symm_scatter_state.lock);
  int err = 0;
  const size_t pc_bytes_C = (size_t)(m) * (size_t)(n) * sizeof(double);
  const size_t pc_bytes_A = (size_t)(m) * (size_t)(m) * sizeof(double);
  const size_t pc_bytes_B = (size_t)(m) * (size_t)(n) * sizeof(double);
  pc_host_pins<3> pc_pins;  /* unregisters at every return */
  pc_pins.pin(C, pc_bytes_C, 1048576);
  pc_pins.pin(A, pc_bytes_A, 1048576);
  pc_pins.pin(B, pc_bytes_B, 1048576);
  double *d_C = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_symm_scatter_state, 0, pc_bytes_C, (void **)&d_C));
  double *d_A = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_symm_scatter_state, 1, pc_bytes_A, (void **)&d_A));
  double *d_B = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_symm_scatter_state, 2, pc_bytes_B, (void **)&d_B));
  if (!pc_symm_scatter_state.at_exit) {
    pc_symm_scatter_state.at_exit = 1;
    atexit(pc_symm_scatter_at_exit);
  }
  PC_CHECK((cudaError_t)pc_host_streams(&pc_symm_scatter_streams));
  pc_host_copies pc_copies = {pc_symm_scatter_streams.copy};  /* waited for at every return */
  PC_CHECK(cudaMemcpyAsync(d_C, C, pc_bytes_C, cudaMemcpyHostToDevice, pc_symm_scatter_streams.copy));
  PC_CHECK(cudaEventRecord(pc_symm_scatter_streams.in[0], pc_symm_scatter_streams.copy));
  PC_CHECK(cudaMemcpyAsync(d_A, A, pc_bytes_A, cudaMemcpyHostToDevice, pc_symm_scatter_streams.copy));
  PC_CHECK(cudaEventRecord(pc_symm_scatter_streams.in[1], pc_symm_scatter_streams.copy));
  PC_CHECK(cudaMemcpyAsync(d_B, B, pc_bytes_B, cudaMemcpyHostToDevice, pc_symm_scatter_streams.copy));
  PC_CHECK(cudaEventRecord(pc_symm_scatter_streams.in[2], pc_symm_scatter_streams.copy));
  void *const pc_host_ptrs[] = {(void *)C, (void *)A, (void *)B};
  void *const pc_dev_ptrs[] = {(void *)d_C, (void *)d_A, (void *)d_B};
  const size_t pc_bytes[] = {pc_bytes_C, pc_bytes_A, pc_bytes_B};
  const pc_overlap pc_ov = {pc_symm_scatter_streams.copy, pc_symm_scatter_streams.in, pc_symm_scatter_streams.out, pc_host_ptrs, pc_dev_ptrs, pc_bytes};
  err = pc_symm_scatter_run(m, n, alpha, beta, d_C, d_A, d_B, &pc_ov);
  return err;
}

extern "C" int pc_symm_scatter_release(void) {
  const int err = pc_host_release(&pc_symm_scatter_state);
  const int dev = pc_host_release(&pc_symm_scatter_dev_state);
  { pc_host_guard guard(&pc_symm_scatter_state.lock); pc_overlap_release(&pc_symm_scatter_streams); }
  return err ? err : dev;
}

extern "C" void pc_symm_scatter_fail(int err) {
  fprintf(stderr, "polycuda: pc_symm_scatter failed: CUDA error %d (%s): %s\n", err,
          cudaGetErrorName((cudaError_t)err), cudaGetErrorString((cudaError_t)err));
  exit(EXIT_FAILURE);
}

/* polycuda: end of the region's own definitions */

#ifdef POLYCUDA_MAIN
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
  long long m = 64;
  long long n = 64;
  double alpha = 1.5;
  double beta = 1.5;
  for (int a = 1; a < argc; a++) {
    if (strncmp(argv[a], "m=", 2) == 0) m = atoll(argv[a] + 2);
    if (strncmp(argv[a], "n=", 2) == 0) n = atoll(argv[a] + 2);
  }
  unsigned long long seed = 88172645463325252ULL;
  size_t n_C = (size_t)(m) * (size_t)(n);
  double *C = (double *)malloc(n_C * sizeof(double));
  for (size_t k = 0; k < n_C; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; C[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_A = (size_t)(m) * (size_t)(m);
  double *A = (double *)malloc(n_A * sizeof(double));
  for (size_t k = 0; k < n_A; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; A[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  size_t n_B = (size_t)(m) * (size_t)(n);
  double *B = (double *)malloc(n_B * sizeof(double));
  for (size_t k = 0; k < n_B; k++) { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; B[k] = (double)(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int err = pc_symm_scatter(m, n, alpha, beta, C, A, B);
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
