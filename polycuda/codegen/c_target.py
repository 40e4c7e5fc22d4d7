"""Targets "c" (sequential, transformed) and "openmp": one entry function per region."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

import islpy as isl

from polycuda.codegen import abi, ast_check, csr
from polycuda.codegen.statements import statement_parts
from polycuda.ir import isl_build
from polycuda.ir.c_expr import C_HELPERS, expr_to_c
from polycuda.codegen.printer import AstPrinter, for_parts, mark_parts, simple_upper_bound
from polycuda.gpu.mapping import KernelMapping
from polycuda.ir.scop import Array, Scop

_T = isl.ast_node_type

# Parallel code runs only where its parallel loops hold at least this many points per barrier
# (counted by a dry run of its sequential loops), else the sequential code: below it the
# barriers (and, in a region run by one thread, the OpenMP calls of each step) cost more than a
# second thread saves (trisolv, sor_1d in
# bench/results/2026-11-24-openmp-vs-c-cpu.json). Override: -DPC_OMP_MIN_POINTS=... .
REGION_HELPERS = """\
#ifndef PC_REGION_HELPERS_DEFINED
#define PC_REGION_HELPERS_DEFINED
#if defined(__GNUC__)
#define PC_NOINLINE __attribute__((noinline))
#else
#define PC_NOINLINE
#endif
#define pc_trip(lo, hi, step) ((hi) >= (lo) ? (double)(((hi) - (lo)) / (step) + 1) : 0.0)
#ifndef PC_OMP_MIN_POINTS
#define PC_OMP_MIN_POINTS 32768.0
#endif
#endif
"""

# Iterations of the outermost sequential loop that the dry run of parallel code visits.
DRY_RUN_STEPS = 1024

# Verification builds visit parallel loops in the order k * PC_SHUFFLE_PRIME mod n: a bijection
# (the prime is larger than any trip count we verify with) that is far from sequential order.
SHUFFLE_HELPERS = """\
#define PC_SHUFFLE_PRIME 1000003L
"""


def mapped_iterators(kernel: KernelMapping) -> tuple[str, ...]:
    """Names of the tile and point loop iterators of a mapped kernel (isl names c<depth>).

    For a wavefront kernel: the tiles of one inter-tile wavefront and the points of one
    intra-tile wavefront; the wavefront loops themselves stay sequential.
    """
    return kernel.block_iterators() + kernel.thread_iterators()


class CPrinter(AstPrinter):
    """Plain C; with `openmp`, the outermost mapped loop of each kernel is a worksharing loop
    (for a wavefront kernel: the outermost loop over the tiles of one wavefront, the points of
    each tile run sequentially); with `shuffle`, every mapped loop runs in a permuted order
    (verification).

    OpenMP regions: a parallel loop outside any sequential loop gets `omp parallel for`. A
    sequential loop (time loop, the row loop of a triangular solve) around parallel loops runs
    inside ONE `omp parallel` region opened outside it: every thread runs the sequential loop
    (its iterators are declared inside the region, so private; arrays stay shared), the parallel
    loops inside are `omp for`, and code between them is `omp single`. The implicit barriers at
    the end of each `omp for` and `omp single` order the steps, and every thread meets the same
    constructs because loop bounds and `if` conditions are affine in parameters and iterators.
    """

    def __init__(self, scop: Scop, kernels: dict[str, KernelMapping], openmp: bool,
                 shuffle: bool):
        super().__init__(scop)
        self.kernels = kernels
        self.openmp = openmp
        self.shuffle = shuffle
        self.mapped: frozenset[str] = frozenset()
        self.kernel_name = ""  # of the innermost kernel mark around the node being printed
        self.scope: list[str] = []  # iterators of the loops around the node being printed
        self.functions: list[str] = []  # helper functions that the printed code calls
        self.in_parallel = False  # inside a parallel loop or `omp single`: one thread runs it
        self.region = False  # inside `omp parallel` (every thread runs what is not shared out)

    def node(self, node: isl.AstNode, indent: int) -> None:
        if not self.openmp or self.in_parallel:
            return super().node(node, indent)
        if self.region:
            return self._region_node(node, indent)
        if node.get_type() != _T.for_:
            return super().node(node, indent)
        # a parallel loop outside sequential loops: one fork, no guard (the dry run would not
        # see the work of the loops inside its points everywhere: atax fell to 1.0x)
        if self._parallel_loop(node, self.mapped):
            return super().node(node, indent)
        if self._has_parallel(node, self.mapped):
            return self._guarded(node, indent, lambda at: self._region(node, at))
        return super().node(node, indent)

    def _guarded(self, node: isl.AstNode, indent: int, parallel: Callable[[int], None]
                 ) -> None:
        """The parallel code of `node` (printed by `parallel(indent)`). Outside verification
        builds, a dry run first counts its barriers and the points of its parallel loops
        (_BarrierCounter), and with fewer than PC_OMP_MIN_POINTS points per barrier the plain
        sequential code of `node` runs instead (_sequential_function)."""
        if self.shuffle:
            return parallel(indent)
        counter = _BarrierCounter(self.scop, self.kernels, self.mapped, self.kernel_name)
        counter.node(node, indent + 1)
        call = self._sequential_function(node)
        self.emit(indent, "{")
        self.emit(indent + 1, "double pc_points = 0.0, pc_barriers = 0.0;")
        self.lines += counter.lines
        self.emit(indent + 1, "if (pc_points >= PC_OMP_MIN_POINTS * pc_barriers) {")
        parallel(indent + 2)
        self.emit(indent + 1, "} else {")
        self.emit(indent + 2, call)
        self.emit(indent + 1, "}")
        self.emit(indent, "}")

    def _sequential_function(self, node: isl.AstNode) -> str:
        """Adds a static function running `node` sequentially (as the c target); returns the
        C call. A function of its own, not inlined: in a function that holds an OpenMP
        region, gcc -fopenmp compiled the same loops 30% slower (doitgen)."""
        name = f"{abi.entry_name(self.scop)}_seq{len(self.functions)}"
        locals_ = [a for a in self.scop.arrays if a.local]
        params = ([abi.arg_decl(a) for a in self.scop.args]
                  + [f"{abi.C_TYPES[a.dtype]} *{a.name}" for a in locals_]
                  + [f"long {it}" for it in self.scope])
        sequential = CPrinter(self.scop, self.kernels, openmp=False, shuffle=False)
        sequential.mapped, sequential.kernel_name = self.mapped, self.kernel_name
        sequential.node(node, 1)
        self.functions += [f"static PC_NOINLINE void {name}({', '.join(params) or 'void'}) {{",
                           *sequential.lines, "}", ""]
        names = [a.name for a in self.scop.args] + [a.name for a in locals_] + self.scope
        return f"{name}({', '.join(names)});"

    def _region(self, node: isl.AstNode, indent: int) -> None:
        """`omp parallel` around the sequential loop `node`."""
        self.emit(indent, "#pragma omp parallel")
        self.emit(indent, "{")
        self.region = True
        super().node(node, indent + 1)
        self.region = False
        self.emit(indent, "}")

    def _region_node(self, node: isl.AstNode, indent: int) -> None:
        """`node` inside a region, run by every thread: parallel loops become `omp for`,
        sequential loops around them run in every thread, the rest is `omp single`."""
        if node.get_type() != _T.block:
            if self._has_parallel(node, self.mapped):
                return super().node(node, indent)
            return self._single([node], indent)
        children = node.block_get_children()
        run: list[isl.AstNode] = []  # consecutive children with no parallel loop: one single
        for k in range(children.n_ast_node()):
            child = children.get_at(k)
            if self._has_parallel(child, self.mapped):
                self._single(run, indent)
                run = []
                super().node(child, indent)
            else:
                run.append(child)
        self._single(run, indent)

    def _single(self, nodes: list[isl.AstNode], indent: int) -> None:
        if not nodes:
            return
        self.emit(indent, "#pragma omp single")
        self.emit(indent, "{")
        self.in_parallel = True
        for child in nodes:
            self.node(child, indent + 1)
        self.in_parallel = False
        self.emit(indent, "}")

    def _parallel_loop(self, node: isl.AstNode, mapped: frozenset[str]) -> bool:
        """Whether `node` is a mapped loop that this printer runs in parallel (or shuffled)."""
        if node.get_type() != _T.for_ or node.for_is_degenerate():
            return False
        if for_parts(node)[0] not in mapped or simple_upper_bound(node) is None:
            return False
        return not self.shuffle or for_parts(node)[3] == "1"

    def _has_parallel(self, node: isl.AstNode, mapped: frozenset[str]) -> bool:
        """Whether the subtree of `node` holds a loop that `for_` would make parallel; the
        loops nested in a mapped loop never are."""
        kind = node.get_type()
        if kind == _T.for_:
            if for_parts(node)[0] in mapped and not node.for_is_degenerate():
                return self._parallel_loop(node, mapped)
            return self._has_parallel(node.for_get_body(), mapped)
        if kind == _T.if_:
            return (self._has_parallel(node.if_get_then_node(), mapped)
                    or (node.if_has_else_node()
                        and self._has_parallel(node.if_get_else_node(), mapped)))
        if kind == _T.block:
            children = node.block_get_children()
            return any(self._has_parallel(children.get_at(k), mapped)
                       for k in range(children.n_ast_node()))
        if kind == _T.mark:
            mark_kind, name = mark_parts(node)
            if mark_kind == "kernel":
                mapped = frozenset(mapped_iterators(self.kernels[name]))
            return self._has_parallel(node.mark_get_node(), mapped)
        return False

    def mark(self, node: isl.AstNode, indent: int) -> None:
        kind, name = mark_parts(node)
        if kind != "kernel":
            return super().mark(node, indent)
        saved = self.mapped, self.kernel_name
        self.mapped = frozenset(mapped_iterators(self.kernels[name]))
        self.kernel_name = name
        super().mark(node, indent)
        self.mapped, self.kernel_name = saved

    def for_(self, node: isl.AstNode, indent: int) -> None:
        self.scope.append(for_parts(node)[0])
        self._for(node, indent)
        self.scope.pop()

    def _for(self, node: isl.AstNode, indent: int) -> None:
        it = for_parts(node)[0]
        if it not in self.mapped or node.for_is_degenerate():
            return super().for_(node, indent)
        outermost = not self.in_parallel
        self.in_parallel = True
        ub = simple_upper_bound(node)
        unit = for_parts(node)[3] == "1"
        pragma = "#pragma omp for" if self.region else "#pragma omp parallel for"
        if self.shuffle and ub is not None and unit:
            if self.openmp and outermost:
                self.emit(indent, f"{pragma} schedule(static)")
            self._shuffled_for(node, indent, ub)
        elif self.openmp and outermost and ub is not None:
            # OpenMP wants the canonical form `it <= bound` (no parentheses around it)
            it, init, _, inc = for_parts(node)
            self.emit(indent, f"{pragma} schedule(static)")
            self.emit(indent, f"for (long {it} = {init}; {it} <= {ub}; {it} += {inc}) {{")
            self.node(node.for_get_body(), indent + 1)
            self.emit(indent, "}")
        else:
            super().for_(node, indent)
        self.in_parallel = not outermost

    def _shuffled_for(self, node: isl.AstNode, indent: int, ub: str) -> None:
        it, init, _, _ = for_parts(node)
        trip = f"(({ub}) - ({init}) + 1)"
        self.emit(indent, f"for (long pc_k_{it} = 0; pc_k_{it} < {trip}; pc_k_{it}++) {{")
        self.emit(indent + 1, f"const long {it} = ({init}) + "
                              f"(pc_k_{it} * PC_SHUFFLE_PRIME) % {trip};")
        self.node(node.for_get_body(), indent + 1)
        self.emit(indent, "}")


class _BarrierCounter(CPrinter):
    """The dry run of parallel code (CPrinter._guarded): its sequential loops and conditions
    as they are; each `omp single` counts one barrier, each `omp for` one barrier and the points
    of its tiles (its tile loops run, each tile adds the points of a full tile). Only the ratio
    of the two counts matters, so the outermost sequential loop visits at most about
    DRY_RUN_STEPS of its iterations, evenly spread (sor_1d: 200k steps of one tile each)."""

    def __init__(self, scop: Scop, kernels: dict[str, KernelMapping], mapped: frozenset[str],
                 kernel_name: str):
        super().__init__(scop, kernels, openmp=True, shuffle=False)
        self.region, self.mapped, self.kernel_name = True, mapped, kernel_name
        self.sampled = False  # whether the outermost sequential loop was printed

    def node(self, node: isl.AstNode, indent: int) -> None:
        if not self.in_parallel:
            return super().node(node, indent)
        kind = node.get_type()  # inside a parallel loop: run the tile loops only
        blocks = self.kernels[self.kernel_name].block_iterators()
        if kind in (_T.block, _T.if_, _T.mark) or (
                kind == _T.for_ and (node.for_is_degenerate() or for_parts(node)[0] in blocks)):
            return AstPrinter.node(self, node, indent)
        factors = _point_trips(node, self.kernels[self.kernel_name]) + _inner_trips(node,
                                                                                  self.mapped)
        self.emit(indent, f"pc_points += {' * '.join(factors)};")

    def _single(self, nodes: list[isl.AstNode], indent: int) -> None:
        if nodes:
            self.emit(indent, "pc_barriers += 1.0;")

    def for_(self, node: isl.AstNode, indent: int) -> None:
        if self.in_parallel or not self._parallel_loop(node, self.mapped):
            return self._sequential_for(node, indent)
        self.emit(indent, "pc_barriers += 1.0;")
        it, init, _, inc = for_parts(node)
        if it in self.kernels[self.kernel_name].block_iterators():
            self.in_parallel = True
            AstPrinter.for_(self, node, indent)
            self.in_parallel = False
            return
        ub = simple_upper_bound(node)  # a loop over the points of a tile
        trip = f"(double)((({ub}) - ({init})) / ({inc}) + 1)"
        points = _product(self.kernels[self.kernel_name].tile_sizes[1:])
        self.emit(indent, f"if (({ub}) >= ({init})) pc_points += {trip} * {points};")


    def _sequential_for(self, node: isl.AstNode, indent: int) -> None:
        ub = simple_upper_bound(node)
        if self.sampled or self.in_parallel or node.for_is_degenerate() or ub is None:
            return AstPrinter.for_(self, node, indent)
        self.sampled = True
        it, init, _, inc = for_parts(node)
        steps = f"((({ub}) - ({init})) / ({inc}) / {DRY_RUN_STEPS})"
        self.emit(indent, f"{{ const long pc_stride = {steps} > 0 ? 1 + {steps} : 1;")
        self.emit(indent, f"for (long {it} = {init}; {it} <= {ub}; {it} += ({inc}) * pc_stride) {{")
        self.node(node.for_get_body(), indent + 1)
        self.emit(indent, "} }")


def _loops(node: isl.AstNode) -> list[isl.AstNode]:
    """The for nodes of the subtree of `node`, outermost first."""
    kind = node.get_type()
    if kind == _T.for_:
        return [node, *_loops(node.for_get_body())]
    if kind == _T.if_:
        return _loops(node.if_get_then_node()) + (
            _loops(node.if_get_else_node()) if node.if_has_else_node() else [])
    if kind == _T.block:
        children = node.block_get_children()
        return [loop for k in range(children.n_ast_node())
                for loop in _loops(children.get_at(k))]
    if kind == _T.mark:
        return _loops(node.mark_get_node())
    return []


def _evaluable(loop: isl.AstNode, inner: set[str]) -> str | None:
    """pc_trip(...) of `loop` if its bounds name none of the iterators `inner`, else None."""
    _, init, _, inc = for_parts(loop)
    ub = simple_upper_bound(loop)
    if ub is None or set(re.findall(r"[A-Za-z_]\w*", f"{init} {ub} {inc}")) & inner:
        return None
    return f"pc_trip({init}, {ub}, {inc})"


def _point_trips(node: isl.AstNode, kernel: KernelMapping) -> list[str]:
    """Factors of the points of the tile below `node`: each point loop's trip count where the
    dry run can evaluate it (a tile cut by a wavefront step: sor_3d), else its tile size."""
    loops = [loop for loop in _loops(node) if not loop.for_is_degenerate()]
    inner = {for_parts(loop)[0] for loop in loops}
    threads = kernel.thread_iterators()
    factors = []
    for loop in loops:
        it = for_parts(loop)[0]
        if it in threads:
            factors.append(_evaluable(loop, inner) or str(kernel.tile_sizes[threads.index(it)]))
    return factors or ["1"]


def _inner_trips(node: isl.AstNode, mapped: frozenset[str]) -> list[str]:
    """C trip counts (double) of the loops inside a tile's points (the k loop of a matrix-vector
    product) whose bounds name no iterator of the subtree, so that the dry run can evaluate
    them; loops with other bounds (triangular) count once."""
    loops = [loop for loop in _loops(node) if not loop.for_is_degenerate()]
    inner = {for_parts(loop)[0] for loop in loops}
    trips = [_evaluable(loop, inner) for loop in loops if for_parts(loop)[0] not in mapped]
    return [trip for trip in trips if trip is not None]


def _product(values: tuple[int, ...]) -> int:
    result = 1
    for v in values:
        result *= v
    return result


def array_elements(arr: Array) -> str:
    """C expression of the number of elements of `arr` (1 for a scalar cell)."""
    if not arr.shape:
        return "1"
    return " * ".join(f"(size_t)({expr_to_c(d)})" for d in arr.shape)


class _CheckPrinter(AstPrinter):
    """The points of the checked statements; at each, its run-time index checks. A failed
    check records the least error code in pc_err and leaves the innermost loop around it (its
    statement's checks: a `do { } while (0)`), so nothing after it reads through the value it
    refused; with `openmp`, the outermost loops run in parallel (checks only read)."""

    int_type = "long long"

    def __init__(self, scop: Scop, openmp: bool):
        super().__init__(scop)
        self.openmp = openmp
        self.depth = 0

    def for_(self, node: isl.AstNode, indent: int) -> None:
        ub, (it, init, _, inc) = simple_upper_bound(node), for_parts(node)
        if self.openmp and self.depth == 0 and ub is not None and inc == "1" \
                and not node.for_is_degenerate():
            # OpenMP wants the canonical form `it <= bound` (no parentheses around it)
            self.emit(indent, "#pragma omp parallel for reduction(min: pc_err) "
                              "schedule(dynamic, 256)")
            self.emit(indent, f"for (long long {it} = {init}; {it} <= {ub}; {it} += 1) {{")
            self.depth += 1
            self.node(node.for_get_body(), indent + 1)
            self.depth -= 1
            self.emit(indent, "}")
            return
        self.depth += 1
        super().for_(node, indent)
        self.depth -= 1

    def user(self, node: isl.AstNode, indent: int) -> None:
        stmt, text = statement_parts(self.scop, node.user_get_expr())
        self.emit(indent, "do {")
        for line in csr.check_lines(self.scop, stmt, text,
                                    lambda code: f"{{ if ({code} < pc_err) pc_err = {code}; "
                                                 "break; }"):
            self.emit(indent + 1, line)
        self.emit(indent, "} while (0);")


def index_checks(scop: Scop, openmp: bool = False) -> list[str]:
    """Lines that check, before the region writes anything, every subscript read from an
    index array and every range of a loop whose bounds read one (codegen/csr.py), at every
    point of the statements that have them; the entry returns INDEX_ERROR_BASE + the least
    error code found (index arrays are read-only in a region, so checking first is checking
    what the region will read)."""
    checked = [s for s in scop.statements if s.is_indirect()]
    if not checked:
        return []
    ctx = isl.Context()
    sub = dataclasses.replace(scop, statements=tuple(checked))
    ast = ast_check.original_ast(isl_build.context_set(scop, ctx),
                                 isl_build.original_schedule(sub, ctx))
    printer = _CheckPrinter(scop, openmp)
    printer.node(ast, 2)
    none = "0x7fffffff"
    return (["  { /* run-time index checks (indirect subscripts, loops with bounds read from "
             "arrays), before any write */",
             f"    int pc_err = {none};"] + printer.lines
            + [f"    if (pc_err != {none}) return {abi.INDEX_ERROR_BASE} + pc_err;", "  }"])


def generate(scop: Scop, ast: isl.AstNode, kernels: tuple[KernelMapping, ...], openmp: bool,
             shuffle: bool = False) -> str:
    """The C source of `int pc_<name>(ARGS)` running the region in the order of `ast`."""
    printer = CPrinter(scop, {k.name: k for k in kernels}, openmp, shuffle)
    printer.node(ast, 1)
    locals_ = [a for a in scop.arrays if a.local]
    lines = ["#include <math.h>", "#include <stdlib.h>", "#include <stddef.h>"]
    if openmp:
        lines.append("#include <omp.h>")
    lines += ["", C_HELPERS.rstrip(), SHUFFLE_HELPERS.rstrip()]
    if openmp:
        lines.append(REGION_HELPERS.rstrip())
    lines.append("")
    lines += printer.functions
    lines.append(f"int {abi.entry_name(scop)}({abi.arg_decls(scop)}) {{")
    lines += index_checks(scop, openmp)
    for arr in locals_:
        ctype = abi.C_TYPES[arr.dtype]
        lines.append(f"  {ctype} *{arr.name} = ({ctype} *)calloc({array_elements(arr)}, "
                     f"sizeof({ctype}));")
    lines += printer.lines
    for arr in locals_:
        lines.append(f"  free({arr.name});")
    lines += ["  return 0;", "}", ""]
    return "\n".join(lines)
