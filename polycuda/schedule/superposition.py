"""The superposition scheduler (Shirako et al. 2017): a block-level schedule (Algorithm 3, the
outermost synchronization-free forall loops) and a thread-level schedule (Algorithm 2, the
DL-model's coalescing loop on thread x, SCCs distributed, parallel loops pushed down), superposed
(Section 4.2) once Lemma 1 is proven with isl.

Realization: gpu/mapping.py tiles the mapped band of each kernel and runs its tiles on blocks
and its points on threads, so a kernel's block loops are the tiles of its thread loops:
Theta* = (kernel_id, floor(theta_thread / TL), theta_thread, per-thread loops). Loops that the
paper keeps inside a kernel with barriers (Figure 3's t loop) run here on the host, one launch
per iteration; the schedule tree produced is the thread-level one.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import reduce

import islpy as isl

from polycuda.errors import IllegalScheduleError, PolycudaError
from polycuda.ir import isl_build
from polycuda.ir.scop import Scop
from polycuda.schedule import dl_model, inner_merge, legality

FORALL, SEQUENTIAL, ILLEGAL = "forall", "sequential", "illegal"
# Legal iterator combinations (one iterator per statement of an SCC) kept at one level, and
# partial combinations visited while building them: beyond either the scheduler gives up and
# the fallback chain takes over (schedule/fallback.py).
MAX_COMBOS = 4096
MAX_VISITS = 4 * MAX_COMBOS
BLOCK_DIMS = 2  # block_y, block_x (Section 4.3)


class SuperpositionError(PolycudaError):
    """No superposed schedule (too many combinations, or Lemma 1 not proven): the caller falls
    back to the isl scheduler and says why."""


@dataclass(frozen=True)
class Loop:
    """A loop dimension: one iterator per statement (alpha = 1, c = 0 in Section 5.1's form),
    its kind on the dependences it was tested against (Section 5.3) and its DL priority
    (d mem_cost / d t, summed over the statements; Section 5.2)."""

    dims: tuple[tuple[str, int], ...]  # (statement, iterator position)
    kind: str
    cost: float

    def position(self, stmt: str) -> int:
        return dict(self.dims)[stmt]

    def restricted(self, stmts: tuple[str, ...]) -> Loop:
        return Loop(tuple(d for d in self.dims if d[0] in stmts), self.kind, self.cost)

    def label(self, scop: Scop) -> str:
        """The iterator's name ("j"), or per statement ("S0:i,S1:j") when they differ."""
        names = [(s, scop.statement(s).iterators[k]) for s, k in self.dims]
        if len({n for _, n in names}) == 1:
            return names[0][1]
        return ",".join(f"{s}:{n}" for s, n in names)


@dataclass(frozen=True)
class Leaf:
    """Statements in their original (2d+1) order, inside whatever loops enclose them; one
    statement: its iterators at `free` (those no enclosing loop uses), in source order."""

    statements: tuple[str, ...]
    free: tuple[int, ...] = ()


@dataclass(frozen=True)
class Band:
    """Loops around `child`. A group band (an SCC_coalesce, one kernel) has parallel loops:
    the first `mapped` go to threads (the last one to x), the rest run in each thread."""

    statements: tuple[str, ...]
    loops: tuple[Loop, ...]
    child: Node
    group: bool = False
    mapped: int = 0
    coalescing: bool = False  # the SCC's least-cost loop (its coalescing loop) is mapped
    candidates: tuple[Loop, ...] = ()  # every loop tested for the SCC, by DL priority


@dataclass(frozen=True)
class Sequence:
    children: tuple[Node, ...]


Node = Leaf | Band | Sequence


@dataclass(frozen=True)
class Plan:
    """Both levels' results: the thread-level tree and each statement's block-level loops."""

    tree: Node
    blocks: dict[str, tuple[Loop, ...]]

    def groups(self) -> list[Band]:
        out: list[Band] = []
        _walk_groups(self.tree, out)
        return out


def _walk_groups(node: Node, out: list[Band]) -> None:
    if isinstance(node, Band) and node.group:
        out.append(node)
    elif isinstance(node, Band):
        _walk_groups(node.child, out)
    elif isinstance(node, Sequence):
        for child in node.children:
            _walk_groups(child, out)


class _Deps:
    """The active dependences (Section 5.3's ActSet): one isl map per statement pair.

    # maps: { S[i] -> T[j] } each, within the context
    """

    def __init__(self, maps: tuple[isl.Map, ...]):
        self.maps = maps

    @staticmethod
    def of(dep_map: isl.UnionMap) -> _Deps:
        return _Deps(tuple(m for m in isl_build.maps_of(dep_map.coalesce()) if not m.is_empty()))

    def among(self, stmts: tuple[str, ...]) -> _Deps:
        return _Deps(tuple(m for m in self.maps if _src(m) in stmts and _dst(m) in stmts))

    def kind(self, loop: Loop, maps: tuple[isl.Map, ...] | None = None) -> str:
        """Section 5.3: forall if every distance is 0, sequential if none is negative (on
        `maps`, default all)."""
        signs = set()
        for m in self.maps if maps is None else maps:
            a, b = loop.position(_src(m)), loop.position(_dst(m))
            if not m.add_constraint(_delta(m, a, b, positive=True)).is_empty():
                signs.add(1)
            if not m.add_constraint(_delta(m, a, b, positive=False)).is_empty():
                return ILLEGAL
        return SEQUENTIAL if signs else FORALL

    def unsatisfied(self, loop: Loop) -> _Deps:
        """The dependences that `loop` (sequential) does not carry: distance 0."""
        kept = []
        for m in self.maps:
            a, b = loop.position(_src(m)), loop.position(_dst(m))
            eq = isl.Constraint.equality_alloc(isl.LocalSpace.from_space(m.get_space()))
            eq = eq.set_coefficient_val(isl.dim_type.out, b, 1).set_coefficient_val(
                isl.dim_type.in_, a, -1)
            zero = m.add_constraint(eq)
            if not zero.is_empty():
                kept.append(zero)
        return _Deps(tuple(kept))

    def touching(self, stmt: str, earlier: tuple[str, ...]) -> tuple[isl.Map, ...]:
        """The dependences between `stmt` and itself or a statement of `earlier`."""
        ends = set(earlier) | {stmt}
        return tuple(m for m in self.maps if (_src(m) == stmt and _dst(m) in ends)
                     or (_dst(m) == stmt and _src(m) in ends))

    def edges(self) -> set[tuple[str, str]]:
        return {(_src(m), _dst(m)) for m in self.maps}


def _src(m: isl.Map) -> str:
    return m.get_tuple_name(isl.dim_type.in_)


def _dst(m: isl.Map) -> str:
    return m.get_tuple_name(isl.dim_type.out)


def _delta(m: isl.Map, a: int, b: int, positive: bool) -> isl.Constraint:
    # j_b - i_a >= 1 (positive) or i_a - j_b >= 1
    sign = 1 if positive else -1
    c = isl.Constraint.inequality_alloc(isl.LocalSpace.from_space(m.get_space()))
    return c.set_coefficient_val(isl.dim_type.out, b, sign).set_coefficient_val(
        isl.dim_type.in_, a, -sign).set_constant_val(-1)


class _Planner:
    """Algorithms 2 and 3 on one Scop."""

    def __init__(self, scop: Scop, ctx: isl.Context, max_mapped: int):
        self.scop = scop
        self.max_mapped = max_mapped
        self.order = {s.name: k for k, s in enumerate(scop.statements)}
        # d mem_cost / d t_k per statement and iterator (Section 5.2)
        self.costs = {s.name: dl_model.cost_derivatives(dl_model.references(scop, s, ctx),
                                                        len(s.iterators))
                      for s in scop.statements}

    # -- SCCs of the polyhedral dependence graph (PoDG), in a topological order --------------
    def sccs(self, stmts: tuple[str, ...], deps: _Deps) -> list[tuple[str, ...]]:
        edges = deps.edges()
        reach = {s: {s} for s in stmts}
        changed = True
        while changed:  # transitive closure: the graphs are a few statements
            changed = False
            for src, dst in edges:
                new = reach[dst] - reach[src]
                if new:
                    reach[src] |= new
                    changed = True
        comps: list[tuple[str, ...]] = []
        for s in sorted(stmts, key=self.order.get):
            if not any(s in c for c in comps):
                comps.append(tuple(t for t in sorted(stmts, key=self.order.get)
                                   if t in reach[s] and s in reach[t]))
        # Kahn's algorithm, the SCC of the earliest statement first among the ready ones
        done: list[tuple[str, ...]] = []
        while comps:
            ready = next(c for c in comps if not any(
                (a, b) in edges for other in comps if other is not c for a in other for b in c))
            done.append(ready)
            comps.remove(ready)
        return done

    # -- lines 5-15 of Algorithm 2: the loops of one SCC -------------------------------------
    def loops_of(self, scc: tuple[str, ...], deps: _Deps, used: dict[str, frozenset[int]]
                 ) -> tuple[list[Loop], list[Loop], list[Loop]]:
        """The SCC's parallel loops, its sequential loop candidates (at most two: the first one
        that is one source loop around the whole SCC, then the first one; [] when none), and
        every legal loop tested, by DL priority (most profitable first)."""
        tested = [Loop(dims, kind, dl_model._stable(sum(self.costs[s][k] for s, k in dims)))
                  for dims, kind in self._legal_combos(scc, deps, used)]
        # ascending d mem_cost / d t (Section 5.2); ties: the innermost source loop first
        tested.sort(key=lambda lp: (lp.cost, tuple(-k for _, k in lp.dims)))
        parallel: list[Loop] = []
        taken: set[tuple[str, int]] = set()
        for loop in tested:
            if loop.kind == FORALL and not taken & set(loop.dims):
                parallel.append(loop)
                taken |= set(loop.dims)
        # a sequential loop uses iterators no parallel loop takes; one source loop first (a
        # combination of different loops, e.g. k of one statement with i of another, is legal
        # but adds a sequential level where the source has one loop)
        free_seq = [lp for lp in tested if lp.kind == SEQUENTIAL and not taken & set(lp.dims)]
        sequential = [lp for lp in free_seq if self._one_source_loop(lp)][:1]
        sequential += [lp for lp in free_seq[:1] if lp not in sequential]
        return parallel, sequential, tested

    def _legal_combos(self, scc: tuple[str, ...], deps: _Deps,
                      used: dict[str, frozenset[int]]) -> list[tuple[tuple, str]]:
        """Every combination of one free iterator per statement that is a legal loop (forall
        or sequential), with its kind: built statement by statement, a partial combination
        dropped as soon as the dependences among its statements make it illegal (adding a
        statement only adds dependences to satisfy).

        Raises:
            SuperpositionError: more than MAX_COMBOS legal combinations, or MAX_VISITS
                partial ones.
        """
        free = [[k for k in range(len(self.scop.statement(s).iterators)) if k not in used[s]]
                for s in scc]
        touching = [deps.touching(s, scc[:n]) for n, s in enumerate(scc)]
        found: list[tuple[tuple, str]] = []
        visits = 0

        def extend(n: int, dims: tuple, carried: bool) -> None:
            nonlocal visits
            if n == len(scc):
                found.append((dims, SEQUENTIAL if carried else FORALL))
                if len(found) > MAX_COMBOS:
                    raise SuperpositionError(
                        f"more than {MAX_COMBOS} legal iterator combinations for statements "
                        f"{scc} (superposition.MAX_COMBOS)")
                return
            for k in free[n]:
                visits += 1
                if visits > MAX_VISITS:
                    raise SuperpositionError(
                        f"more than {MAX_VISITS} partial iterator combinations for statements "
                        f"{scc} (superposition.MAX_VISITS)")
                grown = dims + ((scc[n], k),)
                kind = deps.kind(Loop(grown, "", 0.0), touching[n])
                if kind != ILLEGAL:
                    extend(n + 1, grown, carried or kind == SEQUENTIAL)

        extend(0, (), False)
        return found

    def _one_source_loop(self, loop: Loop) -> bool:
        """Whether the loop's iterators are one loop of the source: same depth, same 2d+1
        position of that loop (beta prefix)."""
        firsts = {(k, self.scop.statement(s).beta[:k + 1]) for s, k in loop.dims}
        return len(firsts) == 1

    # -- Algorithm 2: thread level -----------------------------------------------------------
    def thread_level(self, stmts: tuple[str, ...], deps: _Deps, pushed: tuple[Loop, ...],
                     used: dict[str, frozenset[int]], seen: tuple[Loop, ...] = ()) -> Node:
        """Algorithm 2 on `stmts`; `pushed`: parallel loops of enclosing SCCs pushed down,
        `seen`: the loops tested at enclosing levels (reported with the group's own)."""
        children = [self._thread_scc(scc, deps.among(scc),
                                     tuple(p.restricted(scc) for p in pushed), used,
                                     tuple(s.restricted(scc) for s in seen
                                           if any(d[0] in scc for d in s.dims)))
                    for scc in self.sccs(stmts, deps)]
        children = self._fuse(children, deps)  # thread_level_fusion (line 22)
        return children[0] if len(children) == 1 else Sequence(tuple(children))

    def _thread_scc(self, scc: tuple[str, ...], deps: _Deps, pushed: tuple[Loop, ...],
                    used: dict[str, frozenset[int]], seen: tuple[Loop, ...]) -> Node:
        parallel, sequential, tested = self.loops_of(scc, deps, used)
        reported = list(seen) + [lp for lp in tested if lp not in seen]
        # coalescing parallelism (Section 5.2): the least-cost loop of the SCC is parallel
        if parallel and (tested[0].kind == FORALL or tested[0].cost >= 0):
            return self._group(scc, pushed + tuple(parallel), reported, True, used)
        for seq in sequential:
            inner_used = {**used, **{s: used[s] | {lp.position(s) for lp in (seq, *parallel)}
                                     for s in scc}}
            child = self.thread_level(scc, deps.unsatisfied(seq), pushed + tuple(parallel),
                                      inner_used, tuple(reported))
            # push-down (Section 5.4) pays only where it reaches coalescing parallelism;
            # else the parallel loops stay here, outside the sequential one
            if _coalescing_below(child):
                return Band(scc, (seq,), child)
        if pushed or parallel:
            return self._group(scc, pushed + tuple(parallel), reported, False, used)
        return self._leaf(scc, (), used)

    def _leaf(self, scc: tuple[str, ...], loops: tuple[Loop, ...],
              used: dict[str, frozenset[int]]) -> Leaf:
        if len(scc) != 1:
            return Leaf(scc)
        taken = used[scc[0]] | {lp.position(scc[0]) for lp in loops}
        depth = len(self.scop.statement(scc[0]).iterators)
        return Leaf(scc, tuple(k for k in range(depth) if k not in taken))

    def _group(self, scc: tuple[str, ...], loops: tuple[Loop, ...], tested: list[Loop],
               coalescing: bool, used: dict[str, frozenset[int]]) -> Band:
        """An SCC_coalesce: its parallel loops sorted by DL priority, the best max_mapped on
        threads, the least-cost one innermost (thread x); the rest inside each thread
        (line 18: "sort par_loops based on DL model and prune extra loops")."""
        ranked = sorted(loops, key=lambda lp: (lp.cost, tuple(-k for _, k in lp.dims)))
        mapped = ranked[:self.max_mapped][::-1]  # outermost first: thread x last
        return Band(scc, tuple(mapped) + tuple(ranked[self.max_mapped:]),
                    self._leaf(scc, loops, used),
                    group=True, mapped=len(mapped), coalescing=coalescing,
                    candidates=tuple(tested))

    def _fuse(self, children: list[Node], deps: _Deps) -> list[Node]:
        """Greedy fusion of adjacent groups (Section 5.4: fused when that improves locality
        and granularity without destroying coalescing parallelism): fused when the two groups
        access a common array (the locality) and every fused loop stays forall, in passes
        until none fuses (deriche's y2 column pass joins its y1 pass through imgOut once its
        own three statements are one group). Each fusion saves a launch and gives each thread
        more work, each statement keeps its own loop on thread x, and the common array's lines
        serve both. Groups without a common array stay apart: 2mm's D *= beta fused with
        tmp's product made one kernel of two unrelated nests, 1.16 ms against 0.66 ms for
        isl's two kernels on the H100 (bench/results/
        2026-11-25-nvidia-h100-80gb-hbm3-nonstencil-1491a58.json)."""
        while True:
            out: list[Node] = []
            for child in children:
                fused = self._fused(out[-1], child, deps) if out else None
                if fused is None:
                    out.append(child)
                else:
                    out[-1] = fused
            if len(out) == len(children):
                return out
            children = out

    def _fused(self, prev: Node, child: Node, deps: _Deps) -> Band | None:
        """The two groups as one (see _fuse), or None."""
        if not (isinstance(prev, Band) and prev.group and isinstance(child, Band) and child.group
                and len(prev.loops) == len(child.loops) and prev.mapped == child.mapped
                and self._arrays(prev.statements) & self._arrays(child.statements)):
            return None
        stmts = prev.statements + child.statements
        loops = tuple(Loop(a.dims + b.dims, FORALL, dl_model._stable(a.cost + b.cost))
                      for a, b in zip(prev.loops, child.loops))
        if not all(deps.among(stmts).kind(lp) == FORALL for lp in loops):
            return None
        return Band(stmts, loops, Sequence((prev.child, child.child)), group=True,
                    mapped=prev.mapped, coalescing=prev.coalescing and child.coalescing,
                    candidates=prev.candidates + child.candidates)

    def _arrays(self, stmts: tuple[str, ...]) -> set[str]:
        """The arrays (and scalars) that the statements read or write."""
        return {a for s in stmts for a in self.scop.statement(s).arrays()}

    # -- Algorithm 3: block level ------------------------------------------------------------
    def block_level(self, stmts: tuple[str, ...], deps: _Deps,
                    used: dict[str, frozenset[int]]) -> dict[str, tuple[Loop, ...]]:
        """Each statement's block loops: the outermost forall loops of its SCC (at most
        BLOCK_DIMS, outermost in the source first), found depth-first below sequential ones."""
        out: dict[str, tuple[Loop, ...]] = {}
        for scc in self.sccs(stmts, deps):
            inner = deps.among(scc)
            parallel, sequentials, _ = self.loops_of(scc, inner, used)
            if parallel:  # "remove reduction and extra foralls"
                chosen = sorted(parallel, key=lambda lp: tuple(k for _, k in lp.dims))
                out.update({s: tuple(lp.restricted((s,)) for lp in chosen[:BLOCK_DIMS])
                            for s in scc})
            elif sequentials:
                sequential = sequentials[0]
                inner_used = {**used, **{s: used[s] | {sequential.position(s)} for s in scc}}
                out.update(self.block_level(scc, inner.unsatisfied(sequential), inner_used))
            else:
                out.update({s: () for s in scc})
        return out


def _coalescing_below(node: Node) -> bool:
    if isinstance(node, Band):
        return node.coalescing if node.group else _coalescing_below(node.child)
    if isinstance(node, Sequence):
        return any(_coalescing_below(c) for c in node.children)
    return False


def plan(scop: Scop, ctx: isl.Context, dep_map: isl.UnionMap, max_mapped: int = 3) -> Plan:
    """Algorithms 2 and 3 on `scop`.

    # dep_map: { S[i] -> T[j] } every dependence, within the context
    Raises:
        SuperpositionError: more than MAX_COMBOS iterator combinations at some level.
    """
    planner = _Planner(scop, ctx, max_mapped)
    stmts = tuple(s.name for s in scop.statements)
    deps = _Deps.of(dep_map)
    used = {s: frozenset() for s in stmts}
    return Plan(planner.thread_level(stmts, deps, (), used),
                planner.block_level(stmts, deps, used))


# -- the isl schedule tree of a plan ----------------------------------------------------------
def _loops_mupa(scop: Scop, ctx: isl.Context, loops: tuple[Loop, ...],
                stmts: tuple[str, ...]) -> isl.MultiUnionPwAff:
    # { S[i] -> [i_a, i_b, ...] } for each statement, restricted to its domain
    umap = isl.UnionMap.empty(isl.Space.params_alloc(ctx, 0))
    for s in stmts:
        stmt = scop.statement(s)
        outs = ", ".join(stmt.iterators[lp.position(s)] for lp in loops)
        text = (f"{isl_build.param_prefix(scop)} -> {{ {s}[{', '.join(stmt.iterators)}] -> "
                f"[{outs}] }}")
        smap = isl.Map.read_from_str(ctx, text).intersect_domain(isl_build.domain_set(stmt, ctx))
        umap = umap.union(isl.UnionMap.from_map(smap))
    return isl.MultiUnionPwAff.from_union_map(umap)


def _domain(scop: Scop, ctx: isl.Context, stmts: tuple[str, ...]) -> isl.UnionSet:
    sets = [isl.UnionSet.from_set(isl_build.domain_set(scop.statement(s), ctx)) for s in stmts]
    return reduce(lambda a, b: a.union(b), sets)


def _single_leaf(scop: Scop, ctx: isl.Context, leaf: Leaf) -> isl.Schedule:
    """One statement's free iterators in source order (a decreasing loop negated): legal, as
    the dependences left have distance 0 along every enclosing loop, so their remaining
    components keep the original lexicographic order. No free iterator: no band."""
    (name,) = leaf.statements
    stmt = scop.statement(name)
    schedule = isl.Schedule.from_domain(_domain(scop, ctx, leaf.statements))
    if not leaf.free:
        return schedule
    directions = stmt.loop_directions()
    outs = ", ".join(("" if directions[k] > 0 else "-") + stmt.iterators[k] for k in leaf.free)
    smap = isl.Map.read_from_str(ctx, f"{isl_build.param_prefix(scop)} -> {{ {name}["
                                      f"{', '.join(stmt.iterators)}] -> [{outs}] }}")
    smap = smap.intersect_domain(isl_build.domain_set(stmt, ctx))
    return schedule.insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(isl.UnionMap.from_map(smap)))


