"""Target "cuda", host side: the host driver `pc_<name>_dev` (HostPrinter: the AST outside
the kernels, each kernel's launch with its grid, and the kernels' sources through
cuda_target's printers), the host-pointer entry, the failure report and the whole .cu text
(generate). The mapping of tiles to blocks and points to threads is cuda_target.py's.
"""

from __future__ import annotations

import math
import re

import islpy as isl

from polycuda.codegen import abi, fused_loops, host_driver, reduction_code, staging_code
from polycuda.codegen.kernel_kinds import CUDA_KINDS, loop_length, x_first
from polycuda.codegen.host_driver import HostSide
from polycuda.codegen.printer import AstPrinter, for_parts, mark_parts
from polycuda.codegen.private_code import PrivateTables
from polycuda.codegen.test_main import main_source
from polycuda.gpu.mapping import REDUCTION_THREADS
from polycuda.gpu.plan import (ATOMIC, ONE_BLOCK, KernelMapping, SerialKernel,
                               TreeReductionKernel, WavefrontKernel)
from polycuda.gpu.staging import resident_blocks
from polycuda.codegen.c_target import array_elements
from polycuda.gpu import cost
from polycuda.ir import isl_build
from polycuda.ir.c_expr import C_HELPERS
from polycuda.ir.scop import Scop
from polycuda.codegen.cuda_target import (MAX_GRID, KernelParam, KernelPrinter, ReductionPrinter,
                                          accessed_arrays, kernel_params, read_and_written,
                                          read_only)


