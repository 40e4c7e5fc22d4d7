"""The GPU plan as data: one frozen class per kernel kind, the marks that place kernels in the
schedule tree, the types that the later mapping passes attach to a kernel (private, shared
and carried registers), the mapped schedule, and KindTable: a registry with one behavior per
kind, which replaces if/elif chains on a kernel's kind in every consumer.

Every gpu/ module that needs these types imports this one, which imports no other gpu/ module
but staging (a leaf): that keeps the gpu package's import graph acyclic (tests/unit/
test_layers.py). Adding a kind: a class here, added to KINDS, and an entry in each KindTable
(tests/unit/test_plan.py checks that every table covers every kind).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import ClassVar, Generic, TypeVar

import islpy as isl

from polycuda.gpu.staging import StagedArray
from polycuda.ir import dtypes
from polycuda.ir.expr import Ref

# Marks of the schedule tree (PPCG's gpu_tree.c is the model: one file says what each means).
KERNEL_MARK = "kernel"  # kernel:<name> above a DOALL or wavefront kernel's band
SERIAL_MARK = "serial"  # serial:<name> above a subtree that one thread runs
REDUCE_MARK = "reduce"  # reduce:<name> above a reduction kernel's loops
THREAD_MARK = "thread"  # thread:<name> above the point band mapped to threads
SHARED_MARK = "shared"  # shared:<name> above a DOALL kernel's sequential tiles' point band
PRIVATE_MARK = "private"  # private:<name>:<k> above a subtree holding elements in registers
CARRY_MARK = "carry"  # carry:<name> above the [Tseq] band that carries registers
BARRIER_MARK = "barrier"  # barrier before a child of a wavefront kernel's sequence

# How the blocks of a reduction kernel combine their results into the cell (ReductionKernel.
# reduction_combine): one block applies its total (ONE_BLOCK); each block adds its total with
# atomicAdd (ATOMIC); each block writes its total to a partial array, and the last block to
# finish combines them in a fixed order and applies the result (PARTIAL_PASS).
ONE_BLOCK, ATOMIC, PARTIAL_PASS = "one block", "many blocks + atomics", "many blocks + pass"
# A row reduction kernel (gpu/row_reduction.py): the parallel loop's rows on blocks, each
# reduction loop of a row on the lanes of the row, a tree per row, lane 0 updates the cell.
ROWS = "rows on blocks, the reduction loop on threads"
# A column-split reduction kernel (gpu/column_reduction.py): the parallel loop's columns on
# threads and blockIdx.x, chunks of the reduction loop on blockIdx.y, atomicAdd per chunk.
COLUMNS = "columns on threads, chunks of the reduction loop on blocks + atomics"
# A dual reduction kernel (gpu/dual_reduction.py): a row and a column reduction of one matrix
# in one pass, columns on threads and blockIdx.x, batches of rows on blockIdx.y, atomicAdd.
DUAL = "one pass over the matrix: columns on threads, rows in batches on blocks + atomics"
# A chained reduction kernel (gpu/chain_reduction.py): a row reduction, then a column
# reduction that reads its result, in one pass: rows on blocks, columns on threads (registers).
CHAIN = "one pass over the matrix: rows on blocks, then columns on threads + atomics"


@dataclass(frozen=True)
class PrivateElement:
    """One array element held in a register over a marked subtree (gpu/promotion.py).

    # accesses: { S[x] -> A[a] } the subtree's reads and writes of the array (schedule domain)
    # loads: { S[x] } instances with a read that no earlier write of the subtree precedes
    #        (for the same prefix schedule): where the register must be loaded first
    # covers: { W[y] -> R[x] } a write of the subtree before a read of it (same prefix): the
    #        read needs no load only in an AST copy of the subtree that also runs the write
    #        (isl may print the subtree several times; each copy has its own register)
    # stores: { S[x] } instances that write the element: where it is stored afterwards
    # units: { S[x] -> [u] } in a register-tiled kernel (gpu/register_tiling.py): one element
    #        and register per unit u of the thread's points, u in the box [0, box_k); None
    #        and box () elsewhere
    """

    array: str
    register: str
    dtype: str
    accesses: isl.UnionMap = field(compare=False, repr=False)
    loads: isl.UnionSet = field(compare=False, repr=False)
    stores: isl.UnionSet = field(compare=False, repr=False)
    units: isl.UnionMap | None = field(default=None, compare=False, repr=False)
    box: tuple[int, ...] = ()
    covers: isl.UnionMap | None = field(default=None, compare=False, repr=False)

    def loads_in(self, copy: isl.UnionSet) -> isl.UnionSet:
        """The instances of the AST copy `copy` ({ S[x] }) before which the register must be
        loaded: its reads that no write of the same copy precedes."""
        readers = self.loads.union(self.covers.range() if self.covers is not None
                                   else self.loads).intersect(copy)
        if self.covers is None:
            return readers
        return readers.subtract(self.covers.intersect_domain(copy).intersect_range(copy)
                                .range())


@dataclass(frozen=True)
class PrivateScope:
    """A subtree marked `private:<mark>`, and the elements it holds in registers."""

    mark: str  # "<kernel>:<k>"
    elements: tuple[PrivateElement, ...]


def layout_strides(sizes: tuple[int, ...], pitch: int) -> tuple[int, ...]:
    """Elements between neighbours along each dimension of a box of `sizes` whose innermost
    dimension takes `pitch` elements (row-major).

    Example:
        >>> layout_strides((8, 32), 33), layout_strides((4, 8, 32), 33), layout_strides((5,), 5)
        ((33, 1), (264, 33, 1), (1,))
    """
    strides = [1]
    for d in range(len(sizes) - 1, 0, -1):
        strides.insert(0, strides[0] * (pitch if d == len(sizes) - 1 else sizes[d]))
    return tuple(strides)


@dataclass(frozen=True)
class SharedArray:
    """A group of references to one array held in shared memory per tile (gpu/
    shared_promotion.py): a box of `sizes` elements whose innermost dimension is laid out
    with `pitch` >= sizes[-1] elements (padding).

    # reads, writes: { S[x] -> A[a] } the group's reads and writes in the scope
    """

    array: str
    dtype: str
    sizes: tuple[int, ...]
    pitch: int
    reads: isl.UnionMap = field(compare=False, repr=False)
    writes: isl.UnionMap = field(compare=False, repr=False)
    # the copy's name (a group of references of the array: "<array>_<k>") and its references
    name: str = ""
    refs: frozenset[Ref] = frozenset()

    @property
    def strides(self) -> tuple[int, ...]:
        """Elements between neighbours along each dimension of the padded copy."""
        return layout_strides(self.sizes, self.pitch)

    @property
    def elements(self) -> int:
        """Elements of the padded copy."""
        return self.sizes[0] * self.strides[0]

    def bytes(self) -> int:
        return self.elements * dtypes.BYTES[self.dtype]


@dataclass(frozen=True)
class SharedScope:
    """The subtree below a kernel's `shared:<kernel>` mark and the arrays it promotes."""

    mark: str  # the kernel's name
    arrays: tuple[SharedArray, ...]