def _original_tree(scop: Scop, ctx: isl.Context, stmts: tuple[str, ...], depth: int
                   ) -> isl.Schedule:
    """The source's loop structure below `depth`: a sequence of the bodies in textual order
    (beta), a one-member band per loop (decreasing ones negated). The original order, so
    legal; one band per loop lets gpu/mapping.py see reduction loops (its _reduction)."""
    if len(stmts) == 1 and len(scop.statement(stmts[0]).iterators) == depth:
        return isl.Schedule.from_domain(_domain(scop, ctx, stmts))
    parts: dict[int, list[str]] = {}
    for s in stmts:
        parts.setdefault(scop.statement(s).beta[depth], []).append(s)
    if len(parts) > 1:
        children = [_original_tree(scop, ctx, tuple(parts[b]), depth) for b in sorted(parts)]
        return reduce(lambda a, b: a.sequence(b), children)
    umap = isl.UnionMap.empty(isl.Space.params_alloc(ctx, 0))
    for s in stmts:
        stmt = scop.statement(s)
        out = ("" if stmt.loop_directions()[depth] > 0 else "-") + stmt.iterators[depth]
        smap = isl.Map.read_from_str(ctx, f"{isl_build.param_prefix(scop)} -> {{ {s}["
                                          f"{', '.join(stmt.iterators)}] -> [{out}] }}")
        umap = umap.union(isl.UnionMap.from_map(
            smap.intersect_domain(isl_build.domain_set(stmt, ctx))))
    return _original_tree(scop, ctx, stmts, depth + 1).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(umap))


