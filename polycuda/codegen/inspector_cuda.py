"""Target "cuda" for regions with run-time nests: GPU inspector/executor (Anantpur &
Govindarajan 2013) for each run-time nest, the static path's code for the other statements.

Per run-time nest k (iterations t = 0..N-1 of its outer loop, in sequential order):
  pc_check<k>    every indirect subscript of every iteration within its extent, before any
                 write (an error names the array; never a wild access)
  pass c = 0, 1, ... until no iteration moves (Algorithm 4), over the active iterations
  (level >= c; every iteration not yet final is at level c when the pass starts):
    pc_writer<k>   Algorithm 2's log: atomicMin(aux_A[x], t) for each element x of a
                   monitored array A that t writes (auxiliary array of A's size); also runs
                   the iterations of level c - 1, final since the last pass (Algorithm 6,
                   software pipelining)
    pc_reader<k>   Algorithms 2-3's checks against the smallest writer w of x, after all of
                   the pass's writes are logged (a kernel boundary, where the paper checks
                   against a running minimum): t writes x and t > w: WAW, t moves to c + 1;
                   t reads x and t > w: RAW, t moves; t reads x and t < w: WAR, w moves
    pc_clear<k>    resets the aux entries the pass logged (no pass pays for the whole array)
  pc_exec<k>     the last level (Algorithm 5; the earlier ones ran in the writers)
Levels are exact: two conflicting iterations t1 < t2 end at levels l1 < l2 (in the first pass
where either could stay, t2 > w moves, or t2 = w moves for the reader t1 < w), and the
smallest active iteration never moves, so each pass ends a level.
"""

from __future__ import annotations

import dataclasses
import re

import islpy as isl

from polycuda.analysis.indirect import RuntimeNest
from polycuda.codegen import abi, host_driver
from polycuda.codegen import chunking_cuda, cuda_host, executor_cuda, syncfree_affine
from polycuda.codegen.chunking_cuda import Chunking
from polycuda.codegen.host_driver import HostSide
from polycuda.codegen.c_target import array_elements
from polycuda.codegen.printer import AstPrinter
from polycuda.codegen.runtime_nest import ITERATION, NestCode, body_lines, bound_checks, nest_code
from polycuda.codegen.statements import flat_index
from polycuda.codegen.test_main import main_source
from polycuda.ir.scop import Scop
from polycuda.options import Options

THREADS = 256  # threads per block of every inspector/executor kernel (one iteration each)


def kernel_args(scop: Scop) -> list[tuple[str, str]]:
    """(declaration, argument) of every value a kernel of the region may use: the entry's
    arguments (parameters as long long) and the region's local arrays."""
    out = [(abi.arg_decl(arg), arg.name) for arg in scop.args]
    for arr in scop.arrays:
        if arr.local:
            out.append((f"{abi.C_TYPES[arr.dtype]} *{arr.name}", arr.name))
    return out


def _aux(name: str) -> str:
    return f"pc_aux_{name}"


def _kernel(name: str, scop: Scop, extra: list[str], code: NestCode, lines: list[str]) -> str:
    decl = ", ".join([d for d, _ in kernel_args(scop)] + ["long long pc_first", "long long pc_n"]
                     + [f"long long {h}" for h in code.host] + extra)
    step = "+" if code.direction > 0 else "-"
    head = [f"__global__ void __launch_bounds__({THREADS}) {name}({decl}) {{",
            "  const long long pc_t = (long long)blockIdx.x * blockDim.x + threadIdx.x;",
            "  if (pc_t >= pc_n) return;",
            f"  const long long {ITERATION} = pc_first {step} pc_t;"]
    return "\n".join(head + lines + ["}"])


def _check_kernel(scop: Scop, k: int, code: NestCode) -> str:
    """pc_check<k>: every subscript read from an index array, and every range of a loop whose
    bounds read one (codegen/csr.py), within its extent; the error code (abi.INDEX_ERROR_BASE)
    of the first failing iteration in *pc_err, as pc_t * ERROR_CODES + code."""
    ids = {a.name: n for n, a in enumerate(scop.arrays)}
    codes = 2 * len(scop.arrays)

    def fail(code: int) -> str:
        return (f"{{ atomicMin(pc_err, (unsigned long long)pc_t * {codes}ULL + {code}ULL); "
                "return; }")

    def check(stmt, ref, is_write, text):
        return [f"if (!(0 <= ({value}) && ({value}) < ({extent}))) {fail(ids[inner.array])}"
                for inner, value, extent in bound_checks(scop, ref, text)]

    return _kernel(f"pc_check{k}", scop, ["unsigned long long *pc_err"], code,
                   body_lines(scop, code, check, 1, csr_fail=fail))


