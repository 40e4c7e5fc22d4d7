// polycuda CUDA emulator, part 3: the CUDA runtime API on host memory, and the functions
// polycuda.runtime.launch calls. Follows cuda_emu.h (see there) and cuda_emu_device.h.
#ifndef PC_CUDA_EMU_API_H
#define PC_CUDA_EMU_API_H

// The emulator is there to test the kernels: a region's entries run them where its host
// version's rule would pick the host (codegen/host_choice.py: 0 there lets the rule decide),
// unless pc_<name>_force says otherwise (Program.verify runs each version; tests of the rule
// set it to 0).
#define PC_HOST_VERSION_FORCE 1

// ---- runtime API ----------------------------------------------------------------------------
static inline cudaError_t cudaMalloc(void **p, size_t bytes) {
  if (pc_emu::tl_sticky_error) return (cudaError_t)pc_emu::tl_sticky_error;
  *p = malloc(bytes ? bytes : 1);
  if (!*p) return (cudaError_t)pc_emu::api_result(cudaErrorMemoryAllocation);
  memset(*p, pc_emu::kPoison, bytes);  // never-written device memory reads as NaN / -1
  pc_emu::add_region((uintptr_t)*p, bytes, true);
  return cudaSuccess;
}
template <class T> static inline cudaError_t cudaMalloc(T **p, size_t bytes) {
  return cudaMalloc((void **)p, bytes);
}
static inline cudaError_t cudaFree(void *p) {
  if (!p) return cudaSuccess;
  if (pc_emu::remove_region((uintptr_t)p, true)) {
    free(p);
    return (cudaError_t)pc_emu::tl_sticky_error;
  }
  pc_emu::set_error(cudaErrorInvalidDevicePointer, false, "cudaFree(%p): not a device "
                    "allocation", p);
  return (cudaError_t)pc_emu::api_result(cudaErrorInvalidDevicePointer);
}
static inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes,
                                     cudaMemcpyKind kind) {
  if (pc_emu::tl_sticky_error) return (cudaError_t)pc_emu::tl_sticky_error;
  if (bytes == 0) return cudaSuccess;
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault)
    return (cudaError_t)pc_emu::api_result(cudaErrorInvalidMemcpyDirection);
  if (kind != cudaMemcpyDefault) {
    bool dst_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
    bool src_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
    int err = pc_emu::check_side(dst, bytes, dst_dev, "cudaMemcpy destination");
    if (!err) err = pc_emu::check_side(src, bytes, src_dev, "cudaMemcpy source");
    if (err) return (cudaError_t)pc_emu::api_result(err);
  }
  memmove(dst, src, bytes);
  return cudaSuccess;
}
namespace pc_emu {
// The deferred streams alive (cudaDeviceSynchronize runs their work), and the lock of every
// deferred stream's queue: entries of two regions may run in two threads at once.
static pthread_mutex_t g_streams_lock = PTHREAD_MUTEX_INITIALIZER;
static std::vector<CUstream_st *> g_streams;
// Runs the deferred work of stream `s` in order, up to and including the record of `upto`
// (all of it when NULL). The copies were checked when they were queued. Under g_streams_lock.
static inline void flush_stream(CUstream_st *s, CUevent_st *upto) {
  size_t k = 0;
  while (k < s->pending.size()) {
    const StreamOp op = s->pending[k++];
    if (op.event) {
      op.event->when_ms = now_ms();
      op.event->pending_in = nullptr;
      if (op.event == upto) break;
    } else {
      memmove(op.dst, op.src, op.bytes);
    }
  }
  s->pending.erase(s->pending.begin(), s->pending.begin() + (long)k);
}
// flush_stream under the lock; for the event's stream when `upto` is still queued there.
static inline void flush_locked(CUstream_st *s, CUevent_st *upto) {
  pthread_mutex_lock(&g_streams_lock);
  if (!s && upto) s = upto->pending_in;
  if (s) flush_stream(s, upto);
  pthread_mutex_unlock(&g_streams_lock);
}
}  // namespace pc_emu
static inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes,
                                          cudaMemcpyKind kind, cudaStream_t s = nullptr) {
  if (!s || !s->deferred) return cudaMemcpy(dst, src, bytes, kind);
  if (pc_emu::tl_sticky_error) return (cudaError_t)pc_emu::tl_sticky_error;
  if (bytes == 0) return cudaSuccess;
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToHost)
    return (cudaError_t)pc_emu::api_result(cudaErrorInvalidMemcpyDirection);
  const bool in = kind == cudaMemcpyHostToDevice;
  int err = pc_emu::check_side(dst, bytes, in, "cudaMemcpyAsync destination");
  if (!err) err = pc_emu::check_side(src, bytes, !in, "cudaMemcpyAsync source");
  if (err) return (cudaError_t)pc_emu::api_result(err);
  pthread_mutex_lock(&pc_emu::g_streams_lock);
  s->pending.push_back({nullptr, dst, src, bytes});
  if (!in) pc_emu::flush_stream(s, nullptr);  // a copy out: at once (see cuda_emu.h)
  pthread_mutex_unlock(&pc_emu::g_streams_lock);
  return cudaSuccess;
}
template <class T>
static inline cudaError_t cudaMemcpyToSymbol(T &symbol, const void *src, size_t bytes,
                                             size_t offset = 0,
                                             cudaMemcpyKind = cudaMemcpyHostToDevice) {
  if (offset + bytes > sizeof(T)) return (cudaError_t)pc_emu::api_result(cudaErrorInvalidValue);
  memcpy((char *)&symbol + offset, src, bytes);
  return cudaSuccess;
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t bytes,
                                               size_t offset = 0,
                                               cudaMemcpyKind = cudaMemcpyDeviceToHost) {
  if (offset + bytes > sizeof(T)) return (cudaError_t)pc_emu::api_result(cudaErrorInvalidValue);
  memcpy(dst, (const char *)&symbol + offset, bytes);
  return cudaSuccess;
}
static inline cudaError_t cudaMemset(void *p, int value, size_t bytes) {
  if (pc_emu::tl_sticky_error) return (cudaError_t)pc_emu::tl_sticky_error;
  if (bytes == 0) return cudaSuccess;
  if (int err = pc_emu::check_side(p, bytes, true, "cudaMemset"))
    return (cudaError_t)pc_emu::api_result(err);
  memset(p, value, bytes);
  return cudaSuccess;
}
static inline cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes,
                                          cudaStream_t = nullptr) {
  return cudaMemset(p, value, bytes);
}
// Page-locked host memory: ordinary host memory here, but its ranges are kept (cudaMallocHost
// blocks and cudaHostRegister'ed ranges) so that double registration, overlaps and
// unregistering what is not registered fail as on a GPU, and tests can find leaks.
namespace pc_emu {
struct Pinned { uintptr_t start; size_t bytes; bool allocated; };
static std::vector<Pinned> g_pinned;
static int g_pins_made = 0;  // successful cudaMallocHost / cudaHostRegister calls, ever
static int pin(void *p, size_t bytes, bool allocated) {
  Lock lock(&g_mem_mutex);
  uintptr_t a = (uintptr_t)p;
  for (const Pinned &r : g_pinned)
    if (a < r.start + r.bytes && r.start < a + bytes) return cudaErrorHostMemoryAlreadyRegistered;
  g_pinned.push_back(Pinned{a, bytes, allocated});
  g_pins_made++;
  return 0;
}
static bool unpin(void *p, bool allocated) {
  Lock lock(&g_mem_mutex);
  for (Pinned &r : g_pinned)
    if (r.start == (uintptr_t)p && r.allocated == allocated) {
      r = g_pinned.back();
      g_pinned.pop_back();
      return true;
    }
  return false;
}
}  // namespace pc_emu
static inline cudaError_t cudaMallocHost(void **p, size_t bytes) {
  if (pc_emu::tl_sticky_error) return (cudaError_t)pc_emu::tl_sticky_error;
  *p = malloc(bytes ? bytes : 1);
  if (!*p) return (cudaError_t)pc_emu::api_result(cudaErrorMemoryAllocation);
  pc_emu::pin(*p, bytes ? bytes : 1, true);
  return cudaSuccess;
}
template <class T> static inline cudaError_t cudaMallocHost(T **p, size_t bytes) {
  return cudaMallocHost((void **)p, bytes);
}
static inline cudaError_t cudaFreeHost(void *p) {
  if (!p) return cudaSuccess;
  if (!pc_emu::unpin(p, true)) {
    pc_emu::set_error(cudaErrorInvalidValue, false, "cudaFreeHost(%p): not from cudaMallocHost",
                      p);
    return (cudaError_t)pc_emu::api_result(cudaErrorInvalidValue);
  }
  free(p);
  return cudaSuccess;
}
static inline cudaError_t cudaHostRegister(void *p, size_t bytes, unsigned) {
  if (pc_emu::tl_sticky_error) return (cudaError_t)pc_emu::tl_sticky_error;
  if (!p || bytes == 0) return (cudaError_t)pc_emu::api_result(cudaErrorInvalidValue);
  if (pc_emu::is_device_range(p, 1)) {
    pc_emu::set_error(cudaErrorInvalidValue, false, "cudaHostRegister(%p): device memory", p);
    return (cudaError_t)pc_emu::api_result(cudaErrorInvalidValue);
  }
  if (int err = pc_emu::pin(p, bytes, false)) return (cudaError_t)pc_emu::api_result(err);
  return cudaSuccess;
}
static inline cudaError_t cudaHostUnregister(void *p) {
  if (pc_emu::unpin(p, false)) return cudaSuccess;
  return (cudaError_t)pc_emu::api_result(cudaErrorHostMemoryNotRegistered);
}
static inline cudaError_t cudaDeviceSynchronize() {
  pthread_mutex_lock(&pc_emu::g_streams_lock);
  for (CUstream_st *s : pc_emu::g_streams) pc_emu::flush_stream(s, nullptr);
  pthread_mutex_unlock(&pc_emu::g_streams_lock);
  return (cudaError_t)pc_emu::tl_sticky_error;
}
static inline cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  if (s && s->deferred) pc_emu::flush_locked(s, nullptr);
  return (cudaError_t)pc_emu::tl_sticky_error;
}
static inline cudaError_t cudaGetLastError() {
  int err = pc_emu::tl_sticky_error ? pc_emu::tl_sticky_error : pc_emu::tl_last_error;
  pc_emu::tl_last_error = 0;
  return (cudaError_t)err;
}
static inline cudaError_t cudaPeekAtLastError() {
  return (cudaError_t)(pc_emu::tl_sticky_error ? pc_emu::tl_sticky_error
                                               : pc_emu::tl_last_error);
}
static inline const char *cudaGetErrorString(cudaError_t err) {
  switch (err) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorHostMemoryAlreadyRegistered:
      return "part or all of the requested memory range is already mapped";
    case cudaErrorHostMemoryNotRegistered: return "pointer does not correspond to a registered "
                                                  "memory region";
    case cudaErrorCooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
    default: return "unknown error";
  }
}
static inline const char *cudaGetErrorName(cudaError_t err) { return cudaGetErrorString(err); }
static inline cudaError_t cudaStreamCreate(cudaStream_t *s) {
  *s = new CUstream_st{0, false, {}};
  return cudaSuccess;
}
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags) {
  if (!(flags & cudaStreamNonBlocking)) return cudaStreamCreate(s);
  *s = new CUstream_st{0, true, {}};
  pthread_mutex_lock(&pc_emu::g_streams_lock);
  pc_emu::g_streams.push_back(*s);
  pthread_mutex_unlock(&pc_emu::g_streams_lock);
  return cudaSuccess;
}
static inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
  if (s && s->deferred) {
    pthread_mutex_lock(&pc_emu::g_streams_lock);
    pc_emu::flush_stream(s, nullptr);
    for (size_t k = 0; k < pc_emu::g_streams.size(); k++)
      if (pc_emu::g_streams[k] == s) pc_emu::g_streams.erase(pc_emu::g_streams.begin() + (long)k);
    pthread_mutex_unlock(&pc_emu::g_streams_lock);
  }
  delete s;
  return cudaSuccess;
}
static inline cudaError_t cudaEventCreate(cudaEvent_t *e) {
  *e = new CUevent_st{pc_emu::now_ms(), nullptr};
  return cudaSuccess;
}
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) {
  return cudaEventCreate(e);
}
static inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = nullptr) {
  if (s && s->deferred) {
    pthread_mutex_lock(&pc_emu::g_streams_lock);
    if (e->pending_in) pc_emu::flush_stream(e->pending_in, e);  // recorded again: one place
    e->pending_in = s;
    s->pending.push_back({e, nullptr, nullptr, 0});
    pthread_mutex_unlock(&pc_emu::g_streams_lock);
    return cudaSuccess;
  }
  pc_emu::flush_locked(nullptr, e);  // an earlier record still queued: done before this one
  e->when_ms = pc_emu::now_ms();
  return cudaSuccess;
}
static inline cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  pc_emu::flush_locked(nullptr, e);
  return cudaSuccess;
}
// Stream `s` waits for the work before the last record of `e`: here, that work is run now
// (every stream but a deferred one runs its work at once).
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t e, unsigned = 0) {
  pc_emu::flush_locked(nullptr, e);
  return cudaSuccess;
}
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  *ms = (float)(b->when_ms - a->when_ms);
  return cudaSuccess;
}
static inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
  pc_emu::flush_locked(nullptr, e);  // its record still queued
  delete e;
  return cudaSuccess;
}
static inline cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }
static inline cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
static inline cudaError_t cudaSetDevice(int d) {
  return d == 0 ? cudaSuccess : cudaErrorInvalidValue;
}
static inline cudaError_t cudaDeviceReset() { return cudaSuccess; }
enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};
template <class F>
static inline cudaError_t cudaFuncSetAttribute(F *kernel, cudaFuncAttribute attr, int value) {
  if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize) return cudaSuccess;
  if (value < 0 || (size_t)value > pc_emu::kMaxDynamicShared)
    return (cudaError_t)pc_emu::api_result(cudaErrorInvalidValue);
  pc_emu::set_dynamic_shared_limit(reinterpret_cast<const void *>(kernel), (size_t)value);
  return cudaSuccess;
}
template <class... A> static inline cudaError_t cudaFuncSetCacheConfig(A...) {
  return cudaSuccess;
}
// The emulated device (cuda_emu.h): an H100's limits per block, pc_emu::kSms SMs of 1024 threads.
struct cudaDeviceProp {
  char name[256] = "polycuda CPU emulator";
  size_t totalGlobalMem = 80ull << 30, sharedMemPerBlock = 48 << 10,
         sharedMemPerBlockOptin = 227 << 10, sharedMemPerMultiprocessor = pc_emu::kSharedPerSm,
         l2CacheSize = 50 << 20;
  int regsPerBlock = 65536, warpSize = 32, maxThreadsPerBlock = 1024,
      maxThreadsDim[3] = {1024, 1024, 64}, maxGridSize[3] = {2147483647, 65535, 65535},
      multiProcessorCount = pc_emu::kSms, maxThreadsPerMultiProcessor = pc_emu::kThreadsPerSm,
      maxBlocksPerMultiProcessor = pc_emu::kBlocksPerSm, cooperativeLaunch = 1, major = 9,
      minor = 0;
};
static inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int) {
  *prop = cudaDeviceProp();
  return cudaSuccess;
}
enum cudaDeviceAttr {  // the values of CUDA's driver_types.h
  cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMaxBlockDimX = 2, cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4, cudaDevAttrMaxGridDimX = 5, cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7, cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9, cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxRegistersPerBlock = 12, cudaDevAttrClockRate = 13,
  cudaDevAttrMultiProcessorCount = 16, cudaDevAttrConcurrentKernels = 31,
  cudaDevAttrL2CacheSize = 38, cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrComputeCapabilityMajor = 75, cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82, cudaDevAttrCooperativeLaunch = 95,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97, cudaDevAttrMaxBlocksPerMultiprocessor = 106,
  cudaDevAttrReservedSharedMemoryPerBlock = 111,
};
static inline cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
  if (device != 0) {
    pc_emu::set_error(cudaErrorInvalidDevice, false, "cudaDeviceGetAttribute: device %d (the "
                      "emulator has device 0 only)", device);
    return (cudaError_t)pc_emu::api_result(cudaErrorInvalidDevice);
  }
  cudaDeviceProp prop;
  int v;
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: v = prop.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: case cudaDevAttrMaxBlockDimY: case cudaDevAttrMaxBlockDimZ:
      v = prop.maxThreadsDim[attr - cudaDevAttrMaxBlockDimX]; break;
    case cudaDevAttrMaxGridDimX: case cudaDevAttrMaxGridDimY: case cudaDevAttrMaxGridDimZ:
      v = prop.maxGridSize[attr - cudaDevAttrMaxGridDimX]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: v = (int)prop.sharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: v = 64 << 10; break;
    case cudaDevAttrWarpSize: v = prop.warpSize; break;
    case cudaDevAttrMaxRegistersPerBlock: case cudaDevAttrMaxRegistersPerMultiprocessor:
      v = prop.regsPerBlock; break;
    case cudaDevAttrClockRate: v = 1980000; break;  // kHz
    case cudaDevAttrMultiProcessorCount: v = prop.multiProcessorCount; break;
    case cudaDevAttrConcurrentKernels: case cudaDevAttrCooperativeLaunch: v = 1; break;
    case cudaDevAttrL2CacheSize: v = (int)prop.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: v = prop.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrComputeCapabilityMajor: v = prop.major; break;
    case cudaDevAttrComputeCapabilityMinor: v = prop.minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = (int)pc_emu::kSharedPerSm; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = (int)prop.sharedMemPerBlockOptin; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: v = prop.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: v = 0; break;
    default:
      pc_emu::set_error(cudaErrorInvalidValue, false, "cudaDeviceGetAttribute: attribute %d "
                        "is not emulated", (int)attr);
      return (cudaError_t)pc_emu::api_result(cudaErrorInvalidValue);
  }
  *value = v;
  return cudaSuccess;
}
// See pc_emu::blocks_per_sm for the formula; the kernel matters through its dynamic shared
// memory limit (cudaFuncSetAttribute) only.
template <class K>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, K kernel,
                                                                        int block_size,
                                                                        size_t shmem) {
  if (!blocks) return (cudaError_t)pc_emu::api_result(cudaErrorInvalidValue);
  *blocks = pc_emu::blocks_per_sm(block_size, shmem, reinterpret_cast<const void *>(kernel));
  return cudaSuccess;
}
template <class K>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *blocks, K kernel, int block_size, size_t shmem, unsigned) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, block_size, shmem);
}
// polycuda.runtime.emulate rewrites each call `cudaLaunchCooperativeKernel((void *)k, ...)`
// into pc_emu::launch_cooperative(k, ...); any other use lands here.
template <class... A> static inline cudaError_t cudaLaunchCooperativeKernel(A...) {
  static_assert(sizeof...(A) > 1000, "the emulator runs only calls written "
                "cudaLaunchCooperativeKernel((void *)kernel, grid, block, args[, shmem[, "
                "stream]]) (see polycuda/runtime/emulate.py)");
  return cudaErrorInvalidValue;
}