def build(scop: Scop, ctx: isl.Context, node: Node) -> isl.Schedule:
    """The schedule tree of a thread-level plan: bands of its loops (group bands coincident and
    permutable: every member has distance 0; host bands neither), sequences of its SCCs, and
    the original 2d+1 order below (it orders what the chosen loops leave equal)."""
    if isinstance(node, Leaf) and len(node.statements) == 1:
        return _single_leaf(scop, ctx, node)
    if isinstance(node, Leaf):
        return _original_tree(scop, ctx, node.statements, 0)
    if isinstance(node, Sequence):
        return reduce(lambda a, b: a.sequence(b), [build(scop, ctx, c) for c in node.children])
    schedule = build(scop, ctx, node.child).insert_partial_schedule(
        _loops_mupa(scop, ctx, node.loops, node.statements))
    band = schedule.get_root().child(0)
    band = band.band_set_permutable(1 if node.group else 0)
    for k in range(len(node.loops)):
        band = band.band_member_set_coincident(k, 1 if node.group else 0)
    return band.get_schedule()


# -- Lemma 1 ----------------------------------------------------------------------------------
def lemma1_violations(outer: isl.UnionMap, regular: isl.UnionMap, dep_map: isl.UnionMap
                      ) -> list[str]:
    """Why Lemma 1 (Section 4.2) does not hold, or [] when it does: the outer scattering
    functions must be fully permutable (eq. 1: every dimension's distance >= 0 on every
    dependence) and the regular ones must satisfy every dependence (eq. 2: lex positive).

    # outer: { S[i] -> [o_1, ..., o_m] }; regular: { S[i] -> [s_1, ...] }
    # dep_map: { S[i] -> T[j] }
    """
    reasons = []
    n_out = _out_dims(outer)
    for k in range(n_out):
        dim = _single_dim(outer, k, n_out)
        backwards = dep_map.intersect(dim.lex_gt_union_map(dim))
        if not backwards.is_empty():
            reasons.append(f"outer dimension {k} is not permutable: distance < 0 on "
                           f"{backwards}")
    unordered = dep_map.subtract(regular.lex_lt_union_map(regular))
    if not unordered.is_empty():
        reasons.append(f"the regular scattering functions violate {unordered}")
    return reasons


