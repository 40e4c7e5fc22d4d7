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

__global__ void __launch_bounds__(256) kernel0(int n, double alpha, double beta, double *A, const double *__restrict__ u1, const double *__restrict__ v1, const double *__restrict__ u2, const double *__restrict__ v2, double *w, double *x, const double *__restrict__ y, double *z) {
  for (int c0 = 0 + (int)(blockIdx.x * blockDim.x + threadIdx.x) * 1; (c0 < n); c0 += (int)(gridDim.x * blockDim.x) * 1) {
    {
      double pc_acc = (double)0;
      double *pc_cell = NULL;
      for (int c1 = 0 + (int)blockIdx.y * 1; (c1 < n); c1 += (int)gridDim.y * 1) {
        A[(c1) * (n) + (c0)] = ((A[(c1) * (n) + (c0)] + (u1[c1] * v1[c0])) + (u2[c1] * v2[c0]));
        { pc_cell = &x[c0]; pc_acc += ((beta * A[(c1) * (n) + (c0)]) * y[c1]); }
      }
      if (pc_cell != NULL) atomicAdd(pc_cell, pc_acc);
    }
  }
}

__global__ void __launch_bounds__(256) kernel1(int n, double alpha, double beta, double *A, double *u1, double *v1, double *u2, double *v2, double *w, double *x, double *y, const double *__restrict__ z) {
  for (int c0 = (int)blockIdx.x; (c0 <= pc_floord((n - 1), 256)); c0 += (int)gridDim.x) {
    if ((int)threadIdx.x >= 0) {
      const int c1 = (int)threadIdx.x;
      if ((c1 <= pc_min(255, ((n - (256 * c0)) - 1)))) {
        x[((256 * c0) + c1)] = (x[((256 * c0) + c1)] + z[((256 * c0) + c1)]);
      }
    }
  }
}

__global__ void __launch_bounds__(256) kernel2(int n, double alpha, double beta, const double *__restrict__ A, double *u1, double *v1, double *u2, double *v2, double *w, const double *__restrict__ x, double *y, double *z) {
  __shared__ double pc_tree0[8][32];
  __shared__ double *pc_cells0[8][32];
  for (int pc_round = 0; ; pc_round++) {
    const int pc_group = pc_round * (int)gridDim.x + ((pc_round & 1) ? (int)gridDim.x - 1 - (int)blockIdx.x : (int)blockIdx.x);
    const int pc_rows = pc_group * (int)blockDim.y;
    if (!(((0 + pc_rows * 1) < n))) break;
    const int c0 = 0 + (pc_rows + (int)threadIdx.y) * 1;
    {
      double pc_acc = (double)0, pc_acc1 = (double)0, pc_acc2 = (double)0, pc_acc3 = (double)0;
      double *pc_cell = NULL;
      if (((c0 < n))) {
        int c1 = 0 + (int)threadIdx.x * 1;
        for (; ((c1 + 3 * (int)blockDim.x * 1) < n); c1 += 4 * (int)blockDim.x * 1) {
          { pc_cell = &w[c0]; pc_acc += ((alpha * A[(c0) * (n) + (c1)]) * x[c1]); }
          { const int pc_u = c1 + 1 * (int)blockDim.x * 1; { const int c1 = pc_u;
            { pc_cell = &w[c0]; pc_acc1 += ((alpha * A[(c0) * (n) + (c1)]) * x[c1]); }
          } }
          { const int pc_u = c1 + 2 * (int)blockDim.x * 1; { const int c1 = pc_u;
            { pc_cell = &w[c0]; pc_acc2 += ((alpha * A[(c0) * (n) + (c1)]) * x[c1]); }
          } }
          { const int pc_u = c1 + 3 * (int)blockDim.x * 1; { const int c1 = pc_u;
            { pc_cell = &w[c0]; pc_acc3 += ((alpha * A[(c0) * (n) + (c1)]) * x[c1]); }
          } }
        }
        for (; (c1 < n); c1 += (int)blockDim.x * 1) {
          { pc_cell = &w[c0]; pc_acc += ((alpha * A[(c0) * (n) + (c1)]) * x[c1]); }
        }
      }
      pc_acc = pc_acc + pc_acc1 + pc_acc2 + pc_acc3;
      pc_tree0[threadIdx.y][threadIdx.x] = pc_acc;
      pc_cells0[threadIdx.y][threadIdx.x] = pc_cell;
      __syncthreads();
      for (int pc_s = (int)blockDim.x / 2; pc_s > 0; pc_s /= 2) {
        if ((int)threadIdx.x < pc_s) {
          pc_tree0[threadIdx.y][threadIdx.x] = pc_tree0[threadIdx.y][threadIdx.x] + pc_tree0[threadIdx.y][threadIdx.x + pc_s];
          if (pc_cells0[threadIdx.y][threadIdx.x] == NULL) pc_cells0[threadIdx.y][threadIdx.x] = pc_cells0[threadIdx.y][threadIdx.x + pc_s];
        }
        __syncthreads();
      }
      if (threadIdx.x == 0 && pc_cells0[threadIdx.y][0] != NULL)
        *pc_cells0[threadIdx.y][0] += pc_tree0[threadIdx.y][0];
      __syncthreads();
    }
  }
}

