// polycuda CUDA emulator, part 4: the runtime that cuda_emu.h, cuda_emu_device.h and
// cuda_emu_api.h declare (launcher, fibers, barriers, the host API, the functions exported to
// polycuda.runtime.launch). polycuda.runtime.build compiles it once, after the three headers,
// into an object that each emulated library links (see cuda_emu.h).
#include <sys/mman.h>
#include <time.h>
#include <vector>
#if !defined(__x86_64__) || defined(PC_EMU_UCONTEXT)
#include <ucontext.h>
#define PC_EMU_USE_UCONTEXT 1
#endif

#ifndef PC_EMU_SEED
#define PC_EMU_SEED 0
#endif

#pragma GCC visibility push(hidden)

thread_local constinit uint3 threadIdx, blockIdx;
thread_local constinit dim3 blockDim, gridDim;

namespace pc_emu {
struct StreamOp { CUevent_st *event; void *dst; const void *src; size_t bytes; };
}
struct CUstream_st { int unused; bool deferred; std::vector<pc_emu::StreamOp> pending; };
struct CUevent_st { double when_ms; CUstream_st *pending_in; };

namespace pc_emu {

constexpr size_t kStackBytes = 256 * 1024;
constexpr unsigned char kPoison = 0xFF;  // NaN in every float and double, -1 in integers
// Dynamic shared memory a kernel may use: 48 KiB unless cudaFuncSetAttribute raised it.
constexpr size_t kDefaultDynamicShared = 48 * 1024;

struct KernelError { int code; };

static pthread_mutex_t g_mem_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t g_atomic_mutex = PTHREAD_MUTEX_INITIALIZER;

static double now_ms() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

// ---- errors ---------------------------------------------------------------------------------
static thread_local int tl_last_error = 0;    // cleared by cudaGetLastError
static thread_local int tl_sticky_error = 0;  // a failed kernel: every later call fails
static thread_local char tl_message[512];

void set_error(int code, bool sticky, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tl_message, sizeof tl_message, fmt, ap);
  va_end(ap);
  tl_last_error = code;
  if (sticky) tl_sticky_error = code;
}