def _out_dims(umap: isl.UnionMap) -> int:
    dims = {m.dim(isl.dim_type.out) for m in isl_build.maps_of(umap)}
    if len(dims) != 1:
        raise SuperpositionError(f"scattering functions of different lengths {sorted(dims)}")
    return dims.pop()


def _single_dim(umap: isl.UnionMap, k: int, n: int) -> isl.UnionMap:
    # { S[i] -> [o_0..o_n-1] } ==> { S[i] -> [o_k] }
    out = isl.UnionMap.empty(umap.get_space())
    for m in isl_build.maps_of(umap):
        m = m.project_out(isl.dim_type.out, k + 1, n - k - 1).project_out(isl.dim_type.out, 0, k)
        out = out.union(isl.UnionMap.from_map(m))
    return out


def superpose(outer: isl.UnionMap, tiles: tuple[int, ...], regular: isl.UnionMap
              ) -> isl.UnionMap:
    """Theta* = (Theta*_out, Theta) (Section 4.2): each outer dimension k with tiles[k] > 0
    divided by it (floor: the tile, i.e. the block); tiles[k] == 0 for a scalar dimension.

    # outer: { S[i] -> [o] }, regular: { S[i] -> [s] } ==> { S[i] -> [o*, s] }
    """
    n = _out_dims(outer)
    if len(tiles) != n:
        raise SuperpositionError(f"{len(tiles)} tile sizes for {n} outer dimensions")
    ctx = outer.get_ctx()
    names = [f"o{k}" for k in range(n)]
    starred = ", ".join(f"floor(o{k}/{t})" if t else f"o{k}" for k, t in enumerate(tiles))
    tile_map = isl.UnionMap.from_map(isl.Map.read_from_str(
        ctx, f"{{ [{', '.join(names)}] -> [{starred}] }}"))
    return outer.apply_range(tile_map).flat_range_product(regular)