class HostPrinter(AstPrinter):
    """Host loops of the driver; each kernel/serial mark becomes a launch."""

    int_type = "long long"

    def __init__(self, scop: Scop, kernels: dict[str, KernelMapping],
                 final_conditions: dict[str, str] | None = None,
                 private: PrivateTables | None = None,
                 leaf_coordinates: dict[str, dict[str, str]] | None = None,
                 host_loops: str = "auto"):
        super().__init__(scop)
        self.kernels = kernels
        self.host_loops = host_loops  # Options.host_loops
        self.fused: list[str] = []  # the fused kernels (codegen/fused_loops.py)
        self.final_conditions = final_conditions or {}
        self.private = private
        self.leaf_coordinates = leaf_coordinates or {}
        self.host_iters: list[str] = []
        self.kernel_sources: list[str] = []
        self.copies: dict[str, int] = {}
        self.shared: dict[str, int] = {}  # kernel -> bytes of dynamic shared memory
        self.setup: list[str] = []  # driver lines before the host loops

    def user(self, node: isl.AstNode, indent: int) -> None:
        raise AssertionError("every statement must be under a kernel or serial mark")

    def overlapped(self, root: isl.AstNode) -> tuple[str, ...]:
        """Prints the driver of an overlapped call (HostSide.overlap) at indent 1: before each
        top-level part (a child of the root block, or the root), a wait for the copy in of
        each array argument that the part is the first to read or write; after it, the copy
        out of each written array argument whose last writer it is. Returns the array
        arguments in the order of their first use (the order of the copies in)."""
        arrays = [arg.name for arg in self.scop.args if arg.kind == "array"]
        parts = ([root.block_get_children().get_at(k)
                  for k in range(root.block_get_children().n_ast_node())]
                 if root.get_type() == isl.ast_node_type.block else [root])
        accessed = [accessed_arrays(self.scop, part) for part in parts]
        last_writer = {a: k for k, (_, written) in enumerate(accessed) for a in written}
        first: list[str] = []
        for k, (part, (read, written)) in enumerate(zip(parts, accessed)):
            used = read | written
            for slot, name in enumerate(arrays):
                if name in used and name not in first:
                    first.append(name)
                    self.emit(1, f"PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, {slot}));"
                                 f"  /* {name} copied in */")
            self.node(part, 1)
            for slot, name in enumerate(arrays):
                if last_writer.get(name) == k:
                    self.emit(1, f"PC_CHECK((cudaError_t)pc_overlap_out(pc_ov, {slot}));"
                                 f"  /* {name} final: copied out */")
        return tuple(first)

    def for_(self, node: isl.AstNode, indent: int) -> None:
        kernel = self._grid_synced(node)
        if kernel is not None:
            return self._cooperative(node, kernel, indent)
        if self.host_loops != "launches" and self._fused(node, indent):
            return
        self.host_iters.append(for_parts(node)[0])
        super().for_(node, indent)
        self.host_iters.pop()

    def mark(self, node: isl.AstNode, indent: int) -> None:
        kernel = self.kernels[mark_parts(node)[1]]
        name, params = self._kernel(kernel, node.mark_get_node(), self.host_iters)
        args = ", ".join(p.arg for p in params)
        grid, block = CUDA_KINDS[kernel].launch(kernel, node.mark_get_node(), self.host_iters)
        shared = f", {self.shared[name]}" if self.shared[name] else ""
        # a wavefront kernel: one launch per inter-tile wavefront (the host loop around it);
        # kernel boundaries order the wavefronts
        self.emit(indent, f"{name}<<<{grid}, {block}{shared}>>>({args});")

    def _kernel(self, kernel: KernelMapping, body: isl.AstNode, host_iters: list[str],
                w_loop: isl.AstNode | None = None) -> tuple[str, list[KernelParam]]:
        """Adds the source of a kernel running `body` (the AST below its mark); returns its
        name and its parameters. w_loop: the inter-tile wavefront loop
        around the mark, run inside the kernel with a grid-wide barrier after each wavefront.
        """
        # isl may split the host loops around a kernel: each copy of the mark is a kernel of
        # its own (kernel0, kernel0_1, ...)
        copies = self.copies.get(kernel.name, 0)
        self.copies[kernel.name] = copies + 1
        name = kernel.name if copies == 0 else f"{kernel.name}_{copies}"
        params = kernel_params(self.scop, list(host_iters),
                                restrict=not read_and_written(self.scop, body),
                                read_only=read_only(self.scop, body))
        scope = frozenset(host_iters) | (frozenset() if w_loop is None
                                         else {for_parts(w_loop)[0]})
        kind = CUDA_KINDS[kernel]
        printer = kind.printer(self, kernel, scope)
        head = kind.run(printer, body, name, w_loop)
        shared, self.shared[name] = staging_code.shared_declarations(
            self.scop, tuple(printer.declared.values()))
        printer.lines[:0] = shared
        if self.shared[name]:  # beyond 48 KiB only with the opt-in; asked for at any size
            self.setup.append(f"PC_CHECK(cudaFuncSetAttribute({name}, "
                              f"cudaFuncAttributeMaxDynamicSharedMemorySize, "
                              f"{self.shared[name]}));")
        decl = ", ".join(p.decl for p in params)
        bound = kind.bound
        if kernel.block_sizes:
            threads = math.prod(kernel.block_sizes)
            resident = resident_blocks(self.shared[name], threads)
            bound = (f" __launch_bounds__({threads}, {resident})" if resident > 1
                     else f" __launch_bounds__({threads})")
        self.kernel_sources.append("\n".join(
            [*head, f"__global__ void{bound} {name}({decl}) {{"] + printer.lines + ["}"]))
        return name, params

    def _section(self, mark: isl.AstNode, scope: list[str], one_block: bool = False
                 ) -> fused_loops.Section | None:
        """The kernel of `mark` as a section of a fused loop's kernel, or None where it must
        keep its launch (fused_loops' module docstring). With `one_block`, for the kernel of
        one block: a reduction whose blocks combine by atomics (or that has one block) may be
        a section too, its tree's barriers kept (fused_loops.one_block_fusable)."""
        kernel = self.kernels[mark_parts(mark)[1]]
        body = mark.mark_get_node()
        if (one_block and isinstance(kernel, TreeReductionKernel)
                and kernel.reduction_combine in (ATOMIC, ONE_BLOCK)):
            reduction = ReductionPrinter(self.scop, kernel, frozenset(scope))
            reduction.node(body, 0)
            reduction.lines_around(kernel.name)
            return fused_loops.Section(
                kernel.name, (reduction_code.blocks(kernel, loop_length(body)),),
                (REDUCTION_THREADS,), tuple(reduction.lines))
        if not CUDA_KINDS[kernel].section:
            return None
        printer = KernelPrinter(self.scop, kernel, frozenset(scope), self.final_conditions,
                                self.private, self.leaf_coordinates)
        printer.node(body, 0)
        if printer.declared or printer.shared_declared or not fused_loops.fusable(printer.lines):
            return None
        if one_block and not kernel.serial and not fused_loops.grid_strided_only(printer.lines):
            return None
        counts, threads = ((), ()) if kernel.serial else x_first(kernel, scope)
        return fused_loops.Section(kernel.name, counts, threads, tuple(printer.lines))

    def _fused(self, node: isl.AstNode, indent: int) -> bool:
        """Host loop `node` as one cooperative launch (Options.host_loops "grid"; with "auto",
        when no kernel of its body has more than fused_loops.AUTO_DIMS grid dimensions and it
        runs at least fused_loops.MIN_TRIPS iterations, else its launches), when its body is
        kernel launches that all may run as sections (codegen/fused_loops.py); else False, and
        nothing printed."""
        marks = fused_loops.body_marks(node)
        if node.for_is_degenerate() or not marks:
            return False
        scope = [*self.host_iters, for_parts(node)[0]]
        sections = [self._section(mark, scope) for mark in marks]
        if any(s is None for s in sections):
            return self._one_block(node, marks, scope, indent)
        chosen = [s for s in sections if s is not None]
        if self.host_loops == "auto" and any(len(s.counts) > fused_loops.AUTO_DIMS
                                             for s in chosen):
            return False
        return self._emit_fused(node, chosen, indent, one_block=False)

    def _one_block(self, node: isl.AstNode, marks: list[isl.AstNode], scope: list[str],
                   indent: int) -> bool:
        """Host loop `node`, whose kernels `marks` the grid cannot run as sections, in one
        launch of one block (fused_loops' module docstring: Shirako et al.'s Figure 3), when
        every kernel may run there; with Options.host_loops "auto", only when it runs
        fused_loops.MIN_TRIPS iterations or more, of at most fused_loops.BLOCK_MAX_BLOCKS
        blocks per section, else its launches. False, and nothing printed, when it may not."""
        sections = [self._section(mark, scope, one_block=True) for mark in marks]
        chosen = [s for s in sections if s is not None]
        if len(chosen) < len(sections) or not fused_loops.one_block_fusable(chosen):
            return False
        return self._emit_fused(node, chosen, indent, one_block=True)

    def _emit_fused(self, node: isl.AstNode, chosen: list[fused_loops.Section], indent: int,
                    one_block: bool) -> bool:
        """The fused kernel of host loop `node` (its `chosen` sections) and its launch: one
        cooperative launch, or with `one_block` a launch of one block; with Options.host_loops
        "auto", under the run-time condition of fused_loops, else the loop's launches."""
        # isl may split a host loop: each copy is a fused kernel of its own (kernel0_loop,
        # kernel0_loop_1, ...)
        base = f"{chosen[0].name}_{'block' if one_block else 'loop'}"
        copies = self.copies.get(base, 0)
        self.copies[base] = copies + 1
        name = base if copies == 0 else f"{base}_{copies}"
        params = kernel_params(self.scop, list(self.host_iters),
                               restrict=not read_and_written(self.scop, node),
                               read_only=read_only(self.scop, node))
        decl = ", ".join(p.decl for p in params)
        self.kernel_sources.append(fused_loops.kernel_source(name, decl, node, chosen,
                                                             one_block))
        self.fused.append(name)
        self.shared[name] = 0
        auto = self.host_loops == "auto"
        when = f" when it runs {fused_loops.MIN_TRIPS} iterations or more" if auto else ""
        if one_block:
            when += f", of at most {fused_loops.BLOCK_MAX_BLOCKS} blocks per kernel" if auto \
                else ""
            lines = fused_loops.one_block_launch_lines(
                name, node, chosen, ", ".join(p.arg for p in params), auto)
        else:
            lines = fused_loops.launch_lines(name, node, chosen,
                                             [(p.ctype, p.arg) for p in params],
                                             fused_loops.MIN_TRIPS if auto else None)
        kernels = "+".join(s.name for s in chosen)
        how = "one block" if one_block else "one cooperative launch"
        self.emit(indent, f"{{  /* {kernels}: {how}{when} */")
        for line in lines:
            self.emit(indent + 1, line)
        if auto:
            self.host_iters.append(for_parts(node)[0])
            super().for_(node, indent + 2)
            self.host_iters.pop()
            self.emit(indent + 1, "}")
        self.emit(indent, "}")
        return True

    def _grid_synced(self, node: isl.AstNode) -> KernelMapping | None:
        """The wavefront kernel whose inter-tile wavefronts the loop `node` enumerates, when
        it is all the loop runs and the kernel orders them by a grid-wide barrier."""
        body = node.for_get_body()
        if node.for_is_degenerate() or body.get_type() != isl.ast_node_type.mark:
            return None
        kernel = self.kernels[mark_parts(body)[1]]
        w_name = for_parts(node)[0]
        if (isinstance(kernel, WavefrontKernel) and kernel.grid_sync
                and kernel.iterator(kernel.depth - 1) == w_name):
            return kernel
        return None

    def _cooperative(self, node: isl.AstNode, kernel: KernelMapping, indent: int) -> None:
        """One cooperative launch for all the inter-tile wavefronts of loop `node`.

        Every block of a cooperative launch is resident at once, so the grid is at most the
        SMs times the blocks per SM that the kernel's resources allow (CUDA's occupancy API):
        1-D, the largest grid that any wavefront would get from its own launch, capped; 2-D,
        the shape that fits with the fewest rounds of tiles per block summed over the
        wavefronts. Any grid size is correct: tiles go to blocks cyclically.
        """
        it, init, cond, inc = for_parts(node)
        name, params = self._kernel(kernel, node.for_get_body().mark_get_node(),
                                    self.host_iters, w_loop=node)
        n = kernel.n
        counts, threads = x_first(kernel, [*self.host_iters, it])
        sizes = [f"pc_g{axis}" for axis in range(n)]  # x first: the innermost dimension
        lines = [*fused_loops.resident_cap(name, str(math.prod(kernel.block_sizes)),
                                           self.shared[name]),
                 f"long long {' = 1, '.join(sizes)} = 1;",
                 f"for (long long {it} = {init}; {cond}; {it} += {inc}) {{"]
        for axis in range(n):
            lines.append(f"  {sizes[axis]} = pc_max({sizes[axis]}, pc_min({counts[axis]}, "
                         f"{MAX_GRID[axis]}LL));")
        lines.append("}")
        if n == 1:
            lines.append("pc_g0 = pc_min(pc_g0, pc_cap);")
        else:
            # the widest x (a power of two, or the largest extent) that leaves y room, with
            # the fewest rounds of tiles per block over all wavefronts: the largest extents
            # of x and y belong to different wavefronts, and a grid of their shape shrunk
            # to fit leaves most of its rows idle (H100, 2-D Jacobi: 5x slower)
            rounds = " * ".join(f"pc_ceild(pc_max({counts[axis]}, 1LL), pc_t{axis})"
                                for axis in range(n))
            lines += ["long long pc_best = -1, pc_b0 = 1, pc_b1 = 1;",
                      "for (long long pc_x = 1;; pc_x *= 2) {",
                      "  const long long pc_t0 = pc_min(pc_min(pc_x, pc_g0), pc_cap);",
                      "  const long long pc_t1 = pc_max(1LL, pc_min(pc_cap / pc_t0, pc_g1));",
                      "  long long pc_rounds = 0;",
                      (f"  for (long long {it} = {init}; {cond}; {it} += {inc}) "
                      f"pc_rounds += {rounds};"),
                      ("  if (pc_best < 0 || pc_rounds < pc_best) "
                      "{ pc_best = pc_rounds; pc_b0 = pc_t0; pc_b1 = pc_t1; }"),
                      "  if (pc_t0 >= pc_min(pc_g0, pc_cap)) break;",
                      "}",
                      "pc_g0 = pc_b0;",
                      "pc_g1 = pc_b1;"]
        grid = ", ".join(f"(unsigned){s}" for s in sizes)
        block = ", ".join(map(str, threads))
        lines += fused_loops.cooperative_launch(name, grid, block,
                                                [(p.ctype, p.arg) for p in params],
                                                self.shared[name])
        self.emit(indent, "{")
        for line in lines:
            self.emit(indent + 1, line)
        self.emit(indent, "}")


