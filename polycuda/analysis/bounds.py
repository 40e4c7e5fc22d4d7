"""Array bounds at actual parameter values: every access's index range against the extents.

Generated code indexes raw pointers, so a loop bound that overruns an array would write past
the user's buffer. Before anything runs, `BoundsChecker.check(values)` computes with isl, at the
given parameter values, the smallest and largest index each access reaches along each dimension
and compares them with the array's shape at those values; a violation raises an error that
names the statement, the access, the index range and the shape (never a wild write).
An access inside a conditional expression (`c ? T[x] : T[x - 1]`, `a && B[i]`) counts only
where it is evaluated: its statement's domain intersected with the affine conditions that lead
to it (conditions that are not affine, e.g. on array values, are left out: a larger set).
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polycuda.errors import NotAffineError, OutOfBoundsError
from polycuda.ir import isl_build
from polycuda.ir.affine import condition_text
from polycuda.ir.evaluate import eval_int
from polycuda.ir.expr import BinOp, Expr, Ref, Ternary, UnaryOp, children
from polycuda.ir.scop import Access, Scop, Statement


@dataclass(frozen=True)
class Violation:
    """One access and dimension whose index range [low, high] leaves [0, extent)."""

    stmt: Statement
    access: Access
    dim: int
    low: int
    high: int
    shape: tuple[int, ...]

    def describe(self, values: dict[str, int]) -> str:
        verb = "writes" if self.access.is_write else "reads"
        at = ", ".join(f"{k}={v}" for k, v in values.items())
        extent = self.shape[self.dim]
        where = (f"index {self.low}..{self.high} along dimension {self.dim}, outside "
                 f"0..{extent - 1}" if extent > 0 else f"dimension {self.dim} of extent 0")
        text = (f"out-of-bounds access: {self.stmt.name} {verb} '{self.access.array}' at "
                f"{where} (shape {self.shape}) with {at}; nothing was run")
        if self.low < 0 and _is_python(self.stmt):
            text += (" (a negative subscript does not wrap around as in Python: write "
                     "the index as `n + i`)")
        return text


def _is_python(stmt: Statement) -> bool:
    return stmt.loc is not None and stmt.loc.file.endswith(".py")


class BoundsChecker:
    """The accesses of a Scop, parsed once, checked at each new set of parameter values.

    Example:
        >>> BoundsChecker(scop).check({"n": 8, "A_d0": 4})          # doctest: +SKIP
        OutOfBoundsError: ...: S0 writes 'A' at index 4..7 along dimension 0 ...
    """

    def __init__(self, scop: Scop):
        self.scop = scop
        self._ctx = isl.Context()
        # access_map: { S[i] -> A[f(i)] } restricted to the statement's domain and to the
        # conditions under which the access is evaluated
        self._maps = [(stmt, acc, amap.intersect_domain(where))
                      for stmt in scop.statements
                      for acc, where in zip(isl_build.statement_accesses(scop, stmt),
                                            _access_conditions(scop, stmt, self._ctx))
                      if scop.array(acc.array).shape
                      for amap in [isl_build.access_map(acc, stmt, self._ctx, tagged=False)]]
        self._checked: set[tuple[tuple[str, int], ...]] = set()

    def violations(self, values: dict[str, int]) -> list[Violation]:
        """Every access and dimension out of bounds at `values` (one value per parameter)."""
        point = self._point(values)
        found = []
        for stmt, acc, amap in self._maps:
            image = amap.range().intersect_params(point)
            if image.is_empty():
                continue
            # every parameter is fixed: project them out so that the bounds are constants
            image = image.project_out(isl.dim_type.param, 0, image.dim(isl.dim_type.param))
            shape = tuple(eval_int(e, values) for e in self.scop.array(acc.array).shape)
            for dim, extent in enumerate(shape):
                low = _constant(image.dim_min(dim), min)
                high = _constant(image.dim_max(dim), max)
                if low < 0 or high >= extent:
                    found.append(Violation(stmt, acc, dim, low, high, shape))
        return found

    def check(self, values: dict[str, int]) -> None:
        """Raise on the first out-of-bounds access at `values`; remembered once it passes.

        Raises:
            OutOfBoundsError: naming the statement, array, dimension, index range and shape.
        """
        key = tuple(sorted(values.items()))
        if key in self._checked:
            return
        bad = self.violations(values)
        if bad:
            raise OutOfBoundsError(bad[0].describe(values), bad[0].stmt.loc)
        self._checked.add(key)

    def _point(self, values: dict[str, int]) -> isl.Set:
        # point: [params] -> { : p0 = v0 and ... }
        return isl_build.fixed_params(self.scop, values, self._ctx)


def _constant(bound: isl.PwAff, pick: type[min] | type[max]) -> int:
    """The value of a PwAff that is constant on each piece (all parameters fixed)."""
    pieces: list[int] = []

    def take(_set: isl.Set, aff: isl.Aff) -> None:
        pieces.append(aff.get_constant_val().to_python())

    bound.foreach_piece(take)
    return pick(pieces)


Path = tuple[Expr, ...]  # conditions (a conjunction) under which a sub-expression is evaluated


def _access_conditions(scop: Scop, stmt: Statement, ctx: isl.Context) -> list[isl.Set]:
    """One set per access of isl_build.statement_accesses (same order: the write, then
    read_refs()): the statement's domain points where the access is evaluated.
    # where: [params] -> { S[i] : i in domain and the affine conditions on its path }"""
    domain = isl_build.domain_set(stmt, ctx)
    compound = (stmt.lhs,) if stmt.op != "=" else ()
    lhs_index = [r for e in stmt.lhs.index for r in _ref_paths(e, ())]
    paths: list[Path] = [()] * (1 + len(stmt.csr_bound_refs()) + len(compound))
    paths += [p for _, p in lhs_index] + [p for _, p in _ref_paths(stmt.rhs, ())]
    names = frozenset(stmt.iterators) | frozenset(scop.params)
    return [_restrict(domain, path, names) for path in paths]


