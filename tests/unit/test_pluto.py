"""Pluto-style scheduler: Di et al. 2012's worked example (Figures 2, 4, 6), fusion and
distribution, negative coefficients; every schedule checked legal independently with isl."""

import json
import math
from pathlib import Path

import islpy as isl
import numpy as np
import pytest

from polycuda.analysis import dependences
from polycuda.frontend.builder import ScopBuilder
from polycuda.ir import isl_build
from polycuda.ir.evaluate import eval_int
from polycuda.ir.expr import BinOp, Call, Const, Ref, UnaryOp, Var
from polycuda.ir.scop import Scop
from polycuda.schedule import farkas, isl_scheduler, pluto, report
from tests.unit import hand_scops


def _plus(e, k):
    return BinOp("+", e, Const(k))


def _minus(e, k):
    return BinOp("-", e, Const(k))


def gemm() -> Scop:
    """PolyBench 4 gemm: C[i][j] *= beta; then k outside j: C[i][j] += alpha*A[i][k]*B[k][j]."""
    b = ScopBuilder("gemm")
    for p in ("ni", "nj", "nk"):
        b.add_arg(p, "param", "int")
    b.add_arg("alpha", "scalar", "double")
    b.add_arg("beta", "scalar", "double")
    b.add_arg("C", "array", "double", (Var("ni"), Var("nj")))
    b.add_arg("A", "array", "double", (Var("ni"), Var("nk")))
    b.add_arg("B", "array", "double", (Var("nk"), Var("nj")))
    i, j, k = Var("i"), Var("j"), Var("k")
    b.enter_loop("i", Const(0), _minus(Var("ni"), 1), 1)
    b.enter_loop("j", Const(0), _minus(Var("nj"), 1), 1)
    b.add_statement(Ref("C", (i, j)), "*=", Var("beta"))
    b.exit_loop()
    b.enter_loop("k", Const(0), _minus(Var("nk"), 1), 1)
    b.enter_loop("j", Const(0), _minus(Var("nj"), 1), 1)
    rhs = BinOp("*", Var("alpha"), BinOp("*", Ref("A", (i, k)), Ref("B", (k, j))))
    b.add_statement(Ref("C", (i, j)), "+=", rhs)
    b.exit_loop()
    b.exit_loop()
    b.exit_loop()
    return b.build()


def backward_sweep() -> Scop:
    """for t: for i = n-2 down to 0: A[i] = 0.5 * (A[i] + A[i+1]); distances (0,-1), (1,0), (1,1)."""
    b = ScopBuilder("backward")
    b.add_arg("T", "param", "int")
    b.add_arg("n", "param", "int")
    b.add_arg("A", "array", "double", (Var("n"),))
    b.enter_loop("t", Const(0), _minus(Var("T"), 1), 1)
    b.enter_loop("i", Const(0), _minus(Var("n"), 2), -1)
    i = Var("i")
    rhs = BinOp("*", Const(0.5, "double"), BinOp("+", Ref("A", (i,)), Ref("A", (_plus(i, 1),))))
    b.add_statement(Ref("A", (i,)), "=", rhs)
    b.exit_loop()
    b.exit_loop()
    return b.build()


def reversed_consumer() -> Scop:
    """Two forward recurrences; the second reads the first reversed, so no fused loop is legal:
    for i: A[i] = A[i-1] + 1;  for i: B[i] = B[i-1] + A[n-i]."""
    b = ScopBuilder("reversed_consumer")
    b.add_arg("n", "param", "int")
    b.add_arg("A", "array", "double", (Var("n"),))
    b.add_arg("B", "array", "double", (Var("n"),))
    i = Var("i")
    b.enter_loop("i", Const(1), _minus(Var("n"), 1), 1)
    b.add_statement(Ref("A", (i,)), "=", BinOp("+", Ref("A", (_minus(i, 1),)), Const(1.0, "double")))
    b.exit_loop()
    b.enter_loop("i", Const(1), _minus(Var("n"), 1), 1)
    rhs = BinOp("+", Ref("B", (_minus(i, 1),)), Ref("A", (BinOp("-", Var("n"), i),)))
    b.add_statement(Ref("B", (i,)), "=", rhs)
    b.exit_loop()
    return b.build()