def _group_lemma1(scop: Scop, ctx: isl.Context, group: isl.ScheduleNode, band: Band,
                  dep_map: isl.UnionMap, regular: isl.UnionMap) -> list[str]:
    """Lemma 1 for one kernel: its outer function is its block loops (the mapped members, tiled
    by the mapper), on the dependences between instances of one launch (same host iterations:
    legality.same_prefix); dependences between launches are ordered by the launch order, the
    scalar kernel_id dimension of Section 4.3."""
    launch_deps = legality.same_prefix(group, dep_map).intersect_domain(
        _domain(scop, ctx, band.statements)).intersect_range(_domain(scop, ctx, band.statements))
    outer = _loops_mupa(scop, ctx, band.loops[:band.mapped], band.statements)
    return lemma1_violations(isl.UnionMap.from_multi_union_pw_aff(outer), regular, launch_deps)


def superposition_schedule(scop: Scop, ctx: isl.Context, dep_map: isl.UnionMap,
                           max_mapped: int = 3) -> isl.Schedule:
    """The superposed schedule tree (see the module docstring), Lemma 1 checked per kernel.

    # dep_map: { S[i] -> T[j] } every dependence, within the context
    Raises:
        SuperpositionError: MAX_COMBOS exceeded, no parallel loop at all, or Lemma 1 not
            proven (the fallback chain then uses the isl scheduler, schedule/fallback.py, and
            says why).
    """
    result = plan(scop, ctx, dep_map, max_mapped)
    groups = result.groups()
    if not groups:  # SOR-like nests: parallel only after skewing, which Section 5.1 excludes
        raise SuperpositionError("no forall loop without skewing (Section 5.1's affine form): "
                                 "nothing to map to blocks and threads")
    schedule = merged_inner_loops(build(scop, ctx, result.tree), dep_map)
    regular = schedule.get_map()
    nodes = group_bands(schedule)
    if len(nodes) != len(groups):
        raise SuperpositionError(f"{len(groups)} kernels planned, {len(nodes)} built")
    for node, band in zip(nodes, groups):
        reasons = _group_lemma1(scop, ctx, node, band, dep_map, regular)
        if reasons:
            raise SuperpositionError("Lemma 1 not proven for statements "
                                     f"{', '.join(band.statements)}: {'; '.join(reasons)}"[:600])
    return schedule