def _nest_kernels(scop: Scop, k: int, nest: RuntimeNest, code: NestCode,
                  pipelined: bool = True, ch: Chunking = Chunking()) -> list[str]:
    """The five kernels of run-time nest k (module docstring), six when chunked
    (chunking_cuda.py); without `pipelined`, the writer does not run the previous level (the
    one-launch executor runs them all after)."""
    monitored = set(nest.monitored)
    aux = [f"unsigned *{_aux(a)}" for a in nest.monitored]
    level = ["int *pc_level", "int pc_cur"]

    def cell(ref, text):  # the aux entry of the access (Section 3.5.1's hash)
        return chunking_cuda.slot(scop, ref.array, flat_index(scop, ref, text), ch)

    def log(stmt, ref, is_write, text):
        if not is_write or ref.array not in monitored:
            return []
        return [f"atomicMin(&{_aux(ref.array)}[{cell(ref, text)}], (unsigned)pc_t);"]

    def test(stmt, ref, is_write, text):
        if ref.array not in monitored:
            return []
        x = cell(ref, text)
        if ch.chunked:
            return chunking_cuda.reader_lines(_aux(ref.array), x, is_write, ch)
        if is_write:  # WAW: t is not the smallest writer of x
            return [f"if ((unsigned)pc_t > {_aux(ref.array)}[{x}]) "
                    "{ pc_level[pc_t] = pc_cur + 1; *pc_more = 1; }"]
        return [f"{{ const unsigned pc_w = {_aux(ref.array)}[{x}];",
                "  if (pc_w != PC_NONE && (unsigned)pc_t > pc_w) "  # RAW
                "{ pc_level[pc_t] = pc_cur + 1; *pc_more = 1; }",
                "  else if (pc_w != PC_NONE && (unsigned)pc_t < pc_w) "  # WAR
                "{ pc_level[pc_w] = pc_cur + 1; *pc_more = 1; } }"]

    def clear(stmt, ref, is_write, text):
        if not is_write or ref.array not in monitored:
            return []
        return [f"{_aux(ref.array)}[{cell(ref, text)}] = PC_NONE;"]

    run = body_lines(scop, code, None, 2, frozenset(nest.atomic), nest.private)
    active = [chunking_cuda.ACTIVE] if ch.chunked else ["  if (pc_level[pc_t] < pc_cur) return;"]
    stat = ["unsigned long long *pc_stat"] if ch.dynamic else []
    chunks = [_kernel(f"pc_chunks{k}", scop, level + ["long long pc_chunk", "int pc_gcur",
                                                       "int pc_mode"], code,
                      chunking_cuda.chunk_kernel_lines())] if ch.chunked else []
    return chunks + [
        _check_kernel(scop, k, code),
        _kernel(f"pc_writer{k}", scop, level + aux, code,
                (["#ifndef PC_TIMING", "  if (pc_level[pc_t] == pc_cur - 1) {"] + run
                 + ["  }", "#endif"] if pipelined else [])
                + ["  if (pc_level[pc_t] != pc_cur) return;"]
                + body_lines(scop, code, log, 1)),
        _kernel(f"pc_reader{k}", scop, level + aux + ["int *pc_more"] + stat, code,
                active + body_lines(scop, code, test, 1)),
        _kernel(f"pc_clear{k}", scop, level + aux, code, active + body_lines(scop, code, clear, 1)),
        _kernel(f"pc_exec{k}", scop, level, code,
                ["  if (pc_level[pc_t] != pc_cur) return;"] + run),
    ]


def _features(options: Options | None) -> tuple[str, bool, float | str]:
    """(executor, reuse, fallback threshold: iterations per level, 0 never, or "auto") of
    Options; None gives the paper's code."""
    if options is None:
        return "levels", False, 0.0
    executor = options.runtime_executor
    if executor == "auto" and not options.reuse_levels:
        executor = "levels"  # auto's one launch needs reused levels: else the paper's levels
    return executor, options.reuse_levels, options.cpu_fallback_per_level