def shifted_pair() -> Scop:
    """for i: A[i] = B[i]; for i: B[i] = A[i+1] + 1 (fusable only with S1 shifted by one)."""
    b = ScopBuilder("shifted_pair")
    b.add_arg("n", "param", "int")
    b.add_arg("A", "array", "double", (_plus(Var("n"), 1),))
    b.add_arg("B", "array", "double", (_plus(Var("n"), 1),))
    i = Var("i")
    b.enter_loop("i", Const(0), Var("n"), 1)
    b.add_statement(Ref("A", (i,)), "=", Ref("B", (i,)))
    b.exit_loop()
    b.enter_loop("i", Const(0), _minus(Var("n"), 1), 1)
    b.add_statement(Ref("B", (i,)), "=", BinOp("+", Ref("A", (_plus(i, 1),)), Const(1.0, "double")))
    b.exit_loop()
    return b.build()


ALL = hand_scops.ALL + (gemm, backward_sweep, reversed_consumer, shifted_pair)


# -- independent checks ------------------------------------------------------------------------
def assert_legal(scop, schedule: isl.Schedule, ctx: isl.Context) -> None:
    """Every dependence { S[s] -> T[t] }, mapped through the schedule, is lexicographically
    positive; every statement instance is scheduled exactly once (checked with isl only)."""
    domain = isl_build.domain_union(scop, ctx)
    # { S[i] -> [time] }, padded by isl to one dimension
    sched = schedule.get_map().intersect_domain(domain)
    assert sched.domain().is_equal(domain)
    assert sched.is_injective()
    deps = dependences.untagged_union(scop, ctx)
    times = deps.apply_domain(sched).apply_range(sched)  # { [time_s] -> [time_t] }
    n_time = sched.range().get_set_list().get_at(0).dim(isl.dim_type.set)
    lex_lt = isl.Map.lex_lt(isl.Space.set_alloc(ctx, 0, n_time))
    assert times.is_subset(isl.UnionMap.from_map(lex_lt)), f"violated: {times}"


def schedule_of(make, balanced=False):
    ctx = isl.Context()
    scop = make()
    schedule = pluto.pluto_schedule(scop, balanced=balanced, ctx=ctx)
    assert_legal(scop, schedule, ctx)
    return scop, schedule


def bands(schedule: isl.Schedule) -> list[tuple[bool, list[bool]]]:
    """(permutable, coincident flag per member) of every band, outermost first."""
    found = []

    def visit(node):
        if node.get_type() == isl.schedule_node_type.band:
            found.append((bool(node.band_get_permutable()),
                          [bool(node.band_member_get_coincident(k))
                           for k in range(node.band_n_member())]))
        return True

    schedule.get_root().foreach_descendant_top_down(visit)
    return found


def _value(expr, env, arrays):
    if isinstance(expr, Const):
        return expr.value
    if isinstance(expr, Var):
        return env[expr.name]
    if isinstance(expr, Ref):
        return arrays[expr.array][tuple(int(_value(e, env, arrays)) for e in expr.index)]
    if isinstance(expr, UnaryOp) and expr.op == "-":
        return -_value(expr.operand, env, arrays)
    if isinstance(expr, Call):
        return getattr(math, expr.func)(*[_value(a, env, arrays) for a in expr.args])
    a, b = _value(expr.lhs, env, arrays), _value(expr.rhs, env, arrays)
    return _apply_op(expr.op, a, b)


def _apply_op(op, a, b):
    """a op b for "+", "-", "*", "/" and the assignments "=", "+=", "-=", "*=", "/="."""
    if op == "=":
        return b
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
            "/": lambda: a / b}[op[0]]()


def execute(scop, schedule: isl.Schedule, params: dict[str, int], seed: int = 0) -> dict:
    """Run every statement instance in schedule order on random data (a reference oracle
    independent of code generation); returns the final argument arrays."""
    ctx = schedule.get_ctx()
    fixed = " and ".join(f"{p} = {v}" for p, v in params.items())
    fixed_set = isl.Set.read_from_str(ctx, f"[{', '.join(params)}] -> {{ : {fixed} }}")
    domain = isl_build.domain_union(scop, ctx).intersect_params(fixed_set)
    instances = []

    def visit(point):
        space = point.get_space().unwrap()
        n_in, n_out = space.dim(isl.dim_type.in_), space.dim(isl.dim_type.out)
        vals = [point.get_coordinate_val(isl.dim_type.set, k).to_python()
                for k in range(n_in + n_out)]
        instances.append((vals[n_in:], space.get_tuple_name(isl.dim_type.in_), vals[:n_in]))

    schedule.get_map().intersect_domain(domain).wrap().foreach_point(visit)
    instances.sort()
    rng = np.random.default_rng(seed)
    arrays = {a.name: rng.random(tuple(eval_int(d, params) for d in a.shape)) for a in scop.arrays}
    scalars = {a.name: 0.5 + k for k, a in enumerate(scop.args) if a.kind == "scalar"}
    for _, name, point in instances:
        stmt = scop.statement(name)
        env = {**params, **scalars, **dict(zip(stmt.iterators, point))}
        value = _value(stmt.rhs, env, arrays)
        index = tuple(int(_value(e, env, arrays)) for e in stmt.lhs.index)
        old = arrays[stmt.lhs.array][index]
        arrays[stmt.lhs.array][index] = _apply_op(stmt.op, old, value)
    return {a.name: arrays[a.name] for a in scop.arrays if not a.local}


