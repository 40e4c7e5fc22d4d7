"""Sync-free executor without inspector passes, for run-time nests whose writes are affine and
injective (analysis/affine_writers.py; Options.runtime_executor "syncfree-affine", or "auto"
where it applies; issue 17, item 3). Per call of nest k:

  pc_check<k>     the index checks (inspector_cuda.py), before anything else
  pc_affwar<k>    one pass over every iteration's slice functions (Anantpur & Govindarajan
                  2013, Section 3.3.1: only index arrays read, no side effects): for each read
                  of a monitored cell c, writer(c) in closed form; a writer LATER than the
                  reader (an anti dependence: the reader must see the old value) sets a flag.
                  O(accesses), one launch, instead of one inspector pass per level.
  pc_affsync<k>   flag clear: ONE launch; iteration t, before each read of a monitored cell c
                  whose writer w = writer(c) is earlier (w < t), spins until w's done flag is
                  set; after its body, t sets its own flag. This is the sync-free scheme of
                  Liu et al. 2016 (SpTRSV: each row waits on the rows its columns name), with
                  the dependences read off the program instead of the matrix.
  flag set        the levels path of the chosen options (inspector_cuda.py) for this call.

Correct: with the flag clear, every read of c in t is (a) of a cell no iteration writes: the
original value, never changed; (b) of c written by w < t: t waits for w to finish, and no
other iteration writes c (injective), so t sees w's (last) value, as in sequential order; (c)
of its own cell (w = t): the iteration runs in order in one thread. Writes never conflict
(injective), scalars private to an iteration and scatter-add arrays are as in the levels path.
Deadlock freedom: each block takes its iterations' positions with an atomic ticket in
increasing order, and only a block that runs takes a ticket, so every position below a running
iteration belongs to a block that has started (is resident or done). An iteration waits only
on lower positions; the lowest unfinished iteration waits on nothing unfinished, runs to the
end and sets its flag, so by induction every wait ends. Within a warp, a lane waits only on
lower lanes or earlier blocks: legal under independent thread scheduling (sm_70 and later),
with __nanosleep in the spin (the emulator's fibers yield: executor_cuda.spin_prelude).
Visibility: __threadfence() before setting a flag and after seeing one set, the flag read
volatile.
"""

from __future__ import annotations

from collections.abc import Callable

import islpy as isl

from polycuda.analysis.affine_writers import AffineWriters, affine_writers, cell_name
from polycuda.analysis.indirect import RuntimeNest
from polycuda.codegen import csr
from polycuda.codegen.abi import C_TYPES
from polycuda.codegen.runtime_nest import (ITERATION, NestCode, SlicePrinter, body_lines,
                                           private_name)
from polycuda.codegen.statements import flat_ref_printer, statement_parts
from polycuda.ir.ast_expr import ast_expr_to_c
from polycuda.ir.expr import Expr, Ref
from polycuda.ir.scop import Scop, Statement
from polycuda.options import Options

THREADS = 256
WARP = 32
AFFINE_EXECUTORS = ("syncfree-affine", "syncfree-affine-warp", "auto")
# pc_<name>_executor[k] (executor_cuda.EXECUTOR_CODES): one thread, one warp per iteration
EXECUTOR_CODE, WARP_CODE = 3, 4
REDUCED_DTYPES = ("float", "double")


def warp_form(scop: Scop, nest: RuntimeNest, options: Options | None) -> str | None:
    """None when `nest` runs one warp per iteration under Options.runtime_executor
    "syncfree-affine-warp" or "auto" (else why not; one thread per iteration then; on the H100,
    SpTRSV at n = 2^20 took 2.14 ms this way against 4.37 ms with one thread per row,
    bench/results/2026-11-25-nvidia-h100-80gb-hbm3-sptrsv-syncfree.json): every statement
    with a CSR loop is a reduction (`+=`, `-=`) over one CSR loop into a scalar private to the
    iteration (RuntimeNest.private; float or double) whose value reads no private scalar, and
    the reductions may be reassociated (Options.allow_reassociation): the lanes split the CSR
    loop (as the fast sync-free SpTRSV kernels of Liu et al. 2016 split a row's nonzeros) and
    add their partial sums with a butterfly of warp shuffles."""
    if options is None or options.runtime_executor not in ("syncfree-affine-warp", "auto"):
        return "not asked for"
    if not options.allow_reassociation:
        return "the CSR reductions may not be reassociated (--no-allow-reassociation)"
    private = set(nest.private)
    for name in nest.statements:
        stmt = scop.statement(name)
        if not stmt.csr:
            continue
        if (len(stmt.csr) != 1 or stmt.op not in ("+=", "-=") or stmt.lhs.array not in private
                or scop.array(stmt.lhs.array).dtype not in REDUCED_DTYPES
                or any(r.array in private for r in stmt.read_refs() if r is not stmt.lhs)):
            return (f"{stmt.name} is not a reduction over one CSR loop into a private float or "
                    "double scalar")
    return None


