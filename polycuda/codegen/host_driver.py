"""The host side of a CUDA region: the host-pointer entry `pc_<name>` (device buffers, copies in
and out around `pc_<name>_dev`), the device entry's local arrays, and `pc_<name>_release`.

Options.host_buffers / host_copies choose how (issue 15, item 6); with both at their defaults
the code is the original one: cudaMalloc, pageable cudaMemcpy in, the kernels, cudaMemcpy out,
cudaFree, in every call. Otherwise the entry keeps its state (device buffers, the page-locked
staging buffer and its events) in static storage of the generated file, guarded by one mutex
per entry: concurrent calls of one entry run one after the other (thread-safe, not parallel).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from polycuda.codegen import abi
from polycuda.codegen.c_target import array_elements
from polycuda.ir.c_expr import expr_to_c
from polycuda.ir.scop import Scop
from polycuda.options import Options

# Emitted before the entries that use it, guarded: a file of several regions defines it once
# (each region's states take their own slot count N). pthread rather than <mutex>: the
# emulator's build compiles in half the time without <mutex> (runtime/cuda_emu.h).
SUPPORT = r"""
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
"""


# Emitted after SUPPORT when Options.host_overlap is on (guarded the same way).
OVERLAP_SUPPORT = r"""
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
"""


@dataclass(frozen=True)
class HostSide:
    """How the host entry handles device memory and copies (from Options.host_*)."""

    reuse: bool = False
    copies: str = "pageable"
    pin_min_bytes: int = 1024 << 10
    chunk_bytes: int = 4096 << 10
    overlap: bool = False
    # A region with no parallel loop runs on the CPU in the host entry (Options.serial_region)
    serial_cpu: bool = True

    @staticmethod
    def of(options: Options | None) -> HostSide:
        if options is None:
            return HostSide()
        return HostSide(options.host_buffers == "reuse", options.host_copies,
                        options.host_pin_min_kib << 10, options.host_chunk_kib << 10,
                        options.host_overlap and options.host_copies != "staged",
                        options.serial_region == "cpu")

    @property
    def stateful(self) -> bool:
        """Whether the entries keep state in the generated file (else today's code)."""
        return self.reuse or self.copies != "pageable" or self.overlap


def support(host: HostSide) -> str:
    """The C++ helpers of the stateful host side ("" when there is none)."""
    if not host.stateful:
        return ""
    return SUPPORT + OVERLAP_SUPPORT if host.overlap else SUPPORT


def _slots(scop: Scop) -> int:
    """Device buffer slots of the entry's states: one per array argument and per local array."""
    return max(1, sum(a.kind == "array" for a in scop.args), sum(a.local for a in scop.arrays))


def _state(scop: Scop, suffix: str = "") -> str:
    return f"{abi.entry_name(scop, suffix)}_state"


def _streams(scop: Scop) -> str:
    """The entry's pc_overlap_state (host_overlap)."""
    return abi.entry_name(scop, "_streams")


def at_exit(scop: Scop, state: str) -> list[str]:
    """Once per state, after its first use: release it at exit (registered after the CUDA
    runtime started, so it runs before the runtime's own teardown; an error there is ignored)."""
    return [f"  if (!{state}.at_exit) {{",
            f"    {state}.at_exit = 1;",
            f"    atexit({abi.entry_name(scop, '_at_exit')});",
            "  }"]


def device_locals(scop: Scop, host: HostSide) -> tuple[list[str], list[str]]:
    """Lines of `pc_<name>_dev` that allocate its local arrays, and those that free them:
    cudaMalloc / cudaFree per call, or (host_buffers "reuse") buffers of the dev state, kept."""
    locals_ = [a for a in scop.arrays if a.local]
    if not host.reuse:
        alloc, free = [], []
        for arr in locals_:
            ctype = abi.C_TYPES[arr.dtype]
            alloc += [f"  {ctype} *{arr.name} = NULL;",
                      f"  PC_CHECK(cudaMalloc((void **)&{arr.name}, "
                      f"{array_elements(arr)} * sizeof({ctype})));"]
            free.append(f"  cudaFree({arr.name});")
        return alloc, free
    if not locals_:
        return [], []
    state = _state(scop, "_dev")
    # the locals are shared by the calls: the device entry holds its mutex until it returns
    alloc = [f"  pc_host_guard pc_guard(&{state}.lock);"]
    for k, arr in enumerate(locals_):
        ctype = abi.C_TYPES[arr.dtype]
        alloc += [f"  {ctype} *{arr.name} = NULL;",
                  f"  PC_CHECK((cudaError_t)pc_host_buffer(&{state}, {k}, {array_elements(arr)} * "
                  f"sizeof({ctype}), (void **)&{arr.name}));"]
    return alloc + at_exit(scop, state), []


def states(scop: Scop, host: HostSide) -> str:
    """The static states of the entries and the at-exit hook (before `pc_<name>_dev`)."""
    if not host.stateful:
        return ""
    name = abi.entry_name(scop)
    state = f"static pc_host_state<{_slots(scop)}>"
    streams = (f"static pc_overlap_state<{_slots(scop)}> {_streams(scop)} = {{}};\n"
               if host.overlap else "")
    return (f"{state} {_state(scop)} = PC_HOST_STATE_INIT;\n"
            f"{state} {_state(scop, '_dev')} = PC_HOST_STATE_INIT;\n{streams}"
            f'extern "C" int {name}_release(void);\n'
            f"static void {name}_at_exit(void) {{ (void){name}_release(); }}\n")


def release_function(scop: Scop, host: HostSide, extra: list[str] | tuple = ()) -> list[str]:
    """`int pc_<name>_release(void)`: frees the buffers kept across calls (the next call makes
    them again); returns the first CUDA error of the frees, or 0. Call it before
    cudaDeviceReset(): after a reset the kept pointers are stale. `extra`: lines that give
    back more kept state (a serial region's host copies, cuda_host._serial_release)."""
    if not host.stateful:
        return []
    name = abi.entry_name(scop)
    streams = [] if not host.overlap else [
        f"  {{ pc_host_guard guard(&{_state(scop)}.lock); "
        f"pc_overlap_release(&{_streams(scop)}); }}"]
    return [f'extern "C" int {name}_release(void) {{',
            f"  const int err = pc_host_release(&{_state(scop)});",
            f"  const int dev = pc_host_release(&{_state(scop, '_dev')});", *streams, *extra,
            "  return err ? err : dev;", "}"]


# Elements that a kernel's 32-bit index reaches: kernels iterate with int and index arrays in
# int arithmetic (row-major element numbers), so no array of the region may have more.
MAX_INDEXED_ELEMENTS = 2**31 - 1


def index_guard(scop: Scop) -> list[str]:
    """Entry lines that refuse an array of more than MAX_INDEXED_ELEMENTS elements before
    anything runs: a message on stderr that names the array, and cudaErrorInvalidValue. A
    kernel's element number would overflow int and address memory outside the array."""
    name = abi.entry_name(scop)
    lines: list[str] = []
    for array in [scop.array(a.name) for a in scop.args if a.kind == "array"] + [
            a for a in scop.arrays if a.local]:
        if not array.shape:
            continue
        dims = [f"(long long)({expr_to_c(d)})" for d in array.shape]
        product = "pc_elements(" + ", ".join(dims) + ")" if len(dims) > 1 else dims[0]
        lines += [f"  if ({product} > {MAX_INDEXED_ELEMENTS}LL) {{",
                  f'    fprintf(stderr, "polycuda: {name}: array {array.name} has more than '
                  f"{MAX_INDEXED_ELEMENTS} elements, more than the kernels' 32-bit indices "
                  'reach; nothing was run\\n");',
                  "    return (int)cudaErrorInvalidValue;", "  }"]
    return lines


# index_guard's lines in a generated entry: other checks go after them (an extent product
# past 2^31 must be refused as such before anything computes byte spans from it)
INDEX_GUARD_LINES = re.compile(
    rf"(  if \(.* > {MAX_INDEXED_ELEMENTS}LL\) \{{\n.*\n    return \(int\)cudaErrorInvalidValue;\n  \}}\n)*")


def byte_sizes(scop: Scop, arrays: list) -> list[str]:
    """Entry lines `const size_t pc_bytes_<array> = ...;`: the bytes of each array argument."""
    return [f"  const size_t pc_bytes_{a.name} = {array_elements(scop.array(a.name))} * "
            f"sizeof({abi.C_TYPES[a.dtype]});" for a in arrays]


def host_entry(scop: Scop, host: HostSide, first_used: tuple[str, ...] = ()) -> list[str]:
    """pc_<name>: device buffers for the array arguments, copies in (every array: an element
    that the region does not write must come back unchanged), pc_<name>_dev, copies out of the
    written arrays, buffers freed (per-call) or kept (reuse). With host.overlap, the copies in
    go to the copy stream in the order `first_used` (array arguments, first needed first; the
    others after them) and pc_<name>_run waits for them and starts the copies out."""
    if not host.stateful:
        return _plain_host_entry(scop)
    state = _state(scop)
    arrays = [a for a in scop.args if a.kind == "array"]
    written = set(scop.written_arrays())
    lines = [f'extern "C" int {abi.entry_name(scop)}({abi.arg_decls(scop)}) {{',
             *index_guard(scop),
             f"  pc_host_guard pc_guard(&{state}.lock);", "  int err = 0;"]
    sizes = {a.name: f"pc_bytes_{a.name}" for a in arrays}
    lines += byte_sizes(scop, arrays)
    if host.copies == "register":
        lines.append(f"  pc_host_pins<{_slots(scop)}> pc_pins;  /* unregisters at every return */")
        lines += [f"  pc_pins.pin({a.name}, {sizes[a.name]}, {host.pin_min_bytes});"
                  for a in arrays]
    for k, arg in enumerate(arrays):
        ctype = abi.C_TYPES[arg.dtype]
        lines.append(f"  {ctype} *d_{arg.name} = NULL;")
        if host.reuse:
            lines.append(f"  PC_CHECK((cudaError_t)pc_host_buffer(&{state}, {k}, "
                         f"{sizes[arg.name]}, (void **)&d_{arg.name}));")
        else:
            lines.append(f"  PC_CHECK(cudaMalloc((void **)&d_{arg.name}, {sizes[arg.name]}));")
    if host.reuse or host.copies == "staged" or host.overlap:
        lines += at_exit(scop, state)
    call_args = [f"d_{a.name}" if a.kind == "array" else a.name for a in scop.args]
    if host.overlap:
        lines += _overlapped_call(scop, arrays, sizes, first_used, call_args)
        if not host.reuse:
            lines += [f"  cudaFree(d_{a.name});" for a in arrays]
        return lines + ["  return err;", "}"]
    for arg in arrays:
        lines += _copy(host, state, f"d_{arg.name}", arg.name, sizes[arg.name], inward=True)
    lines.append(f"  err = {abi.entry_name(scop, '_dev')}({', '.join(call_args)});")
    for arg in arrays:
        if arg.name in written:
            lines += _copy(host, state, arg.name, f"d_{arg.name}", sizes[arg.name], inward=False)
    if not host.reuse:
        lines += [f"  cudaFree(d_{a.name});" for a in arrays]
    return lines + ["  return err;", "}"]


def _overlapped_call(scop: Scop, arrays: list, sizes: dict[str, str],
                     first_used: tuple[str, ...], call_args: list[str]) -> list[str]:
    """The copies in on the entry's copy stream (its pc_overlap_state), each followed by its
    event, first needed first; then pc_<name>_run with what it needs to wait for them and to
    copy out (`call_args`: the arguments before that)."""
    slot = {a.name: k for k, a in enumerate(arrays)}
    order = [n for n in first_used if n in slot] + [a.name for a in arrays
                                                    if a.name not in first_used]
    streams = _streams(scop)
    lines = [f"  PC_CHECK((cudaError_t)pc_host_streams(&{streams}));",
             f"  pc_host_copies pc_copies = {{{streams}.copy}};  /* waited for at every return */"]
    for name in order:
        lines += [f"  PC_CHECK(cudaMemcpyAsync(d_{name}, {name}, {sizes[name]}, "
                  f"cudaMemcpyHostToDevice, {streams}.copy));",
                  f"  PC_CHECK(cudaEventRecord({streams}.in[{slot[name]}], {streams}.copy));"]
    run = abi.entry_name(scop, "_run")
    if not arrays:
        return lines + [f"  err = {run}({', '.join(call_args + ['NULL'])});"]
    host_ptrs = ", ".join(f"(void *){a.name}" for a in arrays)
    dev_ptrs = ", ".join(f"(void *)d_{a.name}" for a in arrays)
    return lines + [
        f"  void *const pc_host_ptrs[] = {{{host_ptrs}}};",
        f"  void *const pc_dev_ptrs[] = {{{dev_ptrs}}};",
        f"  const size_t pc_bytes[] = {{{', '.join(sizes[a.name] for a in arrays)}}};",
        f"  const pc_overlap pc_ov = {{{streams}.copy, {streams}.in, {streams}.out, "
        "pc_host_ptrs, pc_dev_ptrs, pc_bytes};",
        f"  err = {run}({', '.join(call_args + ['&pc_ov'])});"]


def _copy(host: HostSide, state: str, dst: str, src: str, size: str, inward: bool
          ) -> list[str]:
    """One array's copy in (before the kernels: PC_CHECK) or out (after: only without an
    earlier error, into err). Staged copies fall back to cudaMemcpy under pin_min_bytes."""
    kind = "cudaMemcpyHostToDevice" if inward else "cudaMemcpyDeviceToHost"
    plain = f"cudaMemcpy({dst}, {src}, {size}, {kind})"
    call = plain
    if host.copies == "staged":
        staged = (f"pc_stage_{'in' if inward else 'out'}(&{state}, {host.chunk_bytes}, {dst}, "
                  f"{src}, {size})")
        call = f"({size} >= {host.pin_min_bytes} ? {staged} : (int){plain})"
    if inward:
        return [f"  PC_CHECK((cudaError_t)({call}));"]
    return [f"  if (!err) err = (int)({call});"]


def _plain_host_entry(scop: Scop) -> list[str]:
    """The entry with the defaults: allocate, copy in, run, copy out, free, in every call."""
    lines = [f'extern "C" int {abi.entry_name(scop)}({abi.arg_decls(scop)}) {{',
             *index_guard(scop), "  int err = 0;"]
    arrays = [a for a in scop.args if a.kind == "array"]
    written = set(scop.written_arrays())
    for arg in arrays:
        ctype, size = abi.C_TYPES[arg.dtype], array_elements(scop.array(arg.name))
        lines.append(f"  {ctype} *d_{arg.name} = NULL;")
        lines.append(f"  PC_CHECK(cudaMalloc((void **)&d_{arg.name}, {size} * sizeof({ctype})));")
        lines.append(f"  PC_CHECK(cudaMemcpy(d_{arg.name}, {arg.name}, {size} * sizeof({ctype}), "
                     "cudaMemcpyHostToDevice));")
    call_args = ", ".join(f"d_{a.name}" if a.kind == "array" else a.name for a in scop.args)
    lines.append(f"  err = {abi.entry_name(scop, '_dev')}({call_args});")
    for arg in arrays:
        ctype, size = abi.C_TYPES[arg.dtype], array_elements(scop.array(arg.name))
        if arg.name in written:
            lines.append(f"  if (!err) err = (int)cudaMemcpy({arg.name}, d_{arg.name}, "
                         f"{size} * sizeof({ctype}), cudaMemcpyDeviceToHost);")
    lines += [f"  cudaFree(d_{a.name});" for a in arrays]
    lines += ["  return err;", "}"]
    return lines