static pc_host_state<9> pc_gemver_state = PC_HOST_STATE_INIT;
static pc_host_state<9> pc_gemver_dev_state = PC_HOST_STATE_INIT;
static pc_overlap_state<9> pc_gemver_streams = {};
extern "C" int pc_gemver_release(void);
static void pc_gemver_at_exit(void) { (void)pc_gemver_release(); }

static int pc_gemver_run(long long n, double alpha, double beta, double *A, double *u1, double *v1, double *u2, double *v2, double *w, double *x, double *y, double *z, const pc_overlap *pc_ov) {
  int pc_reduce_dev = 0, pc_reduce_sms = 0;
  PC_CHECK(cudaGetDevice(&pc_reduce_dev));
  PC_CHECK(cudaDeviceGetAttribute(&pc_reduce_sms, cudaDevAttrMultiProcessorCount, pc_reduce_dev));
  const long long pc_reduce_blocks = pc_max(1LL, pc_min(4LL * pc_reduce_sms, 1024LL));
  PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, 0));  /* A copied in */
  PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, 1));  /* u1 copied in */
  PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, 2));  /* v1 copied in */
  PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, 3));  /* u2 copied in */
  PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, 4));  /* v2 copied in */
  PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, 6));  /* x copied in */
  PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, 7));  /* y copied in */
  kernel0<<<dim3((unsigned)pc_min(pc_max(pc_ceild(n, 256LL), 1LL), 2147483647LL), (unsigned)pc_max(pc_min(pc_min(pc_ceild(pc_reduce_blocks, pc_max(pc_ceild(n, 256LL), 1LL)), pc_ceild(n, 32LL)), 65535LL), 1LL)), dim3(256)>>>((int)n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);
  PC_CHECK((cudaError_t)pc_overlap_out(pc_ov, 0));  /* A final: copied out */
  PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, 8));  /* z copied in */
  kernel1<<<dim3((unsigned)pc_min(pc_max(((n + 255) / 256), 1LL), 2147483647LL)), dim3(256)>>>((int)n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);
  PC_CHECK((cudaError_t)pc_overlap_out(pc_ov, 6));  /* x final: copied out */
  PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, 5));  /* w copied in */
  kernel2<<<dim3((unsigned)pc_min(pc_max(pc_ceild(n, 8LL), 1LL), 2147483647LL)), dim3(32, 8)>>>((int)n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);
  PC_CHECK((cudaError_t)pc_overlap_out(pc_ov, 5));  /* w final: copied out */
  PC_CHECK(cudaGetLastError());
  PC_CHECK(cudaDeviceSynchronize());
  return 0;
}
/* polycuda: pc_gemver_ran: what the last call ran (1 the kernels, 2 the host version); pc_gemver_force: 0 the rule
   decides, 1 or 2 runs that version (Program.verify checks both) */
#ifndef PC_HOST_VERSION_FORCE  /* the emulator's: the kernels (cuda_emu_api.h) */
#define PC_HOST_VERSION_FORCE 0
#endif
extern "C" { int pc_gemver_ran; int pc_gemver_force = PC_HOST_VERSION_FORCE; }
/* polycuda: region 'gemver' as written: the host version, run where pc_gemver_host_version picks it
   or where the arrays share memory */
