// polycuda CUDA emulator: runs a .cu file's kernels on the CPU, compiled as C++20 by g++.
//
// polycuda/runtime/emulate.py puts this header in front of a generated .cu file and rewrites
// every `k<<<grid, block[, shmem[, stream]]>>>(args);` into
// `pc_emu::launch(BARRIERS, grid, block, shmem, stream, k, args);`.
// A launch runs the blocks of the grid in a seeded shuffled order. When the kernel has no
// __syncthreads(), one block after the other, the threads of each in a shuffled order, one
// after the other; when it has, in waves of as many blocks as the emulated device holds at
// once, every thread of a wave a fiber of one scheduler, a ready fiber drawn at random running
// to its next barrier at each step (threads that returned no longer count, as with bar.sync;
// threads waiting at different __syncthreads() are an error): the blocks of a wave interleave,
// as resident blocks do on a GPU.
// `cudaLaunchCooperativeKernel((void *)k, ...)` becomes `pc_emu::launch_cooperative(k, ...)`:
// every thread of every block is a fiber of one such scheduler, so blocks interleave and drift
// apart, and cooperative_groups' grid.sync() is a real grid-wide barrier (run_cooperative).
// Device memory is host memory; the runtime API keeps track of allocations so that a copy of
// the wrong kind or out of bounds fails as it would on a GPU.
//
// This file declares the launcher, fibers and barriers; cuda_emu_device.h, which follows it,
// holds the device functions; cuda_emu_api.h, last, declares the host runtime API. What is not
// a template is defined in cuda_emu_runtime.cpp, which polycuda.runtime.build compiles once
// into an object that every emulated library links: a generated file compiles its own code
// only. Each library gets its own copy of the runtime's state (allocations, errors, seed), as
// each loaded CUDA library has its own; the names are hidden, so two loaded libraries never
// bind to each other's.
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
#include <tuple>
#include <type_traits>
#include <utility>

#define PC_EMULATE 1
#ifndef PC_EMU_SMS  // SMs of the emulated device: bounds the blocks of a cooperative launch
#define PC_EMU_SMS 2
#endif

// Everything the emulator declares binds inside its own library (see above); the generated
// code after the headers keeps the default visibility. cuda_emu_api.h pops this.
#pragma GCC visibility push(hidden)

// ---- CUDA keywords --------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __constant__
#define __managed__
// One buffer per variable (per host thread: two host threads may run entries of one library
// at once); where blocks interleave (a wave of a launch with barriers, a cooperative launch),
// each block's contents are kept aside while another block runs.
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
// Set by the runtime for the running thread. constinit: initialized without code, so a kernel
// reads them directly rather than through a thread-local init wrapper.
extern thread_local constinit uint3 threadIdx, blockIdx;
extern thread_local constinit dim3 blockDim, gridDim;
static constexpr int warpSize = 32;

// ---- runtime API types and errors -----------------------------------------------------------
enum cudaError_t {
  cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9, cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21, cudaErrorInvalidDevice = 101,
  cudaErrorIllegalAddress = 700, cudaErrorHostMemoryAlreadyRegistered = 712,
  cudaErrorHostMemoryNotRegistered = 713, cudaErrorLaunchFailure = 719,
  cudaErrorCooperativeLaunchTooLarge = 720,
};
typedef cudaError_t cudaError;
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4,
};
// Streams and events (defined in cuda_emu_runtime.cpp): a stream made with
// cudaStreamNonBlocking defers its work (copies, event records) until something waits for it
// (cudaStreamWaitEvent or cudaEventSynchronize on one of its events, a synchronize) and then
// runs it in order, except a copy to the host, which runs at once with the work queued before
// it: a copy in arrives as late as a GPU may deliver it, a copy out reads the device as early
// as a GPU may, so a wait missing before either changes the results. Other streams run their
// work at once, in call order.
struct CUstream_st;
typedef CUstream_st *cudaStream_t;
struct CUevent_st;
typedef CUevent_st *cudaEvent_t;
#define cudaEventDefault 0
#define cudaEventDisableTiming 2
#define cudaStreamNonBlocking 1
#define cudaHostRegisterDefault 0
#define cudaHostRegisterPortable 1
#define cudaHostRegisterMapped 2
#define cudaHostRegisterReadOnly 8

