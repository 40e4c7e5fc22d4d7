"""isl glue of the Pluto scheduler: Farkas duals of dependence polyhedra, the ILP on schedule
coefficients (isl lexmin), kernels of hyperplane matrices, and schedule rows as isl maps.

The ILP lives in a plain integer space whose dimensions are the unknowns of one hyperplane
(`Layout` in pluto.py). Constraints on it are `LinRow`s: sparse integer rows, built by
substituting the unknowns into the constraints of isl's `coefficients()` (the affine form of
Farkas' lemma), so no Fourier-Motzkin elimination or ILP solver is written here.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gcd

import islpy as isl

LinExpr = dict[int, int]  # unknown index -> coefficient (sparse)


@dataclass(frozen=True)
class LinRow:
    """`sum(coeffs[k] * x[k]) + const >= 0` (or `== 0` when is_eq) over the ILP unknowns x."""

    coeffs: tuple[tuple[int, int], ...]  # sorted (index, coefficient), no zeros
    const: int
    is_eq: bool = False


def lin_row(expr: LinExpr, const: int, is_eq: bool = False) -> LinRow:
    return LinRow(tuple(sorted((k, v) for k, v in expr.items() if v)), const, is_eq)


def lin_add(*terms: tuple[int, LinExpr]) -> LinExpr:
    """sum(scale * expr) of sparse linear expressions."""
    out: LinExpr = {}
    for scale, expr in terms:
        for k, v in expr.items():
            out[k] = out.get(k, 0) + scale * v
    return {k: v for k, v in out.items() if v}


@dataclass(frozen=True)
class DualRow:
    """One constraint on the coefficients (c_cst, c_par, c_src, c_snk) of affine forms that are
    non-negative on a dependence polyhedron: `f_cst*c_cst + f_par.c_par + f_src.c_src +
    f_snk.c_snk + const >= 0` (or == 0)."""

    f_cst: int
    f_par: tuple[int, ...]
    f_src: tuple[int, ...]
    f_snk: tuple[int, ...]
    const: int
    is_eq: bool


def dual_rows(dep_map: isl.BasicMap) -> tuple[DualRow, ...]:
    """Farkas dual of one dependence polyhedron (Di et al. 2012, eqs. (3)-(4) linearised).

    # dep_map: [params] -> { S[s] -> T[t] }  (params aligned with the scop's)
    # result: every (c_cst, c_par, c_src, c_snk) with
    #         c_cst + c_par.n + c_src.s + c_snk.t >= 0 for all (s, t) in dep_map
    isl's coefficients() computes this set exactly over the rational points of the
    polyhedron (the affine form of Farkas' lemma), as Pluto does.

    A dependence with local variables (a divisibility or parity condition, e.g. `A[2 * i]`
    against `A[n - i]`) is first over-approximated without them (remove_divs projects them out
    over the rationals), since coefficients() refuses divs. The dual of a superset is a subset:
    every form non-negative on the larger polyhedron is non-negative on the real dependence, so
    a schedule built from these rows stays legal (it may lose some parallelism or fusion).
    """
    dep_map = dep_map.remove_divs() if dep_map.dim(isl.dim_type.div) else dep_map
    n_par = dep_map.dim(isl.dim_type.param)
    n_src = dep_map.dim(isl.dim_type.in_)
    n_snk = dep_map.dim(isl.dim_type.out)
    # coefficients: { [[c_cst, c_par...] -> [S[c_src] -> T[c_snk]]] }, flattened in that order
    duals = isl.Set.from_basic_set(dep_map.wrap()).coefficients().flatten()
    rows: list[DualRow] = []
    for bset in duals.get_basic_sets():
        assert bset.dim(isl.dim_type.div) == 0, "coefficients() of a polyhedron has no divs"
        for cons in bset.get_constraints():
            f = [cons.get_coefficient_val(isl.dim_type.set, k).to_python()
                 for k in range(1 + n_par + n_src + n_snk)]
            rows.append(DualRow(f[0], tuple(f[1:1 + n_par]),
                                tuple(f[1 + n_par:1 + n_par + n_src]),
                                tuple(f[1 + n_par + n_src:]),
                                cons.get_constant_val().to_python(), cons.is_equality()))
    return tuple(rows)


def substitute(rows: tuple[DualRow, ...], cst: tuple[LinExpr, int], par: list[LinExpr],
               src: list[LinExpr], snk: list[LinExpr]) -> list[LinRow]:
    """Constraints on the ILP unknowns: each dual coefficient replaced by an expression of them.

    cst: (expression, constant) of c_cst; par/src/snk: expressions of c_par, c_src, c_snk.
    """
    out = []
    for row in rows:
        terms = [(row.f_cst, cst[0])]
        terms += list(zip(row.f_par, par)) + list(zip(row.f_src, src))
        terms += list(zip(row.f_snk, snk))
        out.append(lin_row(lin_add(*terms), row.const + row.f_cst * cst[1], row.is_eq))
    return out


def basic_set(space: isl.Space, rows: list[LinRow]) -> isl.BasicSet:
    # space: { [x0, ..., xN] } (no parameters): the ILP unknowns
    lspace = isl.LocalSpace.from_space(space)
    bset = isl.BasicSet.universe(space)
    for row in rows:
        cons = (isl.Constraint.equality_alloc(lspace) if row.is_eq
                else isl.Constraint.inequality_alloc(lspace))
        for k, v in row.coeffs:
            cons = cons.set_coefficient_val(isl.dim_type.set, k, v)
        bset = bset.add_constraint(cons.set_constant_val(row.const))
    return bset


class Ilp:
    """The integer points of a fixed system of LinRows, to test or minimise with more rows."""

    def __init__(self, space: isl.Space, rows: list[LinRow]):
        # space: { [x0, ..., xN] } (no parameters): the ILP unknowns
        self.space = space
        # uniform dependences repeat many Farkas rows: drop the duplicates before isl sees them
        self.base = basic_set(space, list(dict.fromkeys(rows))).remove_redundancies()

    def with_rows(self, rows: list[LinRow]) -> Ilp:
        ilp = Ilp.__new__(Ilp)
        ilp.space, ilp.base = self.space, self.base.intersect(basic_set(self.space, rows))
        return ilp

    def feasible(self, extra: list[LinRow]) -> bool:
        return not self.base.intersect(basic_set(self.space, extra)).is_empty()

    def lexmin(self, extra: list[LinRow]) -> list[int] | None:
        """Lexicographically smallest integer point with `extra`.

        Every unknown must be bounded below so that the minimum exists. None: no point.

        isl's lexmin of the open problem can take minutes where the answer is small (the
        parametric simplex follows unbounded directions of the schedule coefficients), so the
        minimum is first sought in boxes of growing size and taken only when no point of the
        whole problem precedes it (_least); the answer is the exact lexmin either way.
        """
        feasible = self.base.intersect(basic_set(self.space, extra))
        if feasible.is_empty():
            return None
        for bound in BOX_BOUNDS:
            point = _point(_boxed(feasible, bound).lexmin(), self.space)
            if point is not None and _least(feasible, point):
                return point
        return _point(isl.Set.from_basic_set(feasible).lexmin(), self.space)


BOX_BOUNDS = (4, 32, 1024)  # upper bounds of every unknown tried before the open problem


def _boxed(bset: isl.BasicSet, bound: int) -> isl.BasicSet:
    for k in range(bset.dim(isl.dim_type.set)):
        bset = bset.upper_bound_val(isl.dim_type.set, k, isl.Val.int_from_si(bset.get_ctx(), bound))
    return bset


def _least(bset: isl.BasicSet, point: list[int]) -> bool:
    """Whether no integer point of bset is lexicographically smaller than `point` (a point of
    it): for each k, none agrees with it before k and is smaller at k."""
    ctx = bset.get_ctx()
    prefix = bset
    for k, value in enumerate(point):
        below = prefix.upper_bound_val(isl.dim_type.set, k, isl.Val.int_from_si(ctx, value - 1))
        if not below.is_empty():
            return False
        prefix = prefix.fix_val(isl.dim_type.set, k, isl.Val.int_from_si(ctx, value))
    return True


def _point(best: isl.Set, space: isl.Space) -> list[int] | None:
    if best.is_empty():
        return None
    point = best.sample_point()
    return [point.get_coordinate_val(isl.dim_type.set, k).to_python()
            for k in range(space.dim(isl.dim_type.set))]


def ilp_space(ctx: isl.Context, names: list[str]) -> isl.Space:
    return isl.Space.create_from_names(ctx, set=names)


def kernel_basis(ctx: isl.Context, rows: list[tuple[int, ...]], n: int) -> list[tuple[int, ...]]:
    """An integer basis of { c : h.c = 0 for every row h } (isl_mat_right_kernel).

    Each vector is divided by the gcd of its entries and oriented so that its last non-zero
    entry is positive (a deterministic choice; see pluto._independence for why it matters).
    """
    mat = isl.Mat.alloc(ctx, len(rows), n)
    for i, row in enumerate(rows):
        for j, v in enumerate(row):
            mat = mat.set_element_val(i, j, isl.Val.int_from_si(ctx, v))
    kern = mat.right_kernel()
    basis = []
    for col in range(kern.cols()):
        vec = [kern.get_element_val(r, col).to_python() for r in range(kern.rows())]
        basis.append(_normalized(vec))
    return basis


def _normalized(vec: list[int]) -> tuple[int, ...]:
    g = 0
    for v in vec:
        g = gcd(g, abs(v))
    last = [v for v in vec if v][-1]
    sign = 1 if last > 0 else -1
    return tuple(sign * v // g for v in vec)


def rank(ctx: isl.Context, rows: list[tuple[int, ...]], n: int) -> int:
    return n - len(kernel_basis(ctx, rows, n)) if n else 0


def row_map(space: isl.Space, rows: list[tuple[tuple[int, ...], int]]) -> isl.Map:
    """{ S[i] -> [a1.i + d1, ..., ak.i + dk] } for rows (a, d); space: [params] -> { S[i] }."""
    lspace = isl.LocalSpace.from_space(space)
    result = None
    for coeffs, const in rows:
        aff = isl.Aff.zero_on_domain(lspace).set_constant_val(const)
        for k, v in enumerate(coeffs):
            aff = aff.set_coefficient_val(isl.dim_type.in_, k, v)
        one = isl.Map.from_aff(aff)
        result = one if result is None else result.flat_range_product(one)
    assert result is not None, "a band has at least one member"
    return result


def zero_distance(dep_map: isl.BasicMap | isl.Map, src_row: isl.Map, snk_row: isl.Map) -> bool:
    """Whether phi_T(t) - phi_S(s) = 0 for every (s, t) of the dependence.

    # dep_map: { S[s] -> T[t] }; src_row: { S[s] -> [phi_S(s)] }; snk_row: { T[t] -> [phi_T(t)] }
    """
    times = isl.Map.from_basic_map(dep_map) if isinstance(dep_map, isl.BasicMap) else dep_map
    times = times.apply_domain(src_row).apply_range(snk_row)  # { [phi_S] -> [phi_T] }
    deltas = times.deltas()
    zero = isl.Set.universe(deltas.get_space()).fix_val(isl.dim_type.set, 0, 0)
    return deltas.is_subset(zero)


def equal_part(dep_map: isl.BasicMap, src_rows: isl.Map, snk_rows: isl.Map) -> list[isl.BasicMap]:
    """The pairs of the dependence that every row maps to the same time (not yet satisfied).

    # dep_map: { S[s] -> T[t] }; src_rows: { S[s] -> [Phi_S(s)] }; snk_rows: { T[t] -> [Phi_T(t)] }
    # result: basic maps of { S[s] -> T[t] : Phi_S(s) = Phi_T(t) } intersected with dep_map
    """
    same_time = src_rows.apply_range(snk_rows.reverse())
    rest = isl.Map.from_basic_map(dep_map).intersect(same_time).coalesce()
    return [b for b in rest.get_basic_maps() if not b.is_empty()]