def assert_same_results(original, transformed, schedule, params):
    ctx = schedule.get_ctx()
    expected = execute(original, isl_scheduler.original_schedule_tree(original, ctx), params)
    got = execute(transformed, schedule, params)
    assert expected.keys() == got.keys()
    for name in expected:
        np.testing.assert_array_equal(got[name], expected[name], err_msg=name)


# -- Di et al. 2012, Figure 2 ------------------------------------------------------------------
def test_figure2_communication_minimal_hyperplanes():
    """Figure 4: Phi_S = [[1, 0], [1, 1]] (t, i) + 0, the hyperplanes of refs [6, 40, 41]."""
    _, schedule = schedule_of(hand_scops.figure2)
    rows = report.schedule_rows(schedule)["S0"]
    assert [r["row"] for r in rows] == [[1, 0, 0], [1, 1, 0]]
    assert bands(schedule) == [(True, [False, False])]  # a 2-D wavefront: no DOALL member


def test_figure2_balanced_hyperplanes():
    """Theorem 2 / Algorithm 1 (eq. (4) with k = 1): Phi_S^intra = [[2, 1], [1, 1]] (Figure 6)."""
    _, schedule = schedule_of(hand_scops.figure2, balanced=True)
    rows = report.schedule_rows(schedule)["S0"]
    assert [r["row"] for r in rows] == [[2, 1, 0], [1, 1, 0]]
    # eq. (4): the first hyperplane carries every self dependence (Table I distances)
    for d in [(1, 0), (1, -1), (0, 1)]:
        assert 2 * d[0] + 1 * d[1] >= 1
    assert bands(schedule) == [(True, [False, False])]


# -- other nests -------------------------------------------------------------------------------
@pytest.mark.parametrize("balanced", [False, True])
@pytest.mark.parametrize("make", ALL)
def test_every_schedule_is_legal_and_full_rank(make, balanced):
    scop, schedule = schedule_of(make, balanced)
    rows = report.schedule_rows(schedule)
    for stmt in scop.statements:
        n = len(stmt.iterators)
        coeffs = [tuple(r["row"][:n]) for r in rows.get(stmt.name, [])]
        assert farkas.rank(isl.Context(), coeffs, n) == n


def test_jacobi_2d_fuses_both_sweeps_in_one_time_tiled_band():
    _, schedule = schedule_of(hand_scops.jacobi_2d)
    assert bands(schedule)[0] == (True, [False] * 3)
    rows = report.schedule_rows(schedule)
    # the time loop stays outermost; the second sweep is shifted one step behind the first
    assert rows["S0"][0]["row"] == [1, 0, 0, 0] and rows["S1"][0]["row"] == [1, 0, 0, 0]
    assert [r["row"][-1] for r in rows["S1"]] == [0, 1, 1]


def test_gemm_band_has_coincident_i_and_j():
    _, schedule = schedule_of(gemm)
    assert bands(schedule)[0] == (True, [True, True, False])
    rows = report.schedule_rows(schedule)
    # S1 iterates (i, k, j): the band interchanges k and j so that i, j are the parallel rows
    assert [r["row"] for r in rows["S1"]] == [[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0]]


def test_sor_1d_band_is_permutable_with_no_coincident_outer_member():
    _, schedule = schedule_of(hand_scops.sor_1d)
    ((permutable, coincident),) = bands(schedule)
    assert permutable and len(coincident) == 2 and not coincident[0]


def test_negative_distance_gets_a_negative_coefficient():
    _, schedule = schedule_of(backward_sweep)
    rows = report.schedule_rows(schedule)["S0"]
    assert [r["row"] for r in rows] == [[1, 0, 0], [1, -1, 0]]


def test_reversed_scan_runs_backwards():
    _, schedule = schedule_of(hand_scops.reverse_scan)
    rows = report.schedule_rows(schedule)
    assert rows["S1"][0]["row"] == [-1, 0] and rows["S2"][0]["row"] == [-1, 0]


def test_unfusable_statements_are_distributed():
    _, schedule = schedule_of(reversed_consumer)
    top = schedule.get_root().child(0)
    assert top.get_type() == isl.schedule_node_type.sequence
    rows = report.schedule_rows(schedule)
    assert rows["S0"][0]["row"] == [1, 0] and rows["S1"][0]["row"] == [1, 0]


