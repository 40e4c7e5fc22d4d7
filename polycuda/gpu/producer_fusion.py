"""Producer fusion: an elementwise producer P fused into the column-split reduction R that reads
what it writes (gemver: A[i][j] += u1[i] v1[j] + u2[i] v2[j], then x[i] += beta A[j][i] y[j]).

Mapped apart, P reads and writes the matrix and R reads it again: three passes over it. Fused,
the instance of P that writes the element R(c, r) reads runs in the same thread just before
R(c, r), in the column-split kernel (gpu/column_reduction.py): two passes, the element read by
R straight from the register P stored. This is loop fusion under Shirako et al. 2017's
two-level scheme: P's statement gets R's block- and thread-level schedules composed with the
bijection sigma between their instances (Section 4: a statement's schedule is what the
superposition maps to blocks and threads; Lemma 1 needs every dependence to stay forward,
proved here with isl), and R stays a reduction loop in Section 5.3's sense (its chunks on
blocks commute: no dependence but R's own updates joins two chunks).

Applied only where isl proves each of:
  - sigma = W_P . Read_R^-1 (restricted to the array P writes and R reads) is a bijection
    between the instances of P and of R that reach the sequence;
  - P writes that one array only, with one write; R reads it through one access and does
    not write it; P neither reads nor writes an array R writes;
  - the fused subtree, band [c] -> band [r] -> sequence {P; R}, keeps every dependence
    among the sequence's instances with one prefix (legality.same_prefix, as
    column_reduction.distributed checks), no dependence joins two columns, and only R's own
    updates join two iterations of r (the chunks, on different blocks).
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polycuda.analysis import reductions as reductions_
from polycuda.gpu import column_reduction, staging
from polycuda.ir import isl_build
from polycuda.schedule import legality

_N = isl.schedule_node_type


@dataclass(frozen=True)
class Fused:
    """A fusion's result: the node at the original sequence's position (the sequence, or
    the fused band when the pair was all of it), the column band of the fused pair, and the
    producer and reduction statements."""

    sequence: isl.ScheduleNode
    columns: isl.ScheduleNode
    producer: str
    reduction: str


def fuse(seq: isl.ScheduleNode, reductions: dict[str, reductions_.Update],
         accesses: staging.Accesses, dep_map: isl.UnionMap, context: isl.Set
         ) -> Fused | None:
    """The first pair of consecutive children (P, R) of the sequence `seq` fused (module
    docstring), or None when no pair qualifies or isl does not prove the fusion legal.

    # seq: a sequence node; dep_map: { S[x] -> T[y] } every dependence of the scop
    """
    if seq.get_type() != _N.sequence:
        return None
    for k in range(seq.n_children() - 1):
        found = _fused_pair(seq, k, reductions, accesses, dep_map, context)
        if found is not None:
            return found
    return None


def _producer(node: isl.ScheduleNode) -> str | None:
    """The statement of the filter child `node` when its subtree is one band of coincident
    members (a DOALL nest) over a leaf of that one statement; else None."""
    band = node.child(0)
    if band.get_type() != _N.band or band.child(0).get_type() != _N.leaf:
        return None
    if not all(band.band_member_get_coincident(k) for k in range(band.band_n_member())):
        return None
    names = isl_build.statement_names(band.get_domain())
    return names[0] if len(names) == 1 else None


def _column(node: isl.ScheduleNode, reductions: dict[str, reductions_.Update],
            accesses: staging.Accesses) -> tuple[isl.ScheduleNode, str] | None:
    """The columns band of the filter child `node` and its statement, when its subtree is a
    column-split reduction (column_reduction.column_statement); else None."""
    band = node.child(0)
    if band.get_type() != _N.band or not band.band_member_get_coincident(0):
        return None
    if band.band_n_member() > 1:
        band = band.band_split(1)
    name = column_reduction.column_statement(band, reductions, accesses)
    return None if name is None else (band, name)


def _single(umap: isl.UnionMap) -> isl.Map | None:
    maps = isl_build.maps_of(umap)
    return maps[0] if len(maps) == 1 else None


def sigma_of(p_domain: isl.UnionSet, r_domain: isl.UnionSet, accesses: staging.Accesses,
             context: isl.Set) -> isl.UnionMap | None:
    """sigma = W_P . Read_R^-1 on the array P writes, when the access conditions of the module
    docstring hold and sigma is a bijection from P's instances onto R's; else None.

    # sigma: { P[x] -> R[y] : P[x] writes the element R[y] reads }
    """
    write = _single(accesses.writes.intersect_domain(p_domain))
    if write is None or not write.is_single_valued():
        return None
    array = write.get_tuple_name(isl.dim_type.out)
    r_writes = accesses.writes.intersect_domain(r_domain).range()
    r_arrays = set(isl_build.statement_names(r_writes))
    p_arrays = set(isl_build.statement_names(
        accesses.reads.intersect_domain(p_domain).range())) | {array}
    if array in r_arrays or p_arrays & r_arrays:
        return None  # R writes what P accesses: R's results would feed P
    element = isl.UnionSet.from_set(isl.Set.universe(write.range().get_space()))
    read = _single(accesses.reads.intersect_domain(r_domain).intersect_range(element))
    if read is None or not read.is_single_valued():
        return None
    sigma = isl.UnionMap.from_map(write).apply_range(isl.UnionMap.from_map(read).reverse())
    sigma = sigma.intersect_params(context)
    if not (sigma.is_single_valued() and sigma.is_injective()):
        return None
    if not (sigma.domain().is_equal(p_domain.intersect_params(context))
            and sigma.range().is_equal(r_domain.intersect_params(context))):
        return None
    return sigma


def _fused_pair(seq: isl.ScheduleNode, k: int, reductions: dict[str, reductions_.Update],
                accesses: staging.Accesses, dep_map: isl.UnionMap, context: isl.Set
                ) -> Fused | None:
    """Children k (P) and k + 1 (R) of `seq` fused, or None (fuse())."""
    producer = _producer(seq.child(k))
    column = _column(seq.child(k + 1), reductions, accesses)
    if producer is None or column is None:
        return None
    columns, reduction = column
    p_domain = seq.child(k).child(0).get_domain()
    r_domain = seq.child(k + 1).child(0).get_domain()
    sigma = sigma_of(p_domain, r_domain, accesses, context)
    if sigma is None:
        return None
    # { R[y] -> [c] }, { R[y] -> [r] }; P's: the same of sigma(P[x])
    c_r = columns.band_get_partial_schedule_union_map().intersect_domain(r_domain)
    r_r = columns.child(0).band_get_partial_schedule_union_map().intersect_domain(r_domain)
    c_both = c_r.union(sigma.apply_range(c_r))
    r_both = r_r.union(sigma.apply_range(r_r))
    node = _rebuilt(seq, k, c_both, r_both, p_domain, r_domain)
    if node is None:
        return None
    top, band = node
    same = legality.same_prefix(seq, dep_map)
    subtree = top.get_subtree_schedule_union_map()
    if not same.is_subset(subtree.lex_lt_union_map(subtree)):
        return None  # some dependence would go backward
    if not legality.racing(band, dep_map).is_empty():
        return None  # two columns (threads) would race
    chunks = legality.racing(band.child(0), dep_map)
    for dep in isl_build.maps_of(chunks):
        if not (dep.get_tuple_name(isl.dim_type.in_) == reduction
                == dep.get_tuple_name(isl.dim_type.out)):
            return None  # two chunks (blocks) would race on more than R's own updates
    return Fused(top, band, producer, reduction)


def _rebuilt(seq: isl.ScheduleNode, k: int, c_both: isl.UnionMap, r_both: isl.UnionMap,
             p_domain: isl.UnionSet, r_domain: isl.UnionSet
             ) -> tuple[isl.ScheduleNode, isl.ScheduleNode] | None:
    """The tree with children k and k + 1 of `seq` replaced by one child band [c] -> band [r]
    -> sequence {P; R}, the other children in their order around it. Returns (the node at
    `seq`'s position: the sequence, or the band when P and R were its only children; the [c]
    band), or None when isl shaped the sequence otherwise.

    # c_both, r_both: { P[x] -> [c]; R[y] -> [c] }, { P[x] -> [r]; R[y] -> [r] }
    """
    depth = seq.get_tree_depth()
    filters = [seq.child(j).filter_get_filter() for j in range(seq.n_children())]
    empty = isl.UnionSet.empty(filters[0].get_space())
    before, after = empty, empty
    for f in filters[:k]:
        before = before.union(f)
    for f in filters[k + 2:]:
        after = after.union(f)
    node = seq
    if not before.is_empty():
        node = node.order_before(before)  # the rest: children k..
    if not after.is_empty():
        node = node.order_after(after)  # the rest: children k and k + 1
    node = node.cut()
    for one in (c_both, r_both):
        node = node.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(one))
        node = node.band_member_set_coincident(0, one is c_both).child(0)
    pair = isl.UnionSetList.alloc(node.get_ctx(), 2).add(p_domain).add(r_domain)
    node = node.insert_sequence(pair)
    band = node.parent().parent()
    top = band.ancestor(band.get_tree_depth() - depth)
    if before.is_empty() and after.is_empty():
        return band, band  # the pair was the whole sequence: the band in its place
    if top.get_type() != _N.sequence:
        return None
    top = top.sequence_splice_children()  # one flat sequence, as before
    merged = filters[:k] + [filters[k].union(filters[k + 1])] + filters[k + 2:]
    domain = seq.get_domain()
    if top.n_children() != len(merged) or not all(
            top.child(j).filter_get_filter().intersect(domain).is_equal(f.intersect(domain))
            for j, f in enumerate(merged)):
        return None  # isl shaped the sequence otherwise: keep the schedule as it was
    band = top.child(k).child(0)
    return (top, band) if band.get_type() == _N.band else None