// ---- exported for polycuda.runtime.launch ----------------------------------------------------
extern "C" {
// Seed of the shuffled block and thread orders; launches restart their sequence from it.
void pc_emu_set_seed(unsigned long long seed) {
  __atomic_store_n(&pc_emu::g_seed, seed, __ATOMIC_SEQ_CST);
  __atomic_add_fetch(&pc_emu::g_seed_generation, 1, __ATOMIC_SEQ_CST);
}
// Error state of this host thread: the code (0 = none; cudaGetLastError clears a launch
// error) and the message of the last error set since pc_emu_reset, copied to buf.
int pc_emu_error(char *buf, int size) {
  int err = pc_emu::tl_sticky_error ? pc_emu::tl_sticky_error : pc_emu::tl_last_error;
  if (buf && size > 0) snprintf(buf, (size_t)size, "%s", pc_emu::tl_message);
  return err;
}
void pc_emu_reset(void) {
  pc_emu::tl_last_error = pc_emu::tl_sticky_error = 0;
  pc_emu::tl_message[0] = 0;
}
// Host memory that an entry may treat as device memory (arrays given to pc_<name>_dev).
void pc_emu_register_device(void *p, unsigned long long bytes) {
  pc_emu::add_region((uintptr_t)p, (size_t)bytes, false);
}
void pc_emu_unregister_device(void *p) { pc_emu::remove_region((uintptr_t)p, false); }
// Number of cudaMalloc allocations not yet freed: finds leaks of an entry.
// Page-locked ranges not yet given back (cudaMallocHost blocks, cudaHostRegister'ed ranges).
int pc_emu_pinned_ranges(void) {
  pc_emu::Lock lock(&pc_emu::g_mem_mutex);
  return (int)pc_emu::g_pinned.size();
}
// Page-locks host memory as a caller of an entry may (cudaHostRegister): for tests.
int pc_emu_host_register(void *p, unsigned long long bytes) {
  return (int)cudaHostRegister(p, (size_t)bytes, cudaHostRegisterDefault);
}
// Page-locked ranges made since the library was loaded (given back or not).
int pc_emu_pins_made(void) {
  pc_emu::Lock lock(&pc_emu::g_mem_mutex);
  return pc_emu::g_pins_made;
}
int pc_emu_live_allocations(void) {
  pc_emu::Lock lock(&pc_emu::g_mem_mutex);
  int n = 0;
  for (const pc_emu::Region &r : pc_emu::g_device_mem) n += r.owned;
  return n;
}
}

#endif  // PC_CUDA_EMU_API_H
