// polycuda CUDA emulator: runs a .cu file's kernels on the CPU, compiled as C++20 by g++.
//
// polycuda/runtime/emulate.py puts this header in front of a generated .cu file and rewrites
// every `k<<<grid, block[, shmem[, stream]]>>>(args);` into
// `pc_emu::launch(BARRIERS, grid, block, shmem, stream, k, args);`.
// A launch runs every block of the grid, one after the other in a seeded shuffled order, and
// every thread of each block: in a shuffled order, one after the other, when the kernel has no
// __syncthreads(); as fibers when it has, each fiber running to its next barrier, the order
// reshuffled at every barrier (threads that returned no longer count, as with bar.sync;
// threads waiting at different __syncthreads() are an error). Device memory is host memory; the runtime API keeps track of
// allocations so that a copy of the wrong kind or out of bounds fails as it would on a GPU.
// This file holds the launcher and device side; cuda_emu_api.h, which follows it, the host
// runtime API and the functions exported to polycuda.runtime.launch.
#ifndef PC_CUDA_EMU_H
#define PC_CUDA_EMU_H

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>
#if !defined(__x86_64__) || defined(PC_EMU_UCONTEXT)
#include <ucontext.h>
#define PC_EMU_USE_UCONTEXT 1
#endif

#define PC_EMULATE 1
#ifndef PC_EMU_SEED
#define PC_EMU_SEED 0
#endif

// ---- CUDA keywords --------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __constant__
#define __managed__
// Blocks of one launch run one after the other, so one buffer per variable suffices
// (per host thread: two host threads may run entries of one library at once).
#define __shared__ static thread_local
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))

// ---- built-in variables ---------------------------------------------------------------------
struct uint3 { unsigned int x, y, z; };
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};
static thread_local uint3 threadIdx, blockIdx;
static thread_local dim3 blockDim, gridDim;
static constexpr int warpSize = 32;

// ---- runtime API types and errors -----------------------------------------------------------
enum cudaError_t {
  cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9, cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21, cudaErrorIllegalAddress = 700,
  cudaErrorLaunchFailure = 719,
};
typedef cudaError_t cudaError;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4,
};
struct CUstream_st { int unused; };
typedef CUstream_st *cudaStream_t;
struct CUevent_st { double when_ms; };
typedef CUevent_st *cudaEvent_t;
#define cudaEventDefault 0
#define cudaEventDisableTiming 2
#define cudaStreamNonBlocking 1

namespace pc_emu {

constexpr size_t kStackBytes = 256 * 1024;
constexpr unsigned char kPoison = 0xFF;  // NaN in every float and double, -1 in integers

struct KernelError { int code; };

// pthread mutexes rather than <mutex>: the emulated build compiles in half the time.
struct Lock {
  pthread_mutex_t *m;
  explicit Lock(pthread_mutex_t *mutex) : m(mutex) { pthread_mutex_lock(m); }
  ~Lock() { pthread_mutex_unlock(m); }
};
static pthread_mutex_t g_mem_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_atomic_mutex = PTHREAD_MUTEX_INITIALIZER;

static double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static thread_local int tl_last_error = 0;    // cleared by cudaGetLastError
static thread_local int tl_sticky_error = 0;  // a failed kernel: every later call fails
static thread_local char tl_message[512];

static void set_error(int code, bool sticky, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tl_message, sizeof tl_message, fmt, ap);
  va_end(ap);
  tl_last_error = code;
  if (sticky) tl_sticky_error = code;
}