@dataclass(frozen=True)
class CarriedElement:
    """One array element per thread and unit held in a register across the sequential tiles
    (gpu/carry.py).

    # accesses, writes: { S[x] -> A[a] } below the mark (schedule domain)
    # thread: { S[x] -> [t_0, ..., t_n-1, u...] } the thread band's coordinates, then the unit
    """

    array: str
    register: str
    dtype: str
    accesses: isl.UnionMap = field(compare=False, repr=False)
    writes: isl.UnionMap = field(compare=False, repr=False)
    thread: isl.UnionMap = field(compare=False, repr=False)
    box: tuple[int, ...] = ()  # the units' extents (register-tiled kernels), () otherwise


@dataclass(frozen=True)
class Kernel:
    """One kernel: the schedule depth of its loops and the sizes its kind uses (outermost
    first). The kind is the class; `KIND` names it in words.

    The class attributes below (not fields) are what a kernel of a kind without the feature
    answers: the one printer of DOALL, wavefront and one-thread kernels (codegen/
    cuda_target.KernelPrinter) asks every kernel for its staged arrays, registers and tiles.
    """

    name: str
    depth: int
    tile_sizes: tuple[int, ...] = ()
    block_sizes: tuple[int, ...] = ()
    # Number of tiles along each tile dimension, over every host iteration (C text in the
    # parameters): an upper bound used for the grid size; grid-stride loops make any size exact.
    tile_counts: tuple[str, ...] = ()
    prefix: str = "c"  # loop iterators are <prefix><schedule depth>

    KIND: ClassVar[str] = ""
    # no tiles mapped to blocks and threads: one thread, or a reduction kind's own layout
    serial: ClassVar[bool] = False
    wavefront: ClassVar[bool] = False
    staged: ClassVar[tuple[StagedArray, ...]] = ()
    rows_in_blocks: ClassVar[bool] = False
    tile_dims: ClassVar[tuple[int, ...]] = ()
    private: ClassVar[tuple[PrivateScope, ...]] = ()
    register_tiles: ClassVar[tuple[int, ...]] = ()
    units: ClassVar[isl.UnionMap | None] = None
    sequential_tiles: ClassVar[tuple[int, ...]] = ()
    shared: ClassVar[SharedScope | None] = None
    carried: ClassVar[tuple[CarriedElement, ...]] = ()

    def iterator(self, depth: int) -> str:
        return f"{self.prefix}{depth}"

    @property
    def n(self) -> int:
        """Mapped dimensions: block loops, and as many thread loops."""
        return len(self.block_sizes)

    def block_iterators(self) -> tuple[str, ...]:
        """Iterators of the tile loops mapped to blocks, outermost first."""
        return tuple(self.iterator(self.depth + k) for k in range(self.n))

    def thread_iterators(self) -> tuple[str, ...]:
        """Iterators of the point loops mapped to threads, outermost first."""
        first = self.depth + self.n + (1 if self.wavefront else 0) + len(self.sequential_tiles)
        return tuple(self.iterator(first + k) for k in range(self.n))

    def grid_counts(self, host_iterators: list[str]) -> tuple[str, ...]:
        """The tile counts that size the grid, in `host_iterators` and the parameters."""
        return self.tile_counts

    def wavefront_iterator(self) -> str | None:
        """Iterator of the sequential intra-tile wavefront loop of a wavefront kernel."""
        return None