def _plain(options: Options | None) -> bool:
    return (_features(options) == ("levels", False, 0.0)
            and chunking_cuda.of(options) == Chunking())


def _nest_driver(scop: Scop, k: int, nest: RuntimeNest, code: NestCode,
                 options: Options | None = None) -> list[str]:
    """Host lines of `pc_<name>_dev` that inspect and execute run-time nest k."""
    first = code.lower if code.direction > 0 else code.upper
    launch = _launch(scop, code)
    lines = [f"{{ /* loop '{nest.iterator}': run-time dependences (inspector/executor) */"]
    lines += [f"  const long long {h} = pc_hl{j};" for j, h in enumerate(code.host)]
    lines += [f"  const long long pc_first = {first};",
              f"  const long long pc_n = ({code.upper}) - ({code.lower}) + 1;",
              "  if (pc_n > 0) {",
             "    if (pc_n >= (long long)PC_NONE) return (int)cudaErrorInvalidValue;",
             f"    const unsigned pc_blocks = (unsigned)((pc_n + {THREADS - 1}) / {THREADS});",
             "    int *pc_level = NULL, *pc_more = NULL, pc_again = 0, pc_cur = 0;"]
    lines += _check_lines(scop, k, nest, code, launch)
    if syncfree_affine.applies(scop, nest, options):  # else (or a late reader) the levels
        warp = syncfree_affine.warp_form(scop, nest, options) is None
        return (lines + syncfree_affine.driver_lines(scop, k, launch, warp)
                + ["    if (!pc_affine) {"]
                + _feature_lines(scop, k, nest, code, launch, options) + ["    }", "  }", "}"])
    if not _plain(options):
        return lines + _feature_lines(scop, k, nest, code, launch, options) + ["  }", "}"]
    lines += ["    PC_CHECK(cudaMalloc((void **)&pc_level, pc_n * sizeof(int)));",
              "    PC_CHECK(cudaMemset(pc_level, 0, pc_n * sizeof(int)));",
              "    PC_CHECK(cudaMalloc((void **)&pc_more, sizeof(int)));"]
    for name in nest.monitored:
        size = array_elements(scop.array(name))
        lines += [f"    unsigned *{_aux(name)} = NULL;",
                  f"    PC_CHECK(cudaMalloc((void **)&{_aux(name)}, {size} * sizeof(unsigned)));",
                  f"    PC_CHECK(cudaMemset({_aux(name)}, 0xff, {size} * sizeof(unsigned)));"]
    lines += _level_lines(scop, k, nest, launch)
    lines += [f"    pc_{scop.name}_levels[{k}] = pc_cur + 1;",
              f"    pc_{scop.name}_iterations[{k}] = pc_n;",
              "    cudaFree(pc_level);",
              "    cudaFree(pc_more);"]
    lines += [f"    cudaFree({_aux(name)});" for name in nest.monitored]
    lines += ["    (void)pc_again;", "  }", "}"]
    return lines


def _launch(scop: Scop, code: NestCode) -> str:
    """The launch configuration and first arguments of every kernel of one loop."""
    return (f"<<<pc_blocks, {THREADS}>>>({', '.join(a for _, a in kernel_args(scop))}, "
            f"pc_first, pc_n{''.join(', ' + h for h in code.host)}")


def _check_driver(scop: Scop, k: int, nest: RuntimeNest, code: NestCode) -> list[str]:
    """Host lines that run pc_check<k> over a static top-level nest with indirect subscripts
    or loops with bounds read from arrays, before it runs (codegen/csr.py)."""
    first = code.lower if code.direction > 0 else code.upper
    return ([f"{{ /* loop '{nest.iterator}': run-time index checks before it runs */"]
            + [f"  const long long {h} = pc_hl{j};" for j, h in enumerate(code.host)]
            + [f"  const long long pc_first = {first};",
               f"  const long long pc_n = ({code.upper}) - ({code.lower}) + 1;",
               "  if (pc_n > 0) {",
               f"    const unsigned pc_blocks = (unsigned)((pc_n + {THREADS - 1}) / {THREADS});"]
            + _check_lines(scop, k, nest, code, _launch(scop, code)) + ["  }", "}"])


