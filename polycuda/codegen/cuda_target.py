"""Target "cuda": the kernels (their host driver, entries and the whole .cu text:
codegen/cuda_host.py).

Mapping (Di et al. 2012, Figure 5 style): tile loops are grid-stride loops over blocks, point
loops block-stride loops over threads, and coordinate c runs on block/thread c mod gridDim
(blockDim) whatever the loop's first value (`for (c = lb + pc_mod(blockIdx.x - lb, gridDim.x);
c <= ub; c += gridDim.x)`); any grid size is therefore correct, and the host picks one tile
per block. A mapped dimension that the AST does not realise as a loop (a single tile or point,
or one the outer loops determine) is run by the block/thread of its coordinate at that leaf
(final_store_guards), so no instance runs twice and two instances with equal coordinates run
on one thread, as the race check assumes (a guard `threadIdx.x == 0` once put a statement on
another thread than the loop iteration it depended on: fuzz seed 20018).

Wavefront kernels (gpu/wavefront.py): the host loops over the inter-tile wavefronts W and
launches one kernel per W, its grid the extents of the tile coordinates within W (one block
per tile of the box around them; blocks without a tile exit at once). Tile coordinate T_k
runs on block index T_k mod gridDim (cyclic, as Di & Xue 2011, Section 2 deal tiles to a 1-D
grid; with one tile coordinate this is their mapping), point coordinate P_k on thread
P_k mod blockDim, or on thread P_k / chunk for the outer thread dimensions of a tile whose
intra-tile wavefronts are boxes (blocked_threads). The owner is a function of the coordinates,
not of the loop that reaches them, so a tile that isl's AST visits in several loops still
runs on one block, and a point on
one thread. A block runs its tile's intra-tile wavefronts in sequence, each closed by a
__syncthreads(), the points of one intra-tile wavefront on its threads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import islpy as isl

from polycuda.codegen import abi, ast_check, carry_code, reduction_code, shared_code, staging_code
from polycuda.codegen.printer import AstPrinter, for_parts, mark_parts
from polycuda.codegen.private_code import PrivateCode, PrivateTables
from polycuda.codegen.statements import flat_ref_printer, statement_parts, user_statement
from polycuda.analysis.reductions import OPERATIONS, accumulated
from polycuda.gpu.mapping import KernelMapping
from polycuda.gpu.promotion import PRIVATE_MARK
from polycuda.gpu.register_tiling import UNIT_MARK
from polycuda.gpu.carry import CARRY_MARK
from polycuda.gpu.shared_promotion import SHARED_MARK
from polycuda.gpu.staging import StagedArray
from polycuda.gpu.wavefront import BARRIER_MARK
from polycuda.ir import isl_build
from polycuda.ir.ast_expr import ast_expr_to_c
from polycuda.ir.c_expr import RefPrinter
from polycuda.ir.expr import Expr, Ref
from polycuda.ir.scop import Scop

_AXES = ("x", "y", "z")
# Unroll factor of a blocked point loop (blocked_threads). H100, 2-D Jacobi 4096^2 x 1000
# float, tiles 16x64x64 on 64x4 threads: 50.4 ms cyclic, 50.5 blocked with nvcc's own unroll
# (4), 46.2 unrolled 8 times (scratch runs of the generated code; 16: slower than 8 with 0.2f)
BLOCKED_UNROLL = 8
MAX_GRID = ("2147483647", "65535", "65535")


def blocked_threads(kernel: KernelMapping) -> dict[str, int]:
    """Point loops of a wavefront kernel dealt to threads in blocks: iterator -> chunk, thread t
    running the points P in [t * chunk, (t + 1) * chunk) of the loop instead of P = t mod
    blockDim.

    The outer thread dimensions (y, z) of a kernel that the mapping marks (rows_in_blocks:
    the intra-tile wavefronts are boxes of the tile, and no statement updates an array in
    place): one thread's consecutive points share neighbours (a 5-point stencil's row above
    is the row below of the previous point), which nvcc loads once in an unrolled loop. x
    stays cyclic: consecutive points on consecutive threads coalesce.
    """
    if not kernel.wavefront or not kernel.rows_in_blocks:
        return {}
    threads = kernel.thread_iterators()
    return {it: -(-kernel.tile_sizes[k + 1] // kernel.block_sizes[k])
            for k, it in enumerate(threads[:-1])}


@dataclass(frozen=True)
class KernelParam:
    """A kernel parameter: its C type, its name, and the host expression passed for it."""

    ctype: str  # e.g. "int", "double *", "double *__restrict__"
    name: str
    arg: str

    @property
    def decl(self) -> str:
        """The declaration: `int n`, `double *A`, `double *__restrict__ A`."""
        return f"{self.ctype}{'' if self.ctype.endswith('*') else ' '}{self.name}"


def kernel_params(scop: Scop, host_iters: list[str], restrict: bool = True,
                  read_only: frozenset[str] = frozenset()) -> list[KernelParam]:
    """The parameters of a kernel: region args, locals, host iterators; the arrays
    __restrict__ unless `restrict` is false (see read_and_written), and the region's array
    arguments in `read_only` (the kernel reads them and writes none of their elements)
    `const ... *__restrict__` whatever `restrict` is: nvcc may then move their loads across
    the kernel's stores, and take the read-only data path."""
    pointer = "*__restrict__" if restrict else "*"
    params = []
    for arg in scop.args:
        if arg.kind == "param":
            params.append(KernelParam("int", arg.name, f"(int){arg.name}"))
        elif arg.kind == "scalar":
            params.append(KernelParam(abi.C_TYPES[arg.dtype], arg.name, arg.name))
        else:
            const = "const " if arg.name in read_only else ""
            ptr = "*__restrict__" if arg.name in read_only else pointer
            params.append(KernelParam(f"{const}{abi.C_TYPES[arg.dtype]} {ptr}", arg.name,
                                      arg.name))
    for arr in scop.arrays:
        if arr.local:
            params.append(KernelParam(f"{abi.C_TYPES[arr.dtype]} {pointer}", arr.name, arr.name))
    params += [KernelParam("int", it, f"(int){it}") for it in host_iters]
    return params