def test_fusable_statements_stay_fused_with_a_shift():
    _, schedule = schedule_of(shifted_pair)
    top = schedule.get_root().child(0)
    assert top.get_type() == isl.schedule_node_type.band
    rows = report.schedule_rows(schedule)
    assert rows["S0"][0]["row"] == [1, 0] and rows["S1"][0]["row"] == [1, 1]


def test_independence_constraint_orients_kernel_towards_the_inner_iterator():
    ctx = isl.Context()
    assert farkas.kernel_basis(ctx, [(2, 1)], 2) == [(-1, 2)]
    assert farkas.kernel_basis(ctx, [], 2) == [(1, 0), (0, 1)]
    assert farkas.rank(ctx, [(1, 0, 0), (2, 0, 0), (0, 1, 1)], 3) == 2


def test_farkas_dual_of_a_uniform_dependence_is_the_distance_inequality():
    # dep_map: { S[t, i] -> S[t + 1, i - 1] }: a hyperplane (a, b) is legal iff a - b >= 0
    ctx = isl.Context()
    dep = isl.BasicMap("[n] -> { S[t, i] -> S[t + 1, i - 1] : 0 <= t < n and 1 <= i < n }",
                       context=ctx)
    duals = farkas.dual_rows(dep)
    space = farkas.ilp_space(ctx, ["a", "b"])
    coeffs = [{0: 1}, {1: 1}]
    legal = farkas.substitute(duals, ({}, 0), [{}], [pluto._neg(c) for c in coeffs], coeffs)
    ilp = farkas.Ilp(space, legal)
    assert ilp.feasible([farkas.lin_row({0: 1}, -1), farkas.lin_row({1: -1}, 1, True)])
    assert not ilp.feasible([farkas.lin_row({0: 1}, 0, True), farkas.lin_row({1: 1}, -1)])


SIZES = {"figure2": {"T": 4, "I": 7}, "jacobi_2d": {"T": 3, "n": 7}, "gemm_triangular": {"n": 5},
         "sor_1d": {"T": 4, "n": 8}, "reverse_scan": {"n": 6},
         "gemm": {"ni": 4, "nj": 5, "nk": 3}, "backward_sweep": {"T": 3, "n": 7},
         "reversed_consumer": {"n": 6}, "shifted_pair": {"n": 6}}


@pytest.mark.parametrize("balanced", [False, True])
@pytest.mark.parametrize("make", ALL)
def test_schedule_computes_what_the_original_computes(make, balanced):
    scop, schedule = schedule_of(make, balanced)
    assert_same_results(scop, scop, schedule, SIZES[make.__name__])


# -- the ILP's lexmin ------------------------------------------------------------------------
def _ilp(text: str, ctx: isl.Context) -> farkas.Ilp:
    bset = isl.Set.read_from_str(ctx, text).get_basic_sets()[0]
    ilp = farkas.Ilp.__new__(farkas.Ilp)
    ilp.space, ilp.base = bset.get_space(), bset
    return ilp


@pytest.mark.parametrize("text, expected", [
    # in the box of 4 the least point is (1, 0); the whole problem's is (0, 10)
    ("{ [x, y] : x >= 0 and y >= 0 and 10x + y >= 10 }", [0, 10]),
    # beyond every box: the open problem's lexmin
    ("{ [x, y] : x >= 5000 and y >= 0 and y >= 7000 - x }", [5000, 2000]),
    ("{ [x, y] : x >= 0 and y >= 0 and x + y <= -1 }", None),
])
def test_lexmin_is_the_whole_problems_not_the_boxs(text, expected):
    assert _ilp(text, isl.Context()).lexmin([]) == expected


def test_lexmin_of_python_adis_fusion_ilp_is_cheap():
    """Python adi's second Pluto ILP (84 unknowns, 1069 Farkas rows, built as pluto.py builds
    it: the constraints' order matters to isl): isl's lexmin of the open problem ran out of
    600,000 operations in minutes; in the box of 32 the same exact minimum takes few."""
    data = json.loads((Path(__file__).parent / "data" / "pluto_ilp_python_adi.json").read_text())
    ctx = isl.Context()

    def rows(encoded):
        return [farkas.LinRow(tuple(map(tuple, coeffs)), const, is_eq)
                for coeffs, const, is_eq in encoded]

    ilp = farkas.Ilp(farkas.ilp_space(ctx, data["names"]), rows(data["rows"][0]))
    ctx.reset_operations()
    ctx.set_max_operations(100_000)
    try:
        point = ilp.lexmin(rows(data["extra"]))
    finally:
        ctx.set_max_operations(0)
    assert point is not None and point[:12] == [0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12]
