// polycuda CUDA emulator, part 2: device functions (barrier macros, cooperative groups, math
// intrinsics, atomics). Follows cuda_emu.h (see there); cuda_emu_api.h follows it. The
// barriers and the shuffle's exchange are defined in cuda_emu_runtime.cpp.
#ifndef PC_CUDA_EMU_DEVICE_H
#define PC_CUDA_EMU_DEVICE_H

// ---- device functions -----------------------------------------------------------------------
// Macros: each barrier knows its source line (kept by #line), to tell barriers apart.
#define __syncthreads() pc_emu::barrier(0, __LINE__)
#define __syncthreads_count(p) pc_emu::barrier((p), __LINE__)
#define __syncthreads_and(p) pc_emu::barrier_and((p), __LINE__)
#define __syncthreads_or(p) (pc_emu::barrier((p), __LINE__) != 0)

// Cooperative groups: the grid (its sync() is grid-wide only under cudaLaunchCooperativeKernel)
// and the block. sync() takes the caller's line (__builtin_LINE()) for error messages.
namespace cooperative_groups {
class grid_group {
 public:
  bool is_valid() const { return pc_emu::cooperative_running(); }
  void sync(int line = __builtin_LINE()) const { pc_emu::grid_barrier(line); }
  static unsigned long long num_blocks() {
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
  }
  static unsigned long long block_rank() {
    return ((unsigned long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  }
  static unsigned long long num_threads() {
    return num_blocks() * blockDim.x * blockDim.y * blockDim.z;
  }
  static unsigned long long size() { return num_threads(); }
  static unsigned long long thread_rank() {
    return block_rank() * blockDim.x * blockDim.y * blockDim.z +
           (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  }
  static dim3 group_dim() { return gridDim; }
  static dim3 dim_blocks() { return gridDim; }
  static dim3 block_index() { return blockIdx; }
};
static inline grid_group this_grid() { return grid_group(); }

class thread_block {
 public:
  void sync(int line = __builtin_LINE()) const { pc_emu::barrier(0, line); }
  static unsigned num_threads() { return blockDim.x * blockDim.y * blockDim.z; }
  static unsigned size() { return num_threads(); }
  static unsigned thread_rank() {
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  }
  static dim3 group_index() { return blockIdx; }
  static dim3 thread_index() { return threadIdx; }
  static dim3 group_dim() { return blockDim; }
  static dim3 dim_threads() { return blockDim; }
};
static inline thread_block this_thread_block() { return thread_block(); }

template <class Group> static inline void sync(const Group &g, int line = __builtin_LINE()) {
  g.sync(line);
}
}  // namespace cooperative_groups
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

// Warp shuffles (__shfl_xor_sync): each thread leaves its value in a slot, waits at a block
// barrier, reads its partner lane's slot, and waits at a second barrier before the slots are
// used again. A GPU waits for the warp's lanes only; the emulator waits for the whole block, so
// a kernel must reach each shuffle with every thread of its block (control that is uniform over
// the block, as polycuda's dual reduction kernels have): a shuffle in divergent code fails as a
// __syncthreads() there does. The mask is not checked (polycuda's kernels pass every lane).
namespace pc_emu {
template <class T> static inline T shfl_xor(unsigned mask, T v, int lane_mask, int line) {
  static_assert(sizeof(T) <= sizeof(unsigned long long), "a shuffled value of at most 8 bytes");
  (void)mask;
  unsigned long long bits = 0;
  memcpy(&bits, &v, sizeof(T));
  bits = shuffle_xor(bits, lane_mask, line);
  T out;
  memcpy(&out, &bits, sizeof(T));
  return out;
}
}  // namespace pc_emu
#define __shfl_xor_sync(mask, v, lane_mask) pc_emu::shfl_xor((mask), (v), (lane_mask), __LINE__)

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

#endif  // PC_CUDA_EMU_DEVICE_H
