"""Executors of a run-time nest beyond the paper's one launch per level, for
codegen/inspector_cuda.py: the one-launch executor (`syncfree`), the reuse of levels when the
index arrays are unchanged (Anantpur & Govindarajan 2013, Section 3.5.4) and the sequential
fallback on the host when the levels are too many (Section 3.5.2, last paragraph).

One-launch executor (Options.runtime_executor "syncfree"). After the inspector, the iterations
are sorted by level (a counting sort: sizes per level, their prefix sums, a scatter) and ONE
launch runs them all: each block claims the next blockDim.x positions of the sorted order
with an atomic ticket, and an iteration of level l > 0 spins until the done-counter of level
l - 1 reaches that level's size, then runs and counts itself done in level l. Waiting on the
level below suffices: its iterations waited on theirs, so every earlier level is done too, and
every iteration an iteration conflicts with is at a lower level (the inspector's levels are
exact). The wait is per level, not per conflicting iteration: the exact predecessors (the last
earlier writer of each cell, the readers before a write) need each access's rank among the
cell's accesses in iteration order, a sort by cell that costs more than the levels it would
refine.
Deadlock freedom: tickets are taken in increasing order by blocks that are already running
(resident), so every position below a block's tickets belongs to a resident block; an
iteration waits only for lower levels, which sit at lower positions; by induction on the level
every wait ends. Within a warp, lanes of two levels wait on each other only downwards, which
independent thread scheduling (sm_70 and later) lets progress. Visibility: __threadfence()
before counting an iteration done and after seeing a level done, the counter read volatile.
"""

from __future__ import annotations

from polycuda.analysis.indirect import RuntimeNest
from polycuda.codegen import abi
from polycuda.codegen.c_target import array_elements
from polycuda.codegen.runtime_nest import ITERATION, NestCode, body_lines
from polycuda.ir.expr import Var, refs, walk
from polycuda.ir.scop import Scop

THREADS = 256
# Options.runtime_executor "auto": the one-launch executor when the levels are reused (no
# inspection this call, so no execution to pipeline with it) and at least this many: it pays a
# counting sort (about five launches and two small copies) to save one launch per level. To be
# measured on the GPU (bench/indirect_gpu.py, executors levels / syncfree with reuse).
SYNCFREE_MIN_LEVELS = 16
# pc_<name>_executor[k]: which executor ran the nest in the last call
EXECUTOR_CODES = {0: "levels", 1: "syncfree", 2: "sequential on the host",
                  3: "syncfree-affine (no levels: each read waits on its writer)",
                  4: "syncfree-affine-warp (no levels: one warp per iteration, each read "
                     "waiting on its writer)"}


def spin_prelude() -> str:
    """PC_SPIN_YIELD: what a spinning thread does between two tests of its flag (the
    emulator's fibers must yield, runtime/cuda_emu.h spin_yield)."""
    return ("#ifdef PC_EMULATE\n#define PC_SPIN_YIELD() pc_emu::spin_yield()\n#else\n"
            "#define PC_SPIN_YIELD() __nanosleep(32)\n#endif\n")