def serial_region(kernels: tuple[KernelMapping, ...] | list[KernelMapping]) -> bool:
    """Whether no loop of the region runs in parallel: it has kernels and every one is a
    one-thread kernel (no DOALL, wavefront or reduction kernel; gpu/mapping._serial)."""
    return bool(kernels) and all(isinstance(k, SerialKernel) for k in kernels)


class CpuPrinter(HostPrinter):
    """The host entry of a serial region (serial_region, HostSide.serial_cpu): the host loops,
    and in place of each launch its one-thread kernel's body, printed by the kernel's own
    printer: the region runs on the CPU in the schedule's order, on the host arrays, with no
    copy and no launch (issue 15, item 1: one thread of the GPU runs a dependent chain of
    loads many times slower than a CPU core, and the copies come on top)."""

    def __init__(self, scop: Scop, kernels: dict[str, KernelMapping],
                 final_conditions: dict[str, str] | None,
                 private: PrivateTables | None,
                 leaf_coordinates: dict[str, dict[str, str]] | None):
        super().__init__(scop, kernels, final_conditions, private, leaf_coordinates,
                         host_loops="launches")

    def mark(self, node: isl.AstNode, indent: int) -> None:
        kernel = self.kernels[mark_parts(node)[1]]
        printer = KernelPrinter(self.scop, kernel, frozenset(self.host_iters),
                                self.final_conditions, self.private, self.leaf_coordinates)
        printer.node(node.mark_get_node(), indent)
        if printer.declared:  # a one-thread kernel stages nothing in shared memory
            raise AssertionError(f"{kernel.name}: a one-thread kernel with staged arrays")
        self.lines += printer.lines