def read_only(scop: Scop, body: isl.AstNode) -> frozenset[str]:
    """The arrays that the statements under `body` read and never write."""
    reads, writes = accessed_arrays(scop, body)
    return reads - writes


def read_and_written(scop: Scop, body: isl.AstNode) -> frozenset[str]:
    """The arrays that the statements under `body` (one kernel's AST) both read and write.

    A kernel with any such array takes no __restrict__ at all. With it, nvcc 13 (-O3, ptxas
    -O2 and up) miscompiled deriche's backward row recurrence y2[j] = f(imgIn[j+1], imgIn[j+2],
    y2[j+1], y2[j+2]) once its j loop was tiled by 32: wrong results on the H100, right ones
    with ptxas -O1, with -G, and without __restrict__ on that kernel's parameters (2026-11-25;
    compute-sanitizer's memcheck, racecheck and initcheck found nothing). Dropping it from y2
    alone did not help: imgIn's had to go too. Kernels that only read some arrays and only
    write others keep it (their reads may take the read-only path). The arrays such a kernel
    only reads take `const ... *__restrict__` (kernel_params' read_only): every suite kernel
    verified on the GPU with them, and with __restrict__ on every array deriche failed again
    (bench/restrict_variants.sh; bench/results/2026-12-02-nvidia-h200-restrict.json)."""
    reads, writes = accessed_arrays(scop, body)
    return reads & writes


def accessed_arrays(scop: Scop, node: isl.AstNode) -> tuple[frozenset[str], frozenset[str]]:
    """(the arrays that the statements under `node` read, those they write)."""
    reads: set[str] = set()
    writes: set[str] = set()

    def visit(sub: isl.AstNode) -> bool:
        if sub.get_type() == isl.ast_node_type.user:
            call = sub.user_get_expr()
            stmt = scop.statement(call.get_op_arg(0).get_id().get_name())
            writes.add(stmt.lhs.array)
            reads.update(ref.array for ref in stmt.read_refs())
        return True

    node.foreach_descendant_top_down(visit)
    return frozenset(reads), frozenset(writes)