@dataclass(frozen=True)
class DoallKernel(Kernel):
    """A DOALL kernel (PPCG's scheme): tile loops depth .. depth+n-1 on blocks, point loops
    depth+n .. depth+2n-1 on threads; the innermost mapped dimension goes to x (coalescing),
    the next to y, then z. A register-tiled one (gemm) runs several points per thread."""

    KIND: ClassVar[str] = "doall"
    # subtrees that hold array elements in registers (gpu/promotion.py)
    private: tuple[PrivateScope, ...] = ()  # type: ignore[misc]
    # points per thread along each mapped dimension (gpu/register_tiling.py; () when none),
    # and which of its thread's points each instance is:
    # units: { S[x] -> [u_k : register_tiles[k] > 1] }
    register_tiles: tuple[int, ...] = ()  # type: ignore[misc]
    units: isl.UnionMap | None = field(  # type: ignore[misc]
        default=None, compare=False, repr=False)
    # tile sizes of the band members after the mapped ones, whose tile loops run in sequence
    # between the block and the thread loops (gpu/shared_promotion.py), and the arrays the
    # kernel holds in shared memory per tile
    sequential_tiles: tuple[int, ...] = ()  # type: ignore[misc]
    shared: SharedScope | None = None  # type: ignore[misc]
    # elements held in registers across those sequential tile loops (gpu/carry.py)
    carried: tuple[CarriedElement, ...] = ()  # type: ignore[misc]


