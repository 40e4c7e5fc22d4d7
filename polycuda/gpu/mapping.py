"""GPU mapping on the schedule tree: which subtree runs as which kernel (kernel marks), and
the sizes of its tiles; gpu/tiling.py then tiles and skews the marked bands.

The outermost band whose leading members are parallel (coincident) becomes a kernel: its first
n <= max_mapped_dims members are to be tiled; tile loops go to thread blocks and point loops to
threads (PPCG's scheme). Bands above it that carry dependences stay sequential host loops. A
permutable band with no leading parallel member becomes a two-level wavefront (wavefront.py).
A subtree with no parallel member at all becomes a one-thread kernel, so that every statement
runs on the device and data never moves back and forth inside a region.
"""

from __future__ import annotations

import math

import islpy as isl

from polycuda import size_plan
from polycuda.analysis import reductions as reductions_
from polycuda.gpu import (chain_reduction, column_reduction, dual_reduction, extents,
                          producer_fusion, register_tiling, row_reduction, shared_promotion,
                          staging, wavefront)
from polycuda.ir import isl_build
from polycuda.errors import InvalidConfigError
from polycuda.options import MAX_BLOCK_DIMS, MAX_BLOCK_THREADS, Options, fit_sizes
from polycuda.gpu.plan import (  # noqa: F401 (the plan's names, as before they moved)
    ATOMIC, CHAIN, COLUMNS, DUAL, KERNEL_MARK, ONE_BLOCK, PARTIAL_PASS, REDUCE_MARK, ROWS,
    SERIAL_MARK, ChainReductionKernel, ColumnReductionKernel, DoallKernel, DualReductionKernel,
    Kernel, KernelMapping, MappedSchedule, ProducerFusionKernel, RowReductionKernel,
    SerialKernel, TreeReductionKernel, WavefrontKernel)

DEFAULT_TILES = {1: (256,), 2: (8, 32), 3: (4, 4, 32)}
MAX_WAVEFRONT_MEMBERS = 3  # members of a band tiled into a two-level wavefront
# Threads of each block that sums a reduction loop (a power of two: the tree halves it)
REDUCTION_THREADS = 256
# Iterations per thread of a reduction loop before a second block is used: a block per
# REDUCTION_THREADS * REDUCTION_ITERATIONS iterations, up to Options.reduction_blocks (by
# default 4 blocks per SM, read at run time), so that the tree (log2(256) barriers) and the
# block's combine are paid for by a few loads per thread.
REDUCTION_ITERATIONS = 4
MAX_FLATTENED = 4  # inner bands of a row reduction split by statement (row_reduction.flattened)
# A 1-D kernel whose threads each walk a line of arrays that the thread dimension strides
# across (thread i runs the loop over row i: adi's and deriche's row sweeps) touches one
# 128-byte line per thread and array at each step, and reuses it on the thread's next steps
# only while it stays in the SM's L1. The default block is halved (down to one warp) until
# its threads' lines, one per such array, are at most LINE_THREAD_LINES: the kernel's lines
# then stay in L1, and its few blocks spread over more SMs. The limit is read off the
# per-block-size timings of adi's row sweep (four arrays) and deriche's (two) in
# bench/results/2026-12-03-nvidia-h200-thin-blocks*.json; ...-line-threads.json holds the
# rule's effect on every suite program it changes.
LINE_THREAD_LINES = 256


def reduction_combine(op: str, options: Options) -> str:
    """How the blocks of a reduction kernel of update operator `op` combine their results:
    one block when Options.reduction_blocks is 1; else atomicAdd for `+=` and `-=` (CUDA has
    it for int, unsigned long long, float and double; with Options.allow_reassociation, which
    already lets the order of a floating-point sum change), and the partial-array pass for `*=`
    (no atomic multiply; a compare-and-swap loop would serialize every block on one cell) or
    when Options.reduction_combine is "pass" (the blocks' totals combined in a fixed order: the
    same result on every run at one grid size)."""
    if options.reduction_blocks == 1:
        return ONE_BLOCK
    if op in ("+=", "-=") and options.reduction_combine == "auto":
        return ATOMIC
    return PARTIAL_PASS