class KernelPrinter(AstPrinter):
    """The body of one kernel: mapped loops become block-/thread-stride loops.

    scope: the names defined around the body (host iterators, an inter-tile wavefront loop
    of the kernel's own): a wavefront tile is staged in shared memory (kernel.staged) only
    where the iterators its box offsets name are all defined. final_conditions: the leaves'
    final-store conditions by annotation (final_store_guards). private: the registers of
    private marks and the units of unit marks by annotation (private_code.private_registers).
    """

    int_type = "int"

    def __init__(self, scop: Scop, kernel: KernelMapping, scope: frozenset[str] = frozenset(),
                 final_conditions: dict[str, str] | None = None,
                 private: PrivateTables | None = None,
                 leaf_coordinates: dict[str, dict[str, str]] | None = None):
        super().__init__(scop)
        self.kernel = kernel
        self.scope = scope
        self.final_conditions = final_conditions or {}
        self.private = private or PrivateTables()
        # inside private scopes: array -> unit -> register; the unit of the statements below
        # a unit mark (None: not a single one; private_registers then made no registers)
        self.registers: dict[str, dict[tuple[int, ...], str]] = {}
        self.unit: tuple[int, ...] | None = ()
        # inside a staged tile: the statement printers that access the shared copies
        self.staging: tuple[RefPrinter, staging_code.FinalStore] | None = None
        self.declared: dict[str, StagedArray] = {}  # every array staged somewhere
        # inside a shared scope: the references to its copies; the copies declared
        self.shared_ref: RefPrinter | None = None
        self.shared_declared: set[str] = set()
        n = kernel.n
        # iterator -> (CUDA index variable, its extent); innermost mapped dimension on x
        self.axes: dict[str, tuple[str, str]] = {}
        for k, it in enumerate(kernel.thread_iterators()):
            # wavefront kernels: the launch's block size as a literal, so that the owner
            # computation (pc_mod) divides by a constant
            axis = _AXES[n - 1 - k]
            extent = str(kernel.block_sizes[k]) if kernel.wavefront else f"blockDim.{axis}"
            self.axes[it] = (f"threadIdx.{axis}", extent)
        for k, it in enumerate(kernel.block_iterators()):
            self.axes[it] = (f"blockIdx.{_AXES[n - 1 - k]}", f"gridDim.{_AXES[n - 1 - k]}")
        self.consumed: list[str] = []
        self.in_scope: list[str] = []  # mapped iterators of degenerate loops around the node
        self.leaf_coordinates = leaf_coordinates or {}
        # Point loops with as many threads as the tile has points along them: a point
        # coordinate P lies in [0, tile size) (wavefront.tile_and_skew; band_tile with shifted
        # point loops), so the one value of thread t is P = t, and the loop is a guard
        self.single: set[str] = set()
        # Wavefront point loops dealt to threads in blocks of consecutive points: iterator ->
        # points per thread (blocked_threads)
        self.blocked: dict[str, int] = {}
        if not kernel.wavefront and not kernel.serial:  # DOALL: points lie in [0, tile size)
            self.single = {it for k, it in enumerate(kernel.thread_iterators())
                           if kernel.block_sizes[k] >= kernel.tile_sizes[k]}
        if kernel.wavefront:
            self.single = {it for k, it in enumerate(kernel.thread_iterators())
                           if kernel.block_sizes[k] >= kernel.tile_sizes[k + 1]}
            self.blocked = {it: chunk for it, chunk in blocked_threads(kernel).items()
                            if it not in self.single}

    def for_(self, node: isl.AstNode, indent: int) -> None:
        it, init, cond, inc = for_parts(node)
        if it == self.kernel.wavefront_iterator() and not node.for_is_degenerate():
            return self._wavefront_for(node, indent)
        if it not in self.axes:
            return super().for_(node, indent)
        if node.for_is_degenerate() and not self.kernel.wavefront:
            self.in_scope.append(it)  # `const int it = value;`: _owner takes its value
            super().for_(node, indent)
            self.in_scope.pop()
            return None
        index, extent = self.axes[it]
        if inc == "1" and it in self.single and not node.for_is_degenerate():
            self.emit(indent, f"if ((int){index} >= {init}) {{")
            self.emit(indent + 1, f"const int {it} = (int){index};")
            self.emit(indent + 1, f"if ({cond}) {{")
            self.consumed.append(it)
            self.node(node.for_get_body(), indent + 2)
            self.consumed.pop()
            self.emit(indent + 1, "}")
            self.emit(indent, "}")
            return None
        elif inc == "1" and it in self.blocked and not node.for_is_degenerate():
            # the values it / chunk == index; unrolled so that nvcc shares the loads of
            # neighbouring points between consecutive iterations (blocked_threads)
            chunk = self.blocked[it]
            first = f"{chunk} * (int){index}"
            self.emit(indent, f"#pragma unroll {min(chunk, BLOCKED_UNROLL)}")
            self.emit(indent, f"for (int {it} = pc_max({init}, {first}); ({cond}) && "
                              f"{it} < {first} + {chunk}; {it} += 1) {{")
        elif inc == "1" and not node.for_is_degenerate():
            # the values it == index (mod extent), whatever the loop's first value (from 0:
            # index itself, as 0 <= index < extent)
            first = (f"(int){index}" if init == "0" else
                     f"{init} + pc_mod((int){index} - ({init}), (int){extent})")
            self.emit(indent, f"for (int {it} = {first}; {cond}; {it} += (int){extent}) {{")
        else:
            self.emit(indent, f"for (int {it} = {init}; {cond}; {it} += {inc}) "
                              f"if ({self._thread_of(it, it, extent)} == (int){index}) {{")
        self.consumed.append(it)
        self.node(node.for_get_body(), indent + 1)
        self.consumed.pop()
        self.emit(indent, "}")

    def _wavefront_for(self, node: isl.AstNode, indent: int) -> None:
        """The intra-tile wavefront loop: sequential, a barrier closes every wavefront.

        Its bounds depend on the tile and the parameters only (block-uniform), and thread
        loops and thread guards sit inside the body: every thread of the block reaches each
        __syncthreads(), none returns early.
        """
        it, init, cond, inc = for_parts(node)
        tile = [self.kernel.iterator(self.kernel.depth - 1), *self.kernel.block_iterators()]
        arrays: tuple[StagedArray, ...] = ()
        if self.kernel.staged and all(name in self.scope or name in self.consumed
                                      for name in tile):
            used = _arrays_under(self.scop, node)
            arrays = tuple(a for a in self.kernel.staged if a.array in used)
        staged = bool(arrays)
        if staged:
            self.emit(indent, "{")
            self.lines += [f"{'  ' * (indent + 1)}{line}"
                           for line in staging_code.stage_in(self.scop, self.kernel, arrays)]
            self.declared.update((a.array, a) for a in arrays)
            self.staging = staging_code.staged_printers(self.scop, arrays)
        inner = indent + 1 if staged else indent
        self.emit(inner, f"for (int {it} = {init}; {cond}; {it} += {inc}) {{")
        self.node(node.for_get_body(), inner + 1)
        self.emit(inner + 1, "__syncthreads();")
        self.emit(inner, "}")
        self.staging = None
        if staged:
            self.lines += [f"{'  ' * (indent + 1)}{line}"
                           for line in staging_code.stage_out(self.scop, self.kernel, arrays)]
            self.emit(indent, "}")

    def mark(self, node: isl.AstNode, indent: int) -> None:
        if mark_parts(node)[0] == PRIVATE_MARK:
            return self._private(node, indent)
        if mark_parts(node)[0] == SHARED_MARK:
            return self._shared(node, indent)
        if mark_parts(node)[0] == CARRY_MARK:
            return self._carry(node, indent)
        if mark_parts(node)[0] == UNIT_MARK:  # a statement copy of a register-tiled kernel
            saved, self.unit = self.unit, self.private.units.get(_annotation(node))
            self.node(node.mark_get_node(), indent)
            self.unit = saved
            return None
        if mark_parts(node)[0] == BARRIER_MARK:
            # between two statements of one intra-tile wavefront (wavefront.intra_mode); its
            # conditions and loops above depend on the block's tile and the parameters only
            self.emit(indent, "__syncthreads();")
        super().mark(node, indent)

    def _private(self, node: isl.AstNode, indent: int) -> None:
        """A private scope (gpu/promotion.py): its registers declared and loaded, the subtree
        with the registers in place of their elements, the written ones stored.

        Loads and stores carry the owner guards of the mapped dimensions that the AST does not
        realise as loops here, as the statements do (user()): the blocks and threads that run
        no instance must not store a stale copy over the owner's result.
        """
        codes = self.private.registers.get(_annotation(node), ())
        if not codes:  # a copy without registers (private_code.private_registers)
            return self.node(node.mark_get_node(), indent)
        assert not self.kernel.wavefront, "private scopes are only made in DOALL kernels"
        owners = self._scope_owners(node.mark_get_node())
        if owners is None:  # its statements run on different threads here: no registers
            return self.node(node.mark_get_node(), indent)
        self.emit(indent, "{")
        for code in codes:
            self._declare(indent + 1, code, owners)
        self._on_registers(node, indent, codes, owners)
        self.emit(indent, "}")
        return None

    def _declare(self, indent: int, code: PrivateCode, guards: list[str]) -> None:
        """A register declared, and loaded where `guards` and its load condition hold: in the
        declaration when it is loaded unconditionally, else declared with a value (_declaration)
        and loaded under the guards."""
        load = _guarded(guards, code.load, f"{code.register} = {code.element};")
        if load == f"{code.register} = {code.element};":
            self.emit(indent, f"{code.ctype} {load}")
            return
        self.emit(indent, _declaration(code))
        if load:
            self.emit(indent, load)

    def _on_registers(self, node: isl.AstNode, indent: int, codes, owners) -> None:
        """The subtree of the mark `node` at indent + 1 with `codes`' arrays read and written
        in their registers, then the written registers stored (under the owner guards)."""
        saved = dict(self.registers)
        for code in codes:
            self.registers[code.array] = {**self.registers.get(code.array, {}),
                                          code.unit: code.register}
        self.node(node.mark_get_node(), indent + 1)
        self.registers = saved
        for code in codes:
            store = _guarded(owners, code.store, f"{code.element} = {code.register};")
            if store:
                self.emit(indent + 1, store)

    def _carry(self, node: isl.AstNode, indent: int) -> None:
        """Registers carried across a shared scope's sequential tiles (gpu/carry.py): the
        thread's coordinates named, each register loaded, the subtree on the registers, the
        written ones stored. Where a block dimension is not a loop here (every block runs the
        subtree, owner guards on each statement), or a copy has no registers, the subtree is
        printed on the arrays (the private promotion left these arrays in memory)."""
        codes = self.private.carried.get(_annotation(node), ())
        if not codes or any(it not in self.consumed for it in self.kernel.block_iterators()):
            return self.node(node.mark_get_node(), indent)
        self.emit(indent, "{")
        n = self.kernel.n
        for k, name in enumerate(carry_code.thread_names(n)):
            self.emit(indent + 1, f"const int {name} = (int)threadIdx.{_AXES[n - 1 - k]};")
        for code in codes:
            self._declare(indent + 1, code, [])
        self._on_registers(node, indent, codes, [])
        self.emit(indent, "}")

    def _shared(self, node: isl.AstNode, indent: int) -> None:
        """A shared scope (gpu/shared_promotion.py): the tile's copies loaded by the block, the
        subtree on them, the written elements stored (codegen/shared_code.py). Where a block
        dimension is not a loop here, every block runs the scope (owner guards on each
        statement): it is printed on global memory, as is a copy without SharedCodes."""
        codes = self.private.shared.get(_annotation(node), ())
        if not codes or any(it not in self.consumed for it in self.kernel.block_iterators()):
            return self.node(node.mark_get_node(), indent)
        for line in shared_code.declarations(codes):
            if line not in self.shared_declared:  # one copy per kernel, at its top
                self.shared_declared.add(line)
                self.lines.insert(0, f"  {line}")
        self.emit(indent, "{")
        for line in [*shared_code.offsets(codes),
                     *shared_code.copy_in(self.scop, self.kernel, codes)]:
            self.emit(indent + 1, line)
        saved, self.shared_ref = self.shared_ref, shared_code.ref_printer(self.scop, codes)
        self.node(node.mark_get_node(), indent + 1)
        self.shared_ref = saved
        for line in shared_code.copy_out(self.scop, self.kernel, codes):
            self.emit(indent + 1, line)
        self.emit(indent, "}")

    def _scope_owners(self, body: isl.AstNode) -> list[str] | None:
        """The owner guards (as _owner's) of a private scope's statements along the mapped
        dimensions that the AST does not realise here, when every statement of the scope
        has the same coordinates there (then one thread runs them all), else None."""
        leaves: list[str | None] = []

        def visit(child: isl.AstNode) -> bool:
            if child.get_type() == isl.ast_node_type.user:
                leaves.append(_annotation(child))
            return True

        body.foreach_descendant_top_down(visit)
        owners = []
        for it in self.axes:
            if it in self.consumed:
                continue
            if it in self.in_scope:
                values = {it}
            else:
                values = {self.leaf_coordinates.get(leaf or "", {}).get(it) for leaf in leaves}
            if len(values) != 1 or None in values:
                return None
            index, extent = self.axes[it]
            owners.append(f"{self._thread_of(it, values.pop(), extent)} == (int){index}")
        return owners

    def _register_printer(self) -> RefPrinter | None:
        """Inside private scopes: the registers in place of their arrays' elements."""
        if not self.registers:
            return self.shared_ref
        flat, unit = self.shared_ref or flat_ref_printer(self.scop), self.unit

        def ref(r: Ref, sub: Callable[[Expr], str]) -> str:
            if r.array not in self.registers:
                return flat(r, sub)
            assert unit in self.registers[r.array], f"no register of {r.array} for unit {unit}"
            return self.registers[r.array][unit]

        return ref

    def user(self, node: isl.AstNode, indent: int) -> None:
        call = node.user_get_expr()
        guards = [self._owner(it, call, _annotation(node)) for it in self.axes
                  if it not in self.consumed]
        if self.staging:
            ref, final_store = self.staging
            condition = self.final_conditions.get(_annotation(node))
            text = user_statement(self.scop, call, ref,
                                  lambda stmt, sub: final_store(stmt, sub, condition))
        else:
            text = user_statement(self.scop, call, self._register_printer())
        if guards:
            text = f"if ({' && '.join(guards)}) {text}"
        self.emit(indent, text)

    def _owner(self, it: str, call: isl.AstExpr, leaf: str | None = None) -> str:
        """The condition that this block/thread runs the instance `call` along the mapped
        dimension `it`, which the AST does not realise as a loop.

        Every coordinate c of a mapped dimension runs on block/thread c mod gridDim/blockDim,
        in the loops as in these guards, so that two instances with the same coordinates run
        on the same thread, as the race check (legality.check_parallel) assumes. A wavefront
        kernel's tile and point coordinates are among the call's arguments (the lifted
        domain, wavefront.py: S(x..., T0..Tm-1, P0..Pm-1)). In other kernels the coordinate is
        a degenerate loop's iterator, or its value at this AST leaf (leaf_coordinates: isl
        drops a dimension that the outer ones determine).
        """
        index, extent = self.axes[it]
        if not self.kernel.wavefront:
            value = it if it in self.in_scope else self.leaf_coordinates.get(leaf or "",
                                                                             {}).get(it)
            if value is None:  # never expected: the leaf callback covers every dimension
                raise AssertionError(f"no coordinate of {it} for {ast_expr_to_c(call)}")
            return f"{self._thread_of(it, value, extent)} == (int){index}"
        stmt = self.scop.statement(call.get_op_arg(0).get_id().get_name())
        first = 1 + len(stmt.iterators)  # the call's first lifted argument
        blocks, threads = self.kernel.block_iterators(), self.kernel.thread_iterators()
        if it in blocks:  # block iterator k holds T_{tile_dims[k]}
            pos = first + self.kernel.tile_dims[blocks.index(it)]
        else:  # thread iterator k holds P_{k+1}
            pos = first + len(self.kernel.tile_sizes) + threads.index(it) + 1
        coordinate = ast_expr_to_c(call.get_op_arg(pos))
        return f"{self._thread_of(it, coordinate, extent)} == (int){index}"

    def _thread_of(self, it: str, coordinate: str, extent: str) -> str:
        """The block or thread index that runs `coordinate` of the mapped dimension `it`."""
        if it in self.blocked:  # a point coordinate: 0 <= P < tile size
            return f"({coordinate}) / {self.blocked[it]}"
        return f"pc_mod({coordinate}, (int){extent})"