def sync_kernels(scop: Scop, k: int, nest: RuntimeNest, code: NestCode,
                 args: list[tuple[str, str]]) -> list[str]:
    """pc_count<k> (iterations per level), pc_place<k> (the level-sorted order) and
    pc_sync<k> (the one-launch executor, module docstring)."""
    head = ["  const long long pc_t = (long long)blockIdx.x * blockDim.x + threadIdx.x;",
            "  if (pc_t >= pc_n) return;"]
    count = ([f"__global__ void __launch_bounds__({THREADS}) pc_count{k}(long long pc_n, "
              "const int *pc_level, unsigned *pc_size) {"] + head
             + ["  atomicAdd(&pc_size[pc_level[pc_t]], 1u);", "}"])
    place = ([f"__global__ void __launch_bounds__({THREADS}) pc_place{k}(long long pc_n, "
              "const int *pc_level, unsigned *pc_fill, unsigned *pc_order) {"] + head
             + ["  pc_order[atomicAdd(&pc_fill[pc_level[pc_t]], 1u)] = (unsigned)pc_t;", "}"])
    decl = ", ".join([d for d, _ in args] + ["long long pc_first", "long long pc_n"]
                     + [f"long long {h}" for h in code.host]
                     + ["const int *pc_level", "const unsigned *pc_order",
                        "const unsigned *pc_size", "unsigned *pc_done",
                        "unsigned long long *pc_ticket"])
    step = "+" if code.direction > 0 else "-"
    run = body_lines(scop, code, None, 1, frozenset(nest.atomic), nest.private)
    sync = [f"__global__ void __launch_bounds__({THREADS}) pc_sync{k}({decl}) {{",
            "  __shared__ unsigned long long pc_base;  /* tickets in increasing order */",
            "  if (threadIdx.x == 0) pc_base = atomicAdd(pc_ticket, (unsigned long long)"
            "blockDim.x);",
            "  __syncthreads();",
            "  const long long pc_k = (long long)pc_base + threadIdx.x;",
            "  if (pc_k >= pc_n) return;",
            "  const long long pc_t = pc_order[pc_k];",
            "  const int pc_l = pc_level[pc_t];",
            "  if (pc_l > 0) {  /* the level below done: every earlier level is */",
            "    while (*(volatile unsigned *)&pc_done[pc_l - 1] < pc_size[pc_l - 1]) "
            "PC_SPIN_YIELD();",
            "    __threadfence();",
            "  }",
            f"  const long long {ITERATION} = pc_first {step} pc_t;"] + run + [
            "  __threadfence();",
            "  atomicAdd(&pc_done[pc_l], 1u);",
            "}"]
    return ["\n".join(count), "\n".join(place), "\n".join(sync)]


def sync_lines(scop: Scop, k: int, launch: str) -> list[str]:
    """Host lines: run the levels 0..pc_cur of pc_level with pc_sync<k> (one launch)."""
    blocks = "<<<pc_blocks, " + str(THREADS) + ">>>"
    return [
        "    { /* one launch for every level (codegen/executor_cuda.py) */",
        "      const long long pc_nl = (long long)pc_cur + 1;",
        "      unsigned *pc_size = NULL, *pc_fill = NULL, *pc_done = NULL, *pc_order = NULL;",
        "      unsigned long long *pc_ticket = NULL;",
        "      PC_CHECK(cudaMalloc((void **)&pc_size, pc_nl * sizeof(unsigned)));",
        "      PC_CHECK(cudaMalloc((void **)&pc_fill, pc_nl * sizeof(unsigned)));",
        "      PC_CHECK(cudaMalloc((void **)&pc_done, pc_nl * sizeof(unsigned)));",
        "      PC_CHECK(cudaMalloc((void **)&pc_order, pc_n * sizeof(unsigned)));",
        "      PC_CHECK(cudaMalloc((void **)&pc_ticket, sizeof(unsigned long long)));",
        "      PC_CHECK(cudaMemset(pc_size, 0, pc_nl * sizeof(unsigned)));",
        "      PC_CHECK(cudaMemset(pc_done, 0, pc_nl * sizeof(unsigned)));",
        "      PC_CHECK(cudaMemset(pc_ticket, 0, sizeof(unsigned long long)));",
        f"      pc_count{k}{blocks}(pc_n, pc_level, pc_size);",
        "      PC_CHECK(cudaGetLastError());",
        "      std::vector<unsigned> pc_start((size_t)pc_nl);",
        "      PC_CHECK(cudaMemcpy(pc_start.data(), pc_size, pc_nl * sizeof(unsigned), "
        "cudaMemcpyDeviceToHost));",
        "      unsigned pc_sum = 0;",
        "      for (long long pc_l = 0; pc_l < pc_nl; pc_l++) {",
        f"        if (pc_start[pc_l] > (unsigned)pc_{scop.name}_widest[{k}]) "
        f"pc_{scop.name}_widest[{k}] = pc_start[pc_l];",
        "        const unsigned pc_s = pc_start[pc_l]; pc_start[pc_l] = pc_sum; pc_sum += pc_s;",
        "      }",
        "      PC_CHECK(cudaMemcpy(pc_fill, pc_start.data(), pc_nl * sizeof(unsigned), "
        "cudaMemcpyHostToDevice));",
        f"      pc_place{k}{blocks}(pc_n, pc_level, pc_fill, pc_order);",
        f"      pc_sync{k}{launch}, pc_level, pc_order, pc_size, pc_done, pc_ticket);",
        "      PC_CHECK(cudaGetLastError());",
        "      cudaFree(pc_size); cudaFree(pc_fill); cudaFree(pc_done); cudaFree(pc_order);",
        "      cudaFree(pc_ticket);",
        "    }"]