# A serial region's pc_<name>_dev (device arrays) runs its one-thread kernels, or copies the
# arrays the region accesses to the host, runs it there and copies the written ones back,
# whichever this rule predicts faster: the CPU when instances x SERIAL_GPU_NS x (1 -
# SERIAL_CPU_SHARE) > bytes copied x ROUND_TRIP_NS_PER_BYTE. Measured on the H100
# (bench/serial_region.py at d54e02c, bench/results/2026-11-26-nvidia-h100-80gb-hbm3-serial-
# region-calibration.json): one GPU thread took 33-158 ns per statement instance (chain_2d,
# math_chain), the CPU 10.6-44x less; copying device arrays out and back took 0.09-0.23 ns per
# byte. The constants lean to the kernels: the least GPU time (rounded down), the largest CPU
# share and copy time (rounded up). Instances are counted over each statement's bounding box
# (an upper bound: a triangle counts as its square).
SERIAL_GPU_NS = 30.0
SERIAL_CPU_SHARE = 0.1
ROUND_TRIP_NS_PER_BYTE = 0.25


def _instances_bound(scop: Scop) -> str:
    """C text (double, in the parameters) of the statement instances of `scop` counted over each
    statement's bounding box."""
    ctx = isl.Context()
    return cost.bound_c(cost.instance_bounds(scop, ctx), isl_build.context_set(scop, ctx).params())


