"""Pluto-style tiling-hyperplane scheduler (Bondhugula et al., refs [6,40,41] of Di et al. 2012),
with Di et al.'s balanced intra-tile wavefronts (Theorem 2, Algorithm 1) as an option.

Per group of statements (schedule_group): find a band, one hyperplane at a time, each the
lexicographic minimum of an ILP whose constraints are eq. (3) (legality) and Pluto's distance
bound on every unsatisfied dependence, linearised by Farkas' lemma (isl coefficients(), see
farkas.py), plus a linear-independence constraint per statement; recurse on the dependence
parts the band leaves unsatisfied; when no hyperplane exists, distribute the SCCs of the
dependence graph (fusing consecutive ones while they still admit a hyperplane) and recurse.
Result: an isl schedule tree of permutable bands (coincident members marked) and sequences.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import islpy as isl

from polycuda.analysis import dependences
from polycuda.errors import PolycudaError
from polycuda.ir import isl_build
from polycuda.ir.scop import Scop
from polycuda.schedule import budget, farkas
from polycuda.schedule.farkas import LinExpr, LinRow, lin_add, lin_row

Row = tuple[tuple[int, ...], int]  # one hyperplane of one statement: (iterator coeffs, shift)
MAX_CHOICES = 256  # largest disjunction tried by the exact independence fallback


class IlpCounter:
    """The ILP solves one schedule may still make (Options.pluto_ilp_solves): a count, so that
    the same input gives up at the same point on every machine (None: no limit)."""

    def __init__(self, limit: int | None):
        self.limit, self.used = limit, 0

    def spend(self) -> None:
        """Count one solve.

        Raises:
            budget.OutOfWork: the limit is reached (the bounded call gives up).
        """
        if self.limit is not None and self.used >= self.limit:
            raise budget.OutOfWork(f"pluto's limit of {self.limit} ILP solves ran out "
                                   "(Options.pluto_ilp_solves)")
        self.used += 1


@dataclass(frozen=True)
class Dep:
    """One dependence polyhedron P_e (a basic map), not yet satisfied by outer schedule rows."""

    source: str
    sink: str
    relation: isl.BasicMap  # [params] -> { S[s] -> T[t] }


@dataclass(frozen=True)
class Band:
    """Consecutive hyperplanes found with the same unsatisfied dependences (permutable)."""

    stmts: tuple[str, ...]
    members: tuple[dict[str, Row], ...]
    coincident: tuple[bool, ...]
    child: Node


@dataclass(frozen=True)
class Sequence:
    """Statements distributed into groups executed one after the other."""

    stmts: tuple[str, ...]
    children: tuple[Node, ...]


@dataclass(frozen=True)
class Leaf:
    stmts: tuple[str, ...]


Node = Band | Sequence | Leaf


@dataclass(frozen=True)
class Problem:
    """What every step needs: statement shapes and spaces, parameters, the options."""

    ctx: isl.Context
    params: tuple[str, ...]
    order: tuple[str, ...]  # statement names in textual order
    dims: dict[str, int]
    spaces: dict[str, isl.Space]  # [params] -> { S[i] }
    balanced: bool
    solves: IlpCounter  # mutable: counts the ILP solves of the whole schedule


class Layout:
    """The unknowns of one hyperplane, in the order the ILP minimises them lexicographically.

    [u_p (one per parameter), w, abs, then per statement: (neg_k, pos_k) for k from its innermost
    iterator outwards, then its shift]. The coefficient of iterator k is pos_k - neg_k (Pluto's
    trick to allow negative coefficients with non-negative unknowns), abs = sum(pos + neg).
    Minimising u then w minimises the dependence distance bound (communication volume, Pluto);
    abs prefers small coefficients; the reversed iterator order prefers outer original loops
    (as pluto_prog_constraints_solve does); neg before pos prefers non-negative coefficients.
    Parameter coefficients of the hyperplanes are fixed to 0, as in Pluto.
    """

    def __init__(self, prob: Problem, stmts: tuple[str, ...]):
        self.names = [f"u_{p}" for p in prob.params] + ["w", "abs"]
        self.u = list(range(len(prob.params)))
        self.w, self.abs = len(prob.params), len(prob.params) + 1
        self.pos: dict[tuple[str, int], int] = {}
        self.neg: dict[tuple[str, int], int] = {}
        self.shift_at: dict[str, int] = {}
        self.stmts, self.dims = stmts, prob.dims
        for s in stmts:
            for k in reversed(range(prob.dims[s])):
                self.neg[s, k] = self._add(f"{s}_neg{k}")
                self.pos[s, k] = self._add(f"{s}_pos{k}")
            self.shift_at[s] = self._add(f"{s}_shift")

    def _add(self, name: str) -> int:
        self.names.append(name)
        return len(self.names) - 1

    def coeffs(self, stmt: str) -> list[LinExpr]:
        return [{self.pos[stmt, k]: 1, self.neg[stmt, k]: -1} for k in range(self.dims[stmt])]

    def shift(self, stmt: str) -> LinExpr:
        return {self.shift_at[stmt]: 1}

    def bounds(self) -> list[LinRow]:
        """Every unknown >= 0 (so the lexmin exists); abs = sum of |coefficients|.

        Shifts >= 0 loses nothing: the constraints see only differences of shifts, so adding
        one constant to every statement's shift turns any solution into one with shifts >= 0.
        """
        rows = [lin_row({k: 1}, 0) for k in range(len(self.names))]
        total: LinExpr = {self.abs: -1}
        for key in list(self.pos.values()) + list(self.neg.values()):
            total[key] = 1
        return rows + [lin_row(total, 0, is_eq=True)]

    def decode(self, sol: list[int], stmt: str) -> Row:
        coeffs = tuple(sol[self.pos[stmt, k]] - sol[self.neg[stmt, k]]
                       for k in range(self.dims[stmt]))
        return coeffs, sol[self.shift_at[stmt]]


def _neg(expr: LinExpr) -> LinExpr:
    return {k: -v for k, v in expr.items()}


def dep_rows(lay: Layout, dep: Dep, duals: tuple[farkas.DualRow, ...], strict: int,
             bound: bool) -> list[LinRow]:
    """Legality and distance-bound constraints of one dependence on the hyperplane unknowns."""
    src, snk = lay.coeffs(dep.source), lay.coeffs(dep.sink)
    shift_diff = lin_add((1, lay.shift(dep.sink)), (-1, lay.shift(dep.source)))
    no_param: list[LinExpr] = [{} for _ in lay.u]
    # Di et al. 2012, eq. (3): phi_T(t) - phi_S(s) >= 0 on P_e; with strict = 1, eq. (4).
    rows = farkas.substitute(duals, (shift_diff, -strict), no_param, [_neg(c) for c in src], snk)
    if bound:
        # Pluto's bounding function: u.n + w - (phi_T(t) - phi_S(s)) >= 0 on P_e.
        cst = lin_add((1, {lay.w: 1}), (-1, shift_diff))
        rows += farkas.substitute(duals, (cst, 0), [{u: 1} for u in lay.u], src,
                                  [_neg(c) for c in snk])
    return rows


def _independence(prob: Problem, lay: Layout, ilp: farkas.Ilp, hist: dict[str, list[tuple]]
                  ) -> tuple[list[LinRow], list[list[LinRow]]] | None:
    """Constraints that make the new row of every statement not yet of full rank independent
    of its earlier rows H_S.

    With K a basis of the null space of H_S, a row c lies in span(H_S) iff r.c = 0 for every r in
    K. Pluto's orthogonal-subspace constraint picks a sign s_r per r (kept when r.c >= 1 is
    feasible, else flipped) and asks (sum_r s_r r).c >= 1: any solution has some r.c != 0, so it
    is independent (sound), though an independent c can be cut off. For H_S empty (K = identity)
    this is the non-negative orthant with sum of coefficients >= 1; a flipped sign admits a
    negative coefficient (a reversed loop). Kernel vectors are oriented with their last non-zero
    entry positive, i.e. towards the innermost iterator: after (2, 1), 2*c_i - c_t >= 1, which
    keeps [H; c] orientation preserving and gives Di et al.'s [[2,1],[1,1]] (Figure 6).
    Returns (Pluto rows, exact disjunctions), or None when some statement has no independent
    row at all. The exact disjunction (some s*r.c >= 1 over all r and both signs) is used
    only when the Pluto rows leave no solution.
    """
    rows: list[LinRow] = []
    choices: list[list[LinRow]] = []
    for s in lay.stmts:
        n = prob.dims[s]
        if farkas.rank(prob.ctx, hist[s], n) == n:
            continue
        combined: LinExpr = {}
        exact: list[LinRow] = []
        for vec in farkas.kernel_basis(prob.ctx, hist[s], n):
            along = lin_add(*[(v, c) for v, c in zip(vec, lay.coeffs(s))])
            signs = [sign for sign in (1, -1) if _feasible(prob, ilp, lin_row(
                {k: sign * v for k, v in along.items()}, -1))]
            exact += [lin_row({k: sign * v for k, v in along.items()}, -1) for sign in signs]
            if signs:
                combined = lin_add((1, combined), (signs[0], along))
        if not exact:
            return None
        rows.append(lin_row(combined, -1))
        choices.append(exact)
    return rows, choices


def _solve_row(prob: Problem, lay: Layout, ilp: farkas.Ilp, hist: dict[str, list[tuple]]
               ) -> dict[str, Row] | None:
    """The lexicographically best legal hyperplane independent for every statement, or None."""
    indep = _independence(prob, lay, ilp, hist)
    if indep is None:
        return None
    rows, choices = indep
    prob.solves.spend()
    sol = ilp.lexmin(rows)
    n_choices = 1
    for c in choices:
        n_choices *= len(c)
    if sol is None and choices and n_choices <= MAX_CHOICES:
        sol = _exact_lexmin(prob, ilp, choices)
    if sol is None:
        return None
    return {s: lay.decode(sol, s) for s in lay.stmts}


def _exact_lexmin(prob: Problem, ilp: farkas.Ilp, choices: list[list[LinRow]]
                  ) -> list[int] | None:
    """The lexicographic minimum over the union of every pick of one row per choice list.

    Solved as one counted lexmin per pick, the least taken (the minimum of a union is the least
    of its pieces' minima): isl's lexmin of the union itself compares the pieces' partial
    minima with one another, work that grows far faster than the pieces and that no count of
    solves sees, and a single such call once held a compile for minutes.
    """
    best = None
    for pick in product(*choices):
        prob.solves.spend()
        sol = ilp.lexmin(list(pick))
        if sol is not None and (best is None or sol < best):
            best = sol
    return best


def _feasible(prob: Problem, ilp: farkas.Ilp, row: LinRow) -> bool:
    prob.solves.spend()
    return ilp.feasible([row])


def _strict_rows(prob: Problem, lay: Layout, deps: list[Dep], duals: list, hist: dict
                 ) -> list[LinRow]:
    """Di et al. 2012, Theorem 2 / Algorithm 1 line 2: eq. (4) with k = 1, i.e. every self
    dependence of a statement whose first hyperplane this is must be carried strictly."""
    if not prob.balanced:
        return []
    first = {s for s in lay.stmts if prob.dims[s] > 0 and not hist[s]}
    rows: list[LinRow] = []
    for dep, dual in zip(deps, duals):
        if dep.source == dep.sink and dep.source in first:
            rows += dep_rows(lay, dep, dual, strict=1, bound=False)
    return rows


def find_band(prob: Problem, stmts: tuple[str, ...], deps: list[Dep],
              hist: dict[str, list[tuple]], max_rows: int | None = None) -> list[dict[str, Row]]:
    """Pluto's find_permutable_hyperplanes: independent hyperplanes, each legal (eq. (3)) on
    every dependence in `deps`, until every statement has full rank or no hyperplane exists.

    hist: iterator coefficients of the rows already found for each statement (outer bands).
    """
    lay = Layout(prob, stmts)
    duals = [farkas.dual_rows(d.relation) for d in deps]
    base = lay.bounds()
    for dep, dual in zip(deps, duals):
        base += dep_rows(lay, dep, dual, strict=0, bound=True)
    ilp = farkas.Ilp(farkas.ilp_space(prob.ctx, lay.names), base)
    hist = {s: list(hist[s]) for s in stmts}
    members: list[dict[str, Row]] = []
    while any(farkas.rank(prob.ctx, hist[s], prob.dims[s]) < prob.dims[s] for s in stmts):
        if max_rows is not None and len(members) >= max_rows:
            break
        strict = _strict_rows(prob, lay, deps, duals, hist)
        found = _solve_row(prob, lay, ilp.with_rows(strict), hist) if strict else None
        if found is None:
            # Theorem 2 is a sufficient condition; without such a hyperplane, plain Pluto.
            found = _solve_row(prob, lay, ilp, hist)
        if found is None:
            break
        members.append(found)
        for s in stmts:
            hist[s].append(found[s][0])
    return members


def _row_maps(prob: Problem, members: list[dict[str, Row]], stmt: str,
              which: slice = slice(None)) -> isl.Map:
    # { S[i] -> [phi_1(i), ..., phi_k(i)] } for the band members selected by `which`
    return farkas.row_map(prob.spaces[stmt], [m[stmt] for m in members[which]])


def _coincident(prob: Problem, members: list[dict[str, Row]], deps: list[Dep]) -> tuple[bool, ...]:
    """Member k is coincident (parallel) when phi_T - phi_S = 0 on every dependence still
    unsatisfied at the start of the band (also those carried by earlier members, so that the
    flag stays valid after the band is tiled)."""
    flags = []
    for k in range(len(members)):
        flags.append(all(farkas.zero_distance(d.relation,
                                              _row_maps(prob, members, d.source, slice(k, k + 1)),
                                              _row_maps(prob, members, d.sink, slice(k, k + 1)))
                         for d in deps))
    return tuple(flags)


def _unsatisfied(prob: Problem, members: list[dict[str, Row]], deps: list[Dep]) -> list[Dep]:
    """The parts of the dependences that no member of the band carries (phi_T = phi_S on all):
    since every member is >= 0 on P_e, the rest is satisfied strongly by the band."""
    rest = []
    for d in deps:
        src, snk = _row_maps(prob, members, d.source), _row_maps(prob, members, d.sink)
        rest += [Dep(d.source, d.sink, part) for part in farkas.equal_part(d.relation, src, snk)]
    return rest


def _within(deps: list[Dep], stmts: tuple[str, ...]) -> list[Dep]:
    return [d for d in deps if d.source in stmts and d.sink in stmts]


def _full_rank(prob: Problem, stmts: tuple[str, ...], hist: dict[str, list[tuple]]) -> bool:
    return all(farkas.rank(prob.ctx, hist[s], prob.dims[s]) == prob.dims[s] for s in stmts)


def _ordered(prob: Problem, stmts) -> tuple[str, ...]:
    return tuple(s for s in prob.order if s in stmts)


def schedule_group(prob: Problem, stmts: tuple[str, ...], deps: list[Dep],
                   hist: dict[str, list[tuple]]) -> Node:
    """Pluto's main loop on one group of statements: a band, else a distribution, recursively."""
    if not deps and _full_rank(prob, stmts, hist):
        return _leaves(stmts)
    members = [] if _full_rank(prob, stmts, hist) else find_band(prob, stmts, deps, hist)
    if members:
        rest = _unsatisfied(prob, members, deps)
        inner = {s: hist[s] + [m[s][0] for m in members] for s in stmts}
        child = schedule_group(prob, stmts, rest, inner)
        return Band(stmts, tuple(members), _coincident(prob, members, deps), child)
    groups = _distribute(prob, stmts, deps, hist)
    if len(groups) == 1:
        raise PolycudaError(f"pluto: no legal hyperplane for statements {', '.join(stmts)} "
                            "and no distribution separates them (use the isl scheduler)")
    return Sequence(stmts, tuple(schedule_group(prob, g, _within(deps, g), hist)
                                 for g in groups))


def _leaves(stmts: tuple[str, ...]) -> Node:
    # independent statements at the same time: keep the textual order (deterministic code)
    if len(stmts) == 1:
        return Leaf(stmts)
    return Sequence(stmts, tuple(Leaf((s,)) for s in stmts))


def _progress(prob: Problem, stmts: tuple[str, ...], deps: list[Dep], hist: dict) -> bool:
    """Whether the statements, fused, get at least one more hyperplane (fusion is legal)."""
    if _full_rank(prob, stmts, hist):
        return False
    return bool(find_band(prob, stmts, _within(deps, stmts), hist, max_rows=1))


def _distribute(prob: Problem, stmts: tuple[str, ...], deps: list[Dep], hist: dict
                ) -> list[tuple[str, ...]]:
    """Cut between SCCs of the unsatisfied dependence graph, in topological order, fusing
    consecutive SCCs greedily while the fused group still gets a legal hyperplane."""
    sccs = _sccs_topological(prob, stmts, deps)
    groups = [sccs[0]]
    for scc in sccs[1:]:
        merged = _ordered(prob, groups[-1] + scc)
        if _progress(prob, merged, deps, hist):
            groups[-1] = merged
        else:
            groups.append(scc)
    return groups


def _sccs_topological(prob: Problem, stmts: tuple[str, ...], deps: list[Dep]
                      ) -> list[tuple[str, ...]]:
    """Strongly connected components of the dependence graph, sources first; ties are broken
    by textual order (Kahn's algorithm on the condensation)."""
    succ = {s: {d.sink for d in deps if d.source == s and d.sink in stmts} for s in stmts}
    reach = {s: _reachable(s, succ) for s in stmts}
    comp = {s: _ordered(prob, [t for t in stmts if t in reach[s] and s in reach[t]] or [s])
            for s in stmts}
    sccs = list(dict.fromkeys(comp[s] for s in _ordered(prob, stmts)))
    preds = {c: {comp[s] for s in stmts for t in c if t in succ[s] and comp[s] != c}
             for c in sccs}
    done: list[tuple[str, ...]] = []
    while len(done) < len(sccs):
        ready = [c for c in sccs if c not in done and preds[c] <= set(done)]
        done.append(min(ready, key=lambda c: prob.order.index(c[0])))
    return done


def _reachable(start: str, succ: dict[str, set[str]]) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for t in succ[todo.pop()]:
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def problem(scop: Scop, ctx: isl.Context, balanced: bool, max_ilp_solves: int | None = None
            ) -> Problem:
    spaces = {s.name: isl_build.domain_set(s, ctx).get_space() for s in scop.statements}
    return Problem(ctx, scop.params, tuple(s.name for s in scop.statements),
                   {s.name: len(s.iterators) for s in scop.statements}, spaces, balanced,
                   IlpCounter(max_ilp_solves))


def _dependences(scop: Scop, ctx: isl.Context) -> list[Dep]:
    """Every flow, anti and output dependence polyhedron, one per pair of accesses as in
    Pluto (a union over several accesses would be coalesced into a hull whose Farkas dual is
    far more expensive and no stronger), without duplicates, in a deterministic order."""
    context = isl_build.context_set(scop, ctx)
    order = {s.name: k for k, s in enumerate(scop.statements)}
    deps: dict[str, Dep] = {}
    for tagged_umap in dependences.dependence_maps(scop, ctx):
        # tagged_umap: { [S[s] -> ref[]] -> [T[t] -> ref'[]] }
        for tagged in _list(tagged_umap.get_map_list()):
            # dep_map: { S[s] -> T[t] }
            dep_map = tagged.domain_factor_domain().range_factor_domain()
            dep_map = dep_map.intersect_params(context).align_params(context.get_space())
            for bmap in dep_map.get_basic_maps():
                if not bmap.is_empty():
                    deps.setdefault(str(bmap), Dep(bmap.get_tuple_name(isl.dim_type.in_),
                                                   bmap.get_tuple_name(isl.dim_type.out), bmap))
    return sorted(deps.values(), key=lambda d: (order[d.source], order[d.sink], str(d.relation)))


def pluto_tree(scop: Scop, *, balanced: bool = False, ctx: isl.Context | None = None) -> Node:
    """The schedule as plain data (bands of per-statement rows, sequences, leaves)."""
    ctx = ctx or isl.Context()
    prob = problem(scop, ctx, balanced)
    return schedule_group(prob, prob.order, _dependences(scop, ctx),
                          {s: [] for s in prob.order})


def pluto_schedule(scop: Scop, *, balanced: bool = False, ctx: isl.Context | None = None,
                   max_ilp_solves: int | None = None) -> isl.Schedule:
    """Tiling hyperplanes by Pluto's algorithm, as an isl schedule tree.

    Args:
        scop: the region.
        balanced: add Di et al. 2012, Theorem 2 (eq. (4) for k = 1): the first hyperplane of
            every statement carries all its self dependences (balanced intra-tile wavefronts).
        ctx: the isl context of the result (a new one by default).
        max_ilp_solves: the most ILP solves (Options.pluto_ilp_solves; None: no limit).
    Returns:
        A schedule whose domain is the statement domains within the context; bands are
        permutable, members coincident where parallel; sequences where statements were
        distributed.
    Raises:
        PolycudaError: when no legal hyperplane or distribution exists (rare; use "isl").
        budget.OutOfWork: past max_ilp_solves.

    Example:
        sched = pluto_schedule(scop, balanced=True)
        report.schedule_json(scop, sched)   # hyperplanes per statement
    """
    ctx = ctx or isl.Context()
    prob = problem(scop, ctx, balanced, max_ilp_solves)
    tree = schedule_group(prob, prob.order, _dependences(scop, ctx), {s: [] for s in prob.order})
    domain = isl_build.domain_union(scop, ctx)
    root = isl.Schedule.from_domain(domain).get_root().child(0)
    return _insert(prob, root, tree, domain).get_schedule()


def _insert(prob: Problem, leaf: isl.ScheduleNode, node: Node, domain: isl.UnionSet
            ) -> isl.ScheduleNode:
    """Insert `node` at `leaf`; returns the node at the same position (the inserted root)."""
    if isinstance(node, Band):
        # band_umap: { S[i] -> [phi_1(i), ..., phi_k(i)] } for every statement of the band
        band_umap = isl.UnionMap.empty(isl.Space.params_alloc(prob.ctx, 0))
        for s in node.stmts:
            band_umap = band_umap.union(isl.UnionMap.from_map(
                _row_maps(prob, list(node.members), s)))
        band = leaf.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(band_umap))
        band = band.band_set_permutable(1)
        for k, flag in enumerate(node.coincident):
            band = band.band_member_set_coincident(k, int(flag))
        return _insert(prob, band.child(0), node.child, domain).parent()
    if isinstance(node, Sequence):
        filters = isl.UnionSetList.alloc(prob.ctx, len(node.children))
        for child in node.children:
            filters = filters.add(_filter(domain, child.stmts))
        seq = leaf.insert_sequence(filters)
        for k, child in enumerate(node.children):
            seq = _insert(prob, seq.child(k).child(0), child, domain).parent().parent()
        return seq
    return leaf


def _filter(domain: isl.UnionSet, stmts: tuple[str, ...]) -> isl.UnionSet:
    # { S[i] : S in stmts } taken from the domain
    result = isl.UnionSet.empty(domain.get_space())
    for dom in _list(domain.get_set_list()):
        if dom.get_tuple_name() in stmts:
            result = result.union(isl.UnionSet.from_set(dom))
    return result


def _list(isl_list) -> list:
    items: list = []
    isl_list.foreach(items.append)
    return items