def group_bands(schedule: isl.Schedule) -> list[isl.ScheduleNode]:
    """The group bands (coincident first member), outermost first in tree order."""
    nodes: list[isl.ScheduleNode] = []

    def visit(node: isl.ScheduleNode) -> bool:
        if (node.get_type() == isl.schedule_node_type.band and node.band_n_member()
                and node.band_member_get_coincident(0)):
            nodes.append(node.copy())
            return False
        return True

    schedule.get_root().foreach_descendant_top_down(visit)
    return nodes


def merged_inner_loops(schedule: isl.Schedule, dep_map: isl.UnionMap) -> isl.Schedule:
    """Each group band with the sequential loop below it as a last member, where isl proves
    that legal (schedule/inner_merge.py: gemm's k, which the mapper then tiles and promotes as
    in isl's permutable bands); a merge after which some dependence would not be ordered is
    not kept."""
    for k in range(len(group_bands(schedule))):
        merged = inner_merge.merge(group_bands(schedule)[k], dep_map)
        if merged is None:
            continue
        try:
            legality.check(merged.get_schedule(), dep_map, "merged")
        except IllegalScheduleError:
            continue
        schedule = merged.get_schedule()
    return schedule


# -- `polycuda show schedule`: per kernel, blocks, threads and the DL costs ------------------
def kernel_report(scop: Scop, ctx: isl.Context, dep_map: isl.UnionMap,
                  mapped_schedule: isl.Schedule, tiles: dict[str, tuple[int, ...]],
                  max_mapped: int = 3) -> list[dict]:
    """Per kernel of the mapped schedule (marks "kernel:<name>" of gpu/mapping.py), in launch
    order: its statements, the loops on blocks (tiles of `tiles[name]`) and on threads (x
    last), the loops each thread runs in sequence, Algorithm 3's block-level loops, and the
    DL model's d mem_cost / d t of every loop tested for it (Section 5.2)."""
    result = plan(scop, ctx, dep_map, max_mapped)
    by_statements = {frozenset(g.statements): g for g in result.groups()}
    marks: list[tuple[str, tuple[str, ...]]] = []

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.mark:
            kind, _, name = node.mark_get_id().get_name().partition(":")
            if kind in ("kernel", "serial", "reduce"):
                marks.append((name, tuple(isl_build.statement_names(node.get_domain()))))
        return True

    mapped_schedule.get_root().foreach_descendant_top_down(visit)
    out = []
    for name, stmts in marks:
        ordered = tuple(s.name for s in scop.statements if s.name in stmts)
        group = by_statements.get(frozenset(stmts))
        entry: dict = {"kernel": name, "statements": list(ordered)}
        if group is None or name not in tiles:
            entry["threads"] = {}
            out.append(entry)  # a one-thread (or reduction) kernel: no group of this plan
            continue
        on_threads = [lp.label(scop) for lp in group.loops[:group.mapped]]
        entry.update({
            "blocks": on_threads, "tile_sizes": list(tiles[name]),
            "threads": dict(zip(("x", "y", "z"), reversed(on_threads))),
            "in_thread": [lp.label(scop) for lp in group.loops[group.mapped:]],
            "coalescing": group.coalescing,
            "block_level": sorted({lp.label(scop) for s in ordered
                                   for lp in result.blocks.get(s, ())}),
            "candidates": [{"loop": lp.label(scop), "statements": [d[0] for d in lp.dims],
                            "kind": lp.kind, "cost": lp.cost} for lp in group.candidates]})
        out.append(entry)
    return out