def _check_lines(scop: Scop, k: int, nest: RuntimeNest, code: NestCode, launch: str
                 ) -> list[str]:
    """Run pc_check<k>; a failed check returns INDEX_ERROR_BASE + its code (abi.py) after a
    message that names the array and the iteration."""
    names = ", ".join(f'"{a.name}"' for a in scop.arrays)
    count = len(scop.arrays)
    sign = "+" if code.direction > 0 else "-"
    return ["    unsigned long long *pc_err = NULL, pc_bad = 0;",
            "    PC_CHECK(cudaMalloc((void **)&pc_err, sizeof(unsigned long long)));",
            "    PC_CHECK(cudaMemset(pc_err, 0xff, sizeof(unsigned long long)));",
            f"    pc_check{k}{launch}, pc_err);",
            "    PC_CHECK(cudaGetLastError());",
            "    PC_CHECK(cudaMemcpy(&pc_bad, pc_err, sizeof(pc_bad), cudaMemcpyDeviceToHost));",
            "    cudaFree(pc_err);",
            "    if (pc_bad != ~0ULL) {",
            f"      static const char *pc_names[] = {{{names}}};",
            f"      const int pc_code = (int)(pc_bad % {2 * count}ULL);",
            f'      fprintf(stderr, "polycuda: {abi.entry_name(scop)}: %s \'%s\' at '
            f'{nest.iterator} = %lld (checked before any write)\\n", pc_code < {count} ? '
            '"index out of bounds in a subscript of" : "bad loop bounds (decreasing, or '
            f'outside an extent) read from", pc_names[pc_code % {count}], '
            f"pc_first {sign} (long long)(pc_bad / {2 * count}ULL));",
            f"      return {abi.INDEX_ERROR_BASE} + pc_code;",
            "    }"]


def _pass_loop(k: int, launch: str, aux: str, indent: str, stop: list[str] = ()) -> list[str]:
    """Host lines: the inspector's passes, one per level until none moves (Algorithm 4), at
    `indent`; `stop`: lines that may leave the loop early (indented one deeper already)."""
    body = ["PC_CHECK(cudaMemset(pc_more, 0, sizeof(int)));",
            f"pc_writer{k}{launch}, pc_level, pc_cur{aux});",
            f"pc_reader{k}{launch}, pc_level, pc_cur{aux}, pc_more);",
            f"pc_clear{k}{launch}, pc_level, pc_cur{aux});",
            "PC_CHECK(cudaGetLastError());",
            "PC_CHECK(cudaMemcpy(&pc_again, pc_more, sizeof(int), cudaMemcpyDeviceToHost));",
            "if (!pc_again) break;"]
    return ([f"{indent}for (;; pc_cur++) {{  /* one pass per level (Algorithm 4) */"]
            + [f"{indent}  {line}" for line in body] + list(stop) + [f"{indent}}}"])


def _level_lines(scop: Scop, k: int, nest: RuntimeNest, launch: str) -> list[str]:
    """The passes (Algorithm 4; none when no array is monitored: one level) and the
    executions (Algorithms 5-6); under PC_TIMING without pipelining, both timed."""
    aux = "".join(f", {_aux(a)}" for a in nest.monitored)
    passes = _pass_loop(k, launch, aux, "    ") if nest.monitored else []
    return (["#ifdef PC_TIMING",
             "    PC_CHECK(cudaDeviceSynchronize());",
             "    const double pc_t0 = PC_NOW();",
             "#endif"] + passes +
            ["#ifdef PC_TIMING  /* no pipelining: every level after the inspection */",
             "    const double pc_t1 = PC_NOW();",
             f"    for (int pc_l = 0; pc_l < pc_cur; pc_l++) pc_exec{k}{launch}, pc_level, pc_l);",
             "#endif",
             f"    pc_exec{k}{launch}, pc_level, pc_cur);",
             "    PC_CHECK(cudaGetLastError());",
             "#ifdef PC_TIMING",
             "    PC_CHECK(cudaDeviceSynchronize());",
             f"    pc_{scop.name}_inspect_s[{k}] = pc_t1 - pc_t0;",
             f"    pc_{scop.name}_execute_s[{k}] = PC_NOW() - pc_t1;",
             "#endif"])