namespace pc_emu {

// The emulated device: an H100's limits per block, but few SMs of 1024 threads, so that a
// cooperative grid (all of it resident at once) is at most kSms * 1024 fibers.
constexpr int kSms = PC_EMU_SMS, kThreadsPerSm = 1024, kBlocksPerSm = 32;
constexpr size_t kSharedPerSm = 228 * 1024;
// Dynamic shared memory a kernel may be allowed (cudaFuncSetAttribute).
constexpr size_t kMaxDynamicShared = 227 * 1024;

// pthread mutexes rather than <mutex>: the emulated build compiles in half the time.
struct Lock {
  pthread_mutex_t *m;
  explicit Lock(pthread_mutex_t *mutex) : m(mutex) { pthread_mutex_lock(m); }
  ~Lock() { pthread_mutex_unlock(m); }
};
extern pthread_mutex_t g_atomic_mutex;  // atomics (cuda_emu_device.h)

// ---- errors ---------------------------------------------------------------------------------
// The last error of this host thread (cudaGetLastError clears it) and its message; a failed
// kernel's error is sticky: every later call fails with it.
void set_error(int code, bool sticky, const char *fmt, ...);
// A kernel-side failure: stops the launch, sticky like a fault on a GPU.
[[noreturn]] void trap(int code, const char *what);
// `code` as an API call's result: the sticky error if there is one; a failure is the last error.
int api_result(int code);
void set_last_error(int code);

// ---- barriers (cuda_emu_device.h's macros) ---------------------------------------------------
// As bar.sync in PTX: waits until every thread of the block that has not exited arrives.
// Threads that wait at different __syncthreads() (told apart by source line) are an error.
// Returns the number of arrived threads whose predicate was nonzero.
int barrier(int predicate, int line);
int barrier_and(int predicate, int line);
// A thread that spin-waits for another (a flag in global memory) yields to the scheduler at
// each test, as a GPU's other warps go on while one spins: fibers run cooperatively, and a
// spinning fiber that never yielded would hang the host thread. Only under fibers (a kernel
// that may yield runs with them, polycuda.runtime.emulate).
void spin_yield();
// cooperative_groups' grid.sync(): waits for every thread of the grid that has not exited
// (thread (0,0,0) of each block must not have: a GPU would hang).
void grid_barrier(int line);
bool cooperative_running();  // in a cudaLaunchCooperativeKernel launch
// __shfl_xor_sync's exchange (cuda_emu_device.h): this thread's 8 bytes for its partner's.
unsigned long long shuffle_xor(unsigned long long bits, int lane_mask, int line);

// ---- launches -------------------------------------------------------------------------------
struct Job { void (*fn)(void *); void *ctx; };
// A launch of `job` on every thread of the grid (see the top of this file); 0 or the error.
int run_grid(bool barriers, dim3 grid, dim3 block, size_t shmem, const void *kernel, Job job);
// A cooperative launch: the grid must fit on the device at once (else
// cudaErrorCooperativeLaunchTooLarge, as on a GPU); all its threads are fibers of one
// scheduler, so blocks interleave at every barrier and grid.sync() waits for all.
int run_cooperative(dim3 grid, dim3 block, size_t shmem, const void *kernel, Job job);
// The error (or 0) a cudaLaunchCooperativeKernel call fails with before it runs.
int cooperative_check(bool missing_args, size_t nparams);
// The blocks of `threads` threads using `shmem` bytes of dynamic shared memory that one SM
// holds at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor).
int blocks_per_sm(long long threads, size_t shmem, const void *kernel);
void set_dynamic_shared_limit(const void *kernel, size_t bytes);

// A kernel and its arguments, converted to its parameter types once, as a launch does; each
// thread gets its own copies.
template <class... P> struct KernelCall {
  void (*kernel)(P...);
  std::tuple<std::decay_t<P>...> args;
};

// `run(job)` for a job calling `call`; nothing may escape into the extern "C" entry.
template <class... P, class Run> static int run_call(KernelCall<P...> &call, Run run) {
  auto thunk = [](void *ctx) {
    KernelCall<P...> &c = *static_cast<KernelCall<P...> *>(ctx);
    std::apply(c.kernel, c.args);
  };
  try {
    return run(Job{thunk, &call});
  } catch (...) {
    set_error(cudaErrorMemoryAllocation, true, "the emulator ran out of host memory");
    return cudaErrorMemoryAllocation;
  }
}

// `k<<<grid, block, shmem, stream>>>(args...)`.
template <class... P, class... A>
static void launch(bool barriers, dim3 grid, dim3 block, size_t shmem, cudaStream_t,
                   void (*kernel)(P...), A &&...args) {
  KernelCall<P...> call{kernel, std::tuple<std::decay_t<P>...>(std::forward<A>(args)...)};
  int err = run_call(call, [&](Job job) {
    return run_grid(barriers, grid, block, shmem, reinterpret_cast<const void *>(kernel), job);
  });
  if (err) set_last_error(err);
}

// `cudaLaunchCooperativeKernel((void *)k, grid, block, args, shmem, stream)`: args[i] points
// at the i-th argument, an object of the type of k's i-th parameter (as on a GPU).
template <class... P>
static cudaError_t launch_cooperative(void (*kernel)(P...), dim3 grid, dim3 block, void **args,
                                      size_t shmem = 0, cudaStream_t = nullptr) {
  if (int err = cooperative_check(!args && sizeof...(P) > 0, sizeof...(P)))
    return (cudaError_t)err;
  auto unpack = [args]<size_t... I>(std::index_sequence<I...>) {
    return std::tuple<std::decay_t<P>...>(*static_cast<std::decay_t<P> *>(args[I])...);
  };
  KernelCall<P...> call{kernel, unpack(std::index_sequence_for<P...>{})};
  int err = run_call(call, [&](Job job) {
    return run_cooperative(grid, block, shmem, reinterpret_cast<const void *>(kernel), job);
  });
  if (err) set_last_error(err);
  return (cudaError_t)err;
}

// ---- shared memory --------------------------------------------------------------------------
// `extern __shared__ T name[];`: the dynamic shared memory of the running block.
void *dynamic_shared();
// After `__shared__ T name[...];`: poisons the buffer once per block, so that reading an
// element no thread of this block wrote gives NaN / -1 rather than an old block's value.
void shared_init(void *p, size_t bytes);
// `__shared__` variables at namespace scope, for cooperative launches: each registers a
// function returning its address on the calling host thread (the variable is thread_local).
struct SharedSpan { void *p; size_t bytes; };
typedef SharedSpan (*SharedGetter)();
void add_namespace_shared(SharedGetter getter);
struct SharedAtNamespace {
  explicit SharedAtNamespace(SharedGetter getter) { add_namespace_shared(getter); }
};

}  // namespace pc_emu

#endif  // PC_CUDA_EMU_H
