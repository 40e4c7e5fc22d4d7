"""Dependences of a Scop: value-based flow, anti and output dependences (isl compute_flow).

Each access depends on the nearest conflicting access of another instance, not on every
earlier one: this is the "direct" set that Di et al. 2012 list in Table I (uniform distances
for stencils), and it is transitively complete for legality.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polycuda.errors import UnsupportedConstruct
from polycuda.ir import isl_build
from polycuda.ir.scop import Access, Scop
from polycuda.ir.c_expr import expr_to_c


@dataclass(frozen=True)
class Dependence:
    """One dependence between two accesses.

    relation: isl map text { S[i] -> T[i'] } (the dependence polyhedron).
    distance: sink - source iteration vector when it is the same constant for every pair
        (both statements must have the same number of iterators), else None.
    """

    kind: str  # "flow" | "anti" | "output"
    source: str
    sink: str
    source_access: str  # ref id, e.g. "S0_1"
    sink_access: str
    source_ref: str  # printed, e.g. "A[i + 1]"
    sink_ref: str
    array: str
    relation: str
    distance: tuple[int, ...] | None

    def to_json(self) -> dict:
        return {"kind": self.kind, "source": self.source, "sink": self.sink,
                "source_access": self.source_ref, "sink_access": self.sink_ref,
                "array": self.array, "polyhedron": self.relation,
                "distance": list(self.distance) if self.distance is not None else None}


def _tagged(scop: Scop, ctx: isl.Context, writes: bool) -> isl.UnionMap:
    # { [S[i] -> ref[]] -> A[f(i)] }
    return isl_build.accesses_union(scop, ctx, writes, tagged=True)


def _tagged_schedule(scop: Scop, ctx: isl.Context, tagged: isl.UnionMap,
                     reverse: bool = False) -> isl.Schedule:
    # the textual order of the tagged instances [S[i] -> ref[]]: that of S[i]
    untag = isl.UnionPwMultiAff.from_union_map(tagged.domain().unwrap().domain_map())
    return isl_build.textual_order_tree(scop, ctx, reverse).pullback_union_pw_multi_aff(untag)


# The last scops' dependence maps, as text (isl objects belong to one context): a compile asks
# for one scop's twice or more (false_deps.copy_original_reads, then the dependences step when
# the copies change nothing), and isl's dataflow analysis can take seconds (fuzz seed 31074, a
# region of four statements with non-uniform subscripts: 6 s a time on the 2-core machine).
_MAPS: dict[Scop, tuple[str, str]] = {}
MAPS_KEPT = 8


def dependence_maps(scop: Scop, ctx: isl.Context) -> tuple[isl.UnionMap, isl.UnionMap]:
    """(flow, false) tagged dependence maps { [S[i] -> ref[]] -> [T[j] -> ref'[]] }.

    Flow: last write before each read. Output: last write before each write. Anti: first write
    after each read, found as the last write before the read in the reversed order. Accesses
    of one statement instance never depend on each other (an instance is atomic). Computed
    once per scop among the last MAPS_KEPT (a scop equal to one seen, its source location
    apart, reads the maps back in `ctx`).
    """
    kept = _MAPS.get(scop)
    if kept is not None:
        return (isl.UnionMap.read_from_str(ctx, kept[0]),
                isl.UnionMap.read_from_str(ctx, kept[1]))
    try:
        flow, false = _dependence_maps(scop, ctx)
    except isl.Error as err:
        # isl's dataflow analysis fails on some accesses with integer divisions (an internal
        # "affine expression involves some of the domain dimensions" on one read against one
        # write, fuzz profile divmod seed 30273): no code without the dependences, so a clear
        # refusal that names the two accesses instead of isl's raw error
        raise _refusal(scop, ctx, err) from None
    if len(_MAPS) >= MAPS_KEPT:
        del _MAPS[next(iter(_MAPS))]
    _MAPS[scop] = (str(flow), str(false))
    return flow, false


def _refusal(scop: Scop, ctx: isl.Context, err: isl.Error) -> UnsupportedConstruct:
    """The error for a region whose dataflow isl cannot compute, at the first (access, write)
    pair of one array on which isl's analysis fails alone (the region's first statement when
    no single pair does)."""
    sched = isl_build.textual_order_tree(scop, ctx)
    backwards = isl_build.textual_order_tree(scop, ctx, reverse=True)
    refs = [(stmt, acc) for stmt in scop.statements
            for acc in isl_build.statement_accesses(scop, stmt) if not acc.indirect]
    for sink_stmt, sink in refs:
        for source_stmt, source in refs:
            if not source.is_write or source.array != sink.array:
                continue
            sinks = isl.UnionMap.from_map(isl_build.access_map(sink, sink_stmt, ctx, False))
            sources = isl.UnionMap.from_map(isl_build.access_map(source, source_stmt, ctx, False))
            try:
                _last_source(sinks, sources, sched)
                _last_source(sinks, sources, backwards)
            except isl.Error:
                line = source_stmt.loc.line if source_stmt.loc else "?"
                return UnsupportedConstruct(
                    f"isl's dataflow analysis (compute_flow) fails on the "
                    f"{'write' if sink.is_write else 'read'} {_ref_text(sink)} against the write "
                    f"{_ref_text(source)} at line {line} ({_isl_message(err)}); seen with C '/' "
                    "and '%' in subscripts and bounds: computing such a quotient in a variable "
                    "before the loop may avoid it",
                    sink_stmt.loc)
    first = scop.statements[0].loc if scop.statements else None
    return UnsupportedConstruct(
        f"isl could not compute the dependences of region '{scop.name}' ({_isl_message(err)})",
        first)


def _isl_message(err: isl.Error) -> str:
    return str(err).split(" in /")[0][:200]  # without isl's source file and line


def _dependence_maps(scop: Scop, ctx: isl.Context) -> tuple[isl.UnionMap, isl.UnionMap]:
    reads, writes = _tagged(scop, ctx, False), _tagged(scop, ctx, True)
    tagged = reads.union(writes)
    sched = _tagged_schedule(scop, ctx, tagged)
    # an indirect write (A[idx[i]] = ...) is a may-write of the whole extent: it must not
    # kill earlier writes, or a flow from before it would be lost
    may = isl_build.accesses_union(scop, ctx, True, tagged=True, indirect=True)
    if not may.is_empty():
        writes = isl_build.accesses_union(scop, ctx, True, tagged=True, indirect=False)
    flow = _last_source(reads, writes, sched, may)
    output = _last_source(writes.union(may), writes, sched, may)
    anti = _last_source(reads, writes, _tagged_schedule(scop, ctx, tagged, reverse=True),
                        may).reverse()
    return flow, output.union(anti)


def _last_source(sinks: isl.UnionMap, sources: isl.UnionMap, sched: isl.Schedule,
                 may_sources: isl.UnionMap | None = None) -> isl.UnionMap:
    info = isl.UnionAccessInfo.from_sink(sinks).set_must_source(sources)
    if may_sources is not None and not may_sources.is_empty():
        info = info.set_may_source(may_sources)
    return info.set_schedule(sched).compute_flow().get_may_dependence()


def _distance(rel: isl.Map) -> tuple[int, ...] | None:
    n_in, n_out = rel.dim(isl.dim_type.in_), rel.dim(isl.dim_type.out)
    if n_in != n_out:
        return None
    same = rel.set_tuple_name(isl.dim_type.in_, "D").set_tuple_name(isl.dim_type.out, "D")
    deltas = same.deltas()
    free = deltas.project_out(isl.dim_type.param, 0, deltas.dim(isl.dim_type.param))
    if not free.is_singleton():
        return None
    point = free.sample_point()
    values = tuple(point.get_coordinate_val(isl.dim_type.set, k).to_python()
                   for k in range(n_in))
    return values


def _ref_text(acc: Access) -> str:
    return expr_to_c(acc.ref)


def compute(scop: Scop, ctx: isl.Context | None = None) -> tuple[Dependence, ...]:
    """Every dependence of `scop`, grouped per (source access, sink access) pair.

    Returns them sorted by (source statement, sink statement, kind, source ref, sink ref).
    """
    ctx = ctx or isl.Context()
    accesses = {a.ref_id: a for a in isl_build.all_accesses(scop)}
    flow, false = dependence_maps(scop, ctx)
    deps = []
    for umap, is_flow in ((flow, True), (false, False)):
        for tagged_map in isl_build.maps_of(umap):
            src, snk = _tags(tagged_map)
            rel = _untag(tagged_map)
            if rel.is_empty():
                continue
            rel = _named(rel, scop)
            src_acc, snk_acc = accesses[src], accesses[snk]
            kind = "flow" if is_flow else ("output" if src_acc.is_write else "anti")
            deps.append(Dependence(kind, rel.get_tuple_name(isl.dim_type.in_),
                                   rel.get_tuple_name(isl.dim_type.out), src, snk,
                                   _ref_text(src_acc), _ref_text(snk_acc), src_acc.array,
                                   str(rel.coalesce()), _distance(rel)))
    order = {s.name: k for k, s in enumerate(scop.statements)}
    return tuple(sorted(deps, key=lambda d: (order[d.source], order[d.sink], d.kind,
                                             _ref_order(d.source_access),
                                             _ref_order(d.sink_access), d.relation)))


def _named(rel: isl.Map, scop: Scop) -> isl.Map:
    # { S[i0, i1] -> T[i0', i1'] } ==> { S[t, i] -> T[t', i'] } with the statements' iterators
    src = scop.statement(rel.get_tuple_name(isl.dim_type.in_)).iterators
    snk = scop.statement(rel.get_tuple_name(isl.dim_type.out)).iterators
    for k, name in enumerate(src):
        rel = rel.set_dim_name(isl.dim_type.in_, k, name)
    for k, name in enumerate(snk):
        rel = rel.set_dim_name(isl.dim_type.out, k, name + "'")
    return rel


def _ref_order(ref_id: str) -> tuple[str, int]:
    stmt, _, k = ref_id.rpartition("_")
    return stmt, int(k)


def _tags(tagged_map: isl.Map) -> tuple[str, str]:
    space = tagged_map.get_space()
    src = space.domain().unwrap().range().get_tuple_name(isl.dim_type.set)
    snk = space.range().unwrap().range().get_tuple_name(isl.dim_type.set)
    return src, snk


def _untag(tagged_map: isl.Map) -> isl.Map:
    # { [S[i] -> r[]] -> [T[j] -> r'[]] }  ==>  { S[i] -> T[j] }
    return tagged_map.domain_factor_domain().range_factor_domain()


def untagged_union(scop: Scop, ctx: isl.Context, kinds: tuple[str, ...] = ("flow", "anti",
                                                                             "output"),
                   without_refs: frozenset[str] = frozenset()) -> isl.UnionMap:
    """All dependences of the given kinds as one map { S[i] -> T[j] } (for schedulers);
    those from or to an access in `without_refs` (ref ids) left out."""
    return untag(*dependence_maps(scop, ctx), kinds, without_refs)


def untag(flow: isl.UnionMap, false: isl.UnionMap,
          kinds: tuple[str, ...] = ("flow", "anti", "output"),
          without_refs: frozenset[str] = frozenset()) -> isl.UnionMap:
    """untagged_union() of the maps of dependence_maps() (computed once by a caller that
    asks for several subsets)."""
    ctx = flow.get_ctx()
    if without_refs:
        flow, false = (_without(flow, without_refs), _without(false, without_refs))
    result = isl.UnionMap.empty(isl.Space.params_alloc(ctx, 0))
    if "flow" in kinds:
        result = result.union(flow.domain_factor_domain().range_factor_domain())
    if "anti" in kinds or "output" in kinds:
        result = result.union(false.domain_factor_domain().range_factor_domain())
    # Not coalesced: isl schedules one simple polyhedron per access pair far faster than
    # their coalesced hull (jacobi-3d: 3.5 s -> 0.12 s on the 2-core machine).
    return result


def _without(tagged: isl.UnionMap, refs: frozenset[str]) -> isl.UnionMap:
    # tagged: { [S[i] -> ref[]] -> [T[j] -> ref'[]] }, its maps of a ref in `refs` dropped
    result = isl.UnionMap.empty(tagged.get_space())
    for tagged_map in isl_build.maps_of(tagged):
        if not set(_tags(tagged_map)) & refs:
            result = result.union(isl.UnionMap.from_map(tagged_map))
    return result