static int pc_gemver_original(long long n, double alpha, double beta, double *A, double *u1, double *v1, double *u2, double *v2, double *w, double *x, double *y, double *z) {
  __atomic_store_n(&pc_gemver_ran, 2, __ATOMIC_RELAXED);
  for (long pc_v1 = 0; (pc_v1 < n); pc_v1 += 1) {
    for (long pc_v3 = 0; (pc_v3 < n); pc_v3 += 1) {
      A[(pc_v1) * (n) + (pc_v3)] = ((A[(pc_v1) * (n) + (pc_v3)] + (u1[pc_v1] * v1[pc_v3])) + (u2[pc_v1] * v2[pc_v3]));
    }
  }
  for (long pc_v1 = 0; (pc_v1 < n); pc_v1 += 1) {
    for (long pc_v3 = 0; (pc_v3 < n); pc_v3 += 1) {
      x[pc_v1] = (x[pc_v1] + ((beta * A[(pc_v3) * (n) + (pc_v1)]) * y[pc_v3]));
    }
  }
  for (long pc_v1 = 0; (pc_v1 < n); pc_v1 += 1) {
    x[pc_v1] = (x[pc_v1] + z[pc_v1]);
  }
  for (long pc_v1 = 0; (pc_v1 < n); pc_v1 += 1) {
    for (long pc_v3 = 0; (pc_v3 < n); pc_v3 += 1) {
      w[pc_v1] = (w[pc_v1] + ((alpha * A[(pc_v1) * (n) + (pc_v3)]) * x[pc_v3]));
    }
  }
  return 0;
}

/* polycuda: region 'gemver' as written, its arrays distinct: the host version where the entries run it */
static int pc_gemver_distinct(long long n, double alpha, double beta, double *__restrict__ A, double *__restrict__ u1, double *__restrict__ v1, double *__restrict__ u2, double *__restrict__ v2, double *__restrict__ w, double *__restrict__ x, double *__restrict__ y, double *__restrict__ z) {
  __atomic_store_n(&pc_gemver_ran, 2, __ATOMIC_RELAXED);
  for (long pc_v1 = 0; (pc_v1 < n); pc_v1 += 1) {
    for (long pc_v3 = 0; (pc_v3 < n); pc_v3 += 1) {
      A[(pc_v1) * (n) + (pc_v3)] = ((A[(pc_v1) * (n) + (pc_v3)] + (u1[pc_v1] * v1[pc_v3])) + (u2[pc_v1] * v2[pc_v3]));
    }
  }
  for (long pc_v1 = 0; (pc_v1 < n); pc_v1 += 1) {
    for (long pc_v3 = 0; (pc_v3 < n); pc_v3 += 1) {
      x[pc_v1] = (x[pc_v1] + ((beta * A[(pc_v3) * (n) + (pc_v1)]) * y[pc_v3]));
    }
  }
  for (long pc_v1 = 0; (pc_v1 < n); pc_v1 += 1) {
    x[pc_v1] = (x[pc_v1] + z[pc_v1]);
  }
  for (long pc_v1 = 0; (pc_v1 < n); pc_v1 += 1) {
    for (long pc_v3 = 0; (pc_v3 < n); pc_v3 += 1) {
      w[pc_v1] = (w[pc_v1] + ((alpha * A[(pc_v1) * (n) + (pc_v3)]) * x[pc_v3]));
    }
  }
  return 0;
}

/* polycuda: where a call of region 'gemver' runs (gpu.cost.HostChoice): the original program on the host
   when its estimated time (ns) is below the kernels' (copies + launches + work) */