def _ref_paths(expr: Expr, path: Path) -> list[tuple[Ref, Path]]:
    """Every Ref of `expr` in refs() order (pre-order), with the conditions that C's
    evaluation (a ternary's branch, && and || short-circuits) needs to reach it."""
    out: list[tuple[Ref, Path]] = [(expr, path)] if isinstance(expr, Ref) else []
    if isinstance(expr, Ternary):
        return (out + _ref_paths(expr.cond, path) + _ref_paths(expr.then, path + (expr.cond,))
                + _ref_paths(expr.other, path + (UnaryOp("!", expr.cond),)))
    if isinstance(expr, BinOp) and expr.op in ("&&", "||"):
        taken = expr.lhs if expr.op == "&&" else UnaryOp("!", expr.lhs)
        return out + _ref_paths(expr.lhs, path) + _ref_paths(expr.rhs, path + (taken,))
    for child in children(expr):
        out += _ref_paths(child, path)
    return out


def _restrict(domain: isl.Set, path: Path, names: frozenset[str]) -> isl.Set:
    """`domain` intersected with each affine condition of `path` (the others left out)."""
    tuple_text = f"{domain.get_tuple_name()}[{', '.join(names_of(domain))}]"
    params = "[" + ", ".join(domain.get_dim_name(isl.dim_type.param, k)
                             for k in range(domain.dim(isl.dim_type.param))) + "]"
    for cond in path:
        try:
            text = condition_text(cond, names)
        except NotAffineError:
            continue
        where = isl.Set.read_from_str(domain.get_ctx(), f"{params} -> {{ {tuple_text} : {text} }}")
        domain = domain.intersect(where)
    return domain


def names_of(domain: isl.Set) -> list[str]:
    return [domain.get_dim_name(isl.dim_type.set, k) for k in range(domain.dim(isl.dim_type.set))]
