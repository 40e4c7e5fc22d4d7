"""Steps of a min-plus closure run in parallel under a checked input condition (issue 41 item
3: Floyd-Warshall), a Scop -> Scop pass.

The step k of `A[i][j] = min(A[i][j], A[i][k] + A[k][j])` over (i, j) reads row k and column k
of A, which the same step writes (at i = k and at j = k): the dependences between the step's
iterations are real in the accesses, and no schedule runs them in parallel. But row k does not
change in step k when A[k][k] >= 0: A[k][j] = min(A[k][j], A[k][k] + A[k][j]) keeps A[k][j]
(nor does column k). When every element of A is non-negative at entry, every later value is
a minimum of sums of non-negative values, non-negative too, so A[k][k] >= 0 at every step: the
rewritten step, which reads copies of row k and column k taken at its start, computes the
same values in any order of (i, j):

    for k:  R[j] = A[k][j];  C[i] = A[i][k];  A[i][j] = min(A[i][j], C[i] + R[j])

Exact in floating point too when no element is NaN or -0.0 (the checked condition): a sum of
values >= +0.0 is >= +0.0 and never -0.0, x + y >= x for y >= +0.0 (+inf included), so the
copies hold the very values the original reads. In integers it assumes no signed overflow,
which C leaves undefined. The Scop records the condition (Scop.nonnegative_inputs); the CUDA
entries check it on each call and run the region as written where it fails
(codegen/host_choice.py), so the rewrite is applied only where that host version exists.
This is no dependence test: PPCG and Pluto keep the step's loops sequential (the accesses
alone do not show that row and column k are invariant), and `show schedule` of the region as
written says which dependences carry them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import islpy as isl

from polycuda.ir.expr import BinOp, Call, Expr, Ref, Ternary, Var
from polycuda.ir.scop import Array, Scop, Statement
from polycuda.options import Options
from polycuda.schedule.false_deps import fresh_name, renumbered

MIN_CALLS = ("fmin", "fminf")


@dataclass(frozen=True)
class ClosureStep:
    """A statement `A[a][b] = min(A[a][b], A[a][k] + A[k][b])` (any operand order) of the
    iterators (k, a, b) or (k, b, a), alone in its k loop."""

    statement: str
    array: str
    k: str
    row: str  # a: A's first subscript
    column: str  # b: A's second subscript


def _min_operands(e: Expr) -> tuple[Expr, Expr] | None:
    """(x, y) when `e` is min(x, y) in one of C's and Python's spellings: x < y ? x : y,
    y > x ? x : y (and <=, >=), min(x, y), fmin(x, y); None otherwise."""
    if isinstance(e, BinOp) and e.op == "min":
        return e.lhs, e.rhs
    if isinstance(e, Call) and e.func in MIN_CALLS and len(e.args) == 2:
        return e.args[0], e.args[1]
    if isinstance(e, Ternary) and isinstance(e.cond, BinOp):
        a, b, op = e.cond.lhs, e.cond.rhs, e.cond.op
        if op in ("<", "<=") and (e.then, e.other) == (a, b):
            return a, b
        if op in (">", ">=") and (e.then, e.other) == (b, a):
            return b, a
    return None


def find(scop: Scop) -> list[ClosureStep]:
    """The closure steps of `scop` that the rewrite may take: A an argument of two
    dimensions that no statement before the step's nest writes (its values at entry are the
    ones the condition is checked on), the statement alone in its outermost loop."""
    found = []
    for stmt in scop.statements:
        step = _step(stmt)
        if step is None or step.array not in {a.name for a in scop.args if a.kind == "array"}:
            continue
        alone = [s for s in scop.statements if s.beta[0] == stmt.beta[0]] == [stmt]
        written_before = any(s.lhs.array == step.array and s.beta < stmt.beta
                             for s in scop.statements)
        if alone and not written_before and not stmt.csr:
            found.append(step)
    return found


def _step(stmt: Statement) -> ClosureStep | None:
    if stmt.op != "=" or len(stmt.iterators) != 3 or len(stmt.lhs.index) != 2:
        return None
    k = stmt.iterators[0]
    a, b = stmt.lhs.index
    if not (isinstance(a, Var) and isinstance(b, Var)
            and {a.name, b.name} == set(stmt.iterators[1:])):
        return None
    operands = _min_operands(stmt.rhs)
    if operands is None:
        return None
    x, total = operands
    if x != stmt.lhs:
        x, total = total, x
    array = stmt.lhs.array
    row, column = Ref(array, (a, Var(k))), Ref(array, (Var(k), b))
    if x != stmt.lhs or not (isinstance(total, BinOp) and total.op == "+"
                             and {total.lhs, total.rhs} <= {row, column}
                             and total.lhs != total.rhs):
        return None
    return ClosureStep(stmt.name, array, k, a.name, b.name)


def applies(scop: Scop, options: Options) -> bool:
    """Whether the rewrite may run: CUDA with the host version (Options.host_fallback), on a
    region the static path compiles whole (no indirect subscripts or CSR loops: the run-time
    path compiles parts of it without the host version)."""
    return (options.target == "cuda" and options.host_fallback != "never"
            and not any(s.is_indirect() or s.csr for s in scop.statements))


def rewrite(scop: Scop, steps: list[ClosureStep] | None = None) -> Scop:
    """`scop` with each closure step (`steps`, default find()) reading copies of its row and
    column k taken at the step's start, and Scop.nonnegative_inputs naming their arrays;
    `scop` when there is none."""
    steps = find(scop) if steps is None else steps
    for step in steps:
        scop = _rewritten(scop, step)
    if not steps:
        return scop
    arrays = tuple(dict.fromkeys(scop.nonnegative_inputs + tuple(s.array for s in steps)))
    return dataclasses.replace(renumbered(scop, isl.Context()), nonnegative_inputs=arrays)


def _rewritten(scop: Scop, step: ClosureStep) -> Scop:
    stmt = scop.statement(step.statement)
    array = scop.array(step.array)
    taken = {a.name for a in scop.arrays} | {a.name for a in scop.args} | set(scop.params)
    row = Array(fresh_name(taken, f"{step.array}_row"), array.dtype, (array.shape[1],),
                local=True)
    col = Array(fresh_name(taken | {row.name}, f"{step.array}_column"), array.dtype,
                (array.shape[0],), local=True)
    names = {s.name for s in scop.statements}
    row_name = fresh_name(names, "row")
    col_name = fresh_name(names | {row_name}, "column")
    k = Var(step.k)
    position = stmt.beta[:1]
    # R[b] = A[k][b] and C[a] = A[a][k] over the (k, b) and (k, a) of the step's instances,
    # first in the k loop; the step after them
    copies = (
        Statement(row_name, (step.k, step.column),
                  _projected(stmt, (step.k, step.column), row_name), position + (0, 0),
                  Ref(row.name, (Var(step.column),)), "=", Ref(step.array, (k, Var(step.column))),
                  stmt.loc, _directions(stmt, (step.k, step.column))),
        Statement(col_name, (step.k, step.row),
                  _projected(stmt, (step.k, step.row), col_name), position + (1, 0),
                  Ref(col.name, (Var(step.row),)), "=", Ref(step.array, (Var(step.row), k)),
                  stmt.loc, _directions(stmt, (step.k, step.row))))
    total = BinOp("+", Ref(col.name, (Var(step.row),)), Ref(row.name, (Var(step.column),)))
    x = stmt.lhs
    reads = Ternary(BinOp("<", x, total), x, total)
    moved = dataclasses.replace(stmt, rhs=reads,
                                beta=position + (2,) + stmt.beta[2:])
    statements = tuple(moved if s.name == stmt.name else s for s in scop.statements) + copies
    return dataclasses.replace(scop, arrays=scop.arrays + (row, col), statements=statements)


def _projected(stmt: Statement, keep: tuple[str, str], name: str) -> str:
    """The statement's domain projected onto the iterators `keep` (in that order), named
    `name`: the (k, b) or (k, a) whose row or column element some instance of the step reads.

    # { S[k, i, j] } -> { name[k, x] }
    """
    domain = isl.Set.read_from_str(isl.Context(), stmt.domain)
    order = [stmt.iterators.index(v) for v in keep]
    text = (f"{{ {stmt.name}[{', '.join(stmt.iterators)}] -> "
            f"{name}[{', '.join(stmt.iterators[k] for k in order)}] }}")
    projection = isl.Map.read_from_str(domain.get_ctx(), text)
    return str(_named(domain.apply(projection), keep))


def _named(domain: isl.Set, names: tuple[str, ...]) -> isl.Set:
    for k, name in enumerate(names):
        domain = domain.set_dim_name(isl.dim_type.set, k, name)
    return domain


def _directions(stmt: Statement, keep: tuple[str, str]) -> tuple[int, ...]:
    directions = stmt.loop_directions()
    return tuple(directions[stmt.iterators.index(v)] for v in keep)