# -- reuse of levels (Section 3.5.4) ------------------------------------------------------------
def levels_depend_on_host(scop: Scop, nest: RuntimeNest) -> bool:
    """Whether the accesses of one levelized iteration may change with the host iterators
    around the levelized loop (then each host iteration is inspected unless they are equal):
    a host iterator in a subscript of the nest, or in the bounds of a loop inside it (a CSR
    loop's included)."""
    host = set(scop.statement(nest.statements[0]).iterators[:nest.depth])
    if not host:
        return False
    for name in nest.statements:
        stmt = scop.statement(name)
        tops = [stmt.lhs, *refs(stmt.rhs)]
        for ref in [r for top in tops for r in [top, *refs(top)]]:
            for index in ref.index:
                if any(isinstance(v, Var) and v.name in host for v in walk(index)):
                    return True
        # the bounds of a CSR loop inside it (codegen/csr.py), their reads included
        if any(isinstance(v, Var) and v.name in host for loop in stmt.csr
               for bound in (loop.lower, loop.upper) for v in walk(bound)):
            return True
        if _inner_bounds_use(stmt.domain, stmt.iterators, nest.depth):
            return True
    return False


def _inner_bounds_use(domain: str, iterators: tuple[str, ...], depth: int) -> bool:
    """Whether a constraint of `domain` ties a loop at depth > `depth` to one at < `depth`."""
    import islpy as isl

    dom = isl.Set.read_from_str(isl.DEFAULT_CONTEXT, domain)
    n = dom.dim(isl.dim_type.set)
    outer = dom.project_out(isl.dim_type.set, depth, n - depth)
    inner = dom.project_out(isl.dim_type.set, 0, depth + 1)
    level = dom.project_out(isl.dim_type.set, 0, depth).project_out(isl.dim_type.set, 1,
                                                                   n - depth - 1)
    product = outer.flat_product(level).flat_product(inner)
    return not product.reset_tuple_id().is_equal(dom.reset_tuple_id())


def reuse_state(scop: Scop, k: int, nest: RuntimeNest, keys: int) -> list[str]:
    """The saved levels of nest k (one per library, guarded by a mutex) and the kernels that
    compare an index array with its saved copy."""
    count = max(len(nest.index_arrays), 1)
    lines = [f"static struct {{ int valid; long long key[{keys}]; int *level; long long cap, "
             f"levels; void *index[{count}]; size_t bytes[{count}]; }} pc_saved{k};",
             f"static std::mutex pc_mutex{k};"]
    for j, name in enumerate(nest.index_arrays):
        ctype = abi.C_TYPES[scop.array(name).dtype]
        lines += [f"__global__ void __launch_bounds__({THREADS}) pc_differ{k}_{j}(const {ctype} "
                  "*pc_a, const " + ctype + " *pc_b, long long pc_n, int *pc_diff) {",
                  "  const long long pc_t = (long long)blockIdx.x * blockDim.x + threadIdx.x;",
                  "  if (pc_t < pc_n && pc_a[pc_t] != pc_b[pc_t]) *pc_diff = 1;",
                  "}"]
    return lines


def reuse_keys(scop: Scop, nest: RuntimeNest, code: NestCode) -> list[str]:
    """C expressions that, with the index arrays' contents, decide the levels: the levelized
    range, the parameters, the host iterators when the accesses use them, the device."""
    keys = ["pc_first", "pc_n"] + [p for p in scop.params]
    if levels_depend_on_host(scop, nest):
        keys += list(code.host)
    return keys + ["(long long)pc_device"]