// A kernel-side failure: stops the launch, sticky like a fault on a GPU.
[[noreturn]] static void trap(int code, const char *what) {
  set_error(code, true, "%s (block (%u,%u,%u), thread (%u,%u,%u))", what, blockIdx.x,
            blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
  throw KernelError{code};
}

static int api_result(int code) {
  if (tl_sticky_error) return tl_sticky_error;
  if (code) tl_last_error = code;
  return code;
}

// ---- seeded order ---------------------------------------------------------------------------
static unsigned long long g_seed = PC_EMU_SEED;  // read and written with __atomic builtins
static unsigned long long g_seed_generation = 0;
static thread_local unsigned long long tl_seed_generation = ~0ull, tl_launches = 0;

static uint64_t mix(uint64_t z) {  // splitmix64: the same sequence with every libstdc++
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

struct Rng {
  uint64_t state;
  uint64_t below(uint64_t n) {  // uniform enough in [0, n), without a division
    state = mix(state);
    return (uint64_t)(((unsigned __int128)state * n) >> 64);
  }
  template <class T> void shuffle(std::vector<T> &v) {
    for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }
};

static Rng launch_rng() {
  unsigned long long generation = __atomic_load_n(&g_seed_generation, __ATOMIC_SEQ_CST);
  if (generation != tl_seed_generation) { tl_seed_generation = generation; tl_launches = 0; }
  return Rng{mix(__atomic_load_n(&g_seed, __ATOMIC_SEQ_CST) ^ mix(tl_launches++))};
}

// ---- device memory registry -----------------------------------------------------------------
// owned: from cudaMalloc; not owned: host arrays registered as device memory by the runtime.
struct Region { uintptr_t start; size_t bytes; bool owned; };
static std::vector<Region> g_device_mem;  // a handful of arrays: a linear scan is enough

static Region *find_region(uintptr_t start) {
  for (Region &r : g_device_mem)
    if (r.start == start) return &r;
  return nullptr;
}

static void add_region(uintptr_t start, size_t bytes, bool owned) {
  Lock lock(&g_mem_mutex);
  if (Region *r = find_region(start)) *r = Region{start, bytes, owned};
  else g_device_mem.push_back(Region{start, bytes, owned});
}

// Removes the region starting at `start` if its ownership matches; true if it did.
static bool remove_region(uintptr_t start, bool owned) {
  Lock lock(&g_mem_mutex);
  Region *r = find_region(start);
  if (!r || r->owned != owned) return false;
  *r = g_device_mem.back();
  g_device_mem.pop_back();
  return true;
}

// True if [p, p + bytes) lies inside one registered region.
static bool is_device_range(const void *p, size_t bytes) {
  Lock lock(&g_mem_mutex);
  uintptr_t a = (uintptr_t)p;
  for (const Region &r : g_device_mem)
    if (a >= r.start && a + bytes <= r.start + r.bytes) return true;
  return false;
}

static int check_side(const void *p, size_t bytes, bool device, const char *what) {
  if (!p) {
    set_error(cudaErrorInvalidValue, false, "%s: null pointer", what);
    return cudaErrorInvalidValue;
  }
  if (device != is_device_range(p, bytes)) {
    set_error(cudaErrorInvalidValue, false, device
              ? "%s: %zu bytes at %p are not inside one cudaMalloc allocation"
              : "%s: %p is device memory where host memory is expected", what, bytes, p);
    return cudaErrorInvalidValue;
  }
  return 0;
}

// ---- fibers ---------------------------------------------------------------------------------
enum FiberState { kReady, kAtBarrier, kDone };

struct Fiber {
  char *stack = nullptr;
  void *sp = nullptr;
  uint3 tid{};
  FiberState state = kReady;
  int barrier_line = 0;  // source line of the __syncthreads() it waits at
#ifdef PC_EMU_USE_UCONTEXT
  ucontext_t context;
#endif
};

struct Job { void (*fn)(void *); void *ctx; };

// The block being run on this host thread.
struct BlockRun {
  Job job{};
  bool fibers_on = false;
  bool failed = false;
  Fiber *current = nullptr;
  void *sched_sp = nullptr;
#ifdef PC_EMU_USE_UCONTEXT
  ucontext_t sched_context;
#endif
  std::vector<Fiber> fibers;
  int sync_count = 0, sync_result = 0, sync_arrived = 0;  // __syncthreads_count/_and/_or
  unsigned long long epoch = 0;  // one per block, for poisoning __shared__ buffers
  std::vector<std::pair<void *, unsigned long long>> shared_seen;
  std::vector<unsigned char> dynamic_shared;
  ~BlockRun() {
    for (Fiber &f : fibers) munmap(f.stack, kStackBytes);
  }
};
static thread_local BlockRun tl_run;

#ifndef PC_EMU_USE_UCONTEXT
// Saves the callee-saved registers, MXCSR and the x87 control word on the current stack,
// stores the stack pointer to *save, switches to `load` and restores the same from there.
extern "C" __attribute__((visibility("hidden"))) void pc_emu_switch(void **save, void *load);
__asm__(
    ".text\n.globl pc_emu_switch\n.hidden pc_emu_switch\n.type pc_emu_switch,@function\n"
    ".p2align 4\npc_emu_switch:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
    "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
    "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
    "  ret\n.size pc_emu_switch, .-pc_emu_switch\n");
#endif

static void resume(Fiber &f) {
  tl_run.current = &f;
  threadIdx = f.tid;
#ifdef PC_EMU_USE_UCONTEXT
  swapcontext(&tl_run.sched_context, &f.context);
#else
  pc_emu_switch(&tl_run.sched_sp, f.sp);
#endif
}

static void yield_to_scheduler(Fiber &f) {
#ifdef PC_EMU_USE_UCONTEXT
  swapcontext(&f.context, &tl_run.sched_context);
#else
  pc_emu_switch(&f.sp, tl_run.sched_sp);
#endif
}

[[noreturn]] static void fiber_main() {
  Fiber &f = *tl_run.current;
  try {
    tl_run.job.fn(tl_run.job.ctx);
  } catch (const KernelError &) {
    tl_run.failed = true;
  }
  f.state = kDone;
  yield_to_scheduler(f);
  __builtin_unreachable();
}

static void prepare(Fiber &f) {
  f.state = kReady;
#ifdef PC_EMU_USE_UCONTEXT
  getcontext(&f.context);
  f.context.uc_stack.ss_sp = f.stack;
  f.context.uc_stack.ss_size = kStackBytes;
  f.context.uc_link = nullptr;
  makecontext(&f.context, (void (*)())fiber_main, 0);
#else
  // The frame pc_emu_switch pops: MXCSR/FPU word, r15..r12, rbx, rbp, then `ret` into
  // fiber_main with the stack aligned as after a call (rsp = 8 mod 16).
  void **sp = (void **)(((uintptr_t)f.stack + kStackBytes) & ~(uintptr_t)15);
  *--sp = nullptr;
  *--sp = (void *)&fiber_main;
  for (int i = 0; i < 6; ++i) *--sp = nullptr;
  --sp;
  uint32_t mxcsr = 0x1F80;
  uint16_t fpu_cw = 0x037F;
  memcpy(sp, &mxcsr, 4);
  memcpy((char *)sp + 4, &fpu_cw, 2);
  f.sp = sp;
#endif
}

static bool ensure_fibers(size_t n) {
  while (tl_run.fibers.size() < n) {
    Fiber f;
    void *mem = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) {
      set_error(cudaErrorMemoryAllocation, true, "no memory for %zu fiber stacks", n);
      return false;
    }
    mprotect(mem, 4096, PROT_NONE);  // guard page: a stack overflow faults at once
    f.stack = (char *)mem;
    tl_run.fibers.push_back(f);
  }
  return true;
}

static uint3 unflatten(uint64_t i, dim3 d) {
  return uint3{(unsigned)(i % d.x), (unsigned)(i / d.x % d.y),
               (unsigned)(i / ((uint64_t)d.x * d.y))};
}

// ---- barriers -------------------------------------------------------------------------------
// As bar.sync in PTX: waits until every thread of the block that has not exited arrives.
// Threads that wait at different __syncthreads() (told apart by source line) are an error.
// Returns the number of arrived threads whose predicate was nonzero.
static int barrier(int predicate, int line) {
  if (!tl_run.fibers_on) {
    if ((uint64_t)blockDim.x * blockDim.y * blockDim.z == 1) {
      tl_run.sync_arrived = 1;
      return predicate != 0;
    }
    trap(cudaErrorLaunchFailure, "__syncthreads() in a kernel the emulator ran without "
         "fibers (polycuda.runtime.emulate did not see the barrier in its source)");
  }
  Fiber &f = *tl_run.current;
  tl_run.sync_count += predicate != 0;
  f.state = kAtBarrier;
  f.barrier_line = line;
  yield_to_scheduler(f);
  return tl_run.sync_result;
}

static int barrier_and(int predicate, int line) {
  int count = barrier(predicate, line);
  return count == tl_run.sync_arrived;
}

// False (error set) if the threads waiting in this phase are at different __syncthreads().
static bool same_barrier(unsigned n) {
  const Fiber *first = nullptr;
  for (unsigned t = 0; t < n; ++t) {
    const Fiber &f = tl_run.fibers[t];
    if (f.state != kAtBarrier) continue;
    if (!first) first = &f;
    if (f.barrier_line != first->barrier_line) {
      set_error(cudaErrorLaunchFailure, true, "threads of block (%u,%u,%u) wait at different "
                "__syncthreads() calls: thread (%u,%u,%u) at line %d, thread (%u,%u,%u) at "
                "line %d (a barrier in divergent code)", blockIdx.x, blockIdx.y, blockIdx.z,
                first->tid.x, first->tid.y, first->tid.z, first->barrier_line, f.tid.x, f.tid.y,
                f.tid.z, f.barrier_line);
      return false;
    }
  }
  return true;
}

// Runs the threads of one block as fibers; false if a thread failed.
static bool run_block_fibers(unsigned n, Rng &rng) {
  if (!ensure_fibers(n)) return false;
  std::vector<unsigned> order(n);
  for (unsigned t = 0; t < n; ++t) {
    order[t] = t;
    tl_run.fibers[t].tid = unflatten(t, blockDim);
    prepare(tl_run.fibers[t]);
  }
  for (;;) {
    rng.shuffle(order);
    unsigned arrived = 0;
    for (unsigned t : order) {
      Fiber &f = tl_run.fibers[t];
      if (f.state != kReady) continue;
      resume(f);
      if (tl_run.failed) return false;
      arrived += f.state == kAtBarrier;
    }
    if (arrived == 0) return true;
    if (!same_barrier(n)) return false;
    for (unsigned t = 0; t < n; ++t)
      if (tl_run.fibers[t].state == kAtBarrier) tl_run.fibers[t].state = kReady;
    tl_run.sync_result = tl_run.sync_count;
    tl_run.sync_arrived = (int)arrived;
    tl_run.sync_count = 0;
  }
}

// Runs the threads of one block one after the other; false if a thread failed.
static bool run_block_sequential(unsigned n, Rng &rng) {
  std::vector<unsigned> order(n);
  for (unsigned t = 0; t < n; ++t) order[t] = t;
  rng.shuffle(order);
  try {
    for (unsigned t : order) {
      threadIdx = unflatten(t, blockDim);
      tl_run.job.fn(tl_run.job.ctx);
    }
  } catch (const KernelError &) {
    return false;
  }
  return true;
}

// Dynamic shared memory a kernel may use: 48 KiB unless cudaFuncSetAttribute raised it.
constexpr size_t kDefaultDynamicShared = 48 * 1024, kMaxDynamicShared = 227 * 1024;
struct KernelLimit { const void *kernel; size_t dynamic_shared; };
static std::vector<KernelLimit> g_kernel_limits;

static size_t dynamic_shared_limit(const void *kernel) {
  Lock lock(&g_mem_mutex);
  for (const KernelLimit &k : g_kernel_limits)
    if (k.kernel == kernel) return k.dynamic_shared;
  return kDefaultDynamicShared;
}

static void set_dynamic_shared_limit(const void *kernel, size_t bytes) {
  Lock lock(&g_mem_mutex);
  for (KernelLimit &k : g_kernel_limits)
    if (k.kernel == kernel) { k.dynamic_shared = bytes; return; }
  g_kernel_limits.push_back(KernelLimit{kernel, bytes});
}

// A bad configuration fails the launch with cudaErrorInvalidValue, as CUDA 13 on an H100 does.
static int check_config(dim3 grid, dim3 block, size_t shmem, const void *kernel) {
  uint64_t threads = (uint64_t)block.x * block.y * block.z;
  bool bad_block = threads == 0 || threads > 1024 || block.z > 64;
  bool bad_grid = grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 2147483647u ||
                  grid.y > 65535 || grid.z > 65535;
  size_t limit = dynamic_shared_limit(kernel);
  if (bad_block || bad_grid || shmem > limit) {
    set_error(cudaErrorInvalidValue, false, "invalid launch configuration: grid (%u,%u,%u), "
              "block (%u,%u,%u), %zu bytes of dynamic shared memory (limit %zu)", grid.x,
              grid.y, grid.z, block.x, block.y, block.z, shmem, limit);
    return cudaErrorInvalidValue;
  }
  return 0;
}

constexpr uint64_t kMaxBlocks = 1ull << 24;  // the shuffled order is materialized

static int run_grid(bool barriers, dim3 grid, dim3 block, size_t shmem, const void *kernel,
                    Job job) {
  if (tl_sticky_error) return tl_sticky_error;
  if (int err = check_config(grid, block, shmem, kernel)) return err;
  Rng rng = launch_rng();
  uint64_t nblocks = (uint64_t)grid.x * grid.y * grid.z;
  if (nblocks > kMaxBlocks) {
    set_error(cudaErrorInvalidValue, false, "grid (%u,%u,%u) has more blocks than the "
              "emulator runs (%llu)", grid.x, grid.y, grid.z, (unsigned long long)kMaxBlocks);
    return cudaErrorInvalidValue;
  }
  unsigned nthreads = block.x * block.y * block.z;
  std::vector<uint64_t> order(nblocks);
  for (uint64_t b = 0; b < nblocks; ++b) order[b] = b;
  rng.shuffle(order);
  tl_run.job = job;
  tl_run.fibers_on = barriers && nthreads > 1;
  tl_run.failed = false;
  tl_run.dynamic_shared.resize(shmem);
  gridDim = grid;
  blockDim = block;
  for (uint64_t b : order) {
    blockIdx = unflatten(b, grid);
    ++tl_run.epoch;
    memset(tl_run.dynamic_shared.data(), kPoison, shmem);
    tl_run.sync_count = 0;
    bool ok = tl_run.fibers_on ? run_block_fibers(nthreads, rng)
                               : run_block_sequential(nthreads, rng);
    if (!ok) return tl_sticky_error ? tl_sticky_error : cudaErrorLaunchFailure;
  }
  return 0;
}

// `k<<<grid, block, shmem, stream>>>(args...)`: arguments converted to the kernel's parameter
// types once, as a launch does; each thread gets its own copies.
template <class... P, class... A>
static void launch(bool barriers, dim3 grid, dim3 block, size_t shmem, cudaStream_t,
                   void (*kernel)(P...), A &&...args) {
  struct Call {
    void (*kernel)(P...);
    std::tuple<std::decay_t<P>...> args;
  } call{kernel, std::tuple<std::decay_t<P>...>(std::forward<A>(args)...)};
  auto thunk = [](void *ctx) {
    Call &c = *static_cast<Call *>(ctx);
    std::apply(c.kernel, c.args);
  };
  Job job{thunk, &call};
  int err;
  try {  // nothing may escape into the extern "C" entry
    err = run_grid(barriers, grid, block, shmem, reinterpret_cast<const void *>(kernel), job);
  } catch (...) {
    set_error(cudaErrorMemoryAllocation, true, "the emulator ran out of host memory");
    err = cudaErrorMemoryAllocation;
  }
  if (err) tl_last_error = err;
}

// `extern __shared__ T name[];`: the launch's dynamic shared memory.
static inline void *dynamic_shared() { return tl_run.dynamic_shared.data(); }

// After `__shared__ T name[...];`: poisons the buffer once per block, so that reading an
// element no thread of this block wrote gives NaN / -1 rather than an old block's value.
static inline void shared_init(void *p, size_t bytes) {
  for (auto &seen : tl_run.shared_seen) {
    if (seen.first == p) {
      if (seen.second != tl_run.epoch) { seen.second = tl_run.epoch; memset(p, kPoison, bytes); }
      return;
    }
  }
  tl_run.shared_seen.push_back({p, tl_run.epoch});
  memset(p, kPoison, bytes);
}

}  // namespace pc_emu

