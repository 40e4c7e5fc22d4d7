"""ScopBuilder: the part of every frontend that turns loops, conditions and assignments into a Scop.

A frontend walks its own syntax tree and drives the builder: declare the arguments and arrays,
then enter/exit loops and conditions and add statements in source order. The builder checks
that bounds, conditions and subscripts are affine (raising errors that name the source
location) and computes domains and textual (2d+1) positions.

Example:
    b = ScopBuilder("jacobi", file="k.c")
    b.add_arg("n", "param", "int"); b.add_arg("A", "array", "double", shape=(Var("n"),))
    b.enter_loop("i", Const(1), BinOp("-", Var("n"), Const(2)), +1, loc)   # i = 1 .. n-2
    b.add_statement(Ref("A", (Var("i"),)), "=", rhs, loc)
    b.exit_loop()
    scop = b.build()
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import islpy as isl

from polycuda.errors import NotAffineError, SourceLoc, UnsupportedConstruct, UserError
from polycuda.ir import dtypes
from polycuda.ir.c_expr import expr_to_c
from polycuda.ir.affine import (INDEX_DTYPES, affine_text, bound_terms, condition_text,
                                indirect_shape_text, is_indirect)
from polycuda.ir.quasi_affine import condition_set, has_c_division, is_piecewise, pw_aff
from polycuda.ir.expr import (DTYPES, BinOp, Cast, Const, Expr, Ref, Ternary, UnaryOp, Var,
                              map_refs, refs, walk)
from polycuda.ir.scop import ASSIGN_OPS, Arg, Array, CsrLoop, Scop, SourceInfo, Statement


@dataclass
class _Loop:
    iterator: str
    constraints: list[str]
    direction: int
    position: int  # beta of this loop in its parent
    # bound terms holding C '/' or '%' ("lower" or "upper", term): isl sets built per statement
    pieces: list[tuple[str, Expr]] = field(default_factory=list)


@dataclass
class _Csr:
    """A loop whose bounds read index arrays (codegen/csr.py): not a dimension of any domain;
    each statement inside it carries it (Statement.csr)."""

    loop: CsrLoop
    first: int  # the number of statements added before it was entered


class ScopBuilder:
    """Mutable helper used while one frontend walks one region; `build()` returns the Scop."""

    def __init__(self, name: str, file: str = "<string>"):
        self.name = name
        self.file = file
        self.args: list[Arg] = []
        self.arrays: dict[str, Array] = {}
        self.context: list[str] = []
        self.statements: list[Statement] = []
        self._loops: list[_Loop] = []
        self._csr: list[_Csr] = []
        # (loop depth at which it was entered, isl text, or the Expr when it holds C '/' '%')
        self._conds: list[tuple[int, str | Expr]] = []
        self._next_pos: list[int] = [0]  # next textual position at each depth
        # `if` on data (if-conversion): each open one's predicate, a local int set by a
        # statement before its branch; every assignment inside becomes conditional on it
        self._data_preds: list[str] = []
        self._if_kinds: list[str] = []  # "affine" or "data", one per open if/else
        self._last_data_if: tuple[str, str | None] | None = None  # (predicate, outer one)
        # 1-D arrays declared with a product of sizes (a[n * m]): their factors, the view
        self._flat: dict[str, tuple[Expr, ...]] = {}

    # -- declarations ------------------------------------------------------------------------
    def add_arg(self, name: str, kind: str, dtype: str, shape: tuple[Expr, ...] = (),
                loc: SourceLoc | None = None) -> None:
        """Declare an entry argument: kind "param" (int), "scalar" (read-only) or "array"."""
        if kind not in ("param", "scalar", "array"):
            raise ValueError(f"{kind=}")
        if dtype not in DTYPES:
            raise UnsupportedConstruct(f"type '{dtype}' of '{name}' is not supported "
                                       f"(supported: {', '.join(DTYPES)})", loc)
        if any(a.name == name for a in self.args):
            raise UserError(f"argument '{name}' declared twice", loc)
        check_name(name, "argument", loc)
        self.args.append(Arg(name, kind, dtype))
        if kind == "array":
            factors = _flat_factors(shape, set(self.params))
            if factors is not None:  # a[n * m]: seen as a[n][m] (same layout, see _delinearize)
                self._flat[name] = factors
                shape = factors
            self.arrays[name] = Array(name, dtype, tuple(shape))

    def add_local(self, name: str, dtype: str, shape: tuple[Expr, ...] = (),
                  loc: SourceLoc | None = None) -> None:
        """Declare an array or scalar that lives only inside the region."""
        if name in self.arrays or any(a.name == name for a in self.args):
            raise UserError(f"'{name}' is declared twice", loc)
        if dtype not in DTYPES:
            raise UnsupportedConstruct(f"type '{dtype}' of '{name}' is not supported", loc)
        check_name(name, "variable", loc)
        self.arrays[name] = Array(name, dtype, tuple(shape), local=True)

    def retype_local(self, name: str, dtype: str) -> None:
        """Change the element type of a local (a Python int accumulator widened to double)."""
        arr = self.arrays[name]
        if not arr.local:
            raise ValueError(f"'{name}' is not a local")
        self.arrays[name] = Array(name, dtype, arr.shape, local=True)

    def add_context(self, constraint: str) -> None:
        """An isl constraint on the parameters only, e.g. "n >= 2"."""
        self.context.append(constraint)

    @property
    def params(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.args if a.kind == "param")

    def _names(self) -> set[str]:
        return (set(self.params) | {lp.iterator for lp in self._loops}
                | {c.loop.iterator for c in self._csr})

    # -- structure ---------------------------------------------------------------------------
    def enter_loop(self, iterator: str, lower: Expr, upper: Expr, direction: int,
                   loc: SourceLoc | None = None) -> None:
        """A loop `iterator` from `lower` to `upper`, both inclusive, step +1 or -1.

        For direction +1, `lower` may be a max(...) and `upper` a min(...) of affine terms;
        for -1 the loop starts at `upper` (a min) and counts down to `lower` (a max).
        """
        if direction not in (1, -1):
            raise UnsupportedConstruct("only loop steps of +1 and -1 are supported", loc)
        if iterator in self._names():
            raise UnsupportedConstruct(
                f"loop iterator '{iterator}' shadows a parameter or an outer iterator", loc)
        check_name(iterator, "loop iterator", loc)
        if any(isinstance(e, Ref) for bound in (lower, upper) for e in walk(bound)):
            self._enter_csr(iterator, lower, upper, direction, loc)
            return
        if self._csr:
            raise UnsupportedConstruct(
                f"loop '{iterator}' inside loop '{self._csr[-1].loop.iterator}', whose bounds "
                "read arrays: only assignments (and loops with bounds read from arrays) may be "
                "nested in such a loop", loc)
        names = self._names()
        cons: list[str] = []
        pieces: list[tuple[str, Expr]] = []
        for side, bound, op in (("lower", lower, ">="), ("upper", upper, "<=")):
            for term in bound_terms(hoist_min_max(bound), "max" if side == "lower" else "min"):
                if has_c_division(term):  # exact only as a piecewise function (quasi_affine)
                    _check_convex(term, side, iterator)
                    pw_aff(term, _space("", names), "loop bound")
                    pieces.append((side, term))
                else:
                    cons.append(f"{iterator} {op} {_bound_text(term, names, side, iterator)}")
        self._loops.append(_Loop(iterator, cons, direction, self._take_position(), pieces))
        self._next_pos.append(0)

    def _enter_csr(self, iterator: str, lower: Expr, upper: Expr, direction: int,
                   loc: SourceLoc | None) -> None:
        """A loop whose bounds read index arrays (CSR: rowptr[i] .. rowptr[i + 1] - 1): each
        bound one term, affine in the iterators, the parameters and the values it reads from
        integer arrays (checked like an indirect subscript)."""
        if not self._loops:
            raise UnsupportedConstruct(
                f"loop '{iterator}' reads its bounds from arrays outside every affine loop: "
                "such a loop must be nested in a loop with affine bounds (CSR: for i, then "
                "for k from rowptr[i])", loc)
        names = self._names()
        for side, bound in (("lower", lower), ("upper", upper)):
            if len(bound_terms(hoist_min_max(bound), "max" if side == "lower" else "min")) > 1:
                raise UnsupportedConstruct(
                    f"{side} bound of loop '{iterator}' reads arrays and takes a min/max: a "
                    "bound read from arrays must be one expression", bound.loc or loc)
            for ref in refs(bound):
                arr = self.arrays.get(ref.array)
                if arr is not None and arr.dtype not in INDEX_DTYPES:
                    raise UnsupportedConstruct(
                        f"{side} bound of loop '{iterator}' reads '{ref.array}', an array of "
                        f"{arr.dtype}: bounds may read integer (int or long) arrays only",
                        ref.loc or loc)
                self._check_ref(ref, names)
            indirect_shape_text(bound, names, "loop bound read from arrays")
        loop = CsrLoop(iterator, lower, upper, direction, loc)
        self._csr.append(_Csr(loop, len(self.statements)))

    def exit_loop(self) -> None:
        if self._csr:  # the innermost open loop: nothing but CSR loops nests in one
            self._check_distributable(self._csr.pop())
            return
        self._loops.pop()
        self._next_pos.pop()
        self._conds = [c for c in self._conds if c[0] <= len(self._loops)]

    def _check_distributable(self, frame: _Csr) -> None:
        """The statements of one CSR loop each get their own copy of it (Statement.csr):
        legal when no statement of the loop writes an array that another one accesses."""
        inside = self.statements[frame.first:]
        for a, first in enumerate(inside):
            for second in inside[a + 1:]:
                for one, other in ((first, second), (second, first)):
                    used = {other.lhs.array} | {r.array for r in other.read_refs()}
                    if one.lhs.array in used:
                        line = f" (line {other.loc.line})" if other.loc else ""
                        raise UnsupportedConstruct(
                            f"loop '{frame.loop.iterator}' reads its bounds from arrays and "
                            f"holds several statements that share '{one.lhs.array}' (written "
                            f"by one, accessed by another{line}): polycuda runs each statement "
                            "of such a loop in a loop of its own, which would change the "
                            "result; write one statement per loop", frame.loop.loc)

    def enter_if(self, cond: Expr, loc: SourceLoc | None = None) -> None:
        """A condition guarding the statements added until `exit_if`.

        An affine condition restricts the statements' domains. A condition that reads data
        (an array element or a local scalar: `if (dist < best)`) is if-converted: a statement
        sets a fresh local int predicate to it (and to the enclosing data predicates), and each
        assignment inside is made conditional on that predicate (`_conditional`), so that the
        statements are may-writes in effect and the dependences stay exact.

        Raises:
            NotAffineError: an affine-looking condition that is not affine in the iterators and
                parameters.
        """
        if self._csr:
            raise UnsupportedConstruct(
                f"condition inside loop '{self._csr[-1].loop.iterator}', whose bounds read "
                "arrays: not supported (write the choice as 'c ? x : y' in the value)", loc)
        if any(isinstance(e, Ref) for e in walk(cond)):
            outer = self._data_preds[-1] if self._data_preds else None
            self._data_preds.append(self._predicate(cond, outer, loc))
            self._if_kinds.append("data")
            return
        if has_c_division(cond):  # exact only as a piecewise function (quasi_affine)
            condition_set(cond, _space("", self._names()))
            self._conds.append((len(self._loops), cond))
        else:
            self._conds.append((len(self._loops), condition_text(cond, self._names())))
        self._if_kinds.append("affine")

    def enter_else(self, cond: Expr, loc: SourceLoc | None = None) -> None:
        """The else branch of the `if (cond)` just exited. On data, its predicate is the
        negation of the if's predicate, evaluated before the then-branch ran (which may change
        what the condition reads)."""
        if any(isinstance(e, Ref) for e in walk(cond)):
            if self._last_data_if is None:
                raise ValueError("enter_else on data without a matching enter_if")
            pred, outer = self._last_data_if
            self._data_preds.append(self._predicate(UnaryOp("!", Ref(pred, (), loc), loc),
                                                    outer, loc))
            self._if_kinds.append("data")
            return
        self.enter_if(UnaryOp("!", cond, loc), loc)

    def exit_if(self) -> None:
        if self._if_kinds.pop() == "data":
            pred = self._data_preds.pop()
            self._last_data_if = (pred, self._data_preds[-1] if self._data_preds else None)
        else:
            self._conds.pop()

    def _predicate(self, cond: Expr, outer: str | None, loc: SourceLoc | None) -> str:
        """A fresh local int set to `cond` (`outer ? cond : 0` inside another data if) by a
        statement at the current point; its name."""
        taken = set(self.arrays) | {a.name for a in self.args} | self._names()
        k = 0
        while f"pc_if{k}" in taken:
            k += 1
        name = f"pc_if{k}"
        self.arrays[name] = Array(name, "int", (), local=True)
        value = cond if outer is None else Ternary(Ref(outer, (), loc), cond, Const(0), loc)
        self._add(Ref(name, (), loc), "=", Ternary(value, Const(1), Const(0), loc), loc)
        return name

    def _conditional(self, lhs: Ref, op: str, rhs: Expr, loc: SourceLoc | None
                     ) -> tuple[str, Expr]:
        """`lhs op rhs` under the innermost data predicate p: `lhs += p ? rhs : 0` (`-=`),
        `lhs *= p ? rhs : 1` (`/=`), so that reductions stay reductions, else
        `lhs = p ? rhs : lhs` (the old value stored back where the branch is not taken)."""
        pred = Ref(self._data_preds[-1], (), loc)
        if op in ("+=", "-="):
            return op, Ternary(pred, rhs, Const(0), loc)
        if op in ("*=", "/="):
            return op, Ternary(pred, rhs, Const(1), loc)
        if op != "=":
            raise UnsupportedConstruct(f"assignment operator '{op}' inside an if on data is "
                                       "not supported", loc)
        return "=", Ternary(pred, rhs, lhs, loc)

    def _take_position(self) -> int:
        pos = self._next_pos[-1]
        self._next_pos[-1] += 1
        return pos

    # -- statements --------------------------------------------------------------------------
    def add_statement(self, lhs: Ref, op: str, rhs: Expr, loc: SourceLoc | None = None) -> str:
        """Add `lhs op rhs;` at the current point (conditional on the open ifs on data);
        returns the statement name."""
        if self._data_preds and op in ASSIGN_OPS:
            op, rhs = self._conditional(lhs, op, rhs, loc)
        return self._add(lhs, op, rhs, loc)

    def _add(self, lhs: Ref, op: str, rhs: Expr, loc: SourceLoc | None) -> str:
        if self._flat:
            lhs = self._delinearize(lhs)
            rhs = map_refs(rhs, self._delinearize)
        if op not in ASSIGN_OPS:
            raise UnsupportedConstruct(f"assignment operator '{op}' is not supported", loc)
        if lhs.array not in self.arrays:
            raise UnsupportedConstruct(
                f"assignment to '{lhs.array}', which is not an array argument or a local "
                "variable of the region (integer parameters and scalar arguments are read-only)",
                loc)
        names = self._names()
        for ref in (lhs,) + refs(rhs):
            self._check_ref(ref, names)
        self._check_unsigned_min_max(rhs, loc)
        name = f"S{len(self.statements)}"
        iters = tuple(lp.iterator for lp in self._loops)
        domain = self._domain(name, iters)
        beta = tuple(lp.position for lp in self._loops) + (self._take_position(),)
        self._check_flat_ranges(domain, refs(lhs) + refs(rhs))
        stmt = Statement(name, iters, domain, beta, lhs, op, rhs, loc,
                         tuple(lp.direction for lp in self._loops),
                         tuple(c.loop for c in self._csr))
        self.statements.append(stmt)
        return name

    def _delinearize(self, ref: Ref) -> Ref:
        """`a[P * m + Q]` of an array declared `a[n * m]` as `a[P][Q]` (recursively for more
        factors: `a[(i * n + j) * n + k]` of `a[l * n * n]`), the same cell in the same
        row-major layout, so that the subscripts are affine (Grosser et al. 2015, recovering
        multi-dimensional arrays). Q collects the terms without m, P the others divided by m;
        `_check_flat_ranges` proves 0 <= Q < m at every instance, without which two (P, Q)
        could name one cell. A subscript that is no polynomial of that form is left as it is
        (and refused by the affine checks, with their message)."""
        factors = self._flat.get(ref.array)
        if factors is None or len(ref.index) != 1:
            return ref
        poly = _polynomial(ref.index[0])
        if poly is None:
            return ref
        index: list[Expr] = []
        for factor in reversed(factors[1:]):
            m = factor.name  # _flat_factors: every factor after the first is a parameter
            rest = {mono: c for mono, c in poly.items() if m not in mono}
            poly = {_drop(mono, m): c for mono, c in poly.items() if m in mono}
            index.insert(0, _poly_expr(rest, ref.loc))
        index.insert(0, _poly_expr(poly, ref.loc))
        return Ref(ref.array, tuple(index), ref.loc)

    def _check_flat_ranges(self, domain: str, accesses: tuple[Ref, ...]) -> None:
        """Each inner subscript of a delinearized access lies in 0 .. factor - 1 at every
        instance of the statement.

        Raises:
            UnsupportedConstruct: it does not (e.g. a[i * m + j] with j up to m): the flattened
                subscript cannot be split into rows and columns.
        """
        dom = isl.Set(domain)
        names = self._names()
        head = f"[{', '.join(self.params)}] -> {{ {dom.get_tuple_name()}[{', '.join(self._iters())}]"
        for inner in accesses:
            factors = self._flat.get(inner.array)
            if factors is None or len(inner.index) != len(factors):
                continue
            for idx, factor in zip(inner.index[1:], factors[1:]):
                bad = is_indirect(idx) or is_piecewise(idx)
                if not bad:
                    text = affine_text(idx, names, "subscript")
                    # m <= 0: the array is empty, every access refused by the bounds check
                    outside = isl.Set(f"{head} : {factor.name} >= 1 and ({text} < 0 or "
                                      f"{text} >= {factor.name}) }}")
                    bad = not dom.intersect(outside).is_empty()
                if bad:
                    raise UnsupportedConstruct(
                        f"'{inner.array}' is declared as {len(factors)} sizes multiplied and "
                        f"its subscript is read as rows of '{factor.name}' elements, but its "
                        f"part inside a row, {_show(idx)}, is not always within 0 .. "
                        f"{factor.name} - 1 here: polycuda cannot split this flattened "
                        "subscript (declare the array with one size per dimension, a[n][m])",
                        inner.loc)

    def _iters(self) -> tuple[str, ...]:
        return tuple(lp.iterator for lp in self._loops)

    def _check_unsigned_min_max(self, rhs: Expr, loc: SourceLoc | None) -> None:
        """min/max print as helpers that compare in long long (C) or in the operands' type
        (C++, CUDA): with an unsigned operand C's `a < b ? a : b` compares a negative value as
        a large one, so the targets would disagree; refused (a ternary is printed as written)."""
        known = {a.name: a.dtype for a in self.args}
        known.update({n: a.dtype for n, a in self.arrays.items()})
        for e in walk(rhs):
            if isinstance(e, BinOp) and e.op in ("min", "max") and dtypes.operands_unsigned(
                    e, lambda n: known.get(n, "long")):
                raise UnsupportedConstruct(
                    f"{e.op}() of an unsigned operand: write the comparison as a '?:' (C "
                    "compares there in unsigned arithmetic)", e.loc or loc)

    def _domain(self, name: str, iters: tuple[str, ...]) -> str:
        """isl text of the domain of statement `name` at the current point: the loop bounds
        and conditions; those that hold a C '/' or '%' are intersected as isl sets."""
        cons = [c for lp in self._loops for c in lp.constraints]
        cons += [c for _, c in self._conds if isinstance(c, str)]
        params = ", ".join(self.params)
        body = " and ".join(cons) if cons else ""
        domain = f"[{params}] -> {{ {name}[{', '.join(iters)}]{' : ' + body if body else ''} }}"
        exprs = [c for _, c in self._conds if not isinstance(c, str)]
        if not exprs and not any(lp.pieces for lp in self._loops):
            return domain
        # domain_set: [params] -> { S[iters] : every bound and condition }
        domain_set = isl.Set(domain)
        space = domain_set.get_space()
        for lp in self._loops:
            it = pw_aff(Var(lp.iterator), space, "loop iterator")
            for side, term in lp.pieces:
                bound = pw_aff(term, space, "loop bound")
                domain_set = domain_set.intersect(it.ge_set(bound) if side == "lower"
                                                  else it.le_set(bound))
        for cond in exprs:
            domain_set = domain_set.intersect(condition_set(cond, space))
        return str(domain_set.coalesce())

    def _check_ref(self, ref: Ref, names: set[str]) -> None:
        arr = self.arrays.get(ref.array)
        if arr is None:
            raise UnsupportedConstruct(f"'{ref.array}' is not an array of the region", ref.loc)
        if len(ref.index) != len(arr.shape):
            raise UnsupportedConstruct(
                f"'{ref.array}' has {len(arr.shape)} dimension(s) but is subscripted with "
                f"{len(ref.index)}", ref.loc)
        for index in ref.index:
            if is_indirect(index):
                self._check_indirect(ref, index, names)
            elif is_piecewise(index):
                self._check_piecewise_subscript(ref, index, names)
            else:
                affine_text(index, names, "subscript")

    def _check_piecewise_subscript(self, ref: Ref, index: Expr, names: set[str]) -> None:
        """A subscript with C '/' or '%', min/max or '?:' becomes a piecewise access
        (quasi_affine): only in an access whose other subscripts are affine and whose
        statement has no CSR loop (a may-access of a run-time range has no piecewise form
        here)."""
        if self._csr or any(is_indirect(e) for e in ref.index):
            where = ("is inside a loop whose bounds read arrays" if self._csr
                     else "also has an indirect subscript")
            raise UnsupportedConstruct(
                f"C '/' or '%', min/max or '?:' in a subscript of '{ref.array}', an access "
                f"that {where}: not supported (only affine subscripts may accompany a "
                "run-time one)",
                index.loc or ref.loc)
        pw_aff(index, _space("", names), "subscript", pieces=True)

    def _check_indirect(self, ref: Ref, index: Expr, names: set[str]) -> None:
        """An indirect subscript (A[idx[i]], A[row[i] + 1], A[p[q[i]]]): each array it reads is
        an integer array with subscripts of its own that are checked the same way, and the
        subscript is affine in the values read (Anantpur & Govindarajan 2013, Section 3.1)."""
        for inner in refs(index):
            arr = self.arrays.get(inner.array)
            if arr is not None and arr.dtype not in INDEX_DTYPES:
                raise UnsupportedConstruct(
                    f"subscript of '{ref.array}' reads '{inner.array}', an array of "
                    f"{arr.dtype}: index arrays must hold integers (int or long)",
                    inner.loc or ref.loc)
            self._check_ref(inner, names)
        indirect_shape_text(index, names)

    def build(self, source: SourceInfo | None = None) -> Scop:
        if not self.statements:
            raise UserError(f"region '{self.name}' contains no statement",
                            SourceLoc(self.file, 1))
        self._check_index_arrays_read_only()
        params = ", ".join(self.params)
        for arr in self.arrays.values():
            for dim in arr.shape:
                try:
                    affine_text(dim, set(self.params), "array size")
                except NotAffineError as err:
                    raise NotAffineError(f"size of '{arr.name}': {err.msg}", err.loc) from None
        context = " and ".join(self.context)
        context_text = f"[{params}] -> {{ : {context} }}"
        return Scop(self.name, tuple(self.args), tuple(self.arrays.values()),
                    tuple(self.statements), context_text, source)


    def _check_index_arrays_read_only(self) -> None:
        """Index arrays may not be written in the region: the inspector's slice functions
        read them, and must have no side effects (Anantpur & Govindarajan 2013, Section 3.1
        assume `ind1`, `ind2` are not modified in the loop)."""
        writers = {}
        for stmt in self.statements:
            writers.setdefault(stmt.lhs.array, stmt)
        for stmt in self.statements:
            for ref in stmt.index_refs():
                writer = writers.get(ref.array)
                if writer is None:
                    continue
                where = f" (line {writer.loc.line})" if writer.loc else ""
                line = f" at line {stmt.loc.line}" if stmt.loc else ""
                raise UnsupportedConstruct(
                    f"the statement{line} uses '{ref.array}' as an index array (in a "
                    f"subscript or a loop bound), but the region also writes "
                    f"'{ref.array}'{where}: index arrays "
                    "must be read-only in the region", ref.loc or stmt.loc)


# -- names ----------------------------------------------------------------------------------------
# Words of isl's input syntax: a parameter, iterator or array of these names breaks the isl text
# of every domain and access (isl_stream.c keywords).
ISL_KEYWORDS = frozenset((
    "exists", "and", "or", "implies", "not", "infty", "NaN", "min", "max", "rat", "true",
    "false", "ceild", "floord", "mod", "ceil", "floor"))


def check_name(name: str, what: str, loc: SourceLoc | None = None) -> None:
    """Names reach isl text and generated C: ASCII identifiers that are not isl keywords.

    Raises:
        UnsupportedConstruct: a non-ASCII name, or one of ISL_KEYWORDS (rename it).
    """
    if not (name.isascii() and name.isidentifier()):
        raise UnsupportedConstruct(f"{what} name '{name}' is not an ASCII identifier (isl and "
                                   "the generated C need ASCII names): rename it", loc)
    if name in ISL_KEYWORDS:
        raise UnsupportedConstruct(f"{what} name '{name}' is a keyword of isl's syntax, which "
                                   "polycuda uses for every domain: rename it", loc)


# -- loop bounds ----------------------------------------------------------------------------------
_FLIP = {"min": "max", "max": "min"}


def hoist_min_max(expr: Expr) -> Expr:
    """`expr` with min/max moved to the top through + - * by a constant, unary minus and
    floor/ceil division by a positive constant, so that a bound splits into affine terms:
    min(i, n - 1) + 1 -> min(i + 1, n - 1 + 1); n - max(a, b) -> min(n - a, n - b).

    Example:
        hoist_min_max(BinOp("+", BinOp("min", Var("i"), Var("n")), Const(1)))
        # BinOp("min", i + 1, n + 1)
    """
    if isinstance(expr, BinOp) and expr.op in _FLIP:
        return BinOp(expr.op, hoist_min_max(expr.lhs), hoist_min_max(expr.rhs), expr.loc)
    if isinstance(expr, UnaryOp) and expr.op == "-":
        return _distribute(hoist_min_max(expr.operand), -1,
                           lambda e: UnaryOp("-", e, expr.loc)) or expr
    if isinstance(expr, Cast) and expr.dtype in ("int", "long"):
        return _distribute(hoist_min_max(expr.operand), 1,
                           lambda e: Cast(expr.dtype, e, expr.loc)) or expr
    if not isinstance(expr, BinOp) or expr.op not in ("+", "-", "*", "floordiv", "ceildiv", "/"):
        return expr
    lhs, rhs = hoist_min_max(expr.lhs), hoist_min_max(expr.rhs)
    if expr.op in ("+", "-"):
        sign = 1 if expr.op == "+" else -1
        return (_distribute(lhs, 1, lambda e: BinOp(expr.op, e, rhs, expr.loc))
                or _distribute(rhs, sign, lambda e: BinOp(expr.op, lhs, e, expr.loc))
                or BinOp(expr.op, lhs, rhs, expr.loc))
    factor = _constant(rhs)
    if expr.op == "*" and factor is None and _constant(lhs) is not None:
        factor, lhs, rhs = _constant(lhs), rhs, lhs
    if factor is None or factor == 0 or expr.op != "*" and factor < 0:
        return BinOp(expr.op, lhs, rhs, expr.loc)
    return (_distribute(lhs, 1 if factor > 0 else -1,
                        lambda e: BinOp(expr.op, e, rhs, expr.loc))
            or BinOp(expr.op, lhs, rhs, expr.loc))


def _distribute(expr: Expr, sign: int, wrap: Callable[[Expr], Expr]) -> Expr | None:
    """wrap(min(a, b)) as min(wrap(a), wrap(b)) (max when `sign` < 0: wrap decreases); None
    when `expr` is not a min/max."""
    if not (isinstance(expr, BinOp) and expr.op in _FLIP):
        return None
    op = expr.op if sign > 0 else _FLIP[expr.op]
    return BinOp(op, hoist_min_max(wrap(expr.lhs)), hoist_min_max(wrap(expr.rhs)), expr.loc)


def _constant(expr: Expr) -> int | None:
    if isinstance(expr, Const) and isinstance(expr.value, int):
        return expr.value
    if isinstance(expr, UnaryOp) and expr.op == "-":
        inner = _constant(expr.operand)
        return None if inner is None else -inner
    return None


def _bound_text(term: Expr, names: set[str], side: str, iterator: str) -> str:
    """isl text of one term of a loop bound (checked by _check_convex)."""
    _check_convex(term, side, iterator)
    return affine_text(term, names, "loop bound")


def _check_convex(term: Expr, side: str, iterator: str) -> None:
    """A min in a lower bound or a max in an upper bound (a non-convex loop) gets its own
    message."""
    wrong = "min" if side == "lower" else "max"
    if any(isinstance(e, BinOp) and e.op == wrong for e in walk(term)):
        raise NotAffineError(f"{side} bound of loop '{iterator}' takes a {wrong}(...): the "
                             f"loop would not be convex (only max in lower and min in upper "
                             "bounds are supported)", term.loc)


# -- flattened arrays ------------------------------------------------------------------------------
def _flat_factors(shape: tuple[Expr, ...], params: set[str]) -> tuple[Expr, ...] | None:
    """The factors of a 1-D array's size written as a product whose factors after the first
    are integer parameters (`n * m`, `l * n * n`); None for any other shape."""
    if len(shape) != 1:
        return None
    factors: list[Expr] = []
    stack = [shape[0]]
    while stack:
        e = stack.pop()
        if isinstance(e, BinOp) and e.op == "*":
            stack += [e.rhs, e.lhs]
        else:
            factors.append(e)
    if len(factors) < 2 or not all(isinstance(f, Var) and f.name in params
                                   for f in factors[1:]):
        return None
    return tuple(factors)


def _polynomial(expr: Expr) -> dict[tuple[str, ...], int] | None:
    """`expr` as integer polynomial: {sorted names of a monomial: coefficient}; None when it
    holds anything but integer constants, names, + - and *."""
    if isinstance(expr, Const):
        return {(): expr.value} if isinstance(expr.value, int) else None
    if isinstance(expr, Var):
        return {(expr.name,): 1}
    if isinstance(expr, UnaryOp) and expr.op == "-":
        inner = _polynomial(expr.operand)
        return None if inner is None else {m: -c for m, c in inner.items()}
    if isinstance(expr, Cast) and expr.dtype in ("int", "long"):
        return _polynomial(expr.operand)
    if not isinstance(expr, BinOp) or expr.op not in ("+", "-", "*"):
        return None
    lhs, rhs = _polynomial(expr.lhs), _polynomial(expr.rhs)
    if lhs is None or rhs is None:
        return None
    out: dict[tuple[str, ...], int] = {}
    if expr.op == "*":
        for ma, ca in lhs.items():
            for mb, cb in rhs.items():
                mono = tuple(sorted(ma + mb))
                out[mono] = out.get(mono, 0) + ca * cb
    else:
        out = dict(lhs)
        for mono, c in rhs.items():
            out[mono] = out.get(mono, 0) + (c if expr.op == "+" else -c)
    return {m: c for m, c in out.items() if c != 0}


def _drop(mono: tuple[str, ...], name: str) -> tuple[str, ...]:
    k = mono.index(name)
    return mono[:k] + mono[k + 1:]


def _poly_expr(poly: dict[tuple[str, ...], int], loc: SourceLoc | None) -> Expr:
    """The polynomial as an Expr, monomials in sorted order (deterministic)."""
    total: Expr | None = None
    for mono in sorted(poly):
        term: Expr = Const(poly[mono], loc=loc)
        for name in mono:
            term = Var(name, loc) if term == Const(1) else BinOp("*", term, Var(name, loc), loc)
        total = term if total is None else BinOp("+", total, term, loc)
    return Const(0, loc=loc) if total is None else total


def _show(expr: Expr) -> str:
    return expr_to_c(expr)


def _space(name: str, names: set[str]) -> isl.Space:
    """A set space { name[names] } (sorted names: only for checking an expression early, at
    the construct that holds it, before the statement's own space exists)."""
    return isl.Set(f"{{ {name}[{', '.join(sorted(names))}] }}").get_space()