void trap(int code, const char *what) {
  set_error(code, true, "%s (block (%u,%u,%u), thread (%u,%u,%u))", what, blockIdx.x,
            blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
  throw KernelError{code};
}

int api_result(int code) {
  if (tl_sticky_error) return tl_sticky_error;
  if (code) tl_last_error = code;
  return code;
}

void set_last_error(int code) { tl_last_error = code; }

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
// kYielded: a thread that spins on a flag another thread sets (pc_emu::spin_yield) gave the
// scheduler its turn; it is ready again at once.
enum FiberState { kReady, kAtBarrier, kAtGridBarrier, kYielded, kDone };

struct Fiber {
  char *stack = nullptr;
  void *sp = nullptr;
  uint3 tid{};
  unsigned block = 0;  // its block's index in BlockRun::blocks (cooperative launches)
  FiberState state = kReady;
  int barrier_line = 0;  // source line of the __syncthreads() or grid.sync() it waits at
#ifdef PC_EMU_USE_UCONTEXT
  ucontext_t context;
#endif
};

// __syncthreads_count/_and/_or of one block: predicates counted in this phase, the result of
// the last phase, the threads that arrived at it.
struct BarrierCounts { int count = 0, result = 0, arrived = 0; };

// A block of a cooperative launch: what its fibers see that differs from the other blocks'.
struct CoopBlock {
  uint3 idx{};
  BarrierCounts sync;
  unsigned char *dynamic_shared = nullptr;
  std::vector<unsigned char> static_shared;  // its __shared__ arrays while another block runs
};

// A static __shared__ variable of a cooperative launch, at `offset` in CoopBlock::static_shared.
struct SharedVar { void *p; size_t bytes, offset; };

// The launch being run on this host thread: one block at a time, or a whole cooperative grid.
struct BlockRun {
  Job job{};
  bool fibers_on = false;
  bool cooperative = false;   // blocks interleave (fibers of one scheduler)
  bool grid_sync = false;     // a cooperative launch: grid.sync() allowed
  bool failed = false;
  Fiber *current = nullptr;
  void *sched_sp = nullptr;
#ifdef PC_EMU_USE_UCONTEXT
  ucontext_t sched_context;
#endif
  std::vector<Fiber> fibers;
  BarrierCounts solo_sync;               // the block of an ordinary launch
  BarrierCounts *sync = &solo_sync;      // the running fiber's block
  unsigned long long epoch = 0;  // one per block, for poisoning __shared__ buffers
  unsigned long long spins = 0;  // yields in a row of spin-waiting fibers (run_fibers_once)
  std::vector<std::pair<void *, unsigned long long>> shared_seen;
  std::vector<unsigned char> dynamic_shared;  // cooperative: one slice per block
  unsigned char *dynamic_base = nullptr;      // the running fiber's block's slice
  std::vector<CoopBlock> blocks;              // cooperative launch only
  unsigned live_block = 0;  // the block whose static __shared__ contents are in place
  std::vector<SharedVar> coop_shared;
  size_t coop_shared_bytes = 0;
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

// Cooperative launch: makes block b the running one (blockIdx, barrier counts, shared memory).
static void enter_block(unsigned b) {
  CoopBlock &from = tl_run.blocks[tl_run.live_block], &to = tl_run.blocks[b];
  if (b != tl_run.live_block && !tl_run.coop_shared.empty()) {
    from.static_shared.resize(tl_run.coop_shared_bytes, kPoison);
    to.static_shared.resize(tl_run.coop_shared_bytes, kPoison);  // new variables: unwritten
    for (const SharedVar &v : tl_run.coop_shared) {
      memcpy(from.static_shared.data() + v.offset, v.p, v.bytes);
      memcpy(v.p, to.static_shared.data() + v.offset, v.bytes);
    }
  }
  tl_run.live_block = b;
  blockIdx = to.idx;
  tl_run.sync = &to.sync;
  tl_run.dynamic_base = to.dynamic_shared;
}

static void resume(Fiber &f) {
  tl_run.current = &f;
  threadIdx = f.tid;
  if (tl_run.cooperative && f.block != tl_run.live_block) enter_block(f.block);
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
int barrier(int predicate, int line) {
  if (!tl_run.fibers_on) {
    if ((uint64_t)blockDim.x * blockDim.y * blockDim.z == 1) {
      tl_run.sync->arrived = 1;
      return predicate != 0;
    }
    trap(cudaErrorLaunchFailure, "__syncthreads() in a kernel the emulator ran without "
         "fibers (polycuda.runtime.emulate did not see the barrier in its source)");
  }
  Fiber &f = *tl_run.current;
  tl_run.sync->count += predicate != 0;
  f.state = kAtBarrier;
  f.barrier_line = line;
  yield_to_scheduler(f);
  return tl_run.sync->result;  // resume() made this fiber's block the running one again
}

int barrier_and(int predicate, int line) {
  int count = barrier(predicate, line);
  return count == tl_run.sync->arrived;
}

// A thread that spin-waits for another (a flag in global memory) yields to the scheduler at
// each test, as a GPU's other warps go on while one spins: fibers run cooperatively, and a
// spinning fiber that never yielded would hang the host thread. Only under fibers (a kernel
// that may yield runs with them, polycuda.runtime.emulate).
void spin_yield() {
  if (!tl_run.fibers_on)
    trap(cudaErrorLaunchFailure, "spin-wait in a kernel the emulator ran without fibers "
         "(polycuda.runtime.emulate did not see PC_SPIN_YIELD in its source)");
  Fiber &f = *tl_run.current;
  f.state = kYielded;
  yield_to_scheduler(f);
}

// cooperative_groups' grid.sync(): waits for every thread of the grid that has not exited;
// see release_grid for the threads that must not have exited.
void grid_barrier(int line) {
  if (!tl_run.grid_sync)
    trap(cudaErrorLaunchFailure, "grid.sync() in a kernel not launched by "
         "cudaLaunchCooperativeKernel (a GPU aborts the kernel)");
  Fiber &f = *tl_run.current;
  f.state = kAtGridBarrier;
  f.barrier_line = line;
  yield_to_scheduler(f);
}

static uint3 block_index(unsigned b) {
  return tl_run.cooperative ? tl_run.blocks[b].idx : blockIdx;
}

// Threads of a block (or of the grid) waiting at __syncthreads(), at grid.sync(), returned.
struct Tally { size_t at_block = 0, at_grid = 0, done = 0; };

// Block b stalled with threads at __syncthreads(): releases them, or sets an error (false) if
// they wait at different __syncthreads() or others of the block wait at grid.sync() (neither
// group can go on: a deadlock).
static bool release_block(unsigned b, unsigned n, Tally &tally, std::vector<unsigned> &ready) {
  Fiber *fibers = &tl_run.fibers[(size_t)b * n];
  const Fiber *first = nullptr, *at_grid = nullptr;
  for (unsigned t = 0; t < n; ++t) {
    const Fiber &f = fibers[t];
    if (f.state == kAtGridBarrier && !at_grid) at_grid = &f;
    if (f.state != kAtBarrier) continue;
    if (!first) first = &f;
    if (f.barrier_line != first->barrier_line) {
      uint3 bi = block_index(b);
      set_error(cudaErrorLaunchFailure, true, "threads of block (%u,%u,%u) wait at different "
                "__syncthreads() calls: thread (%u,%u,%u) at line %d, thread (%u,%u,%u) at "
                "line %d (a barrier in divergent code)", bi.x, bi.y, bi.z, first->tid.x,
                first->tid.y, first->tid.z, first->barrier_line, f.tid.x, f.tid.y, f.tid.z,
                f.barrier_line);
      return false;
    }
  }
  if (at_grid) {
    uint3 bi = block_index(b);
    set_error(cudaErrorLaunchFailure, true, "deadlock in block (%u,%u,%u): thread (%u,%u,%u) "
              "waits at grid.sync() at line %d, thread (%u,%u,%u) at __syncthreads() at line "
              "%d", bi.x, bi.y, bi.z, at_grid->tid.x, at_grid->tid.y, at_grid->tid.z,
              at_grid->barrier_line, first->tid.x, first->tid.y, first->tid.z,
              first->barrier_line);
    return false;
  }
  for (unsigned t = 0; t < n; ++t) {
    if (fibers[t].state != kAtBarrier) continue;
    fibers[t].state = kReady;
    ready.push_back((unsigned)(b * n + t));
  }
  BarrierCounts &s = tl_run.cooperative ? tl_run.blocks[b].sync : tl_run.solo_sync;
  s.result = s.count;
  s.arrived = (int)tally.at_block;
  s.count = 0;
  tally.at_block = 0;
  return true;
}

// Every live thread of the grid waits at grid.sync(): releases them, or sets an error (false).
// As CUDA's grid.sync() (cooperative_groups/details/sync.h), exited threads do not count,
// except thread (0,0,0) of each block, which arrives for its block: had it returned (or its
// whole block), a GPU would hang; here it is an error.
static bool release_grid(unsigned nblocks, unsigned n, std::vector<Tally> &tally,
                         std::vector<unsigned> &ready) {
  size_t total = (size_t)nblocks * n;
  const Fiber *waiting = nullptr;
  for (size_t i = 0; i < total && !waiting; ++i)
    if (tl_run.fibers[i].state == kAtGridBarrier) waiting = &tl_run.fibers[i];
  for (unsigned b = 0; b < nblocks; ++b) {
    if (tl_run.fibers[(size_t)b * n].state != kDone) continue;
    uint3 bi = block_index(b), wi = block_index(waiting->block);
    set_error(cudaErrorLaunchFailure, true, "deadlock: thread (0,0,0) of block (%u,%u,%u) "
              "returned while thread (%u,%u,%u) of block (%u,%u,%u) waits at grid.sync() at "
              "line %d (grid.sync() needs thread (0,0,0) of every block: a GPU would hang)",
              bi.x, bi.y, bi.z, waiting->tid.x, waiting->tid.y, waiting->tid.z, wi.x, wi.y,
              wi.z, waiting->barrier_line);
    return false;
  }
  for (size_t i = 0; i < total; ++i) {
    if (tl_run.fibers[i].state != kAtGridBarrier) continue;
    tl_run.fibers[i].state = kReady;
    ready.push_back((unsigned)i);
  }
  for (Tally &t : tally) t.at_grid = 0;
  return true;
}

// Runs the threads of `nblocks` blocks of n threads as fibers (block b: fibers b*n..b*n+n-1).
// Each step resumes a ready fiber drawn at random, which runs to its next barrier or returns; a
// barrier lets its threads go as soon as the last live thread it waits for arrives, so blocks
// drift apart between grid.sync()s as on a GPU. False if a thread failed or barriers deadlocked.
static bool run_fibers_once(unsigned nblocks, unsigned n, Rng &rng);

// The fibers' stacks are given back after each run: two memory mappings each (stack and guard
// page), kept per loaded library, reached Linux's limit of 65530 mappings in a process that
// had loaded a few hundred emulated libraries (the CPU suite: "failed to map segment").
static bool run_fibers(unsigned nblocks, unsigned n, Rng &rng) {
  bool ok = run_fibers_once(nblocks, n, rng);
  for (Fiber &f : tl_run.fibers) munmap(f.stack, kStackBytes);
  tl_run.fibers.clear();
  return ok;
}

static bool run_fibers_once(unsigned nblocks, unsigned n, Rng &rng) {
  size_t total = (size_t)nblocks * n;
  if (!ensure_fibers(total)) return false;
  std::vector<unsigned> ready(total);
  for (unsigned i = 0; i < total; ++i) {
    ready[i] = i;
    tl_run.fibers[i].tid = unflatten(i % n, blockDim);
    tl_run.fibers[i].block = i / n;
    prepare(tl_run.fibers[i]);
  }
  std::vector<Tally> tally(nblocks);
  Tally grid;
  tl_run.spins = 0;
  while (!ready.empty()) {
    size_t k = rng.below(ready.size());
    const unsigned id = ready[k];
    Fiber &f = tl_run.fibers[id];
    ready[k] = ready.back();
    ready.pop_back();
    resume(f);
    if (tl_run.failed) return false;
    Tally &t = tally[f.block];
    if (f.state == kYielded) {
      f.state = kReady;
      ready.push_back(id);
      // a fiber that can go on is drawn within about ready.size() steps; this many yields in
      // a row mean that every thread waits for another (a deadlock a GPU would hang in)
      if (++tl_run.spins > 1000ull * ready.size() + 1000000ull) {
        set_error(cudaErrorLaunchFailure, true, "deadlock: every live thread spin-waits "
                  "(%llu yields in a row)", tl_run.spins);
        return false;
      }
      continue;
    }
    tl_run.spins = 0;
    if (f.state == kAtBarrier) {
      ++t.at_block;
    } else if (f.state == kAtGridBarrier) {
      ++t.at_grid;
      ++grid.at_grid;
    } else {
      ++t.done;
      ++grid.done;
    }
    if (t.at_block && t.at_block + t.at_grid + t.done == n &&
        !release_block(f.block, n, t, ready))
      return false;
    if (grid.at_grid && grid.at_grid + grid.done == total) {
      if (!release_grid(nblocks, n, tally, ready)) return false;
      grid.at_grid = 0;
    }
  }
  if (grid.done == total) return true;
  set_error(cudaErrorLaunchFailure, true, "deadlock: no thread can go on");  // not expected
  return false;
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

// The dynamic shared memory limits that cudaFuncSetAttribute raised.
struct KernelLimit { const void *kernel; size_t dynamic_shared; };
static std::vector<KernelLimit> g_kernel_limits;

static size_t dynamic_shared_limit(const void *kernel) {
  Lock lock(&g_mem_mutex);
  for (const KernelLimit &k : g_kernel_limits)
    if (k.kernel == kernel) return k.dynamic_shared;
  return kDefaultDynamicShared;
}

void set_dynamic_shared_limit(const void *kernel, size_t bytes) {
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

static void start_cooperative(dim3 grid, dim3 block, size_t shmem, const uint64_t *ids,
                              unsigned nblocks, Job job);

int run_grid(bool barriers, dim3 grid, dim3 block, size_t shmem, const void *kernel, Job job) {
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
  tl_run.cooperative = false;
  tl_run.sync = &tl_run.solo_sync;
  tl_run.failed = false;
  tl_run.dynamic_shared.resize(shmem);
  tl_run.dynamic_base = tl_run.dynamic_shared.data();
  gridDim = grid;
  blockDim = block;
  if (tl_run.fibers_on) {
    // As many blocks as the emulated device holds at once run together, their threads
    // fibers of one scheduler: blocks of one launch interleave as on a GPU, which shows
    // races between them that one block after the other hides
    uint64_t wave = (uint64_t)kSms * blocks_per_sm(nthreads, shmem, kernel);
    for (uint64_t first = 0; first < nblocks; first += wave) {
      unsigned n = (unsigned)(nblocks - first < wave ? nblocks - first : wave);
      start_cooperative(grid, block, shmem, order.data() + first, n, job);
      bool ok = run_fibers(n, nthreads, rng);
      tl_run.cooperative = false;
      tl_run.sync = &tl_run.solo_sync;
      if (!ok) return tl_sticky_error ? tl_sticky_error : cudaErrorLaunchFailure;
    }
    return 0;
  }
  for (uint64_t b : order) {
    blockIdx = unflatten(b, grid);
    ++tl_run.epoch;
    memset(tl_run.dynamic_shared.data(), kPoison, shmem);
    tl_run.solo_sync.count = 0;
    bool ok = tl_run.fibers_on ? run_fibers(1, nthreads, rng)
                               : run_block_sequential(nthreads, rng);
    if (!ok) return tl_sticky_error ? tl_sticky_error : cudaErrorLaunchFailure;
  }
  return 0;
}

// The blocks of `threads` threads using `shmem` bytes of dynamic shared memory that one SM
// holds at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor): as many as its 1024 threads
// allow, counted in whole warps, at most 32, and at most what its 228 KiB of shared memory
// hold; 0 for a block size or dynamic shared memory size that cannot be launched.
int blocks_per_sm(long long threads, size_t shmem, const void *kernel) {
  if (threads <= 0 || threads > 1024 || shmem > dynamic_shared_limit(kernel)) return 0;
  long long n = kThreadsPerSm / (32 * ((threads + 31) / 32));
  if (n > kBlocksPerSm) n = kBlocksPerSm;
  if (shmem && (long long)(kSharedPerSm / shmem) < n) n = (long long)(kSharedPerSm / shmem);
  return (int)n;
}

// The `__shared__` variables at namespace scope (SharedAtNamespace), for cooperative launches;
// a function's static, so that it exists before the first variable registers.
static std::vector<SharedGetter> &namespace_shared() {
  static std::vector<SharedGetter> getters;
  return getters;
}

void add_namespace_shared(SharedGetter getter) { namespace_shared().push_back(getter); }

// A static __shared__ variable met in a cooperative launch: poisoned in the running block;
// the other blocks' copies start poisoned (enter_block).
static void add_coop_shared(void *p, size_t bytes) {
  for (const SharedVar &v : tl_run.coop_shared)
    if (v.p == p) return;
  tl_run.coop_shared.push_back(SharedVar{p, bytes, tl_run.coop_shared_bytes});
  tl_run.coop_shared_bytes += bytes;
  memset(p, kPoison, bytes);
}

// Blocks `ids` (flat indices; null: 0 .. nblocks - 1) as fibers of one scheduler.
static void start_cooperative(dim3 grid, dim3 block, size_t shmem, const uint64_t *ids,
                              unsigned nblocks, Job job) {
  tl_run.job = job;
  tl_run.fibers_on = tl_run.cooperative = true;
  tl_run.failed = false;
  gridDim = grid;
  blockDim = block;
  size_t stride = (shmem + 15) & ~(size_t)15;  // each block's dynamic shared memory aligned
  tl_run.dynamic_shared.assign(stride * nblocks, kPoison);
  tl_run.blocks.assign(nblocks, CoopBlock{});
  for (unsigned b = 0; b < nblocks; ++b) {
    tl_run.blocks[b].idx = unflatten(ids ? ids[b] : b, grid);
    tl_run.blocks[b].dynamic_shared = tl_run.dynamic_shared.data() + b * stride;
  }
  tl_run.coop_shared.clear();
  tl_run.coop_shared_bytes = 0;
  for (SharedGetter getter : namespace_shared()) {
    SharedSpan span = getter();
    add_coop_shared(span.p, span.bytes);
  }
  tl_run.live_block = 0;
  enter_block(0);
}

// A cooperative launch: the grid must fit on the device at once (else
// cudaErrorCooperativeLaunchTooLarge, as on a GPU); all its threads are fibers of one
// scheduler (run_fibers), so blocks interleave at every barrier and grid.sync() waits for all.
// Static __shared__ variables are per block: their contents are swapped when the running
// fiber's block changes; dynamic shared memory is one poisoned slice per block.
int run_cooperative(dim3 grid, dim3 block, size_t shmem, const void *kernel, Job job) {
  if (tl_sticky_error) return tl_sticky_error;
  if (int err = check_config(grid, block, shmem, kernel)) return err;
  unsigned nthreads = block.x * block.y * block.z;
  uint64_t nblocks = (uint64_t)grid.x * grid.y * grid.z;
  int per_sm = blocks_per_sm(nthreads, shmem, kernel);
  if (nblocks > (uint64_t)kSms * per_sm) {
    set_error(cudaErrorCooperativeLaunchTooLarge, false, "cudaErrorCooperativeLaunchTooLarge: "
              "a cooperative launch of %llu blocks of %u threads with %zu bytes of dynamic "
              "shared memory, but the emulated device holds %d such blocks at once (%d SMs x "
              "%d, as cudaOccupancyMaxActiveBlocksPerMultiprocessor says)",
              (unsigned long long)nblocks, nthreads, shmem, kSms * per_sm, kSms, per_sm);
    return cudaErrorCooperativeLaunchTooLarge;
  }
  Rng rng = launch_rng();
  start_cooperative(grid, block, shmem, nullptr, (unsigned)nblocks, job);
  tl_run.grid_sync = true;
  bool ok = run_fibers((unsigned)nblocks, nthreads, rng);
  tl_run.cooperative = tl_run.grid_sync = false;
  tl_run.sync = &tl_run.solo_sync;
  return ok ? 0 : tl_sticky_error ? tl_sticky_error : cudaErrorLaunchFailure;
}


int cooperative_check(bool missing_args, size_t nparams) {
  if (tl_sticky_error) return tl_sticky_error;
  if (!missing_args) return 0;
  set_error(cudaErrorInvalidValue, false, "cudaLaunchCooperativeKernel: the kernel has %zu "
            "parameters but the argument array is null", nparams);
  return tl_last_error = cudaErrorInvalidValue;
}

bool cooperative_running() { return tl_run.cooperative; }

// The warp shuffle's slots (cuda_emu_device.h), one per fiber.
static thread_local std::vector<unsigned long long> tl_lanes;

unsigned long long shuffle_xor(unsigned long long bits, int lane_mask, int line) {
  const size_t n = (size_t)blockDim.x * blockDim.y * blockDim.z;
  if (!tl_run.fibers_on)
    trap(cudaErrorLaunchFailure, "__shfl_xor_sync in a kernel the emulator ran without fibers");
  const size_t me = (size_t)(tl_run.current - tl_run.fibers.data()), t = me % n;
  const size_t partner = (t & ~(size_t)31) | ((t & 31) ^ (size_t)(lane_mask & 31));
  if (partner >= n) trap(cudaErrorLaunchFailure, "__shfl_xor_sync: the partner lane is not a "
                         "thread of the block (a block of a partial warp)");
  if (tl_lanes.size() < tl_run.fibers.size()) tl_lanes.resize(tl_run.fibers.size());
  tl_lanes[me] = bits;
  barrier(0, line);
  bits = tl_lanes[me - t + partner];
  barrier(0, line);
  return bits;
}

// ---- shared memory --------------------------------------------------------------------------
// `extern __shared__ T name[];`: the dynamic shared memory of the running block.
void *dynamic_shared() { return tl_run.dynamic_base; }

// After `__shared__ T name[...];`: poisons the buffer once per block, so that reading an
// element no thread of this block wrote gives NaN / -1 rather than an old block's value.
void shared_init(void *p, size_t bytes) {
  if (tl_run.cooperative) {
    add_coop_shared(p, bytes);
    return;
  }
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

// ---- runtime API ----------------------------------------------------------------------------
cudaError_t cudaMalloc(void **p, size_t bytes) {
  if (pc_emu::tl_sticky_error) return (cudaError_t)pc_emu::tl_sticky_error;
  *p = malloc(bytes ? bytes : 1);
  if (!*p) return (cudaError_t)pc_emu::api_result(cudaErrorMemoryAllocation);
  memset(*p, pc_emu::kPoison, bytes);  // never-written device memory reads as NaN / -1
  pc_emu::add_region((uintptr_t)*p, bytes, true);
  return cudaSuccess;
}
cudaError_t cudaFree(void *p) {
  if (!p) return cudaSuccess;
  if (pc_emu::remove_region((uintptr_t)p, true)) {
    free(p);
    return (cudaError_t)pc_emu::tl_sticky_error;
  }
  pc_emu::set_error(cudaErrorInvalidDevicePointer, false, "cudaFree(%p): not a device "
                    "allocation", p);
  return (cudaError_t)pc_emu::api_result(cudaErrorInvalidDevicePointer);
}
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
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
static void flush_stream(CUstream_st *s, CUevent_st *upto) {
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
static void flush_locked(CUstream_st *s, CUevent_st *upto) {
  pthread_mutex_lock(&g_streams_lock);
  if (!s && upto) s = upto->pending_in;
  if (s) flush_stream(s, upto);
  pthread_mutex_unlock(&g_streams_lock);
}
}  // namespace pc_emu
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t s) {
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
cudaError_t cudaMemset(void *p, int value, size_t bytes) {
  if (pc_emu::tl_sticky_error) return (cudaError_t)pc_emu::tl_sticky_error;
  if (bytes == 0) return cudaSuccess;
  if (int err = pc_emu::check_side(p, bytes, true, "cudaMemset"))
    return (cudaError_t)pc_emu::api_result(err);
  memset(p, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t) {
  return cudaMemset(p, value, bytes);
}
// The page-locked ranges: cudaMallocHost blocks and cudaHostRegister'ed ranges (cuda_emu_api.h).
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
cudaError_t cudaMallocHost(void **p, size_t bytes) {
  if (pc_emu::tl_sticky_error) return (cudaError_t)pc_emu::tl_sticky_error;
  *p = malloc(bytes ? bytes : 1);
  if (!*p) return (cudaError_t)pc_emu::api_result(cudaErrorMemoryAllocation);
  pc_emu::pin(*p, bytes ? bytes : 1, true);
  return cudaSuccess;
}
cudaError_t cudaFreeHost(void *p) {
  if (!p) return cudaSuccess;
  if (!pc_emu::unpin(p, true)) {
    pc_emu::set_error(cudaErrorInvalidValue, false, "cudaFreeHost(%p): not from cudaMallocHost",
                      p);
    return (cudaError_t)pc_emu::api_result(cudaErrorInvalidValue);
  }
  free(p);
  return cudaSuccess;
}
cudaError_t cudaHostRegister(void *p, size_t bytes, unsigned) {
  if (pc_emu::tl_sticky_error) return (cudaError_t)pc_emu::tl_sticky_error;
  if (!p || bytes == 0) return (cudaError_t)pc_emu::api_result(cudaErrorInvalidValue);
  if (pc_emu::is_device_range(p, 1)) {
    pc_emu::set_error(cudaErrorInvalidValue, false, "cudaHostRegister(%p): device memory", p);
    return (cudaError_t)pc_emu::api_result(cudaErrorInvalidValue);
  }
  if (int err = pc_emu::pin(p, bytes, false)) return (cudaError_t)pc_emu::api_result(err);
  return cudaSuccess;
}
cudaError_t cudaHostUnregister(void *p) {
  if (pc_emu::unpin(p, false)) return cudaSuccess;
  return (cudaError_t)pc_emu::api_result(cudaErrorHostMemoryNotRegistered);
}
cudaError_t cudaDeviceSynchronize() {
  pthread_mutex_lock(&pc_emu::g_streams_lock);
  for (CUstream_st *s : pc_emu::g_streams) pc_emu::flush_stream(s, nullptr);
  pthread_mutex_unlock(&pc_emu::g_streams_lock);
  return (cudaError_t)pc_emu::tl_sticky_error;
}
cudaError_t cudaStreamSynchronize(cudaStream_t s) {
  if (s && s->deferred) pc_emu::flush_locked(s, nullptr);
  return (cudaError_t)pc_emu::tl_sticky_error;
}
cudaError_t cudaGetLastError() {
  int err = pc_emu::tl_sticky_error ? pc_emu::tl_sticky_error : pc_emu::tl_last_error;
  pc_emu::tl_last_error = 0;
  return (cudaError_t)err;
}
cudaError_t cudaPeekAtLastError() {
  return (cudaError_t)(pc_emu::tl_sticky_error ? pc_emu::tl_sticky_error
                                               : pc_emu::tl_last_error);
}
const char *cudaGetErrorString(cudaError_t err) {
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
const char *cudaGetErrorName(cudaError_t err) { return cudaGetErrorString(err); }
cudaError_t cudaStreamCreate(cudaStream_t *s) {
  *s = new CUstream_st{0, false, {}};
  return cudaSuccess;
}
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned flags) {
  if (!(flags & cudaStreamNonBlocking)) return cudaStreamCreate(s);
  *s = new CUstream_st{0, true, {}};
  pthread_mutex_lock(&pc_emu::g_streams_lock);
  pc_emu::g_streams.push_back(*s);
  pthread_mutex_unlock(&pc_emu::g_streams_lock);
  return cudaSuccess;
}
cudaError_t cudaStreamDestroy(cudaStream_t s) {
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
cudaError_t cudaEventCreate(cudaEvent_t *e) {
  *e = new CUevent_st{pc_emu::now_ms(), nullptr};
  return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) {
  return cudaEventCreate(e);
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
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
cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  pc_emu::flush_locked(nullptr, e);
  return cudaSuccess;
}
// Stream `s` waits for the work before the last record of `e`: here, that work is run now
// (every stream but a deferred one runs its work at once).
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t e, unsigned) {
  pc_emu::flush_locked(nullptr, e);
  return cudaSuccess;
}
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  *ms = (float)(b->when_ms - a->when_ms);
  return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) {
  pc_emu::flush_locked(nullptr, e);  // its record still queued
  delete e;
  return cudaSuccess;
}
cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }
cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
cudaError_t cudaSetDevice(int d) {
  return d == 0 ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaDeviceReset() { return cudaSuccess; }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int) {
  *prop = cudaDeviceProp();
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
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

#pragma GCC visibility pop

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
// Number of cudaMalloc allocations not yet freed: finds leaks of an entry.
int pc_emu_live_allocations(void) {
  pc_emu::Lock lock(&pc_emu::g_mem_mutex);
  int n = 0;
  for (const pc_emu::Region &r : pc_emu::g_device_mem) n += r.owned;
  return n;
}
}