def tile_sizes_for(n: int, options: Options) -> tuple[int, ...]:
    """Options' tile sizes (last n entries, or padded with defaults) or the defaults."""
    return fit_sizes(options.tile_sizes, DEFAULT_TILES[n])


def block_sizes_for(tiles: tuple[int, ...], options: Options, kernel: str = ""
                    ) -> tuple[int, ...]:
    """Threads per point loop: Options.block_sizes (its last entries apply to the innermost
    loops), padded on the outside with the tile sizes. Derived (padded) sizes are halved to
    CUDA's per-axis limits (MAX_BLOCK_DIMS) and then, outer first, while the block would exceed
    MAX_BLOCK_THREADS (tiles 4x16x32 run on 2x16x32 threads, each thread striding over its
    point loops), so every tile size launches.

    Raises:
        InvalidConfigError: a given block size exceeds the tile size of its loop (the extra
            threads would have no point to run): the mapping refuses rather than shrink it.
    """
    given = options.block_sizes[-len(tiles):] if options.block_sizes else ()
    for k, (b, t) in enumerate(zip(given, tiles[len(tiles) - len(given):])):
        if b > t:
            raise InvalidConfigError(
                f"block size {b} exceeds tile size {t} of mapped loop "
                f"{len(tiles) - len(given) + k} of {kernel or 'a kernel'} "
                f"(block_sizes={options.block_sizes}, tile sizes {tiles}): pass block sizes "
                "at most the tile sizes, or larger --tile-sizes")
    blocks = [min(b, t) for b, t in zip(fit_sizes(options.block_sizes, tiles), tiles)]
    derived = range(len(blocks) - len(given))
    for k in derived:  # per axis: innermost is x (a tile of 100 along z runs on 50 threads)
        axis = ("x", "y", "z")[min(len(blocks) - 1 - k, 2)]
        while blocks[k] > MAX_BLOCK_DIMS[axis]:
            blocks[k] = (blocks[k] + 1) // 2
    for k in derived:
        while math.prod(blocks) > MAX_BLOCK_THREADS and blocks[k] > 1:
            blocks[k] = (blocks[k] + 1) // 2
    return tuple(blocks)


def line_threads(band: isl.ScheduleNode, accesses: staging.Accesses | None, threads: int
                 ) -> int:
    """The threads per block of the 1-D kernel of `band` (its first member mapped) in place
    of the default `threads`: halved, down to 32, while threads x (arrays strided across) >
    LINE_THREAD_LINES when each thread runs a loop and no access of the kernel coalesces
    along the thread member (see LINE_THREAD_LINES); else `threads`."""
    if accesses is None or not _runs_a_loop_per_thread(band):
        return threads
    strided = _strided_arrays(band, accesses)
    if not strided:
        return threads
    while threads > 32 and threads * len(strided) > LINE_THREAD_LINES:
        threads //= 2
    return threads


def _runs_a_loop_per_thread(band: isl.ScheduleNode) -> bool:
    """Whether some statement below the band's first member has a loop of its own."""
    if band.band_n_member() > 1:
        return True
    found: list[bool] = []

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.band:
            found.append(True)
        return not found

    band.child(0).foreach_descendant_top_down(visit)
    return bool(found)