class ReductionPrinter(KernelPrinter):
    """A reduction kernel (KernelMapping.reduction; Shirako et al. 2017, Section 5.3, run as a
    tree reduction, on one block or many: codegen/reduction_code.py): thread t of block b runs
    iterations b * blockDim.x + t, then gridDim.x * blockDim.x further on, ..., accumulating its
    statement's right-hand side into a register; each block combines its threads' results in
    a tree in shared memory, and the blocks' totals are applied to the statement's cell, which
    every iteration updates (mapping._reduction proved it one cell), once each. A statement
    outside the loop (a single iteration) runs on thread 0 of block 0. `lines_around(name)`
    adds the prologue and the epilogue; `declarations` the file-scope variables."""

    def __init__(self, scop: Scop, kernel: KernelMapping, scope: frozenset[str]):
        super().__init__(scop, kernel, scope)
        self.combine, self.identity = OPERATIONS[kernel.reduction]
        self.ctype = "double"
        self.in_loop = False
        self.declarations: list[str] = []

    def for_(self, node: isl.AstNode, indent: int) -> None:
        if self.in_loop or node.for_is_degenerate():
            return super().for_(node, indent)
        it, init, cond, inc = for_parts(node)
        first, stride = reduction_code.loop_start(self.kernel, init, inc)
        self.emit(indent, f"for (int {it} = {first}; {cond}; {it} += {stride}) {{")
        self.in_loop = True
        self.node(node.for_get_body(), indent + 1)
        self.in_loop = False
        self.emit(indent, "}")

    def user(self, node: isl.AstNode, indent: int) -> None:
        stmt, text = statement_parts(self.scop, node.user_get_expr())
        self.ctype = abi.C_TYPES[self.scop.array(stmt.lhs.array).dtype]
        op, term = accumulated(stmt)  # mapping._reduction: an update statement
        update = f"{{ pc_cell = &{text(stmt.lhs)}; pc_acc {op} {text(term)}; }}"
        self.emit(indent, update if self.in_loop else
                  f"if ({reduction_code.first_thread(self.kernel)}) {update}")

    def lines_around(self, name: str) -> None:
        self.lines[:0] = reduction_code.prologue(self.ctype, self.identity)
        self.lines += reduction_code.epilogue(self.kernel, name, self.ctype)
        self.declarations = reduction_code.declarations(self.kernel, name, self.ctype)