// ---- device functions -----------------------------------------------------------------------
// Macros: each barrier knows its source line (kept by #line), to tell barriers apart.
#define __syncthreads() pc_emu::barrier(0, __LINE__)
#define __syncthreads_count(p) pc_emu::barrier((p), __LINE__)
#define __syncthreads_and(p) pc_emu::barrier_and((p), __LINE__)
#define __syncthreads_or(p) (pc_emu::barrier((p), __LINE__) != 0)
static inline void __threadfence() {}
static inline void __threadfence_block() {}
[[noreturn]] static inline void __trap() { pc_emu::trap(cudaErrorLaunchFailure, "__trap()"); }
template <class T> static inline T __ldg(const T *p) { return *p; }

template <class A, class B>
static inline std::common_type_t<A, B> min(A a, B b) {
  std::common_type_t<A, B> x = a, y = b;
  return y < x ? y : x;
}
template <class A, class B>
static inline std::common_type_t<A, B> max(A a, B b) {
  std::common_type_t<A, B> x = a, y = b;
  return x < y ? y : x;
}
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
static inline float __fdividef(float a, float b) { return a / b; }
// glibc declares these names itself: macros, so that kernels get the standard functions.
#define __expf expf
#define __logf logf
#define __sinf sinf
#define __cosf cosf
#define __powf powf
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __ffs(int x) { return __builtin_ffs(x); }