def _strided_arrays(band: isl.ScheduleNode, accesses: staging.Accesses) -> set[str]:
    """The arrays that a step of the band's first member (one thread to the next) moves
    along a dimension other than the innermost; empty when some access coalesces along it
    (moves by one element of the innermost dimension) or when a statement's step is not one
    iterator's (the member is a skewed or piecewise row): the rule does not apply then."""
    strided: set[str] = set()
    for stmt_set, (row,) in wavefront.statement_rows(band.band_get_partial_schedule(),
                                                     band.get_domain(), 1):
        if row is None or sorted(map(abs, row)) != [0] * (len(row) - 1) + [1]:
            return set()
        step = [1 if c else 0 for c in row]
        for access in wavefront.basic_accesses(stmt_set, accesses.reads, accesses.writes):
            subscripts = wavefront.subscript_rows(access)
            if subscripts is None:
                continue
            moved = [sum(c * d for c, d in zip(sub, step)) for sub in subscripts]
            if all(v == 0 for v in moved[:-1]) and moved[-1] != 0:
                return set()  # along the innermost dimension: coalesced (or a stride)
            if any(moved[:-1]):
                strided.add(access.get_tuple_name(isl.dim_type.out))
    return strided


def _leading_coincident(node: isl.ScheduleNode, limit: int) -> int:
    n = 0
    while n < min(node.band_n_member(), limit) and node.band_member_get_coincident(n):
        n += 1
    return n


def _has_parallel_band(node: isl.ScheduleNode, options: Options) -> bool:
    """Whether some band at or below `node` has a parallel member or is a wavefront band."""
    found = []

    def visit(child: isl.ScheduleNode) -> bool:
        if child.get_type() == isl.schedule_node_type.band and (
                any(child.band_member_get_coincident(k) for k in range(child.band_n_member()))
                or wavefront.eligible(child, options)):
            found.append(True)
        return not found

    node.foreach_descendant_top_down(visit)
    return bool(found)