def applies(scop: Scop, nest: RuntimeNest, options: Options | None) -> AffineWriters | None:
    """The closed-form writers of `nest` when the options ask for this executor
    ("syncfree-affine", or "auto": it is tried first wherever it applies, since it needs one
    check pass instead of one inspector pass per level) and the writes allow it; else None
    (the levels path; `show deps` says why)."""
    if options is None or options.runtime_executor not in AFFINE_EXECUTORS:
        return None
    writers = affine_writers(scop, nest)
    return writers if isinstance(writers, AffineWriters) else None


def kernels(scop: Scop, k: int, nest: RuntimeNest, writers: AffineWriters, code: NestCode,
            args: list[tuple[str, str]], kernel: Callable, options: Options | None = None
            ) -> list[str]:
    """pc_affwar<k> and pc_affsync<k>; `kernel(name, scop, extra, code, lines)` makes a
    one-iteration-per-thread kernel (inspector_cuda._kernel)."""
    head = lambda name, extra, lines: kernel(name, scop, extra, code, lines)  # noqa: E731
    out = [war_kernel(scop, k, nest, writers, code, head)]
    if uses_warp_sum(scop, nest, options):
        return out + [warp_kernel(scop, k, nest, writers, code, args)]
    return out + [sync_kernel(scop, k, nest, writers, code, args)]


def uses_warp_sum(scop: Scop, nest: RuntimeNest, options: Options | None) -> bool:
    """Whether kernels() gives the nest the warp kernel, which needs warp_prelude() (among
    the file's shared definitions)."""
    return warp_form(scop, nest, options) is None


def _writer_c(writers: AffineWriters, array: str) -> tuple[str, str]:
    """(condition, value) in C of writer(c) of `array`: whether an iteration writes the cell
    pc_cell0.., and the levelized iterator's value there (valid under the condition).
    # writer: [params, pc_h.., pc_cell..] -> { [t] }"""
    ctx = isl.Context()
    writer = isl.PwAff.read_from_str(ctx, writers.writer(array))
    build = isl.AstBuild.from_context(isl.Set.universe(writer.get_domain_space()))
    cond = ast_expr_to_c(build.expr_from_set(writer.domain()))
    return cond, ast_expr_to_c(build.expr_from_pw_aff(writer))


def _writer_lines(scop: Scop, writers: AffineWriters, code: NestCode, ref: Ref,
                  text: Callable[[Expr], str], then: str) -> list[str]:
    """C lines: pc_w = the position (0..pc_n-1, in execution order) of the writer of the cell
    `ref` reads, then `then` when one exists."""
    cond, value = _writer_c(writers, ref.array)
    cells = [f"const long long {cell_name(d)} = {text(e)};" for d, e in enumerate(ref.index)]
    pos = f"({value}) - pc_first" if code.direction > 0 else f"pc_first - ({value})"
    return (["{ " + " ".join(cells)] if cells else ["{"]) + [
        f"  if ({cond}) {{ const long long pc_w = {pos}; {then} }}", "}"]


def war_kernel(scop: Scop, k: int, nest: RuntimeNest, writers: AffineWriters, code: NestCode,
               head: Callable[[str, list[str], list[str]], str]) -> str:
    """pc_affwar<k>: *pc_war = 1 when an iteration reads a cell written by a later one."""
    monitored = set(nest.monitored)

    def test(stmt: Statement, ref: Ref, is_write: bool, text: Callable[[Expr], str]):
        if is_write or ref.array not in monitored:
            return []
        return _writer_lines(scop, writers, code, ref, text,
                             "if (pc_w > pc_t || (pc_own && pc_w == pc_t)) *pc_war = 1;")

    # pc_own: a read of the iteration's own cell counts too (one warp per iteration: lanes
    # other than 0, which writes it, would not see the write)
    return head(f"pc_affwar{k}", ["int *pc_war", "int pc_own"], body_lines(scop, code, test, 1))