def reuse_check_lines(scop: Scop, k: int, nest: RuntimeNest, keys: list[str]) -> list[str]:
    """Host lines: pc_reused = the saved levels apply (same key, index arrays equal)."""
    lines = [f"    std::lock_guard<std::mutex> pc_lock(pc_mutex{k});",
             "    int pc_device = 0;",
             "    PC_CHECK(cudaGetDevice(&pc_device));",
             f"    const long long pc_key[{len(keys)}] = {{{', '.join(keys)}}};",
             f"    int pc_reused = pc_saved{k}.valid && !memcmp(pc_saved{k}.key, pc_key, "
             "sizeof(pc_key));",
             "    if (pc_reused) {  /* never assumed: the index arrays compared on the GPU */",
             "      PC_CHECK(cudaMemset(pc_more, 0, sizeof(int)));"]
    for j, name in enumerate(nest.index_arrays):
        ctype = abi.C_TYPES[scop.array(name).dtype]
        elems = array_elements(scop.array(name))
        lines += [f"      {{ const long long pc_e = (long long)({elems});",
                  f"        if (pc_e > 0) pc_differ{k}_{j}<<<(unsigned)((pc_e + {THREADS - 1}) / "
                  f"{THREADS}), {THREADS}>>>((const {ctype} *)pc_saved{k}.index[{j}], {name}, "
                  "pc_e, pc_more); }"]
    lines += ["      PC_CHECK(cudaGetLastError());",
              "      PC_CHECK(cudaMemcpy(&pc_again, pc_more, sizeof(int), "
              "cudaMemcpyDeviceToHost));",
              "      pc_reused = !pc_again;",
              "    }",
              f"    pc_saved{k}.valid = pc_reused;",
              "    if (pc_reused) {",
              f"      pc_level = pc_saved{k}.level;",
              f"      pc_cur = (int)pc_saved{k}.levels - 1;",
              "    } else {",
              f"      if (pc_saved{k}.cap < pc_n) {{",
              f"        cudaFree(pc_saved{k}.level);",
              f"        pc_saved{k}.level = NULL;",
              f"        PC_CHECK(cudaMalloc((void **)&pc_saved{k}.level, pc_n * sizeof(int)));",
              f"        pc_saved{k}.cap = pc_n;",
              "      }",
              f"      pc_level = pc_saved{k}.level;",
              "    }"]
    return lines


def reuse_save_lines(scop: Scop, k: int, nest: RuntimeNest) -> list[str]:
    """Host lines after a complete inspection: save the key, the levels and the index arrays."""
    lines = ["    if (!pc_reused && !pc_fell) {"]
    for j, name in enumerate(nest.index_arrays):
        ctype = abi.C_TYPES[scop.array(name).dtype]
        elems = array_elements(scop.array(name))
        lines += [f"      {{ const size_t pc_b = ({elems}) * sizeof({ctype});",
                  f"        if (pc_saved{k}.bytes[{j}] < pc_b) {{",
                  f"          cudaFree(pc_saved{k}.index[{j}]);",
                  f"          pc_saved{k}.index[{j}] = NULL;",
                  f"          PC_CHECK(cudaMalloc(&pc_saved{k}.index[{j}], pc_b));",
                  f"          pc_saved{k}.bytes[{j}] = pc_b;",
                  "        }",
                  f"        PC_CHECK(cudaMemcpy(pc_saved{k}.index[{j}], {name}, pc_b, "
                  "cudaMemcpyDeviceToDevice)); }"]
    lines += [f"      memcpy(pc_saved{k}.key, pc_key, sizeof(pc_key));",
              f"      pc_saved{k}.levels = (long long)pc_cur + 1;",
              f"      pc_saved{k}.valid = 1;",
              "    }"]
    return lines


# -- sequential fallback on the host (Section 3.5.2) ---------------------------------------------
def nest_arrays(scop: Scop, nest: RuntimeNest) -> list[str]:
    """Every array the nest accesses (targets, reads, index arrays), in a stable order."""
    names: dict[str, None] = {}
    for name in nest.statements:
        stmt = scop.statement(name)
        for ref in (stmt.lhs, *stmt.read_refs(), *stmt.index_refs()):
            names[ref.array] = None
    return list(names)


# auto: the host's time of one iteration is measured by the fallback only over at least this
# many iterations (a steady_clock reading costs tens of ns: one iteration's worth)
HOST_SAMPLE_MIN = 1024


def fallback_prelude(name: str, count: int, auto: bool) -> str:
    """The fallback's globals: pc_<name>_fallback_below[k], the threshold (iterations per
    level) of nest k's last call; under auto, its costs (tune/level_cost.py): the GPU's
    seconds per level (the reference H100's until the loader sets a measured one,
    pc_<name>_level_measured = 1) and per nest the host's seconds per iteration (the
    reference until the fallback has timed the loop itself, pc_<name>_host_measured[k] = 1)."""
    from polycuda.tune import level_cost

    text = f'extern "C" {{ double pc_{name}_fallback_below[{count}]; }}\n'
    if auto:
        host = ", ".join([repr(level_cost.REFERENCE_HOST_ITERATION_S)] * count)
        text += (f'extern "C" {{ double pc_{name}_level_s = {level_cost.REFERENCE_LEVEL_S!r}; '
                 f"long long pc_{name}_level_measured = 0; "
                 f"double pc_{name}_host_iter_s[{count}] = {{{host}}}; "
                 f"long long pc_{name}_host_measured[{count}], "
                 f"pc_{name}_host_used_measured[{count}]; }}\n")
    return text