class _Mapper:
    def __init__(self, options: Options, context: isl.Set, prefix: str,
                 dep_map: isl.UnionMap | None, accesses: staging.Accesses | None = None,
                 reductions: dict[str, reductions_.Update] | None = None):
        self.options = options
        self.reductions = reductions or {}
        self.accesses = accesses
        self.context = context
        self.prefix = prefix
        self.dep_map = dep_map
        self.kernels: list[Kernel] = []
        self.fused: set[str] = set()  # statements of dual and chained reduction kernels

    def _name(self) -> str:
        return f"kernel{len(self.kernels)}"

    def visit(self, node: isl.ScheduleNode) -> isl.ScheduleNode:
        """Map the subtree at `node`; returns the node at the same position, marks inserted."""
        kind = node.get_type()
        if kind == isl.schedule_node_type.mark:  # mapped already (a dual reduction)
            return node
        if kind in (isl.schedule_node_type.band, isl.schedule_node_type.sequence,
                    isl.schedule_node_type.set):
            dual = self._dual_reduction(node)
            if dual is not None:
                return dual
        if kind == isl.schedule_node_type.sequence:
            fused = self._producer_fusion(node)
            if fused is not None:
                return fused
        if kind == isl.schedule_node_type.band:
            return self._band(node)
        if kind == isl.schedule_node_type.leaf:
            return self._serial(node)
        if (kind in (isl.schedule_node_type.sequence, isl.schedule_node_type.set)
                and not _has_parallel_band(node, self.options)
                and not self._reducible_below(node)):
            return self._serial(node)
        for k in range(node.n_children()):
            node = self.visit(node.child(k)).parent()
        return node

    def _band(self, node: isl.ScheduleNode) -> isl.ScheduleNode:
        n = _leading_coincident(node, self.options.max_mapped_dims)
        if n >= 1:  # a parallel loop of reductions: rows, columns, or distributed first
            for special in (self._row_reduction, self._column_reduction, self._distributed):
                mapped = special(node)
                if mapped is not None:
                    return mapped
        if n == 0 and wavefront.eligible(node, self.options):
            return self._wavefront(node)
        if n == 0:
            if not _has_parallel_band(node, self.options):
                return (self._reduction(node) or self._around_reductions(node)
                        or self._serial(node))
            if node.band_n_member() > 1:
                node = node.band_split(1)
            return self.visit(node.child(0)).parent()
        name = self._name()
        options = size_plan.kernel_options(self.options, name)  # this kernel's sizes
        tiles = tile_sizes_for(n, options)
        if n == 1 and not options.tile_sizes and not options.block_sizes:
            tiles = (line_threads(node, self.accesses, tiles[0]),)
        regs = register_tiling.points_per_thread(tiles, options, name)
        gemm = shared_promotion.gemm_like(node, n, options)
        if gemm:  # PPCG-like blocks, r x c points per thread
            tiles, regs = shared_promotion.GEMM_TILES, shared_promotion.GEMM_REGISTER_TILES
        seq = (shared_promotion.sequential_tile_sizes(
            node, n, shared_promotion.sequential_tile(options, gemm, node, self.accesses))
            if shared_promotion.enabled(options) else ())
        if node.band_n_member() > n + len(seq):
            node = node.band_split(n + len(seq))
        # the band stays untiled below its kernel mark: gpu/tiling.tile_kernels tiles it
        # (tile loops on blocks, point loops on threads) with these sizes
        self.kernels.append(DoallKernel(
            name, node.get_schedule_depth(), tiles,
            block_sizes_for(register_tiling.spacing(tiles, regs), options, name),
            prefix=self.prefix, register_tiles=regs if any(r > 1 for r in regs) else (),
            sequential_tiles=seq))
        return node.insert_mark(isl_build.named_id(node.get_ctx(), f"{KERNEL_MARK}:{name}"))

    def _wavefront(self, node: isl.ScheduleNode) -> isl.ScheduleNode:
        """Two-level wavefront of a permutable band without parallel members.

        Result: mark kernel -> the band (its m members; the others split off below), with
        the tile sizes, the implied tile coordinate (tile_dims) and the intra-tile wavefronts
        decided; gpu/tiling.skew_wavefronts tiles and skews it into band [W] (host loop) ->
        mark kernel -> band [T1..Tn] (blocks) -> mark thread -> band [w] (sequential,
        barrier) -> band [P1..Pn] (threads) -> the band's old child.
        """
        # at most 2-D thread blocks: a 3-D tile's intra-tile wavefronts are short and isl's
        # AST of a 4-D wavefront band takes seconds
        m = min(node.band_n_member(), self.options.max_mapped_dims + 1, MAX_WAVEFRONT_MEMBERS)
        if node.band_n_member() > m:  # the remaining members run inside each thread
            # the last rows on threads unless their intra-tile wavefronts are the skewed sum:
            # then the first rows (H100, 3-D SOR with Pluto's band: 103 ms in the first rows'
            # order, 173 ms in the other; 3-D Jacobi, barrier mode: 235 ms against 33 ms)
            reordered = wavefront.inner_members_last(node, m).band_split(m)
            intra = self._intra_mode(reordered)
            if intra == wavefront.SUM:
                node = node.band_split(m)
                intra = self._intra_mode(node)
            else:
                node = reordered
        else:
            intra = self._intra_mode(node)
        if self.accesses is not None:
            node = wavefront.coalescing_last(node, self.accesses.reads, self.accesses.writes)
        in_blocks = self._rows_in_blocks(node, intra)
        tied = wavefront.tied_rows(node.band_get_partial_schedule(), node.get_domain(), m)
        name = self._name()
        options = size_plan.kernel_options(self.options, name)  # this kernel's sizes
        tiles = wavefront.with_ties(wavefront.tile_sizes(m, options), tied)
        implied = wavefront.widest(node, tiles, self.context)
        # without dependences, as the rest of the mapping: the caller's check decides
        sink = self.dep_map is None or wavefront.sinkable(node, self.dep_map)
        self.kernels.append(WavefrontKernel(
            name, node.get_schedule_depth() + 1, tiles,
            block_sizes_for(tiles[1:], options, name), prefix=self.prefix,
            tile_dims=tuple(k for k in range(m) if k != implied), intra=intra,
            sink_points=sink, tied_rows=tied, grid_sync=self.options.wavefront_sync == "grid",
            rows_in_blocks=in_blocks))
        return node.insert_mark(isl_build.named_id(node.get_ctx(), f"{KERNEL_MARK}:{name}"))

    def _rows_in_blocks(self, band: isl.ScheduleNode, intra: str) -> bool:
        """Whether the tile's outer thread dimensions run blocks of consecutive points per
        thread: when every intra-tile wavefront is a box of the tile (not the skewed sum,
        whose diagonals blocks would deal to few threads) and no statement of the band
        writes an array it reads. Then nvcc can load once what consecutive points share
        (Jacobi: B = f(A)); an update in place puts a store between the loads of two points
        that nvcc cannot prove apart. H100, float (bench/results/...-t1000-blocked.json,
        ...-paper-float-blocked.json): 2-D Jacobi 4096^2 x 1000 steps 50.0 -> 46.3 ms;
        2-D SOR in place, balanced tiles: 21.4 -> 23.0 ms.
        """
        if intra == wavefront.SUM or self.accesses is None:
            return False
        domain = band.get_domain()
        reads = self.accesses.reads.intersect_domain(domain).universe()
        writes = self.accesses.writes.intersect_domain(domain).universe()
        return reads.intersect(writes).is_empty()

    def _intra_mode(self, band: isl.ScheduleNode) -> str:
        """wavefront.intra_mode(), or the skewed sum when no dependences were given or the
        options ask for it (Options.intra_wavefront)."""
        if self.dep_map is None or self.options.intra_wavefront == "sum":
            return wavefront.SUM
        return wavefront.intra_mode(band, self.dep_map)

    def _reduction(self, node: isl.ScheduleNode) -> isl.ScheduleNode | None:
        """A reduction kernel for the band `node` (on one block or many: reduction_combine),
        or None when it is not a loop of
        one update statement `X[f] op= e` (analysis/reductions.py) that, for each value of
        the loops around it, updates one cell of X and reads no other element of X that it
        writes: then the loop carries no other dependence. Only with
        Options.allow_reassociation, on the cuda target.

        # writes: { S[x] -> X[f(x)] }; outer: { S[x] -> [prefix] }; cells: { [prefix] -> X[a] }
        """
        if (not self.options.allow_reassociation or self.options.target != "cuda"
                or self.accesses is None or node.band_n_member() != 1
                or node.child(0).get_type() != isl.schedule_node_type.leaf):
            return None
        domain = node.get_domain()
        names = isl_build.statement_names(domain)
        if len(names) != 1 or names[0] not in self.reductions:
            return None
        update = self.reductions[names[0]]
        outer = node.get_prefix_schedule_union_map().intersect_domain(domain)
        cells = outer.reverse().apply_range(self.accesses.writes.intersect_domain(domain))
        if not cells.is_single_valued():
            return None
        for text in update.self_reads:
            read = isl.UnionMap(text, context=node.get_ctx()).intersect_domain(domain)
            if not outer.reverse().apply_range(read).intersect(cells).is_empty():
                return None  # e reads the cell it updates (a recurrence, not a reduction)
        name = self._name()
        self.kernels.append(TreeReductionKernel(
            name, node.get_schedule_depth(), prefix=self.prefix,
            reduction=update.op, reduction_statement=names[0],
            reduction_combine=reduction_combine(update.op, self.options),
            reduction_blocks=self.options.reduction_blocks))
        return node.insert_mark(isl_build.named_id(node.get_ctx(), f"{REDUCE_MARK}:{name}"))

    def _row_reduction(self, node: isl.ScheduleNode) -> isl.ScheduleNode | None:
        """A row reduction kernel (gpu/row_reduction.py) for the band `node`, whose first member
        is parallel, when its body below that member is reduction loops along which the
        accesses coalesce (and statements run once per row); None otherwise, and then the
        DOALL mapping applies. Only with Options.allow_reassociation, on the cuda target.

        Result: mark reduce:<name> -> band [P] (rows) -> the reduction loops.
        """
        found = self._rows_of(node)
        if found is None:
            return None
        band, statements = found
        name = self._name()
        op = self.reductions[statements[0]].op
        self.kernels.append(RowReductionKernel(
            name, band.get_schedule_depth(), prefix=self.prefix,
            reduction=op, reduction_statement=statements[0], reduction_combine=ROWS,
            row_statements=statements, tile_counts=self._band_counts(band),
            reduction_blocks=self.options.reduction_blocks,
            uneven_rows=row_reduction.uneven(band)))
        return band.insert_mark(isl_build.named_id(band.get_ctx(), f"{REDUCE_MARK}:{name}"))

    def _rows_of(self, node: isl.ScheduleNode
                 ) -> tuple[isl.ScheduleNode, tuple[str, ...]] | None:
        """The rows band (node's first member, bands below split by statement where needed:
        row_reduction.flattened) and its reduction statements, when the row rule applies."""
        if (not self.options.allow_reassociation or self.options.target != "cuda"
                or not self.options.row_reductions or self.accesses is None):
            return None
        band = node.band_split(1) if node.band_n_member() > 1 else node
        statements = row_reduction.row_statements(band, self.reductions, self.accesses)
        flat = band
        for _ in range(MAX_FLATTENED):  # bands shared with the statements around a reduction
            if statements is not None:
                break
            flat = row_reduction.flattened(flat, self.dep_map)
            if flat is None:
                break
            statements = row_reduction.row_statements(flat, self.reductions, self.accesses)
            band = flat if statements is not None else band
        return None if statements is None else (band, statements)

    def _band_counts(self, band: isl.ScheduleNode) -> tuple[str, ...]:
        """The extent of each member of `band` over every instance (params only)."""
        return extents.extents(extents.as_set(
            band.get_domain().apply(band.band_get_partial_schedule_union_map()),
            band.band_get_space()).intersect_params(self.context))

    def _column_of(self, node: isl.ScheduleNode) -> tuple[isl.ScheduleNode, str] | None:
        """The columns band (node's first member) and its reduction statement, when the
        column-split rule applies (gpu/column_reduction.py): with allow_reassociation, on the
        cuda target, Options.column_reductions, and blocks combined by atomics
        (reduction_combine() is ATOMIC: not with one block or the fixed-order pass)."""
        if not self._columns_allowed():
            return None
        band = node.band_split(1) if node.band_n_member() > 1 else node
        name = column_reduction.column_statement(band, self.reductions, self.accesses)
        return None if name is None else (band, name)

    def _columns_allowed(self) -> bool:
        """Whether the options let a reduction loop's chunks run on blocks combined by
        atomicAdd (the column-split rule's conditions, _column_of)."""
        return (self.options.allow_reassociation and self.options.target == "cuda"
                and self.options.column_reductions and self.accesses is not None
                and reduction_combine("+=", self.options) == ATOMIC)

    def _column_reduction(self, node: isl.ScheduleNode) -> isl.ScheduleNode | None:
        """A column-split reduction kernel for the band `node` (gpu/column_reduction.py), or
        None. Result: mark reduce:<name> -> band [P] (columns) -> band [R] -> the statement.
        tile_counts: the extents of P and of R."""
        found = self._column_of(node)
        if found is None:
            return None
        band, statement = found
        name = self._name()
        self.kernels.append(ColumnReductionKernel(
            name, band.get_schedule_depth(), prefix=self.prefix,
            reduction=self.reductions[statement].op, reduction_statement=statement,
            reduction_combine=COLUMNS, reduction_blocks=self.options.reduction_blocks,
            tile_counts=self._band_counts(band) + self._band_counts(band.child(0))))
        return band.insert_mark(isl_build.named_id(band.get_ctx(), f"{REDUCE_MARK}:{name}"))

    def _producer_fusion(self, node: isl.ScheduleNode) -> isl.ScheduleNode | None:
        """The sequence `node` with a DOALL producer and the column-split reduction after it
        fused into one column kernel (gpu/producer_fusion.py, legal by isl), its other
        children mapped; None when no pair qualifies. Only with the column rule's conditions
        (_columns_allowed) and Options.producer_fusion.

        Result: the node at `node`'s position (the sequence, or the mark when P and R were
        all of it); the fused pair: mark reduce:<name> -> band [c] (columns) -> band [r]
        (chunks) -> sequence {P; R}.
        """
        if (not self.options.producer_fusion or not self._columns_allowed()
                or self.dep_map is None):
            return None
        found = producer_fusion.fuse(node, self.reductions, self.accesses, self.dep_map,
                                     self.context)
        if found is None:
            return None
        band, statement = found.columns, found.reduction
        depth = found.sequence.get_tree_depth()
        name = self._name()
        self.kernels.append(ProducerFusionKernel(
            name, band.get_schedule_depth(), prefix=self.prefix,
            reduction=self.reductions[statement].op, reduction_statement=statement,
            reduction_combine=COLUMNS, reduction_blocks=self.options.reduction_blocks,
            producer_statements=(found.producer,),
            tile_counts=self._band_counts(band) + self._band_counts(band.child(0))))
        mark = band.insert_mark(isl_build.named_id(band.get_ctx(), f"{REDUCE_MARK}:{name}"))
        at = mark.ancestor(mark.get_tree_depth() - depth)
        if at.get_type() == isl.schedule_node_type.sequence:
            for k in range(at.n_children()):  # the fused child's mark is left as it is
                at = self.visit(at.child(k)).parent()
        return at

    def _dual_reduction(self, node: isl.ScheduleNode) -> isl.ScheduleNode | None:
        """The subtree at `node` with a row and a column reduction of one matrix fused into
        one kernel, its other statements mapped: a dual reduction (gpu/dual_reduction.py),
        else a chained one (gpu/chain_reduction.py); None when neither is found or the fused
        order is not legal. Only with the row and column rules' conditions
        (allow_reassociation, cuda, atomics) and Options.dual_reductions /
        chain_reductions.

        Result: the node at `node`'s position; mark reduce:<name> -> band [r, c] -> leaf
        (dual), or mark reduce:<name> -> band [r] -> sequence (R, C) -> band [c] (chain).
        """
        if (not self.options.row_reductions or not self._columns_allowed()
                or self.dep_map is None):
            return None
        found, combine, kind, pair = None, DUAL, DualReductionKernel, None
        if self.options.dual_reductions:
            pair = dual_reduction.find(node.get_domain(), self.reductions, self.accesses,
                                       self.dep_map, self.fused)
            found = None if pair is None else dual_reduction.fused(node, pair, self.dep_map)
        if found is None and self.options.chain_reductions:
            pair = chain_reduction.find(node.get_domain(), self.reductions, self.accesses,
                                        self.fused)
            combine, kind = CHAIN, ChainReductionKernel
            found = None if pair is None else chain_reduction.fused(node, pair, self.dep_map)
        if found is None or pair is None:
            return None
        at, band = found
        depth = at.get_tree_depth()
        name = self._name()
        self.fused |= {pair.row, pair.column}
        self.kernels.append(kind(
            name, band.get_schedule_depth(), prefix=self.prefix,
            reduction=self.reductions[pair.row].op, reduction_statement=pair.row,
            reduction_combine=combine, dual_statements=(pair.row, pair.column),
            tile_counts=self._band_counts(band), reduction_blocks=self.options.reduction_blocks))
        mark = band.insert_mark(isl_build.named_id(band.get_ctx(), f"{REDUCE_MARK}:{name}"))
        at = mark.ancestor(mark.get_tree_depth() - depth)
        if at.get_type() != isl.schedule_node_type.mark:  # the others' subtrees
            for k in range(at.n_children()):
                at = self.visit(at.child(k)).parent()
        return at

    def _distributed(self, node: isl.ScheduleNode) -> isl.ScheduleNode | None:
        """The band `node` distributed over the statements of its body (column_reduction.
        distributed, legal by isl) when that lets some of them run as row or column
        reductions, which the fused band does not (mvt, bicg); the distributed subtree
        mapped. None otherwise."""
        if (not (self.options.row_reductions or self.options.column_reductions)
                or not self.options.allow_reassociation or self.options.target != "cuda"
                or not any(name in self.reductions
                           for name in isl_build.statement_names(node.get_domain()))):
            return None  # no statement that could become a row or column reduction
        seq = column_reduction.distributed(node, self.dep_map)
        if seq is None:
            return None
        gain = False
        for k in range(seq.n_children()):
            part = seq.child(k).child(0)
            if (part.get_type() == isl.schedule_node_type.band
                    and _leading_coincident(part, 1) == 1
                    and (self._rows_of(part) is not None or self._column_of(part) is not None)):
                gain = True
        return self.visit(seq) if gain else None

    def _around_reductions(self, node: isl.ScheduleNode) -> isl.ScheduleNode | None:
        """The band `node`, with no parallel loop inside, kept on the host as a sequential
        loop when a loop of one reduction statement lies deeper down (ludcmp's substitutions:
        each step's reduction loop then runs on a block, instead of the whole nest on one
        thread); None when none does (or reductions stay sequential)."""
        single = (node.band_n_member() == 1
                  and node.child(0).get_type() == isl.schedule_node_type.leaf)
        if single or not self._reducible_below(node):
            return None
        if node.band_n_member() > 1:
            node = node.band_split(1)
        return self.visit(node.child(0)).parent()

    def _reducible_below(self, node: isl.ScheduleNode) -> bool:
        """Whether a band at or below `node` runs one reduction statement at its leaf, so that
        its innermost loop may become a reduction kernel (_reduction decides)."""
        if not self.options.allow_reassociation or self.options.target != "cuda":
            return False
        found: list[bool] = []

        def visit(child: isl.ScheduleNode) -> bool:
            if (child.get_type() == isl.schedule_node_type.band
                    and child.child(0).get_type() == isl.schedule_node_type.leaf):
                names = isl_build.statement_names(child.get_domain())
                found.append(len(names) == 1 and names[0] in self.reductions)  # a candidate
            return not any(found)

        node.foreach_descendant_top_down(visit)
        return any(found)

    def _serial(self, node: isl.ScheduleNode) -> isl.ScheduleNode:
        name = self._name()
        self.kernels.append(SerialKernel(name, node.get_schedule_depth(), prefix=self.prefix))
        return node.insert_mark(isl_build.named_id(node.get_ctx(), f"{SERIAL_MARK}:{name}"))


