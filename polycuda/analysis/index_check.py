"""The original program's accesses checked on the drawn inputs before the oracle runs.

The oracle (the untransformed program) indexes raw memory without checks; verify draws index
arrays whose values keep every access in bounds (index_values.py), and this module checks it
on the data themselves: each statement's instances are enumerated at the run's sizes (isl),
its CSR loops expanded, and every subscript evaluated with NumPy from the drawn index arrays,
under the conditions that reach it (a ternary's branch, && / ||). An access outside its array
raises before anything runs. Conditions and subscripts that use values the region computes or
floating-point data are unknown here: such a condition narrows nothing (a superset of the
accesses is checked), such a subscript is reported unchecked.
"""

from __future__ import annotations

import islpy as isl
import numpy as np

from polycuda.errors import IndexAccessError
from polycuda.ir import isl_build
from polycuda.ir.expr import BinOp, Call, Cast, Const, Expr, Ref, Ternary, UnaryOp, Var
from polycuda.ir.scop import Scop, Statement

# instances per statement enumerated: isl visits each point from Python, so the check stays a
# small fraction of verify only on the small sizes verify runs at
MAX_POINTS = 1 << 18

Env = dict[str, np.ndarray]


def check_accesses(scop: Scop, values: dict[str, int], args: dict[str, object]) -> list[str]:
    """Raise on the first access of an indirect statement that leaves its array with the
    drawn `args`; returns 'statement: reason' for those that could not be checked.

    Raises:
        IndexAccessError: naming the statement, array, dimension, index and extent.
    """
    unchecked: list[str] = []
    known = {a.name for a in scop.args if a.kind == "array" and a.name not in
             scop.written_arrays() and a.dtype in ("int", "long")}
    for stmt in scop.statements:
        if not stmt.is_indirect():
            continue
        env = _instances(scop, stmt, values, args)
        if env is None:
            unchecked.append(f"{stmt.name}: more than {MAX_POINTS} instances")
            continue
        walker = _Walker(scop, stmt, args, known, unchecked)
        ones = np.ones(len(next(iter(env.values()))) if env else 1, bool)
        for loop in stmt.csr:
            env = walker.expand(loop.iterator, loop.lower, loop.upper, loop.direction, env)
            ones = np.ones(len(env[loop.iterator]), bool)
        walker.value(stmt.lhs, env, ones)
        walker.value(stmt.rhs, env, ones)
    return unchecked


def _instances(scop: Scop, stmt: Statement, values: dict[str, int],
               args: dict[str, object]) -> Env | None:
    """{iterator: its value at each instance} of `stmt` at `values` (None: too many)."""
    ctx = isl.Context()
    domain = isl_build.domain_set(stmt, ctx).intersect_params(
        isl_build.fixed_params(scop, values, ctx))
    volume = 0 if domain.is_empty() else 1
    for dim in range(domain.dim(isl.dim_type.set) if volume else 0):
        low, high = domain.dim_min_val(dim).to_python(), domain.dim_max_val(dim).to_python()
        volume *= max(int(high) - int(low) + 1, 1)
    if volume > MAX_POINTS:
        return None
    points: list[list[int]] = []
    domain.foreach_point(lambda p: points.append(
        [int(p.get_coordinate_val(isl.dim_type.set, d).to_python())
         for d in range(len(stmt.iterators))]))
    table = np.array(points, np.int64).reshape(len(points), len(stmt.iterators))
    env = {it: table[:, k] for k, it in enumerate(stmt.iterators)}
    for arg in scop.args:
        if arg.kind != "array" and arg.dtype in ("int", "long"):
            env[arg.name] = np.full(len(points), int(args[arg.name]), np.int64)
    return env