class _WaitingPrinter(SlicePrinter):
    """The statements of one iteration, each read of a monitored cell preceded by a wait on
    its earlier writer (inside the statement's CSR loops when the read uses their iterator)."""

    def __init__(self, scop: Scop, nest: RuntimeNest, wait: Callable[[Ref, Callable], list],
                 warp: bool = False):
        super().__init__(scop, None, frozenset(nest.atomic), frozenset(nest.private))
        self.monitored = set(nest.monitored)
        self.wait = wait
        self.warp = warp

    def _refs(self, ref: Ref, sub: Callable[[Expr], str]) -> str:
        # a monitored cell read volatile: never a stale copy in the L1 of this SM (another
        # thread's earlier load of its line), whatever the fence does to the L1
        text = super()._refs(ref, sub)
        if ref.array not in self.monitored:
            return text
        return f"(*(volatile {C_TYPES[self.scop.array(ref.array).dtype]} *)&{text})"

    def user(self, node: isl.AstNode, indent: int) -> None:
        self.flat = flat_ref_printer(self.scop)
        stmt, text = statement_parts(self.scop, node.user_get_expr(), self._refs)
        outside, inside = [], []
        for ref in stmt.read_refs():
            if ref.array in self.monitored:
                lines = self.wait(ref, text)
                (inside if stmt.csr and csr.uses_csr(stmt, ref) else outside).extend(lines)
        for line in outside:
            self.emit(indent, line)
        if self.warp:
            self._warp_user(stmt, text, inside, node, indent)
            return
        if not inside:
            super().user(node, indent)
            return
        if stmt.lhs.array in self.atomic:
            ctype = C_TYPES[self.scop.array(stmt.lhs.array).dtype]
            sign = "-" if stmt.op == "-=" else ""
            body = f"atomicAdd(&{text(stmt.lhs)}, {sign}({ctype})({text(stmt.rhs)}));"
        else:
            body = f"{text(stmt.lhs)} {stmt.op} {text(stmt.rhs)};"
        self.emit(indent, " ".join(csr.loop_headers(stmt, text)) + " {")
        for line in inside + [body]:
            self.emit(indent + 1, line)
        self.emit(indent, "}")


    def _warp_user(self, stmt: Statement, text: Callable[[Expr], str], inside: list[str],
                   node: isl.AstNode, indent: int) -> None:
        """One warp per iteration (warp_form): a CSR reduction split over the lanes and
        summed by PC_WARP_SUM; every other statement run by all lanes (the same values), its
        writes outside private scalars by lane 0 only."""
        if not stmt.csr:
            if stmt.lhs.array in self.private:
                super().user(node, indent)
            else:
                self.emit(indent, "if (pc_lane == 0) {")
                super().user(node, indent + 1)
                self.emit(indent, "}")
            return
        loop, = stmt.csr
        it = csr.csr_name(loop.iterator)
        self.emit(indent, "{ double pc_part = 0.0;")
        self.emit(indent + 1, f"for (long long {it} = ({text(loop.lower)}) + pc_lane; {it} <= "
                              f"({text(loop.upper)}); {it} += {WARP}) {{")
        for line in inside:
            self.emit(indent + 2, line)
        self.emit(indent + 2, f"pc_part += (double)({text(stmt.rhs)});")
        self.emit(indent + 1, "}")
        ctype = C_TYPES[self.scop.array(stmt.lhs.array).dtype]
        self.emit(indent + 1, f"{text(stmt.lhs)} {stmt.op} ({ctype})PC_WARP_SUM(pc_part);")
        self.emit(indent, "}")