def _declaration(code: PrivateCode) -> str:
    """A register whose load is guarded (or absent), declared with a value. The load condition
    covers every read before a write on the paths that run, but C++ leaves reading an
    indeterminate value undefined ([basic.indet]) and nvcc's optimiser uses that on the paths
    it cannot prove dead, which changed results (tests/fuzz seed 64733). NaN for floating
    types, so that a missing load would show in the verification instead of passing as 0."""
    value = "NAN" if code.ctype in ("float", "double") else "0"
    return f"{code.ctype} {code.register} = {value};"


def _guarded(guards: list[str], condition: str | None, statement: str) -> str:
    """`statement` under `guards` and `condition` ("1": none); "" when condition is None."""
    if condition is None:
        return ""
    parts = guards + ([f"({condition})"] if condition != "1" else [])
    return f"if ({' && '.join(parts)}) {statement}" if parts else statement


def _arrays_under(scop: Scop, node: isl.AstNode) -> set[str]:
    """The arrays that the statements in the AST below `node` read or write."""
    names: set[str] = set()

    def visit(child: isl.AstNode) -> bool:
        if child.get_type() == isl.ast_node_type.user:
            stmt = scop.statement(child.user_get_expr().get_op_arg(0).get_id().get_name())
            names.update(stmt.arrays())
        return True

    node.foreach_descendant_top_down(visit)
    return names