// Atomics: kernels of one launch never run concurrently; the mutex guards host threads.
#define PC_EMU_ATOMIC(name, update)                                      \
  template <class T, class U> static inline T name(T *p, U v) {          \
    pc_emu::Lock lock(&pc_emu::g_atomic_mutex);                           \
    T old = *p;                                                          \
    *p = (update);                                                       \
    return old;                                                          \
  }
PC_EMU_ATOMIC(atomicAdd, (T)(old + (T)v))
PC_EMU_ATOMIC(atomicSub, (T)(old - (T)v))
PC_EMU_ATOMIC(atomicExch, (T)v)
PC_EMU_ATOMIC(atomicMin, ((T)v < old ? (T)v : old))
PC_EMU_ATOMIC(atomicMax, (old < (T)v ? (T)v : old))
PC_EMU_ATOMIC(atomicAnd, (T)(old & (T)v))
PC_EMU_ATOMIC(atomicOr, (T)(old | (T)v))
PC_EMU_ATOMIC(atomicXor, (T)(old ^ (T)v))
PC_EMU_ATOMIC(atomicInc, (old >= (T)v ? (T)0 : (T)(old + 1)))
PC_EMU_ATOMIC(atomicDec, ((old == 0 || old > (T)v) ? (T)v : (T)(old - 1)))
#undef PC_EMU_ATOMIC
template <class T, class U, class V> static inline T atomicCAS(T *p, U compare, V v) {
  pc_emu::Lock lock(&pc_emu::g_atomic_mutex);
  T old = *p;
  if (old == (T)compare) *p = (T)v;
  return old;
}

#endif  // PC_CUDA_EMU_H