@dataclass(frozen=True)
class WavefrontKernel(Kernel):
    """A two-level wavefront kernel (Di et al. 2012, Section III): it runs the tiles of one
    inter-tile wavefront, whose index is the host loop at depth-1. Tile loops depth ..
    depth+n-1 are the tiles of the wavefront (on blocks), depth+n is the sequential
    intra-tile wavefront loop (a barrier after each iteration), point loops depth+n+1 ..
    depth+2n go to threads. tile_sizes has n+1 entries: the sizes of the tiled band's members;
    tile_counts are the extents of the tile coordinates within one wavefront, in the
    parameters and the host iterator at depth-1."""

    KIND: ClassVar[str] = "wavefront"
    wavefront: ClassVar[bool] = True
    # the tile counts over the whole band (params only): the grid where the AST realises no
    # loop over the inter-tile wavefronts (a single one), so W has no name
    band_tile_counts: tuple[str, ...] = ()
    # the tile coordinates on the grid (indices into the band's members; the remaining one
    # follows from the inter-tile wavefront's index)
    tile_dims: tuple[int, ...] = ()  # type: ignore[misc]
    # the intra-tile wavefronts: wavefront.SUM, HYPERPLANE or HYPERPLANE_BARRIERS
    intra: str = ""
    # whether the point bands go into each child of the sequence below them
    # (wavefront.sinkable; wavefront.tile_and_skew's `sink`)
    sink_points: bool = True
    # groups of tile rows that must have equal sizes (wavefront.tied_rows: some statement
    # gives them the same linear part); the tuner keeps them equal
    tied_rows: tuple[tuple[int, ...], ...] = ()
    # one cooperative launch: the blocks loop over the inter-tile wavefronts themselves, a
    # grid-wide barrier between two (Options.wavefront_sync "grid")
    grid_sync: bool = False
    # arrays staged in shared memory per tile (gpu/staging.py)
    staged: tuple[StagedArray, ...] = ()  # type: ignore[misc]
    # the outer thread dimensions run blocks of consecutive points on each thread
    # (codegen.cuda_target.blocked_threads; mapping._rows_in_blocks)
    rows_in_blocks: bool = False  # type: ignore[misc]

    def grid_counts(self, host_iterators: list[str]) -> tuple[str, ...]:
        """tile_counts, unless they name the inter-tile wavefront's iterator and the host code
        has no such loop (then band_tile_counts)."""
        if self.iterator(self.depth - 1) not in host_iterators:
            return self.band_tile_counts
        return self.tile_counts

    def wavefront_iterator(self) -> str | None:
        return self.iterator(self.depth + self.n)


@dataclass(frozen=True)
class SerialKernel(Kernel):
    """A subtree with no parallel loop, run by one thread (so that every statement runs on
    the device and data never moves back and forth inside a region)."""

    KIND: ClassVar[str] = "serial"
    serial: ClassVar[bool] = True


@dataclass(frozen=True)
class ReductionKernel(Kernel):
    """What every reduction kind holds (mark "reduce:<name>"): the update operator of its
    statement (analysis/reductions.py), the statement, how its blocks combine their results
    (reduction_combine: ONE_BLOCK, ATOMIC, PARTIAL_PASS, ROWS, COLUMNS, DUAL or CHAIN) and
    Options.reduction_blocks (at most this many blocks; 0: fill the GPU)."""

    serial: ClassVar[bool] = True
    reduction: str = ""
    reduction_statement: str = ""
    reduction_combine: str = ""
    reduction_blocks: int = 0


@dataclass(frozen=True)
class TreeReductionKernel(ReductionKernel):
    """A reduction loop (Shirako et al. 2017, Section 5.3): the threads of its blocks take the
    loop's iterations in turn (a grid-stride loop), then each block combines their partial
    results in a tree in shared memory, and the blocks' totals are combined as
    reduction_combine (ONE_BLOCK, ATOMIC or PARTIAL_PASS) says."""

    KIND: ClassVar[str] = "reduction"


@dataclass(frozen=True)
class RowReductionKernel(ReductionKernel):
    """A row reduction kernel (gpu/row_reduction.py; reduction_combine ROWS)."""

    KIND: ClassVar[str] = "rows"
    # the statements of its reduction loops, in the order of the row's body
    row_statements: tuple[str, ...] = ()
    # whether some reduction loop runs a different number of iterations in different rows (a
    # triangle: row_reduction.uneven): its groups of rows then go to a capped grid in zigzag
    # rounds (codegen/row_reduction_code.py)
    uneven_rows: bool = False