def _annotation(node: isl.AstNode) -> str | None:
    """The name of the id that annotates an AST node, if any (final_store_guards)."""
    try:
        return node.get_annotation().get_name()
    except isl.Error:  # none
        return None


def final_store_guards(build: isl.AstBuild, kernels: tuple[KernelMapping, ...],
                       schedule: isl.Schedule | None = None, prefix: str = "c",
                       leaves: ast_check.LeafDomains | None = None
                       ) -> tuple[isl.AstBuild, object, dict[str, str],
                                  dict[str, dict[str, str]]]:
    """`build` set to annotate AST leaves with an id that the third and fourth results map:
    - the C condition selecting a staged tile's last writes (StagedArray.final), for leaves
      that hold some: isl writes it in the AST's iterators, knowing the leaf's loop bounds
      (e.g. 2-D Jacobi's B = ... on 8 x 64 x 128 tiles: on the tile's last step, the
      program's last, or two rows or two columns from the tile's far edges);
    - with `schedule` (the mapped schedule): the value, in the AST's iterators, of every
      block and thread coordinate of a DOALL kernel at the leaf (isl drops a dimension that
      has one value or that the outer ones determine); KernelPrinter._owner runs the leaf on
      the block/thread of that coordinate, as the loops do.
    With `leaves`, every leaf's instances are recorded in it too (ast_check.check).
    The second result must outlive the AST's generation (islpy's callback handle)."""
    finals = [a.final for k in kernels for a in k.staged if a.final is not None]
    conditions: dict[str, str] = {}
    coordinates: dict[str, dict[str, str]] = {}
    members = _doall_members(schedule, kernels) if schedule is not None else {}
    if not finals and not members and leaves is None:
        return build, None, conditions, coordinates
    final = finals[0] if finals else None
    for more in finals[1:]:
        final = final.union(more)

    def at_domain(node: isl.AstNode, leaf: isl.AstBuild) -> isl.AstNode:
        if leaves is not None:
            leaves.record(leaf)
        if final is None and not members:
            return node
        name = f"pc_leaf{len(conditions) + len(coordinates)}"
        points = (leaf.get_schedule().intersect_domain(final).range() if final is not None
                  else None)
        if points is not None and not points.is_empty():
            conditions[name] = ast_expr_to_c(leaf.expr_from_set(
                isl.Set.from_union_set(points).coalesce()))
        values = _leaf_coordinates(leaf, members, prefix)
        if values:
            coordinates[name] = values
        if name not in conditions and name not in coordinates:
            return node
        return node.set_annotation(isl_build.named_id(node.get_ctx(), name))

    build, handle = build.set_at_each_domain(at_domain)
    return build, handle, conditions, coordinates