def auto_threshold(name: str, k: int) -> str:
    """C expression of auto's threshold of nest k: the GPU's cost of one level over the host's
    cost of one iteration, in iterations per level (0, never, if a cost is not positive)."""
    return (f"(pc_{name}_level_s > 0.0 && pc_{name}_host_iter_s[{k}] > 0.0 ? "
            f"pc_{name}_level_s / pc_{name}_host_iter_s[{k}] : 0.0)")


def fallback_lines(scop: Scop, k: int, nest: RuntimeNest, code: NestCode,
                   auto: bool = False) -> list[str]:
    """Host lines: the iterations at levels >= pc_from (not yet executed) run in their
    original order on the host, on copies of the nest's arrays. Legal: an executed iteration
    e and a remaining one r with r before e in the loop would conflict with level(r) <
    level(e), but r's level only grows and is already >= pc_from > level(e). With `auto`, the
    host loop is timed, and over HOST_SAMPLE_MIN iterations or more its time per iteration
    becomes the nest's host cost (fallback_prelude) for the next calls."""
    arrays = nest_arrays(scop, nest)
    written = {scop.statement(s).lhs.array for s in nest.statements}
    step = "+" if code.direction > 0 else "-"
    lines = ["    if (pc_fell) {  /* too many levels: the rest in order on the host */",
             "      int *pc_hlevel = (int *)malloc(pc_n * sizeof(int));",
             "      if (!pc_hlevel) return (int)cudaErrorMemoryAllocation;",
             "      PC_CHECK(cudaMemcpy(pc_hlevel, pc_level, pc_n * sizeof(int), "
             "cudaMemcpyDeviceToHost));"]
    for name in arrays:
        ctype = abi.C_TYPES[scop.array(name).dtype]
        elems = array_elements(scop.array(name))
        lines += [f"      const size_t pc_b_{name} = ({elems}) * sizeof({ctype});",
                  f"      {ctype} *pc_host_{name} = ({ctype} *)malloc(pc_b_{name} ? "
                  f"pc_b_{name} : 1);",
                  f"      if (!pc_host_{name}) return (int)cudaErrorMemoryAllocation;",
                  f"      PC_CHECK(cudaMemcpy(pc_host_{name}, {name}, pc_b_{name}, "
                  "cudaMemcpyDeviceToHost));"]
    lines += ["      {"]
    lines += [f"        {abi.C_TYPES[scop.array(n).dtype]} *{n} = pc_host_{n};" for n in arrays]
    lines += ["        const double pc_fb_t0 = PC_NOW();",
              "        long long pc_fb_ran = 0;",
              "        for (long long pc_t = 0; pc_t < pc_n; pc_t++) {",
              "          if (pc_hlevel[pc_t] < pc_from) continue;",
              "          pc_fb_ran++;",
              f"          const long long {ITERATION} = pc_first {step} pc_t;"]
    lines += ["        " + line for line in body_lines(scop, code, None, 1,
                                                          private=nest.private)]
    lines += ["        }"]
    if auto:
        lines += ["        const double pc_fb_s = PC_NOW() - pc_fb_t0;",
                  f"        if (pc_fb_ran >= {HOST_SAMPLE_MIN} && pc_fb_s > 0.0) {{",
                  f"          pc_{scop.name}_host_iter_s[{k}] = pc_fb_s / (double)pc_fb_ran;",
                  f"          pc_{scop.name}_host_measured[{k}] = 1;",
                  "        }"]
    else:
        lines += ["        (void)pc_fb_t0;"]
    lines += ["      }"]
    for name in arrays:
        if name in written:
            lines.append(f"      PC_CHECK(cudaMemcpy({name}, pc_host_{name}, pc_b_{name}, "
                         "cudaMemcpyHostToDevice));")
    lines += [f"      free(pc_host_{name});" for name in arrays]
    lines += ["      free(pc_hlevel);", "    }"]
    return lines