def warp_prelude() -> str:
    """PC_WARP_SUM(v): the sum of v over the 32 lanes, in every lane: a butterfly of
    __shfl_xor_sync on the GPU; on the emulator, which has no shuffles, the lanes' values in
    shared memory between two software warp barriers (spins that yield: its fibers)."""
    return "\n".join([
        "#ifndef PC_WARP_SUM_DEFINED", "#define PC_WARP_SUM_DEFINED",
        "#ifndef PC_EMULATE",
        "static __device__ __forceinline__ double pc_warp_sum(double v) {",
        f"  for (int o = {WARP // 2}; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);",
        "  return v;", "}",
        "#define PC_WARP_SUM(v) pc_warp_sum(v)",
        "#else",
        "static __device__ double pc_warp_sum_emu(double v, double *slot, unsigned *arrive, "
        "unsigned *round) {",
        f"  const unsigned w = threadIdx.x / {WARP}, r = ++*round;",
        "  slot[threadIdx.x] = v;",
        "  atomicAdd(&arrive[w], 1u);",
        f"  while (*(volatile unsigned *)&arrive[w] < {2 * WARP}u * r - {WARP}u) PC_SPIN_YIELD();",
        "  double s = 0.0;",
        f"  for (unsigned j = 0; j < {WARP}; j++) s += slot[w * {WARP} + j];",
        "  atomicAdd(&arrive[w], 1u);  /* nobody writes its slot again before all have read */",
        f"  while (*(volatile unsigned *)&arrive[w] < {2 * WARP}u * r) PC_SPIN_YIELD();",
        "  return s;", "}",
        "#define PC_WARP_SUM(v) pc_warp_sum_emu(v, pc_wslot, pc_warrive, &pc_wround)",
        "#endif", "#endif", ""])


def warp_kernel(scop: Scop, k: int, nest: RuntimeNest, writers: AffineWriters, code: NestCode,
                args: list[tuple[str, str]]) -> str:
    """pc_affwarp<k>: the one-launch executor with one warp per iteration (warp_form); the
    tickets count iterations, THREADS / WARP per block, so the order argument of the module
    docstring holds for warps."""
    spin = ("if (pc_w < pc_t) { while (*(volatile unsigned *)&pc_flag[pc_w] == 0u) "
            "PC_SPIN_YIELD(); __threadfence(); }")
    printer = _WaitingPrinter(scop, nest,
                              lambda ref, text: _writer_lines(scop, writers, code, ref, text,
                                                              spin), warp=True)
    printer.node(code.ast, 1)
    run = [f"  {C_TYPES[scop.array(a).dtype]} {private_name(a)};" for a in nest.private]
    run += printer.lines
    decl = ", ".join([d for d, _ in args] + ["long long pc_first", "long long pc_n"]
                     + [f"long long {h}" for h in code.host]
                     + ["unsigned *pc_flag", "unsigned long long *pc_ticket"])
    step = "+" if code.direction > 0 else "-"
    per_block = THREADS // WARP
    return "\n".join(
        [f"__global__ void __launch_bounds__({THREADS}) pc_affwarp{k}({decl}) {{",
         "  __shared__ unsigned long long pc_base;  /* iterations in increasing order */",
         "#ifdef PC_EMULATE",
         f"  __shared__ double pc_wslot[{THREADS}];",
         f"  __shared__ unsigned pc_warrive[{per_block}];",
         "  unsigned pc_wround = 0;",
         f"  if (threadIdx.x < {per_block}) pc_warrive[threadIdx.x] = 0u;",
         "#endif",
         f"  if (threadIdx.x == 0) pc_base = atomicAdd(pc_ticket, {per_block}ULL);",
         "  __syncthreads();",
         f"  const long long pc_t = (long long)pc_base + threadIdx.x / {WARP};",
         f"  const int pc_lane = (int)(threadIdx.x % {WARP});",
         "  if (pc_t >= pc_n) return;  /* the whole warp */",
         f"  const long long {ITERATION} = pc_first {step} pc_t;"] + run +
        ["  if (pc_lane == 0) {",
         "    __threadfence();",
         "    *(volatile unsigned *)&pc_flag[pc_t] = 1u;",
         "  }",
         "}"])