def _doall_members(schedule: isl.Schedule, kernels: tuple[KernelMapping, ...]
                   ) -> dict[int, isl.UnionMap]:
    """{schedule depth: { S[x] -> [coordinate] }} of the block and thread members of every
    DOALL kernel (the first n members of the bands below its kernel and thread marks)."""
    doall = {k.name: k.n for k in kernels if not k.wavefront and not k.serial}
    found: dict[int, isl.UnionMap] = {}

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.mark:
            kind, _, name = node.mark_get_id().get_name().partition(":")
            band = node.child(0)
            if kind in ("kernel", "thread") and name in doall and \
                    band.get_type() == isl.schedule_node_type.band:
                partial = band.band_get_partial_schedule()
                for k in range(min(doall[name], band.band_n_member())):
                    depth = band.get_schedule_depth() + k
                    member = isl.UnionMap.from_union_pw_aff(partial.get_at(k))
                    found[depth] = found[depth].union(member) if depth in found else member
        return True

    schedule.get_root().foreach_descendant_top_down(visit)
    return found


def _leaf_coordinates(leaf: isl.AstBuild, members: dict[int, isl.UnionMap],
                      prefix: str) -> dict[str, str]:
    """{iterator: C value} of the mapped coordinates (`members`, by depth) of this leaf's
    instances, in the leaf's iterators: a dimension of the leaf's schedule space gives its
    iterator or the value isl fixed for it; one the space lacks (isl dropped it), its value
    as a function of the others (left out where it is not one).

    # leaf schedule: { S[x] -> [leaf dims] };  members: { S[x] -> [coordinate] }
    """
    space = leaf.get_schedule_space()
    names = [space.get_dim_name(isl.dim_type.set, k) for k in range(space.dim(isl.dim_type.set))]
    own = leaf.get_schedule()
    values = {}
    for depth, member in members.items():
        it = f"{prefix}{depth}"
        if it in names:
            var = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(space), isl.dim_type.set,
                                          names.index(it))
            values[it] = ast_expr_to_c(leaf.expr_from_pw_aff(var))
            continue
        value = own.reverse().apply_range(member.intersect_domain(own.domain()))
        if value.is_empty() or not value.is_single_valued():
            continue
        pma = isl.PwMultiAff.from_map(isl.Map.from_union_map(value))
        values[it] = ast_expr_to_c(leaf.expr_from_pw_aff(pma.get_pw_aff(0)))
    return values