def _feature_lines(scop: Scop, k: int, nest: RuntimeNest, code: NestCode, launch: str,
                   options: Options) -> list[str]:
    """The driver's inspection and execution with the options beyond the paper's defaults
    (codegen/executor_cuda.py): reuse of levels, the one-launch executor, the host fallback.
    pc_exec_kind: 0 levels, 1 one launch, 2 host (executor_cuda.EXECUTOR_CODES)."""
    executor, reuse, fallback = _features(options)
    pipelined = executor != "syncfree"
    aux = "".join(f", {_aux(a)}" for a in nest.monitored)
    name = scop.name
    lines = ["    PC_CHECK(cudaMalloc((void **)&pc_more, sizeof(int)));",
             "    int pc_fell = 0, pc_exec_kind = 0;",
             f"    pc_{name}_widest[{k}] = 0;"]
    if chunking_cuda.of(options).dynamic:
        lines += [f"    pc_{name}_chunk_steps[{k}] = 0;"]
    if reuse:
        keys = executor_cuda.reuse_keys(scop, nest, code)
        lines += executor_cuda.reuse_check_lines(scop, k, nest, keys)
    else:
        lines += ["    const int pc_reused = 0;",
                  "    PC_CHECK(cudaMalloc((void **)&pc_level, pc_n * sizeof(int)));"]
    lines += ["    const double pc_t0 = PC_NOW();",
              "    if (!pc_reused) {",
              "      PC_CHECK(cudaMemset(pc_level, 0, pc_n * sizeof(int)));"]
    ch = chunking_cuda.of(options)
    for arr in nest.monitored:
        size = chunking_cuda.aux_elements(scop, arr, ch)
        lines += [f"      unsigned *{_aux(arr)} = NULL;",
                  f"      PC_CHECK(cudaMalloc((void **)&{_aux(arr)}, {size} * sizeof(unsigned)));",
                  f"      PC_CHECK(cudaMemset({_aux(arr)}, 0xff, {size} * sizeof(unsigned)));"]
    if fallback:  # iterations per level below which the host runs the rest (Section 3.5.2)
        below = (executor_cuda.auto_threshold(name, k) if fallback == "auto"
                 else repr(float(fallback)))
        lines += [f"      const double pc_below = {below};",
                  f"      pc_{name}_fallback_below[{k}] = pc_below;"]
        if fallback == "auto":  # whether the host cost decided on was measured (the report)
            lines += [f"      pc_{name}_host_used_measured[{k}] = pc_{name}_host_measured[{k}];"]
    if nest.monitored:
        stop = (["        if ((double)(pc_cur + 2) * pc_below > (double)pc_n) "
                 "{ pc_fell = 1; break; }  /* too many levels already (Section 3.5.2) */"]
                if fallback else [])
        if ch.chunked:  # Sections 3.5.1-3.5.2
            lines += chunking_cuda.pass_lines(name, k, launch, aux, ch, stop)
        else:
            lines += _pass_loop(k, launch, aux, "      ", stop)
    lines += [f"      cudaFree({_aux(arr)});" for arr in nest.monitored]
    lines += ["    }",
              f"    pc_{name}_inspect_s_wall[{k}] = pc_reused ? 0.0 : PC_NOW() - pc_t0;",
              f"    pc_{name}_reused[{k}] = pc_reused;"]
    # the levels already run: those below pc_cur when the writers ran them (pipelined, the
    # levels found by this call's inspection, not under PC_TIMING)
    lines += ["#ifdef PC_TIMING", "    const int pc_piped = 0;", "#else",
              f"    const int pc_piped = {int(pipelined)} && !pc_reused;", "#endif"]
    if fallback:
        lines += ["    const int pc_from = pc_piped ? pc_cur : 0;"]
        lines += executor_cuda.fallback_lines(scop, k, nest, code, fallback == "auto")
    rule = {"levels": "0", "syncfree": "1", "syncfree-affine": "0",  # affine: levels if late
            "syncfree-affine-warp": "0",
            "auto": f"(pc_reused && pc_cur + 1 >= {executor_cuda.SYNCFREE_MIN_LEVELS})"}[executor]
    lines += [f"    pc_exec_kind = pc_fell ? 2 : {rule};",
              "    if (pc_exec_kind == 1) {"]
    if executor not in ("levels", "syncfree-affine", "syncfree-affine-warp"):
        lines += ["  " + line for line in executor_cuda.sync_lines(scop, k, launch)]
    lines += ["    } else if (pc_exec_kind == 0) {",
              f"      for (int pc_l = pc_piped ? pc_cur : 0; pc_l <= pc_cur; pc_l++) "
              f"pc_exec{k}{launch}, pc_level, pc_l);",
              "      PC_CHECK(cudaGetLastError());",
              "    }"]
    if reuse:
        lines += executor_cuda.reuse_save_lines(scop, k, nest)
    lines += [f"    pc_{name}_levels[{k}] = pc_fell ? pc_cur + 2 : pc_cur + 1;",
              f"    pc_{name}_iterations[{k}] = pc_n;",
              f"    pc_{name}_executor[{k}] = pc_exec_kind;",
              "    cudaFree(pc_more);"]
    if not reuse:
        lines += ["    cudaFree(pc_level);"]
    return lines + ["    (void)pc_again; (void)pc_piped;"]


