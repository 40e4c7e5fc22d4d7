"""Values of index arrays that keep every access of the original program in bounds.

Random inputs (verify.py) must not let the oracle (the untransformed program, which checks
nothing) read or write outside an array through index arrays: `d[j]` for j from
`off[nb[l][k]]` to `off[nb[l][k]] + P - 1` needs nb within the extent of off and off within
[0, extent(d) - P]. Each index array A gets one range [lo_A, hi_A] of values. Every read of an
index array in a subscript or a CSR loop bound (nested reads included) is a variable v with
lo_A <= v <= hi_A; every subscript of every access (and every CSR loop's iterator) is affine in
the iterators, the parameters and those variables. At the run's sizes, isl computes the set of
boxes (lo, hi) for which no statement instance and no choice of values in the boxes puts a
subscript outside its extent (the complement of the projected "bad" set), and we take the box
of the largest total width, non-negative values first. Subscripts that are not affine in the
read values are not covered: `derive` says so, and verify's host check (index_check.py) runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import islpy as isl

from polycuda.errors import NotAffineError, UserError
from polycuda.ir import isl_build
from polycuda.ir.affine import affine_text, condition_text
from polycuda.ir.evaluate import eval_int
from polycuda.ir.expr import BinOp, Expr, Ref, Ternary, UnaryOp, Var, children, with_children
from polycuda.ir.scop import Scop, Statement

INDEX_DTYPES = ("int", "long")


@dataclass
class IndexRanges:
    """ranges: {index array: (lo, hi)}; uncovered: 'statement: reason' for accesses whose
    subscripts are not affine in the values read (checked on the drawn data instead)."""

    ranges: dict[str, tuple[int, int]] = field(default_factory=dict)
    uncovered: list[str] = field(default_factory=list)


@dataclass
class _Shaped:
    """A statement's accesses with each array read replaced by a variable pc_v<k>.

    reads: (variable, array) of every read; checks: (array, dim, subscript, path) of every
    dimension of every access; loops: the CSR loops' (iterator, lower, upper, direction)."""

    reads: list[tuple[str, str]] = field(default_factory=list)
    checks: list[tuple[str, int, Expr, tuple[Expr, ...]]] = field(default_factory=list)
    loops: list[tuple[str, Expr, Expr, int]] = field(default_factory=list)
    seen: dict[Ref, str] = field(default_factory=dict)
    written: str = ""  # the statement's target: its reads may differ (before, after)

    def shape(self, expr: Expr, path: tuple[Expr, ...] = ()) -> Expr:
        """`expr` with every Ref replaced by a fresh variable; records the Ref's subscripts
        (evaluated under `path`, the conditions of the branch that reaches it)."""
        if isinstance(expr, Ref):
            index = tuple(self.shape(e, path) for e in expr.index)
            for dim, sub in enumerate(index):
                self.checks.append((expr.array, dim, sub, path))
            # one element read twice in an instance holds one value (`c[i] < m ? A[c[i]]`)
            key = Ref(expr.array, index)
            if key not in self.seen or expr.array == self.written:
                self.seen[key] = f"pc_v{len(self.reads)}"
                self.reads.append((self.seen[key], expr.array))
            return Var(self.seen[key])
        if isinstance(expr, Ternary):
            cond = self.shape(expr.cond, path)
            return Ternary(cond, self.shape(expr.then, path + (cond,)),
                           self.shape(expr.other, path + (UnaryOp("!", cond),)))
        if isinstance(expr, BinOp) and expr.op in ("&&", "||"):
            lhs = self.shape(expr.lhs, path)
            taken = lhs if expr.op == "&&" else UnaryOp("!", lhs)
            return BinOp(expr.op, lhs, self.shape(expr.rhs, path + (taken,)))
        return with_children(expr, tuple(self.shape(c, path) for c in children(expr)))


def shaped_statement(stmt: Statement) -> _Shaped:
    shaped = _Shaped(written=stmt.lhs.array)
    for loop in stmt.csr:
        shaped.loops.append((loop.iterator, shaped.shape(loop.lower), shaped.shape(loop.upper),
                             loop.direction))
    shaped.shape(stmt.lhs)
    shaped.shape(stmt.rhs)
    return shaped


def index_arrays(scop: Scop) -> list[str]:
    """The argument arrays of integer type read in subscripts or CSR loop bounds."""
    names = dict.fromkeys(r.array for s in scop.statements for r in s.index_refs())
    args = {a.name for a in scop.args if a.kind == "array"}
    return [n for n in names if n in args and scop.array(n).dtype in INDEX_DTYPES
            and scop.array(n).shape]