def accessed_args(scop: Scop) -> tuple[list, set[str]]:
    """The array arguments that the region reads or writes, and the names of those it writes."""
    accessed = {s.lhs.array for s in scop.statements}
    accessed |= {r.array for s in scop.statements for r in s.read_refs()}
    written = set(scop.written_arrays())
    return [a for a in scop.args if a.kind == "array" and a.name in accessed], written


def _serial_functions(scop: Scop, ast: isl.AstNode, printer: CpuPrinter,
                      side: HostSide | None = None) -> list[str]:
    """The entries of a serial region after pc_<name>_gpu (its kernels' driver on device
    arrays): pc_<name>_cpu (static: the region on host arrays, its local arrays from malloc;
    0, or cudaErrorMemoryAllocation when a local array cannot be allocated, nothing run);
    pc_<name>_dev (the rule above: pc_<name>_cpu on host copies of the accessed arrays, or
    pc_<name>_gpu); pc_<name> (pc_<name>_cpu on the caller's arrays). With buffers reused
    across calls (`side`, Options.host_buffers), the host copies are page-locked buffers kept
    across calls (_serial_kept), else malloc'ed per call."""
    side = side or HostSide()
    printer.node(ast, 1)
    decls, names = abi.arg_decls(scop), ", ".join(a.name for a in scop.args)
    cpu, gpu = abi.entry_name(scop, "_cpu"), abi.entry_name(scop, "_gpu")
    lines = [f"static int {cpu}({decls}) {{"]
    freed: list[str] = []
    for arr in [a for a in scop.arrays if a.local]:
        ctype = abi.C_TYPES[arr.dtype]
        lines += [f"  {ctype} *{arr.name} = ({ctype} *)malloc({array_elements(arr)} * "
                  f"sizeof({ctype}));",
                  f"  if (!{arr.name}) {{{''.join(f' {f}' for f in freed)} "
                  "return (int)cudaErrorMemoryAllocation; }"]
        freed.insert(0, f"free({arr.name});")
    lines += printer.lines + [f"  {f}" for f in freed] + ["  return 0;", "}"]
    accessed, written = accessed_args(scop)
    copied = [f"pc_bytes_{a.name}" for a in accessed] + [
        f"pc_bytes_{a.name}" for a in accessed if a.name in written]
    host_args = ", ".join(f"h_{a.name}" if a in accessed else "NULL" if a.kind == "array"
                          else a.name for a in scop.args)
    lines += [f'extern "C" int {abi.entry_name(scop, "_dev")}({decls}) {{',
              *host_driver.index_guard(scop),
              *host_driver.byte_sizes(scop, accessed),
              f"  const double pc_instances = {_instances_bound(scop)};",
              f"  const double pc_copied = (double)({' + '.join(copied) or '0'});",
              "  /* no loop of the region is parallel: its kernels run in one thread; the CPU "
              "runs it when that is predicted faster, copies included (cuda_host.SERIAL_GPU_NS) */",
              f"  if (pc_instances * {SERIAL_GPU_NS * (1 - SERIAL_CPU_SHARE):g} > pc_copied * "
              f"{ROUND_TRIP_NS_PER_BYTE:g}) {{",
              "    int err = 0;"]
    if side.reuse:
        lines += _serial_kept(scop, accessed)
    else:
        for a in accessed:
            ctype = abi.C_TYPES[a.dtype]
            lines += [f"    {ctype} *h_{a.name} = ({ctype} *)malloc(pc_bytes_{a.name});",
                      f"    if (!h_{a.name}) err = (int)cudaErrorMemoryAllocation;"]
    lines += [f"    if (!err) err = (int)cudaMemcpy(h_{a.name}, {a.name}, pc_bytes_{a.name}, "
              "cudaMemcpyDeviceToHost);" for a in accessed]
    lines.append(f"    if (!err) err = {cpu}({host_args});")
    lines += [f"    if (!err) err = (int)cudaMemcpy({a.name}, h_{a.name}, pc_bytes_{a.name}, "
              "cudaMemcpyHostToDevice);" for a in accessed if a.name in written]
    if not side.reuse:
        lines += [f"    free(h_{a.name});" for a in accessed]
    lines += ["    return err;", "  }", f"  return {gpu}({names});", "}"]
    if side.reuse:
        kept = abi.entry_name(scop, "_kept")
        lines[:0] = [f"/* the device entry's page-locked host copies of the accessed arrays, kept "
                     f"across calls (under {abi.entry_name(scop, '_dev_state')}.lock) */",
                     f"static void *{kept}[{max(1, len(accessed))}];",
                     f"static size_t {kept}_bytes[{max(1, len(accessed))}];"]
    return lines + [f'extern "C" int {abi.entry_name(scop)}({decls}) {{',
                    *host_driver.index_guard(scop),
                    "  /* no loop of this region is parallel: the CPU runs it on the host "
                    "arrays (no copy, no launch) */",
                    f"  return {cpu}({names});", "}"]