@dataclass(frozen=True)
class ColumnReductionKernel(ReductionKernel):
    """A column-split reduction kernel (gpu/column_reduction.py; reduction_combine COLUMNS);
    tile_counts: the extents of the columns and of the reduction loop."""

    KIND: ClassVar[str] = "columns"
    # producer statements fused before the reduction statement (ProducerFusionKernel)
    producer_statements: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProducerFusionKernel(ColumnReductionKernel):
    """A column-split kernel with its DOALL producer fused (gpu/producer_fusion.py): each
    producer instance runs in the thread and chunk of the instance it feeds."""

    KIND: ClassVar[str] = "producer fusion"


@dataclass(frozen=True)
class DualReductionKernel(ReductionKernel):
    """A row and a column reduction of one matrix in one pass (gpu/dual_reduction.py;
    reduction_combine DUAL): columns on threads, batches of rows on blocks."""

    KIND: ClassVar[str] = "dual"
    dual_statements: tuple[str, ...] = ()  # the row statement, then the column statement


@dataclass(frozen=True)
class ChainReductionKernel(ReductionKernel):
    """A row reduction, then a column reduction that reads its result, in one pass
    (gpu/chain_reduction.py; reduction_combine CHAIN): rows on blocks, columns on threads."""

    KIND: ClassVar[str] = "chain"
    dual_statements: tuple[str, ...] = ()  # the row statement, then the column statement


# Every kind a kernel can have, in the order the docs list them.
KINDS: tuple[type[Kernel], ...] = (
    DoallKernel, WavefrontKernel, SerialKernel, TreeReductionKernel, RowReductionKernel,
    ColumnReductionKernel, ProducerFusionKernel, DualReductionKernel, ChainReductionKernel)
# The kernel record's name before the kinds were split (type hints across the code base).
KernelMapping = Kernel

T = TypeVar("T")


class KindTable(Generic[T]):
    """One behavior per kernel kind (a printer, a launch shape, a parallel check, a note...),
    looked up by the kernel's class; a kind without its own entry takes its base class's
    (ProducerFusionKernel takes ColumnReductionKernel's).

    Example:
        >>> table = KindTable("word", {Kernel: "any", SerialKernel: "one thread"})
        >>> table[SerialKernel("kernel0", 0)], table[DoallKernel("kernel1", 0)]
        ('one thread', 'any')
    """

    def __init__(self, name: str, entries: dict[type[Kernel], T]):
        self.name = name
        self._entries = dict(entries)

    def __getitem__(self, kernel: Kernel) -> T:
        for kind in type(kernel).__mro__:
            if kind in self._entries:
                return self._entries[kind]  # type: ignore[index]
        raise KeyError(f"{self.name}: no entry for kind {type(kernel).__name__}")

    def kinds(self) -> Iterator[type[Kernel]]:
        """The kinds with an entry of their own."""
        return iter(self._entries)

    def covers(self, kind: type[Kernel]) -> bool:
        """Whether a kernel of `kind` finds an entry (its own or a base class's)."""
        return any(k in self._entries for k in kind.__mro__)


@dataclass(frozen=True)
class MappedSchedule:
    """The schedule tree with its marks, the kernels, and the lift of the statements that
    wavefront kernels run: their domains gain the tile indices as dimensions (wavefront.py).

    # lift: { S[x] -> S[x, T0, ..., Tm-1] } for statements of wavefront bands, { S[x] -> S[x] }
    #       for every other one; a bijection from the scop's instances to the schedule's domain
    """

    schedule: isl.Schedule
    kernels: tuple[Kernel, ...]
    lift: isl.UnionMap

    def lifted(self, dep_map: isl.UnionMap) -> isl.UnionMap:
        """Dependences between the schedule's (lifted) instances.

        # dep_map: { S[x] -> R[y] }  ->  { S[x, T] -> R[y, T'] }
        """
        return self.lift.reverse().apply_range(dep_map).apply_range(self.lift)