class _HostLoops(AstPrinter):
    """The host loops around a levelized loop; at each point, the inspector/executor."""

    int_type = "long long"

    def __init__(self, scop: Scop, block: list[str]):
        super().__init__(scop)
        self.block = block

    def user(self, node: isl.AstNode, indent: int) -> None:
        self.lines += ["  " * indent + line for line in self.block]


def _host_loops(scop: Scop, code: NestCode, block: list[str]) -> list[str]:
    """`block` inside the host loops of `code` (their iterators pc_hl0, pc_hl1, ...)."""
    if code.host_ast is None:
        return block
    printer = _HostLoops(scop, block)
    printer.node(code.host_ast, 0)
    return printer.lines


def static_part(source: str, sub: Scop) -> tuple[str, bool]:
    """From the static path's .cu for `sub` (a region of the static statements between
    run-time nests, cuda_host.generate): its kernels, renamed <sub>_kernel..., and its
    device driver, made static; and whether it needs cooperative groups."""
    shared, body = source.split(abi.OWN_BEGIN + "\n", 1)
    assert shared.startswith(cuda_host.prelude()), "static part: unexpected CUDA prelude"
    cooperative = "#include <cooperative_groups.h>\n" in shared
    body = body[:body.index(f'extern "C" int {abi.entry_name(sub)}(')]
    body = body.replace(f'extern "C" int {abi.entry_name(sub, "_dev")}(',
                        f'static int {abi.entry_name(sub, "_dev")}(')
    body = re.sub(r"\bkernel(\d+)", rf"{sub.name}_kernel\1", body)
    return body.strip("\n"), cooperative


