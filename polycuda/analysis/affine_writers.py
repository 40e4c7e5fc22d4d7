"""Run-time nests whose writes are affine and injective: the writer of a cell in closed form.

When every array a run-time nest monitors (analysis/indirect.py) is written only through
subscripts affine in the levelized iterator (the host iterators and parameters), and no two
iterations of the levelized loop write one cell (the write relation from iterations to cells
is injective, proved with isl), then the one iteration that writes a cell c is writer(c) =
W^-1(c), the affine inverse of the write relation, with its domain (the cells that some
iteration writes). SpTRSV's x[i] = ...: writer(c) = c for 0 <= c < n. Its reads (x[col[k]])
may stay indirect: which cell they read is known only at run time, but which iteration wrote
it is then one expression away, so no inspector pass is needed to find it (issue 17, item 3;
codegen/syncfree_affine.py). Sequential order gives every read of c by iteration t the value
of writer(c) when writer(c) < t (a flow dependence, the only kind the executor waits on), the
original value when c has no writer, and when writer(c) > t the original value too (an anti
dependence: the run-time check of codegen/syncfree_affine.py falls back to the levels then).
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polycuda.analysis.indirect import RuntimeNest
from polycuda.ir import isl_build
from polycuda.ir.expr import Ref, Var, refs, walk
from polycuda.ir.scop import Scop
from polycuda.schedule import budget  # a leaf module: the isl operation quota


def cell_name(dim: int) -> str:
    """The parameter that stands for a read cell's coordinate `dim` in writer expressions."""
    return f"pc_cell{dim}"


@dataclass(frozen=True)
class AffineWriters:
    """writers: (array, writer) per monitored array; writer is the text of an isl PwAff
    [params, pc_h0.., pc_cell0..] -> { [ITERATOR VALUE] } whose domain is exactly the cells
    that an iteration writes (host iterators pc_h<k>, codegen/runtime_nest.host_name)."""

    writers: tuple[tuple[str, str], ...]

    def writer(self, array: str) -> str:
        return dict(self.writers)[array]


def _write_relation(scop: Scop, nest: RuntimeNest, array: str, ctx: isl.Context
                    ) -> isl.Map | str:
    """# [params, pc_h0..] -> { [t] -> array[c..] }: the cells each levelized iteration t may
    write (inner loops projected out), or why the writes are not affine."""
    depth = nest.depth
    rel = None
    for name in nest.statements:
        stmt = scop.statement(name)
        if stmt.lhs.array != array:
            continue
        csr_iters = set(stmt.csr_iterators())
        if any(refs(e) or any(isinstance(v, Var) and v.name in csr_iters for v in walk(e))
               for e in stmt.lhs.index):
            line = f" (line {stmt.loc.line})" if stmt.loc else ""
            return f"{stmt.name}{line} writes '{array}' through a subscript known at run time"
        access = isl_build.statement_accesses(scop, stmt)[0]
        amap = isl.Map.read_from_str(ctx, access.index_map)
        amap = amap.intersect_domain(isl_build.domain_set(stmt, ctx))
        amap = amap.intersect_params(isl_build.context_set(scop, ctx))
        n_in = amap.dim(isl.dim_type.in_)
        amap = amap.project_out(isl.dim_type.in_, depth + 1, n_in - depth - 1)
        nparam = amap.dim(isl.dim_type.param)
        amap = amap.move_dims(isl.dim_type.param, nparam, isl.dim_type.in_, 0, depth)
        for k in range(depth):
            amap = amap.set_dim_id(isl.dim_type.param, nparam + k,
                                   isl_build.named_id(ctx, f"pc_h{k}"))
        amap = amap.reset_tuple_id(isl.dim_type.in_)
        if rel is None:
            rel = amap
        else:
            rel, amap = isl.align_two(rel, amap)
            rel = rel.union(amap)
    assert rel is not None, f"{array} is monitored, so the nest writes it"
    return rel.coalesce()


def affine_writers(scop: Scop, nest: RuntimeNest) -> AffineWriters | str:
    """The closed-form writer of every monitored array of `nest` (module docstring), or why
    there is none (for `show deps` and the executor's fallback to the levels). Bounded: the
    isl operations (set operations on one write relation, no scheduler) count against
    budget.MAX_OPERATIONS; past it, no writers (the levels)."""
    if not nest.monitored:
        return "the loop writes no array that needs levels"
    ctx = isl.Context()
    budget.bounded_context(ctx)
    try:
        return _writers(scop, nest, ctx)
    except isl.Error as err:
        return f"isl gave up on the write relation ({err})"


def _writers(scop: Scop, nest: RuntimeNest, ctx: isl.Context) -> AffineWriters | str:
    writers = []
    for array in nest.monitored:
        rel = _write_relation(scop, nest, array, ctx)
        if isinstance(rel, str):
            return rel
        # injective: two iterations never write one cell (no output dependence between
        # iterations); then each cell has at most one writer, a function of the cell
        if not rel.is_injective():
            return (f"two iterations of loop '{nest.iterator}' may write one element of "
                    f"'{array}' (isl: the write relation is not injective)")
        # inverse: [params, pc_h.., pc_cell..] -> { [t] : t writes array[pc_cell..] }
        inverse = rel.reverse()
        ncell = inverse.dim(isl.dim_type.in_)
        nparam = inverse.dim(isl.dim_type.param)
        inverse = inverse.move_dims(isl.dim_type.param, nparam, isl.dim_type.in_, 0, ncell)
        for k in range(ncell):
            inverse = inverse.set_dim_id(isl.dim_type.param, nparam + k,
                                         isl_build.named_id(ctx, cell_name(k)))
        writer = inverse.range().dim_min(0)
        # a single-valued affine inverse: the min equals the max on its domain
        if not writer.is_equal(inverse.range().dim_max(0)):
            return f"the writer of an element of '{array}' is not one iteration"
        writers.append((array, writer.coalesce().to_str()))
    return AffineWriters(tuple(writers))


def monitored_reads(scop: Scop, nest: RuntimeNest) -> tuple[tuple[str, Ref], ...]:
    """(statement, reference) of every read of a monitored array in `nest`, in source order."""
    monitored = set(nest.monitored)
    return tuple((name, ref) for name in nest.statements
                 for ref in scop.statement(name).read_refs() if ref.array in monitored)


def describe(scop: Scop, nest: RuntimeNest) -> str:
    """For `show deps`: whether --runtime-executor syncfree-affine (and auto) applies to `nest`,
    with the writers it would wait on, or why not."""
    found = affine_writers(scop, nest)
    if isinstance(found, str):
        return (f"loop '{nest.iterator}': executor syncfree-affine does not apply ({found}); "
                "the levels instead")
    cells = "; ".join(f"writer({array}[pc_cell..]) = {writer}" for array, writer in found.writers)
    return (f"loop '{nest.iterator}': executor syncfree-affine applies (writes affine and "
            f"injective: {cells}); one launch, each read waiting on its writer, unless a check "
            "pass finds a read of a later iteration's cell (then the levels for that call)")