def assign_kernels(schedule: isl.Schedule, options: Options, context: isl.Set,
                   prefix: str = "c", dep_map: isl.UnionMap | None = None,
                   accesses: staging.Accesses | None = None,
                   reductions: dict[str, reductions_.Update] | None = None
                   ) -> MappedSchedule:
    """The mapping step: each subtree assigned to a kernel (PPCG's scheme, module docstring),
    marks inserted; the DOALL and wavefront bands are left untiled below their kernel marks
    with their sizes decided (gpu/tiling.py tiles and skews them; tiling.map_schedule runs
    every mapping step).

    Mark ids: "kernel:<name>" above a mapped band, "serial:<name>" above a subtree run by one
    thread, "reduce:<name>" above a reduction loop. dep_map (every dependence of the scop)
    lets a wavefront band whose first row carries them all run that row's hyperplanes as its
    intra-tile wavefronts; without it the skewed sum is used. accesses: the scop's reads and
    writes, for rows in blocks per thread, the reduction kernels and the wavefront thread
    row on x that coalesces (none of them without accesses).
    reductions: the scop's update statements `X[f] op= e` (analysis/reductions.py); a loop of
    one of them that would run in one thread becomes a reduction kernel (mark
    "reduce:<name>", Options.allow_reassociation) of one block or many (reduction_combine).
    """
    mapper = _Mapper(options, context, prefix, dep_map, accesses, reductions)
    root = schedule.get_root()
    node = mapper.visit(root.child(0)) if root.n_children() else root
    return MappedSchedule(node.get_schedule(), tuple(mapper.kernels),
                          schedule.get_domain().identity())