class _Walker:
    """Evaluates a statement's expressions on all its instances at once, checking every Ref.
    A value is None where it is unknown (floating-point data, values the region computes)."""

    def __init__(self, scop: Scop, stmt: Statement, args: dict[str, object], known: set[str],
                 unchecked: list[str]):
        self.scop, self.stmt, self.args, self.known = scop, stmt, args, known
        self.unchecked = unchecked

    def expand(self, it: str, lower: Expr, upper: Expr, direction: int, env: Env) -> Env:
        """Each instance repeated once per iteration of the CSR loop over `it`."""
        mask = np.ones(len(next(iter(env.values()))), bool) if env else np.ones(1, bool)
        lo, up = self.value(lower, env, mask), self.value(upper, env, mask)
        if lo is None or up is None:
            self.unchecked.append(f"{self.stmt.name}: the bounds of loop '{it}'")
            lo = up = np.zeros(len(mask), np.int64)
            up = lo - direction  # no iteration: what the loop reaches is unknown
        counts = np.maximum((up - lo) * direction + 1, 0)
        out = {name: np.repeat(col, counts) for name, col in env.items()}
        starts = np.repeat(np.cumsum(counts) - counts, counts)
        out[it] = np.repeat(lo, counts) + direction * (np.arange(int(counts.sum())) - starts)
        return out

    def value(self, expr: Expr, env: Env, mask: np.ndarray) -> np.ndarray | None:
        """The value of `expr` at every instance (meaningful where `mask`); checks its Refs
        where `mask` holds."""
        if isinstance(expr, Const):
            return np.full(len(mask), expr.value) if isinstance(expr.value, int) else None
        if isinstance(expr, Var):
            return env.get(expr.name)
        if isinstance(expr, Ref):
            return self._ref(expr, env, mask)
        if isinstance(expr, Ternary):
            cond = self._truth(expr.cond, env, mask)
            then = self.value(expr.then, env, mask if cond is None else mask & cond)
            other = self.value(expr.other, env, mask if cond is None else mask & ~cond)
            if cond is None or then is None or other is None:
                return None
            return np.where(cond, then, other)
        if isinstance(expr, BinOp) and expr.op in ("&&", "||"):
            lhs = self._truth(expr.lhs, env, mask)
            taken = None if lhs is None else (lhs if expr.op == "&&" else ~lhs)
            rhs = self._truth(expr.rhs, env, mask if taken is None else mask & taken)
            if lhs is None or rhs is None:
                return None
            return (lhs & rhs) if expr.op == "&&" else (lhs | rhs)
        if isinstance(expr, (UnaryOp, Cast)):
            inner = self.value(expr.operand, env, mask)
            if inner is None or isinstance(expr, Cast) and expr.dtype not in ("int", "long"):
                return None
            return inner if isinstance(expr, Cast) else (-inner if expr.op == "-" else
                                                         (inner == 0))
        if isinstance(expr, BinOp):
            lhs, rhs = self.value(expr.lhs, env, mask), self.value(expr.rhs, env, mask)
            return None if lhs is None or rhs is None else _binop(expr.op, lhs, rhs)
        if isinstance(expr, Call):
            for arg in expr.args:
                self.value(arg, env, mask)
        return None

    def _truth(self, expr: Expr, env: Env, mask: np.ndarray) -> np.ndarray | None:
        value = self.value(expr, env, mask)
        return None if value is None else value != 0

    def _ref(self, ref: Ref, env: Env, mask: np.ndarray) -> np.ndarray | None:
        subs = [self.value(e, env, mask) for e in ref.index]
        shape = np.shape(self.args[ref.array]) if ref.array in self.args else None
        if shape is None or not ref.index:
            return None
        if any(s is None for s in subs):
            self.unchecked.append(f"{self.stmt.name}: a subscript of '{ref.array}'")
            return None
        for dim, (sub, extent) in enumerate(zip(subs, shape)):
            bad = mask & ((sub < 0) | (sub >= extent))
            if bad.any():
                self._refuse(ref, dim, int(sub[np.argmax(bad)]), extent)
        if ref.array not in self.known:
            return None
        safe = [np.where(mask, s, 0) for s in subs]
        return np.asarray(self.args[ref.array])[tuple(safe)].astype(np.int64)

    def _refuse(self, ref: Ref, dim: int, index: int, extent: int) -> None:
        verb = "writes" if ref is self.stmt.lhs else "reads"
        raise IndexAccessError(
            f"verify: with the drawn index arrays the original program {verb} '{ref.array}' "
            f"at index {index} along dimension {dim}, outside 0..{extent - 1} "
            f"({self.stmt.name}); nothing was run (the drawn values do not keep this access "
            "in bounds: choose other sizes, or report the program)",
            ref.loc or self.stmt.loc)


def _binop(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray | None:
    """C semantics on integer arrays ('/' and '%' truncate toward zero)."""
    a, b = np.asarray(a, np.int64), np.asarray(b, np.int64)
    safe = np.where(b == 0, 1, b)
    if op == "/":
        return np.trunc(a / safe).astype(np.int64)
    if op == "%":
        return a - safe * np.trunc(a / safe).astype(np.int64)
    table = {"+": np.add, "-": np.subtract, "*": np.multiply, "min": np.minimum,
             "max": np.maximum, "floordiv": lambda x, y: np.floor_divide(x, np.where(y == 0, 1, y)),
             "ceildiv": lambda x, y: -np.floor_divide(-x, np.where(y == 0, 1, y)),
             "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
             "==": np.equal, "!=": np.not_equal}
    return table[op](a, b).astype(np.int64) if op in table else None