def generate(scop: Scop, parts: list[tuple[str, object]], ctx: isl.Context,
             side: HostSide | None = None, options: Options | None = None) -> str:
    """The standalone .cu of a region with run-time nests. parts: in textual order,
    ("nest", RuntimeNest), ("check", RuntimeNest) (the index checks alone, before a static
    part) or ("static", (sub_scop, its cuda source: generated with the default host side,
    whose host entry is dropped)); side: the host side of the entries."""
    # no overlapped copies here: this driver (its own printer, below) has no waits for them;
    # HostSide.overlap is cuda_host's (HostPrinter.overlapped)
    side = dataclasses.replace(side or HostSide(), overlap=False)
    kernels, driver, cooperative = [], [], False
    affine = warp_sum = False  # a nest with the sync-free affine executor; one of its warp form
    nests = [p for kind, p in parts if kind == "nest"]
    checks = [p for kind, p in parts if kind == "check"]
    executor, reuse, _ = _features(options)
    for kind, part in parts:
        if kind == "nest":
            k = nests.index(part)
            code = nest_code(scop, part, ctx)
            kernels += _nest_kernels(scop, k, part, code, executor != "syncfree",
                                     chunking_cuda.of(options))
            if executor not in ("levels", "syncfree-affine", "syncfree-affine-warp"):
                kernels += executor_cuda.sync_kernels(scop, k, part, code, kernel_args(scop))
            writers = syncfree_affine.applies(scop, part, options)
            if writers:
                kernels += syncfree_affine.kernels(scop, k, part, writers, code,
                                                   kernel_args(scop), _kernel, options)
                affine = True
                warp_sum |= syncfree_affine.uses_warp_sum(scop, part, options)
            if reuse:
                keys = executor_cuda.reuse_keys(scop, part, code)
                kernels.append("\n".join(executor_cuda.reuse_state(scop, k, part, len(keys))))
            driver += _host_loops(scop, code, _nest_driver(scop, k, part, code, options))
        elif kind == "check":  # a static nest's index checks (codegen/csr.py)
            k = len(nests) + checks.index(part)
            code = nest_code(scop, part, ctx)
            kernels.append(_check_kernel(scop, k, code))
            driver += _host_loops(scop, code, _check_driver(scop, k, part, code))
        else:
            sub, source = part
            text, coop = static_part(source, sub)
            cooperative |= coop
            kernels.append(text)
            call = ", ".join(a for _, a in kernel_args(scop))
            driver.append(f"{{ const int pc_r = {abi.entry_name(sub, '_dev')}({call}); "
                          "if (pc_r) return pc_r; }")
    out = [cuda_host.prelude() + "#define PC_NONE 0xffffffffu\n"]
    if cooperative:
        out.append("#include <cooperative_groups.h>\n")
    # shared with the other regions of a file (abi.OWN_BEGIN): the includes, the host side's
    # helpers and the warp sum
    timed = not _plain(options) or affine
    if timed:
        out.append("#include <chrono>\n#include <mutex>\n#include <vector>\n"
                   + executor_cuda.spin_prelude())
    out.append("#ifdef PC_TIMING\n#include <chrono>\n#endif\n")
    if support := host_driver.support(side):
        out.append(support)
    if warp_sum:
        out.append(syncfree_affine.warp_prelude())
    out.append(abi.OWN_BEGIN + "\n")
    count = max(len(nests), 1)
    # levels found and iterations per run-time nest (the last call); with -DPC_TIMING (no
    # pipelining) the seconds of the inspection and of the execution (host clock around
    # synchronized phases)
    if timed:
        # the executor of each nest in the last call (executor_cuda.EXECUTOR_CODES), whether
        # its levels were reused, the host seconds of its inspection, its widest level (one
        # launch executor only; 0 otherwise)
        out.append("#ifndef PC_TIMING\n#define PC_NOW() std::chrono::duration<double>("
                   "std::chrono::steady_clock::now().time_since_epoch()).count()\n#endif\n"
                   f'extern "C" {{ long long pc_{scop.name}_executor[{count}], '
                   f"pc_{scop.name}_reused[{count}], pc_{scop.name}_widest[{count}]; "
                   f"double pc_{scop.name}_inspect_s_wall[{count}]; }}\n")
        fallback = _features(options)[2]
        if fallback:  # the host fallback's threshold and, under auto, its costs
            out.append(executor_cuda.fallback_prelude(scop.name, count, fallback == "auto"))
        if chunking_cuda.of(options).dynamic:  # chunk steps of each nest in the last call
            out.append(chunking_cuda.prelude(chunking_cuda.of(options))
                       + f'extern "C" {{ long long pc_{scop.name}_chunk_steps[{count}]; }}\n')
    out.append(f'extern "C" {{ long long pc_{scop.name}_levels[{count}], '
               f"pc_{scop.name}_iterations[{count}]; }}\n"
               "#ifdef PC_TIMING\n#define PC_NOW() std::chrono::duration"
               "<double>(std::chrono::steady_clock::now().time_since_epoch()).count()\n"
               f'extern "C" {{ double pc_{scop.name}_inspect_s[{count}], '
               f"pc_{scop.name}_execute_s[{count}]; }}\n#endif\n")
    out += [k + "\n" for k in kernels]
    if states := host_driver.states(scop, side):
        out.append(states)
    out.append("\n".join(_dev_entry(scop, driver, side)) + "\n")
    out.append("\n".join(cuda_host.host_entry(scop, side)) + "\n")
    if side.stateful:
        out.append("\n".join(host_driver.release_function(scop, side)) + "\n")
    out.append("\n".join(cuda_host.fail_function(scop)) + "\n")
    out.append(abi.OWN_END + "\n")
    out.append(main_source(scop))
    return "\n".join(out)


def _dev_entry(scop: Scop, driver: list[str], side: HostSide) -> list[str]:
    lines = [f'extern "C" int {abi.entry_name(scop, "_dev")}({abi.arg_decls(scop)}) {{']
    alloc, free = host_driver.device_locals(scop, side)
    lines += alloc
    lines += [f"  {line}" for line in driver]
    lines += ["  PC_CHECK(cudaGetLastError());", "  PC_CHECK(cudaDeviceSynchronize());"]
    lines += free
    lines += ["  return 0;", "}"]
    return lines
