// polycuda CUDA emulator, part 3: the CUDA runtime API on host memory. Follows cuda_emu.h (see
// there) and cuda_emu_device.h. The functions that are not templates, and those exported to
// polycuda.runtime.launch (pc_emu_*), are defined in cuda_emu_runtime.cpp.
#ifndef PC_CUDA_EMU_API_H
#define PC_CUDA_EMU_API_H

// The emulator is there to test the kernels: a region's entries run them where its host
// version's rule would pick the host (codegen/host_choice.py: 0 there lets the rule decide),
// unless pc_<name>_force says otherwise (Program.verify runs each version; tests of the rule
// set it to 0).
#define PC_HOST_VERSION_FORCE 1

// ---- runtime API ----------------------------------------------------------------------------
// Device memory is host memory whose ranges are kept, so that a copy of the wrong kind or out
// of bounds fails as on a GPU; never-written device memory reads as NaN / -1.
cudaError_t cudaMalloc(void **p, size_t bytes);
template <class T> static inline cudaError_t cudaMalloc(T **p, size_t bytes) {
  return cudaMalloc((void **)p, bytes);
}
cudaError_t cudaFree(void *p);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t s = nullptr);
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
cudaError_t cudaMemset(void *p, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t = nullptr);
// Page-locked host memory: ordinary host memory here, but its ranges are kept (cudaMallocHost
// blocks and cudaHostRegister'ed ranges) so that double registration, overlaps and
// unregistering what is not registered fail as on a GPU, and tests can find leaks.
cudaError_t cudaMallocHost(void **p, size_t bytes);
template <class T> static inline cudaError_t cudaMallocHost(T **p, size_t bytes) {
  return cudaMallocHost((void **)p, bytes);
}
cudaError_t cudaFreeHost(void *p);
cudaError_t cudaHostRegister(void *p, size_t bytes, unsigned flags);
cudaError_t cudaHostUnregister(void *p);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaStreamSynchronize(cudaStream_t s);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char *cudaGetErrorString(cudaError_t err);
const char *cudaGetErrorName(cudaError_t err);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaEventCreate(cudaEvent_t *e);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags);
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t e);
// Stream `s` waits for the work before the last record of `e`: here, that work is run now
// (every stream but a deferred one runs its work at once).
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned flags = 0);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b);
cudaError_t cudaEventDestroy(cudaEvent_t e);
cudaError_t cudaGetDeviceCount(int *n);
cudaError_t cudaGetDevice(int *d);
cudaError_t cudaSetDevice(int d);
cudaError_t cudaDeviceReset();
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
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device);
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
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);
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

#pragma GCC visibility pop  // pushed in cuda_emu.h

#endif  // PC_CUDA_EMU_API_H