# The device entry's CPU path copied through fresh malloc'ed buffers, whose pages fault on every
# call. Kept page-locked ones, on the H100 (bench/results/2026-11-26-nvidia-h100-80gb-hbm3-
# serial-region-kept.json, two alternating runs each): recurrence n = 2^22 60.6-64.8 -> 13.5
# ms, chain_2d 2048^2 39.8-42.0 -> 16.3-16.6 ms, math_chain n = 2^21 50.8-60.0 -> 33.1-33.4 ms.
def _serial_kept(scop: Scop, accessed: list) -> list[str]:
    """Lines of a serial region's device entry (CPU path) that point h_<array> at its kept
    page-locked copy: made, or remade larger, by cudaMallocHost when a call needs more (never
    shrunk), under the device state's mutex; released by pc_<name>_release and at exit."""
    kept, state = abi.entry_name(scop, "_kept"), abi.entry_name(scop, "_dev_state")
    lines = [f"    pc_host_guard pc_guard(&{state}.lock);"]
    for k, a in enumerate(accessed):
        ctype = abi.C_TYPES[a.dtype]
        lines += [f"    if (!err && {kept}_bytes[{k}] < pc_bytes_{a.name}) {{",
                  f"      if ({kept}[{k}]) (void)cudaFreeHost({kept}[{k}]);",
                  f"      {kept}[{k}] = NULL;",
                  f"      {kept}_bytes[{k}] = 0;",
                  f"      err = (int)cudaMallocHost(&{kept}[{k}], pc_bytes_{a.name} ? "
                  f"pc_bytes_{a.name} : 1);",
                  f"      if (!err) {kept}_bytes[{k}] = pc_bytes_{a.name};",
                  "    }",
                  f"    {ctype} *h_{a.name} = ({ctype} *){kept}[{k}];"]
    lines += [f"  {line}" for line in host_driver.at_exit(scop, state)]
    return lines


def _serial_release(scop: Scop) -> list[str]:
    """Lines of pc_<name>_release that give back a serial region's kept host copies."""
    kept, state = abi.entry_name(scop, "_kept"), abi.entry_name(scop, "_dev_state")
    return [f"  {{ pc_host_guard guard(&{state}.lock);",
            f"    for (size_t k = 0; k < sizeof({kept}) / sizeof({kept}[0]); k++) {{",
            f"      if ({kept}[k]) (void)cudaFreeHost({kept}[k]);",
            f"      {kept}[k] = NULL;",
            f"      {kept}_bytes[k] = 0;",
            "    } }"]


def _dev_entry(scop: Scop, host: HostPrinter, side: HostSide,
               head: str = "") -> list[str]:
    """pc_<name>_dev: the driver on device arrays. With side.overlap, the driver is
    pc_<name>_run(..., const pc_overlap *pc_ov), which the host entry calls with its copies'
    events, and pc_<name>_dev calls it with NULL (nothing to wait for or copy). `head`: the
    driver's declaration before its parameters instead (a serial region's pc_<name>_gpu)."""
    decls = abi.arg_decls(scop)
    head = head or f'extern "C" int {abi.entry_name(scop, "_dev")}'
    if side.overlap:
        run = abi.entry_name(scop, "_run")
        params = ", ".join([abi.arg_decl(a) for a in scop.args] + ["const pc_overlap *pc_ov"])
        names = ", ".join([a.name for a in scop.args] + ["NULL"])
        # both callers (this wrapper and the host entry) refuse oversized arrays first
        lines = [f"static int {run}({params}) {{"]
        wrapper = [f"{head}({decls}) {{", *host_driver.index_guard(scop),
                   f"  return {run}({names});", "}"]
    else:
        lines = [f"{head}({decls}) {{", *host_driver.index_guard(scop)]
        wrapper = []
    alloc, free = host_driver.device_locals(scop, side)
    lines += alloc
    lines += [f"  {line}" for line in host.setup]
    lines += host.lines
    lines.append("  PC_CHECK(cudaGetLastError());")
    lines.append("  PC_CHECK(cudaDeviceSynchronize());")
    lines += free
    lines += ["  return 0;", "}"]
    return lines + wrapper