static int pc_gemver_host_version(long long n, int pc_on_device) {
  const int pc_force = __atomic_load_n(&pc_gemver_force, __ATOMIC_RELAXED);
  if (pc_force) return pc_force == 2;
  const double pc_instances = ((double)pc_max(0LL, (long long)(n)) * (double)pc_max(0LL, (long long)(n))) + ((double)pc_max(0LL, (long long)(n)) * (double)pc_max(0LL, (long long)(n))) + ((double)pc_max(0LL, (long long)(n))) + ((double)pc_max(0LL, (long long)(n)) * (double)pc_max(0LL, (long long)(n)));
  const double pc_launch_ns = (2000.0) + (2000.0) + (2000.0);
  const double pc_bytes = 2.0 * (double)pc_max(0LL, (long long)(n)) * (double)pc_max(0LL, (long long)(n)) * 8.0 + 1.0 * (double)pc_max(0LL, (long long)(n)) * 8.0 + 1.0 * (double)pc_max(0LL, (long long)(n)) * 8.0 + 1.0 * (double)pc_max(0LL, (long long)(n)) * 8.0 + 1.0 * (double)pc_max(0LL, (long long)(n)) * 8.0 + 2.0 * (double)pc_max(0LL, (long long)(n)) * 8.0 + 2.0 * (double)pc_max(0LL, (long long)(n)) * 8.0 + 1.0 * (double)pc_max(0LL, (long long)(n)) * 8.0 + 1.0 * (double)pc_max(0LL, (long long)(n)) * 8.0;
  const double pc_copies = 12.0;
  const double pc_copy_ns = pc_bytes / 50.0 + pc_copies * 8000.0;
  const double pc_pinned = ((double)pc_max(0LL, (long long)(n)) * (double)pc_max(0LL, (long long)(n)) * 8.0 >= 1048576.0 ? 1.0 : 0.0) + ((double)pc_max(0LL, (long long)(n)) * 8.0 >= 1048576.0 ? 1.0 : 0.0) + ((double)pc_max(0LL, (long long)(n)) * 8.0 >= 1048576.0 ? 1.0 : 0.0) + ((double)pc_max(0LL, (long long)(n)) * 8.0 >= 1048576.0 ? 1.0 : 0.0) + ((double)pc_max(0LL, (long long)(n)) * 8.0 >= 1048576.0 ? 1.0 : 0.0) + ((double)pc_max(0LL, (long long)(n)) * 8.0 >= 1048576.0 ? 1.0 : 0.0) + ((double)pc_max(0LL, (long long)(n)) * 8.0 >= 1048576.0 ? 1.0 : 0.0) + ((double)pc_max(0LL, (long long)(n)) * 8.0 >= 1048576.0 ? 1.0 : 0.0) + ((double)pc_max(0LL, (long long)(n)) * 8.0 >= 1048576.0 ? 1.0 : 0.0);
  const double pc_host_ns = pc_instances * 1.0 + (pc_on_device ? pc_copy_ns : 0.0);
  const double pc_gpu_ns = pc_launch_ns * 2.5 + pc_instances * 0.007 + (pc_on_device ? 0.0 : 15000.0 + pc_copy_ns + pc_pinned * 300000.0);
  return pc_host_ns < pc_gpu_ns;
}
/* polycuda: the host version on device arrays (pc_gemver_dev): copied out, run, the written ones copied back */
static int pc_gemver_dev_on_host(long long n, double alpha, double beta, double *A, double *u1, double *v1, double *u2, double *v2, double *w, double *x, double *y, double *z) {
  int err = 0;
  const size_t pc_bytes_A = (size_t)(n) * (size_t)(n) * sizeof(double);
  const size_t pc_bytes_u1 = (size_t)(n) * sizeof(double);
  const size_t pc_bytes_v1 = (size_t)(n) * sizeof(double);
  const size_t pc_bytes_u2 = (size_t)(n) * sizeof(double);
  const size_t pc_bytes_v2 = (size_t)(n) * sizeof(double);
  const size_t pc_bytes_w = (size_t)(n) * sizeof(double);
  const size_t pc_bytes_x = (size_t)(n) * sizeof(double);
  const size_t pc_bytes_y = (size_t)(n) * sizeof(double);
  const size_t pc_bytes_z = (size_t)(n) * sizeof(double);
  double *h_A = (double *)malloc(pc_bytes_A ? pc_bytes_A : 1);
  if (!h_A) err = (int)cudaErrorMemoryAllocation;
  double *h_u1 = (double *)malloc(pc_bytes_u1 ? pc_bytes_u1 : 1);
  if (!h_u1) err = (int)cudaErrorMemoryAllocation;
  double *h_v1 = (double *)malloc(pc_bytes_v1 ? pc_bytes_v1 : 1);
  if (!h_v1) err = (int)cudaErrorMemoryAllocation;
  double *h_u2 = (double *)malloc(pc_bytes_u2 ? pc_bytes_u2 : 1);
  if (!h_u2) err = (int)cudaErrorMemoryAllocation;
  double *h_v2 = (double *)malloc(pc_bytes_v2 ? pc_bytes_v2 : 1);
  if (!h_v2) err = (int)cudaErrorMemoryAllocation;
  double *h_w = (double *)malloc(pc_bytes_w ? pc_bytes_w : 1);
  if (!h_w) err = (int)cudaErrorMemoryAllocation;
  double *h_x = (double *)malloc(pc_bytes_x ? pc_bytes_x : 1);
  if (!h_x) err = (int)cudaErrorMemoryAllocation;
  double *h_y = (double *)malloc(pc_bytes_y ? pc_bytes_y : 1);
  if (!h_y) err = (int)cudaErrorMemoryAllocation;
  double *h_z = (double *)malloc(pc_bytes_z ? pc_bytes_z : 1);
  if (!h_z) err = (int)cudaErrorMemoryAllocation;
  if (!err) err = (int)cudaMemcpy(h_A, A, pc_bytes_A, cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(h_u1, u1, pc_bytes_u1, cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(h_v1, v1, pc_bytes_v1, cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(h_u2, u2, pc_bytes_u2, cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(h_v2, v2, pc_bytes_v2, cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(h_w, w, pc_bytes_w, cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(h_x, x, pc_bytes_x, cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(h_y, y, pc_bytes_y, cudaMemcpyDeviceToHost);
  if (!err) err = (int)cudaMemcpy(h_z, z, pc_bytes_z, cudaMemcpyDeviceToHost);
  if (!err) err = pc_gemver_distinct(n, alpha, beta, h_A, h_u1, h_v1, h_u2, h_v2, h_w, h_x, h_y, h_z);
  if (!err) err = (int)cudaMemcpy(A, h_A, pc_bytes_A, cudaMemcpyHostToDevice);
  if (!err) err = (int)cudaMemcpy(w, h_w, pc_bytes_w, cudaMemcpyHostToDevice);
  if (!err) err = (int)cudaMemcpy(x, h_x, pc_bytes_x, cudaMemcpyHostToDevice);
  free(h_A);
  free(h_u1);
  free(h_v1);
  free(h_u2);
  free(h_v2);
  free(h_w);
  free(h_x);
  free(h_y);
  free(h_z);
  return err;
}

extern "C" int pc_gemver_dev(long long n, double alpha, double beta, double *A, double *u1, double *v1, double *u2, double *v2, double *w, double *x, double *y, double *z) {
  if (pc_elements((long long)(n), (long long)(n)) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array A has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(n) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array u1 has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(n) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array v1 has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(n) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array u2 has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(n) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array v2 has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(n) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array w has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(n) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array x has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(n) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array y has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(n) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array z has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  { /* polycuda: the code below assumes distinct arrays (overlap_guard.py) */
    const size_t pc_span_A = (size_t)(n) * (size_t)(n) * sizeof(double);
    const size_t pc_span_u1 = (size_t)(n) * sizeof(double);
    const size_t pc_span_v1 = (size_t)(n) * sizeof(double);
    const size_t pc_span_u2 = (size_t)(n) * sizeof(double);
    const size_t pc_span_v2 = (size_t)(n) * sizeof(double);
    const size_t pc_span_w = (size_t)(n) * sizeof(double);
    const size_t pc_span_x = (size_t)(n) * sizeof(double);
    const size_t pc_span_y = (size_t)(n) * sizeof(double);
    const size_t pc_span_z = (size_t)(n) * sizeof(double);
    if (pc_overlap_ranges(A, pc_span_A, u1, pc_span_u1) ||
        pc_overlap_ranges(A, pc_span_A, v1, pc_span_v1) ||
        pc_overlap_ranges(A, pc_span_A, u2, pc_span_u2) ||
        pc_overlap_ranges(A, pc_span_A, v2, pc_span_v2) ||
        pc_overlap_ranges(A, pc_span_A, w, pc_span_w) ||
        pc_overlap_ranges(A, pc_span_A, x, pc_span_x) ||
        pc_overlap_ranges(A, pc_span_A, y, pc_span_y) ||
        pc_overlap_ranges(A, pc_span_A, z, pc_span_z) ||
        pc_overlap_ranges(u1, pc_span_u1, w, pc_span_w) ||
        pc_overlap_ranges(u1, pc_span_u1, x, pc_span_x) ||
        pc_overlap_ranges(v1, pc_span_v1, w, pc_span_w) ||
        pc_overlap_ranges(v1, pc_span_v1, x, pc_span_x) ||
        pc_overlap_ranges(u2, pc_span_u2, w, pc_span_w) ||
        pc_overlap_ranges(u2, pc_span_u2, x, pc_span_x) ||
        pc_overlap_ranges(v2, pc_span_v2, w, pc_span_w) ||
        pc_overlap_ranges(v2, pc_span_v2, x, pc_span_x) ||
        pc_overlap_ranges(w, pc_span_w, x, pc_span_x) ||
        pc_overlap_ranges(w, pc_span_w, y, pc_span_y) ||
        pc_overlap_ranges(w, pc_span_w, z, pc_span_z) ||
        pc_overlap_ranges(x, pc_span_x, y, pc_span_y) ||
        pc_overlap_ranges(x, pc_span_x, z, pc_span_z)) {
      fprintf(stderr, "polycuda: pc_gemver_dev: a written array shares memory with another array argument; nothing was run\n");
      return (int)cudaErrorInvalidValue;
    }
  }
  if (pc_gemver_host_version(n, 1)) return pc_gemver_dev_on_host(n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);
  __atomic_store_n(&pc_gemver_ran, 1, __ATOMIC_RELAXED);
  return pc_gemver_run(n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z, NULL);
}

extern "C" int pc_gemver(long long n, double alpha, double beta, double *A, double *u1, double *v1, double *u2, double *v2, double *w, double *x, double *y, double *z) {
  if (pc_elements((long long)(n), (long long)(n)) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array A has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(n) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array u1 has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(n) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array v1 has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(n) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array u2 has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(n) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array v2 has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(n) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array w has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(n) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array x has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(n) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array y has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  if ((long long)(n) > 2147483647LL) {
    fprintf(stderr, "polycuda: pc_gemver: array z has more than 2147483647 elements, more than the kernels' 32-bit indices reach; nothing was run\n");
    return (int)cudaErrorInvalidValue;
  }
  { /* polycuda: the code below assumes distinct arrays (overlap_guard.py) */
    const size_t pc_span_A = (size_t)(n) * (size_t)(n) * sizeof(double);
    const size_t pc_span_u1 = (size_t)(n) * sizeof(double);
    const size_t pc_span_v1 = (size_t)(n) * sizeof(double);
    const size_t pc_span_u2 = (size_t)(n) * sizeof(double);
    const size_t pc_span_v2 = (size_t)(n) * sizeof(double);
    const size_t pc_span_w = (size_t)(n) * sizeof(double);
    const size_t pc_span_x = (size_t)(n) * sizeof(double);
    const size_t pc_span_y = (size_t)(n) * sizeof(double);
    const size_t pc_span_z = (size_t)(n) * sizeof(double);
    if (pc_overlap_ranges(A, pc_span_A, u1, pc_span_u1) ||
        pc_overlap_ranges(A, pc_span_A, v1, pc_span_v1) ||
        pc_overlap_ranges(A, pc_span_A, u2, pc_span_u2) ||
        pc_overlap_ranges(A, pc_span_A, v2, pc_span_v2) ||
        pc_overlap_ranges(A, pc_span_A, w, pc_span_w) ||
        pc_overlap_ranges(A, pc_span_A, x, pc_span_x) ||
        pc_overlap_ranges(A, pc_span_A, y, pc_span_y) ||
        pc_overlap_ranges(A, pc_span_A, z, pc_span_z) ||
        pc_overlap_ranges(u1, pc_span_u1, w, pc_span_w) ||
        pc_overlap_ranges(u1, pc_span_u1, x, pc_span_x) ||
        pc_overlap_ranges(v1, pc_span_v1, w, pc_span_w) ||
        pc_overlap_ranges(v1, pc_span_v1, x, pc_span_x) ||
        pc_overlap_ranges(u2, pc_span_u2, w, pc_span_w) ||
        pc_overlap_ranges(u2, pc_span_u2, x, pc_span_x) ||
        pc_overlap_ranges(v2, pc_span_v2, w, pc_span_w) ||
        pc_overlap_ranges(v2, pc_span_v2, x, pc_span_x) ||
        pc_overlap_ranges(w, pc_span_w, x, pc_span_x) ||
        pc_overlap_ranges(w, pc_span_w, y, pc_span_y) ||
        pc_overlap_ranges(w, pc_span_w, z, pc_span_z) ||
        pc_overlap_ranges(x, pc_span_x, y, pc_span_y) ||
        pc_overlap_ranges(x, pc_span_x, z, pc_span_z)) {
      return pc_gemver_original(n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);
    }
  }
  if (pc_gemver_host_version(n, 0)) return pc_gemver_distinct(n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);
  __atomic_store_n(&pc_gemver_ran, 1, __ATOMIC_RELAXED);
  pc_host_guard pc_guard(&pc_gemver_state.lock);
  int err = 0;
  const size_t pc_bytes_A = (size_t)(n) * (size_t)(n) * sizeof(double);
  const size_t pc_bytes_u1 = (size_t)(n) * sizeof(double);
  const size_t pc_bytes_v1 = (size_t)(n) * sizeof(double);
  const size_t pc_bytes_u2 = (size_t)(n) * sizeof(double);
  const size_t pc_bytes_v2 = (size_t)(n) * sizeof(double);
  const size_t pc_bytes_w = (size_t)(n) * sizeof(double);
  const size_t pc_bytes_x = (size_t)(n) * sizeof(double);
  const size_t pc_bytes_y = (size_t)(n) * sizeof(double);
  const size_t pc_bytes_z = (size_t)(n) * sizeof(double);
  pc_host_pins<9> pc_pins;  /* unregisters at every return */
  pc_pins.pin(A, pc_bytes_A, 1048576);
  pc_pins.pin(u1, pc_bytes_u1, 1048576);
  pc_pins.pin(v1, pc_bytes_v1, 1048576);
  pc_pins.pin(u2, pc_bytes_u2, 1048576);
  pc_pins.pin(v2, pc_bytes_v2, 1048576);
  pc_pins.pin(w, pc_bytes_w, 1048576);
  pc_pins.pin(x, pc_bytes_x, 1048576);
  pc_pins.pin(y, pc_bytes_y, 1048576);
  pc_pins.pin(z, pc_bytes_z, 1048576);
  double *d_A = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_gemver_state, 0, pc_bytes_A, (void **)&d_A));
  double *d_u1 = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_gemver_state, 1, pc_bytes_u1, (void **)&d_u1));
  double *d_v1 = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_gemver_state, 2, pc_bytes_v1, (void **)&d_v1));
  double *d_u2 = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_gemver_state, 3, pc_bytes_u2, (void **)&d_u2));
  double *d_v2 = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_gemver_state, 4, pc_bytes_v2, (void **)&d_v2));
  double *d_w = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_gemver_state, 5, pc_bytes_w, (void **)&d_w));
  double *d_x = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_gemver_state, 6, pc_bytes_x, (void **)&d_x));
  double *d_y = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_gemver_state, 7, pc_bytes_y, (void **)&d_y));
  double *d_z = NULL;
  PC_CHECK((cudaError_t)pc_host_buffer(&pc_gemver_state, 8, pc_bytes_z, (void **)&d_z));
  if (!pc_gemver_state.at_exit) {
    pc_gemver_state.at_exit = 1;
    atexit(pc_gemver_at_exit);
  }
  PC_CHECK((cudaError_t)pc_host_streams(&pc_gemver_streams));
  pc_host_copies pc_copies = {pc_gemver_streams.copy};  /* waited for at every return */
  PC_CHECK(cudaMemcpyAsync(d_A, A, pc_bytes_A, cudaMemcpyHostToDevice, pc_gemver_streams.copy));
  PC_CHECK(cudaEventRecord(pc_gemver_streams.in[0], pc_gemver_streams.copy));
  PC_CHECK(cudaMemcpyAsync(d_u1, u1, pc_bytes_u1, cudaMemcpyHostToDevice, pc_gemver_streams.copy));
  PC_CHECK(cudaEventRecord(pc_gemver_streams.in[1], pc_gemver_streams.copy));
  PC_CHECK(cudaMemcpyAsync(d_v1, v1, pc_bytes_v1, cudaMemcpyHostToDevice, pc_gemver_streams.copy));
  PC_CHECK(cudaEventRecord(pc_gemver_streams.in[2], pc_gemver_streams.copy));
  PC_CHECK(cudaMemcpyAsync(d_u2, u2, pc_bytes_u2, cudaMemcpyHostToDevice, pc_gemver_streams.copy));
  PC_CHECK(cudaEventRecord(pc_gemver_streams.in[3], pc_gemver_streams.copy));
  PC_CHECK(cudaMemcpyAsync(d_v2, v2, pc_bytes_v2, cudaMemcpyHostToDevice, pc_gemver_streams.copy));
  PC_CHECK(cudaEventRecord(pc_gemver_streams.in[4], pc_gemver_streams.copy));
  PC_CHECK(cudaMemcpyAsync(d_x, x, pc_bytes_x, cudaMemcpyHostToDevice, pc_gemver_streams.copy));
  PC_CHECK(cudaEventRecord(pc_gemver_streams.in[6], pc_gemver_streams.copy));
  PC_CHECK(cudaMemcpyAsync(d_y, y, pc_bytes_y, cudaMemcpyHostToDevice, pc_gemver_streams.copy));
  PC_CHECK(cudaEventRecord(pc_gemver_streams.in[7], pc_gemver_streams.copy));
  PC_CHECK(cudaMemcpyAsync(d_z, z, pc_bytes_z, cudaMemcpyHostToDevice, pc_gemver_streams.copy));
  PC_CHECK(cudaEventRecord(pc_gemver_streams.in[8], pc_gemver_streams.copy));
  PC_CHECK(cudaMemcpyAsync(d_w, w, pc_bytes_w, cudaMemcpyHostToDevice, pc_gemver_streams.copy));
  PC_CHECK(cudaEventRecord(pc_gemver_streams.in[5], pc_gemver_streams.copy));
  void *const pc_host_ptrs[] = {(void *)A, (void *)u1, (void *)v1, (void *)u2, (void *)v2, (void *)w, (void *)x, (void *)y, (void *)z};
  void *const pc_dev_ptrs[] = {(void *)d_A, (void *)d_u1, (void *)d_v1, (void *)d_u2, (void *)d_v2, (void *)d_w, (void *)d_x, (void *)d_y, (void *)d_z};
  const size_t pc_bytes[] = {pc_bytes_A, pc_bytes_u1, pc_bytes_v1, pc_bytes_u2, pc_bytes_v2, pc_bytes_w, pc_bytes_x, pc_bytes_y, pc_bytes_z};
  const pc_overlap pc_ov = {pc_gemver_streams.copy, pc_gemver_streams.in, pc_gemver_streams.out, pc_host_ptrs, pc_dev_ptrs, pc_bytes};
  err = pc_gemver_run(n, alpha, beta, d_A, d_u1, d_v1, d_u2, d_v2, d_w, d_x, d_y, d_z, &pc_ov);
  return err;
}

extern "C" int pc_gemver_release(void) {
  const int err = pc_host_release(&pc_gemver_state);
  const int dev = pc_host_release(&pc_gemver_dev_state);
  { pc_host_guard guard(&pc_gemver_state.lock); pc_overlap_release(&pc_gemver_streams); }
  return err ? err : dev;
}

extern "C" void pc_gemver_fail(int err) {
  fprintf(stderr, "polycuda: pc_gemver failed: CUDA error %d (%s): %s\n", err,
          cudaGetErrorName((cudaError_t)err), cudaGetErrorString((cudaError_t)err));
  exit(EXIT_FAILURE);
}

/* polycuda: end of the region's own definitions */

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