def derive(scop: Scop, values: dict[str, int]) -> IndexRanges:
    """The value range of each index array (see the module docstring) at the sizes `values`.

    Raises:
        UserError: no values of the index arrays keep every access in bounds.
    """
    arrays = index_arrays(scop)
    result = IndexRanges()
    if not arrays:
        return result
    ctx = isl.Context()
    box = [f"{side}_{a}" for a in arrays for side in ("lo", "hi")]
    cap = max([1] + [eval_int(e, values) for arr in scop.arrays for e in arr.shape])
    space = f"{isl_build.param_prefix(scop)} -> {{ [{', '.join(box)}] : "
    good = isl.Set.read_from_str(ctx, space + " and ".join(
        f"{-cap} <= lo_{a} <= hi_{a} <= {cap}" for a in arrays) + " }")
    good = good.intersect_params(isl_build.fixed_params(scop, values, ctx))
    for stmt in scop.statements:
        for bad in _bad_sets(scop, stmt, arrays, box, values, ctx, result.uncovered):
            good = good.subtract(bad)
    if good.is_empty():
        raise UserError(
            f"verify: no values of the index array(s) {', '.join(arrays)} keep every access "
            f"of the region in bounds at {_sizes(values)}: random inputs would make the "
            "original program itself access outside an array; choose other sizes",
            scop.statements[0].loc)
    result.ranges = _widest(good, arrays, box, ctx)
    return result


def _bad_sets(scop: Scop, stmt: Statement, arrays: list[str], box: list[str],
              values: dict[str, int], ctx: isl.Context, uncovered: list[str]) -> list[isl.Set]:
    """The boxes for which some instance of `stmt` accesses outside an array, one set per
    subscript that is affine in the read values.
    # bad: [params] -> { [lo_A, hi_A, ...] : exists an instance and values in the boxes with
    #                    a subscript < 0 or >= extent }"""
    shaped = shaped_statement(stmt)
    drawn = {v: a for v, a in shaped.reads if a in arrays}
    unknown = {v for v, a in shaped.reads if a not in arrays}
    names = set(stmt.iterators) | set(scop.params) | {it for it, *_ in shaped.loops} | set(drawn)
    try:
        loops = [_loop_text(it, lo, up, d, names) for it, lo, up, d in shaped.loops]
    except NotAffineError as err:
        uncovered.append(f"{stmt.name}: a CSR loop bound ({err.msg})")
        return []
    extra = [it for it, *_ in shaped.loops] + list(drawn)
    within = [f"lo_{a} <= {v} <= hi_{a}" for v, a in drawn.items()]
    domain = isl_build.domain_set(stmt, ctx).intersect_params(
        isl_build.fixed_params(scop, values, ctx))
    out = []
    for array, dim, sub, path in shaped.checks:
        extent = scop.array(array).shape
        if not extent or unknown & _var_names(sub):
            continue  # a scalar, or a subscript that uses a value the region computes
        try:
            text = affine_text(sub, names, "subscript")
        except NotAffineError as err:
            uncovered.append(f"{stmt.name}: a subscript of '{array}' ({err.msg})")
            continue
        size = eval_int(extent[dim], values)
        conds = [c for c in (_condition(p, names) for p in path) if c is not None]
        where = " and ".join(loops + within + conds + [f"({text} < 0 or {text} >= {size})"])
        amap = isl.Map.read_from_str(
            ctx, f"{isl_build.param_prefix(scop)} -> {{ {stmt.name}[{', '.join(stmt.iterators)}]"
                 f" -> [{', '.join(box + extra)}] : {where} }}")
        bad = amap.intersect_domain(domain).range()
        out.append(bad.project_out(isl.dim_type.set, len(box), len(extra)))
    return out


def _loop_text(it: str, lower: Expr, upper: Expr, direction: int, names: set[str]) -> str:
    lo, up = affine_text(lower, names, "loop bound"), affine_text(upper, names, "loop bound")
    return f"{lo} <= {it} <= {up}" if direction > 0 else f"{up} <= {it} <= {lo}"


def _condition(cond: Expr, names: set[str]) -> str | None:
    try:
        return condition_text(cond, names)
    except NotAffineError:
        return None  # a condition on array values: the access counts everywhere (sound)


def _var_names(expr: Expr) -> set[str]:
    out = {expr.name} if isinstance(expr, Var) else set()
    for child in children(expr):
        out |= _var_names(child)
    return out


def _widest(good: isl.Set, arrays: list[str], box: list[str], ctx: isl.Context
            ) -> dict[str, tuple[int, int]]:
    """A box of `good`: non-negative values where possible, then the largest total width,
    then the lexicographically smallest (deterministic)."""
    names = ", ".join(box)
    params = ", ".join(good.get_dim_name(isl.dim_type.param, k)
                       for k in range(good.dim(isl.dim_type.param)))
    natural = good.intersect(isl.Set.read_from_str(
        ctx, f"[{params}] -> {{ [{names}] : " + " and ".join(f"lo_{a} >= 0" for a in arrays)
        + " }"))
    if not natural.is_empty():
        good = natural
    width = " + ".join(f"hi_{a} - lo_{a}" for a in arrays)
    best = good.max_val(isl.Aff.read_from_str(ctx, f"[{params}] -> {{ [{names}] -> [({width})] }}"))
    good = good.intersect(isl.Set.read_from_str(
        ctx, f"[{params}] -> {{ [{names}] : {width} = {best.to_python()} }}"))
    point = good.lexmin().sample_point()
    coords = [int(point.get_coordinate_val(isl.dim_type.set, k).to_python())
              for k in range(len(box))]
    return {a: (coords[2 * k], coords[2 * k + 1]) for k, a in enumerate(arrays)}


def _sizes(values: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items()) or "these sizes"