def host_entry(scop: Scop, side: HostSide | None = None, first_used: tuple[str, ...] = ()
               ) -> list[str]:
    """pc_<name>: copies host arrays to the device, runs pc_<name>_dev, copies results back
    (codegen/host_driver.py; `side`: how, default the options' defaults; first_used: the
    order of the overlapped copies in, HostPrinter.overlapped)."""
    return host_driver.host_entry(scop, side or HostSide(), first_used)


def fail_function(scop: Scop) -> list[str]:
    """pc_<name>_fail(err): reports the error code of pc_<name> on stderr and exits; the
    rewritten C of `polycuda compile --target cuda` calls it when the entry fails."""
    name = abi.entry_name(scop)
    return [f'extern "C" void {abi.entry_name(scop, "_fail")}(int err) {{',
            f'  fprintf(stderr, "polycuda: {name} failed: CUDA error %d (%s): %s\\n", err,',
            "          cudaGetErrorName((cudaError_t)err), cudaGetErrorString((cudaError_t)err));",
            "  exit(EXIT_FAILURE);", "}"]


_PRELUDE = """\
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

{helpers}
#define PC_CHECK(call) do {{ cudaError_t pc_e = (call); \\
    if (pc_e != cudaSuccess) return (int)pc_e; }} while (0)
#ifndef PC_ELEMENTS_DEFINED
#define PC_ELEMENTS_DEFINED
/* The product of an array's extents, saturated at 2^62 (index_guard compares it with 2^31 - 1;
   the extents are at most 2^63 - 1 each: no product of two may overflow). */
static inline long long pc_elements(long long d) {{ return d; }}
template <typename... T> static inline long long pc_elements(long long d, T... rest) {{
  long long tail = pc_elements(rest...);
  if (d <= 0 || tail <= 0) return 0;
  const long long cap = 1LL << 62;
  return tail > cap / d ? cap : d * tail;
}}
#endif
"""


def prelude() -> str:
    """The first lines of every generated .cu (includes, helpers, PC_CHECK)."""
    return _PRELUDE.format(helpers=C_HELPERS.rstrip())


def join(sources: list[str], scops: list[Scop]) -> str:
    """One .cu of several regions' generated sources (those of `polycuda compile` of a C file
    with more than one region): their shared parts first (guarded: each definition once), then
    each region's own definitions in namespace polycuda_region_<name> (its kernels and their
    state cannot clash with another region's; the extern "C" entries keep their names), then
    the first region's main. One source is returned as it is."""
    if len(sources) == 1:
        return sources[0]
    shared, own, mains = [], [], []
    for source, scop in zip(sources, scops, strict=True):
        head, rest = source.split(abi.OWN_BEGIN + "\n", 1)
        body, main = rest.split(abi.OWN_END + "\n", 1)
        space = f"polycuda_region_{scop.name}"
        shared.append(head)
        own.append(f"namespace {space} {{\n{body}}}  // namespace {space}\n")
        mains.append(main.replace("int main(", f"using {space}::{abi.entry_name(scop)};\n"
                                  "int main(", 1))
    return "\n".join(shared + own + mains[:1])


def join_variants(scop: Scop, sources: tuple[str, str], both: cost.RuntimeChoice,
                  side: HostSide) -> str:
    """One .cu of two schedules' generated sources of one region (pipeline.runtime_choice):
    the shared parts once; the entries' states (host_driver.states: one set of kept buffers
    and streams, whichever variant a call runs), then each source's own definitions in
    namespace polycuda_variant_<k>, its extern "C" entries made static there; then the
    region's entries, each calling variant 1 where `both.condition()` holds at its
    parameters, else variant 0, pc_<name>_release (the shared states') and pc_<name>_fail;
    the first source's main. `side`: the host side both sources were generated with."""
    entry = abi.entry_name(scop)
    shared = [host_driver.states(scop, side),
              "\n".join(host_driver.release_function(scop, side)),
              "\n".join(fail_function(scop))]
    heads, owns = [], []
    main = sources[0].split(abi.OWN_END + "\n", 1)[1]  # both sources' mains are the region's
    for k, source in enumerate(sources):
        head, rest = source.split(abi.OWN_BEGIN + "\n", 1)
        body = rest.split(abi.OWN_END + "\n", 1)[0]
        heads.append(head)
        for text in shared:  # once, outside the namespaces
            if text:
                assert text in body, f"join_variants: {text.splitlines()[0]!r} not found"
                body = body.replace(text, "", 1)
        body = re.sub(rf'\bextern "C" (int|void) ({re.escape(entry)}\w*)\(', r"static \1 \2(",
                      body)
        owns.append(f"namespace polycuda_variant_{k} {{\n{body}}}  "
                    f"// namespace polycuda_variant_{k}\n")
    params = [a for a in scop.args if a.kind == "param"]
    pick = abi.entry_name(scop, "_variant")
    lines = [f"/* polycuda: this region's code under two schedules, {both.schedulers[0]}'s "
             f"(variant 0) and {both.schedulers[1]}'s",
             "   (variant 1), chosen per call by bounds of their launches' time (ns) and of",
             "   the statement instances at its parameters (gpu.cost.LAUNCH_NS) */",
             f"static int {pick}({', '.join(abi.arg_decl(a) for a in params) or 'void'}) {{",
             f"  const double pc_launch_ns0 = {both.launch_ns[0]};",
             f"  const double pc_launch_ns1 = {both.launch_ns[1]};",
             f"  const double pc_instances = {both.instances};",
             f"  return ({both.condition()}) ? 1 : 0;", "}"]
    chosen = f"{pick}({', '.join(a.name for a in params)})"
    names = ", ".join(a.name for a in scop.args)
    for suffix in ("", "_dev"):
        called = abi.entry_name(scop, suffix)
        lines += [f'extern "C" int {called}({abi.arg_decls(scop)}) {{',
                  f"  return {chosen} ? polycuda_variant_1::{called}({names})",
                  f"      : polycuda_variant_0::{called}({names});", "}"]
    own = shared[0] + "".join(owns) + "\n".join(lines + [t for t in shared[1:] if t]) + "\n"
    return _shared_head(heads) + abi.OWN_BEGIN + "\n" + own + abi.OWN_END + "\n" + main


