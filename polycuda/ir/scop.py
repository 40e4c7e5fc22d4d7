"""The Scop: parameters, arrays and statements of one static-control region (immutable).

Every isl object is held as isl text (deterministic, hashable); `polycuda.ir.isl_build` turns
it into isl values. The statement tuple name is the statement name ("S0", "S1", ...) and the
domain's dimensions are named by the statement's iterators.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from polycuda.errors import SourceLoc
from polycuda.ir.expr import Expr, Ref, refs

ASSIGN_OPS = ("=", "+=", "-=", "*=", "/=")


@dataclass(frozen=True)
class Arg:
    """One argument of the region's entry function, in signature order.

    kind: "param" (integer, an isl parameter), "scalar" (read-only number) or "array".
    """

    name: str
    kind: str
    dtype: str


@dataclass(frozen=True)
class Array:
    """An array (or a scalar written inside the region: shape ()).

    shape: one affine Expr of the integer parameters per dimension, outermost first.
    local: True when the region declares it (allocated by generated code, not an argument).
    """

    name: str
    dtype: str
    shape: tuple[Expr, ...]
    local: bool = False


@dataclass(frozen=True)
class Access:
    """One array reference of a statement: its isl map and whether it reads or writes."""

    ref_id: str  # unique in the Scop: "<stmt>_<k>", k in source order, write first
    array: str
    is_write: bool
    ref: Ref
    index_map: str  # isl map text: [params] -> { S0[i, j] -> A[i + 1, j] }
    # a subscript reads an index array (A[idx[i]]): index_map is then a may-access of the
    # whole extent of each such dimension (sound for the static analysis)
    indirect: bool = False


@dataclass(frozen=True)
class CsrLoop:
    """A loop inside one statement whose bounds read index arrays (CSR: `for k in
    rowptr[i] .. rowptr[i+1] - 1`): `lower`..`upper` inclusive, step `direction`. The bounds
    are affine in the statement's iterators, the parameters, the iterators of the CSR loops
    around it and the values they read. The static analysis never sees it as a dimension
    (codegen/csr.py says why); code generation prints it as a C loop around the statement.
    """

    iterator: str
    lower: Expr
    upper: Expr
    direction: int = 1
    loc: SourceLoc | None = field(default=None, compare=False)

    def bound_refs(self) -> tuple[Ref, ...]:
        """The array elements its bounds read (nested reads included), lower bound first."""
        return refs(self.lower) + refs(self.upper)


@dataclass(frozen=True)
class Statement:
    """`lhs op rhs;` executed once per point of `domain`, and for each point once per
    iteration of its CSR loops (`csr`, outermost first; none for an affine statement).

    beta: textual position (2d+1 schedule constants), len(iterators) + 1 entries.
    directions: +1 for an increasing loop, -1 for a decreasing one, per iterator.
    """

    name: str
    iterators: tuple[str, ...]
    domain: str  # isl set text: [n] -> { S0[i, j] : ... }
    beta: tuple[int, ...]
    lhs: Ref
    op: str
    rhs: Expr
    loc: SourceLoc | None = field(default=None, compare=False)
    directions: tuple[int, ...] = ()
    csr: tuple[CsrLoop, ...] = ()

    def loop_directions(self) -> tuple[int, ...]:
        return self.directions or (1,) * len(self.iterators)

    def read_refs(self) -> tuple[Ref, ...]:
        """References read, in source order; a compound assignment reads its target first,
        then the index arrays in the target's subscripts (A[idx[i]] = ...: idx[i])."""
        compound = (self.lhs,) if self.op != "=" else ()
        return (self.csr_bound_refs() + compound
                + tuple(r for e in self.lhs.index for r in refs(e)) + refs(self.rhs))

    def arrays(self) -> set[str]:
        """The arrays (and written scalars) that the statement reads or writes."""
        return {ref.array for ref in (self.lhs, *self.read_refs())}

    def csr_bound_refs(self) -> tuple[Ref, ...]:
        """The reads of the CSR loops' bounds (rowptr[i], rowptr[i + 1]), outermost first."""
        return tuple(r for loop in self.csr for r in loop.bound_refs())

    def csr_iterators(self) -> tuple[str, ...]:
        return tuple(loop.iterator for loop in self.csr)

    def index_refs(self) -> tuple[Ref, ...]:
        """The reads of index arrays: every array element read inside a subscript or by the
        bounds of a CSR loop."""
        tops = (self.lhs,) + refs(self.rhs)
        return self.csr_bound_refs() + tuple(r for top in tops for e in top.index
                                             for r in refs(e))

    def is_indirect(self) -> bool:
        """Whether a subscript of the statement reads an array element (A[idx[i]])."""
        return bool(self.index_refs())


@dataclass(frozen=True)
class SourceInfo:
    """Where the region came from, for error messages and for rewriting the file.

    start/end: character offsets of the region (pragma lines included) in `text`.
    """

    file: str
    text: str
    function: str
    start: int
    end: int
    signature: str = ""  # the C function header as written (C input), for drop-in output

    @property
    def first_line(self) -> int:
        """The line of `file` on which the region starts (its pragma line), from 1."""
        return self.text.count("\n", 0, self.start) + 1


@dataclass(frozen=True)
class Scop:
    """One region: its entry arguments, arrays, statements and parameter context."""

    name: str
    args: tuple[Arg, ...]
    arrays: tuple[Array, ...]
    statements: tuple[Statement, ...]
    context: str  # isl set text on the parameters, e.g. "[n] -> { : n >= 1 }"
    source: SourceInfo | None = field(default=None, compare=False)
    # The arrays whose values at entry must all be non-negative (not NaN, not -0.0) for this
    # Scop to compute what the region as written computes (schedule/closure.py rewrites under
    # that condition; the CUDA entries check it and run the region as written where it fails)
    nonnegative_inputs: tuple[str, ...] = ()

    @property
    def params(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.args if a.kind == "param")

    def array(self, name: str) -> Array:
        for arr in self.arrays:
            if arr.name == name:
                return arr
        raise KeyError(name)

    def statement(self, name: str) -> Statement:
        for stmt in self.statements:
            if stmt.name == name:
                return stmt
        raise KeyError(name)

    def written_arrays(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for stmt in self.statements:
            seen[stmt.lhs.array] = None
        return tuple(seen)