def sync_kernel(scop: Scop, k: int, nest: RuntimeNest, writers: AffineWriters, code: NestCode,
                args: list[tuple[str, str]]) -> str:
    """pc_affsync<k>: the one-launch executor (module docstring)."""
    spin = ("if (pc_w < pc_t) { while (*(volatile unsigned *)&pc_flag[pc_w] == 0u) "
            "PC_SPIN_YIELD(); __threadfence(); }")
    printer = _WaitingPrinter(scop, nest,
                              lambda ref, text: _writer_lines(scop, writers, code, ref, text,
                                                              spin))
    printer.node(code.ast, 1)
    run = [f"  {C_TYPES[scop.array(a).dtype]} {private_name(a)};" for a in nest.private]
    run += printer.lines
    decl = ", ".join([d for d, _ in args] + ["long long pc_first", "long long pc_n"]
                     + [f"long long {h}" for h in code.host]
                     + ["unsigned *pc_flag", "unsigned long long *pc_ticket"])
    step = "+" if code.direction > 0 else "-"
    return "\n".join(
        [f"__global__ void __launch_bounds__({THREADS}) pc_affsync{k}({decl}) {{",
         "  __shared__ unsigned long long pc_base;  /* positions in increasing order */",
         "  if (threadIdx.x == 0) pc_base = atomicAdd(pc_ticket, (unsigned long long)"
         "blockDim.x);",
         "  __syncthreads();",
         "  const long long pc_t = (long long)pc_base + threadIdx.x;",
         "  if (pc_t >= pc_n) return;",
         f"  const long long {ITERATION} = pc_first {step} pc_t;"] + run +
        ["  __threadfence();",
         "  *(volatile unsigned *)&pc_flag[pc_t] = 1u;",
         "}"])


def driver_lines(scop: Scop, k: int, launch: str, warp: bool = False) -> list[str]:
    """Host lines: the anti-dependence check, then (none found) the one launch; pc_affine = 1
    when it ran, else the caller's levels path runs. Counters as the other executors'. With
    `warp`, one warp per iteration (warp_form)."""
    name = scop.name
    per_block = THREADS // WARP
    run = (f"        pc_affwarp{k}" + launch.replace(
        "<<<pc_blocks,", f"<<<(unsigned)((pc_n + {per_block - 1}) / {per_block}),")
           if warp else f"        pc_affsync{k}{launch}")
    return [
        "    int pc_affine = 0;",
        "    { /* sync-free on affine writers (codegen/syncfree_affine.py) */",
        "      const double pc_a0 = PC_NOW();",
        "      int *pc_war = NULL, pc_seen = 0;",
        "      PC_CHECK(cudaMalloc((void **)&pc_war, sizeof(int)));",
        "      PC_CHECK(cudaMemset(pc_war, 0, sizeof(int)));",
        f"      pc_affwar{k}{launch}, pc_war, {int(warp)});",
        "      PC_CHECK(cudaGetLastError());",
        "      PC_CHECK(cudaMemcpy(&pc_seen, pc_war, sizeof(int), cudaMemcpyDeviceToHost));",
        "      cudaFree(pc_war);",
        f"      pc_{name}_inspect_s_wall[{k}] = PC_NOW() - pc_a0;",
        "      if (!pc_seen) {  /* no read of a later iteration's cell: one launch */",
        "        unsigned *pc_flag = NULL;",
        "        unsigned long long *pc_ticket = NULL;",
        "        PC_CHECK(cudaMalloc((void **)&pc_flag, pc_n * sizeof(unsigned)));",
        "        PC_CHECK(cudaMalloc((void **)&pc_ticket, sizeof(unsigned long long)));",
        "        PC_CHECK(cudaMemset(pc_flag, 0, pc_n * sizeof(unsigned)));",
        "        PC_CHECK(cudaMemset(pc_ticket, 0, sizeof(unsigned long long)));",
        f"{run}, pc_flag, pc_ticket);",
        "        PC_CHECK(cudaGetLastError());",
        "        cudaFree(pc_flag); cudaFree(pc_ticket);",
        "        pc_affine = 1;",
        f"        pc_{name}_levels[{k}] = 0;  /* none computed */",
        f"        pc_{name}_iterations[{k}] = pc_n;",
        f"        pc_{name}_executor[{k}] = {WARP_CODE if warp else EXECUTOR_CODE};",
        f"        pc_{name}_reused[{k}] = 0;",
        f"        pc_{name}_widest[{k}] = 0;",
        "      }",
        "    }"]