_COOPERATIVE_INCLUDE = "\n#include <cooperative_groups.h>\n"  # a part of its own (generate)


def _shared_head(heads: list[str]) -> str:
    """The shared part of one file from those of several sources of one region: the first's,
    with cooperative groups included where another source needs them (the only difference
    that one region's host sides allow); else all of them (each definition is guarded)."""
    plain = {h.replace(_COOPERATIVE_INCLUDE, "") for h in heads}
    if len(plain) != 1:
        return "".join(dict.fromkeys(heads))
    first = heads[0]
    if any(_COOPERATIVE_INCLUDE in h for h in heads) and _COOPERATIVE_INCLUDE not in first:
        first += _COOPERATIVE_INCLUDE
    return first


def generate(scop: Scop, ast: isl.AstNode, kernels: tuple[KernelMapping, ...],
             final_conditions: dict[str, str] | None = None,
             private: PrivateTables | None = None,
             leaf_coordinates: dict[str, dict[str, str]] | None = None,
             side: HostSide | None = None, host_loops: str = "auto") -> str:
    """The standalone .cu text: kernels, `pc_<name>_dev`, `pc_<name>` (extern "C"), and a
    `main` compiled only with -DPOLYCUDA_MAIN. final_conditions: of final_store_guards, for
    the AST built with it (a staged kernel needs them); private: of
    private_code.private_registers, the same (a kernel with private scopes needs them); side:
    the host side of the entries (host_driver.HostSide.of(options)), default the defaults'."""
    side = side or HostSide()
    host = HostPrinter(scop, {k.name: k for k in kernels}, final_conditions, private,
                       leaf_coordinates, host_loops)
    first_used: tuple[str, ...] = ()
    if side.overlap:
        first_used = host.overlapped(ast)
    else:
        host.node(ast, 1)
    host.setup[:0] = reduction_code.grid_setup(list(kernels))
    parts = [prelude()]
    if any(isinstance(k, WavefrontKernel) and k.grid_sync for k in kernels) or host.fused:
        parts.append("#include <cooperative_groups.h>\n")
    if support := host_driver.support(side):
        parts.append(support)
    parts.append(abi.OWN_BEGIN + "\n")
    parts += [src + "\n" for src in host.kernel_sources]
    if states := host_driver.states(scop, side):
        parts.append(states)
    if side.serial_cpu and serial_region(kernels):
        parts.append("\n".join(_dev_entry(scop, host, side,
                                          f"static int {abi.entry_name(scop, '_gpu')}")) + "\n")
        cpu = CpuPrinter(scop, host.kernels, final_conditions, private, leaf_coordinates)
        parts.append("\n".join(_serial_functions(scop, ast, cpu, side)) + "\n")
        kept = _serial_release(scop) if side.reuse else []
    else:
        parts.append("\n".join(_dev_entry(scop, host, side)) + "\n")
        parts.append("\n".join(host_entry(scop, side, first_used)) + "\n")
        kept = []
    if side.stateful:
        parts.append("\n".join(host_driver.release_function(scop, side, kept)) + "\n")
    parts.append("\n".join(fail_function(scop)) + "\n")
    parts.append(abi.OWN_END + "\n")
    parts.append(main_source(scop))
    return "\n".join(parts)
