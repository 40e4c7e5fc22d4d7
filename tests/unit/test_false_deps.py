"""Di et al. 2012, Section III-C: Definition 2 and Algorithm 2 on Figure 2 (Figures 7 and 9)."""

import islpy as isl

import polycuda
from polycuda.analysis import dependences
from polycuda.frontend.builder import ScopBuilder
from polycuda.ir.expr import BinOp, Const, Ref, Var
from polycuda.ir.scop import Scop
from polycuda.options import Options
from polycuda.schedule import false_deps, pluto, report
from tests.unit import hand_scops
from tests.unit.test_pluto import assert_legal, assert_same_results


def test_only_the_anti_dependence_0_1_hinders_parallelism():
    """Table I: anti (1,0) and output (1,0) are redundant with the flow (1,0); anti (0,1) is not."""
    found = false_deps.hindering(hand_scops.figure2())
    assert [(d.kind, d.distance) for d in found] == [("anti", (0, 1))]


def test_figure7_copy_statement_and_redirected_read():
    scop = false_deps.eliminate_false_deps(hand_scops.figure2())
    copy, stmt = scop.statements
    assert (copy.name, stmt.name) == ("S0", "S1")
    assert scop.array("A0").local and not scop.array("A").local
    # S0: A0[x] = A[x] at the start of every t iteration, before the i loop
    assert copy.iterators[0] == "t" and copy.beta == (0, 0, 0) and stmt.beta == (0, 1, 0)
    x = Var(copy.iterators[1])
    assert (copy.lhs, copy.op, copy.rhs) == (Ref("A0", (x,)), "=", Ref("A", (x,)))
    assert isl.Set(copy.domain).is_equal(
        isl.Set("[T, I] -> { S0[t, x] : 1 <= t <= T and 2 <= x <= I + 1 }"))
    # S1: A[i] = 0.5 * (A[i] + A0[i + 1])
    assert [r.array for r in stmt.read_refs()] == ["A", "A0"]


def test_figure8_dependences_no_longer_hold_the_anti_dependence_0_1():
    scop = false_deps.eliminate_false_deps(hand_scops.figure2())
    deps = dependences.compute(scop)
    assert ("anti", "S1", "S1", (0, 1)) not in {(d.kind, d.source, d.sink, d.distance)
                                                for d in deps}


def test_figure9_hyperplanes_after_copying():
    """Phi_S0 = [[1,0],[1,1]] + [0,0], Phi_S1 = [[1,0],[1,1]] + [0,1] (balanced, Section III-C)."""
    original = hand_scops.figure2()
    scop = false_deps.eliminate_false_deps(original)
    ctx = isl.Context()
    schedule = pluto.pluto_schedule(scop, balanced=True, ctx=ctx)
    assert_legal(scop, schedule, ctx)
    rows = report.schedule_rows(schedule)
    assert [r["row"] for r in rows["S0"]] == [[1, 0, 0], [1, 1, 0]]
    assert [r["row"] for r in rows["S1"]] == [[1, 0, 0], [1, 1, 1]]
    assert_same_results(original, scop, schedule, {"T": 4, "I": 7})


def test_nests_without_hindering_false_dependences_are_unchanged():
    for make in (hand_scops.sor_1d, hand_scops.jacobi_2d):
        scop = make()
        assert false_deps.eliminate_false_deps(scop) is scop


def jacobi_1d_imperfect() -> Scop:
    """for t: { for i: B[i] = (A[i-1] + A[i] + A[i+1]) / 3;  for j: A[j] = B[j] }"""
    b = ScopBuilder("jacobi_1d_imper")
    b.add_arg("T", "param", "int")
    b.add_arg("n", "param", "int")
    for name in ("A", "B"):
        b.add_arg(name, "array", "double", (Var("n"),))
    b.enter_loop("t", Const(0), BinOp("-", Var("T"), Const(1)), 1)
    b.enter_loop("i", Const(2), BinOp("-", Var("n"), Const(3)), 1)
    i = Var("i")
    total = BinOp("+", BinOp("+", Ref("A", (BinOp("-", i, Const(1)),)), Ref("A", (i,))),
                  Ref("A", (BinOp("+", i, Const(1)),)))
    b.add_statement(Ref("B", (i,)), "=", BinOp("/", total, Const(3.0, "double")))
    b.exit_loop()
    b.enter_loop("j", Const(2), BinOp("-", Var("n"), Const(3)), 1)
    b.add_statement(Ref("A", (Var("j"),)), "=", Ref("B", (Var("j"),)))
    b.exit_loop()
    b.exit_loop()
    return b.build()


def test_loop_independent_anti_dependences_between_sweeps_are_copied_per_time_step():
    original = jacobi_1d_imperfect()
    found = {(d.source, d.sink, d.source_ref) for d in false_deps.hindering(original)}
    assert found == {("S0", "S1", "A[(i - 1)]"), ("S0", "S1", "A[(i + 1)]")}
    scop = false_deps.eliminate_false_deps(original)
    copy, sweep, _ = scop.statements
    assert copy.iterators[0] == "t" and [s.beta for s in scop.statements] == [
        (0, 0, 0), (0, 1, 0), (0, 2, 0)]
    assert [r.array for r in sweep.read_refs()] == ["A0", "A", "A0"]
    ctx = isl.Context()
    schedule = pluto.pluto_schedule(scop, balanced=True, ctx=ctx)
    assert_legal(scop, schedule, ctx)
    assert_same_results(original, scop, schedule, {"T": 3, "n": 9})


def test_a_read_fed_within_the_same_iteration_is_not_copied():
    """reverse_scan: y[i] = s reads the s that s += x[i] wrote in the same iteration."""
    scop = hand_scops.reverse_scan()
    assert false_deps.hindering(scop)
    assert false_deps.eliminate_false_deps(scop) is scop


# Found by the fuzzer (seed 30038, reduced): the convex hull of the two footprints of A lost
# the bound of A's first subscript; the copy of an unbounded set crashed the GPU mapping.
UNBOUNDED_HULL = """
void fuzz(int n, int m, double A[10][n + 4][7])
{
  int i, j;
  double s0;
#pragma scop
  for (i = 1; i <= m - 1; i++) {
    for (j = 1; j <= i + 1; j++) {
      s0 = 0.5 * A[n - i + 1][2 * j][j] + 0.25 * A[5][2 * i + 2][i - 1] + 0.0;
    }
  }
  for (i = 1; i <= n - 1; i++) {
    A[n - i - 1][i - 1][3] = 0.1;
  }
#pragma endscop
}
"""


def test_no_copy_of_an_unbounded_footprint():
    prog = polycuda.compile(UNBOUNDED_HULL, filename="fuzz.c",
                            options=Options(scheduler="pluto", eliminate_false_deps=True))
    copied = false_deps.eliminate_false_deps(prog.scop)
    assert all(isl.Set(s.domain).is_bounded() for s in copied.statements)
    results = prog.verify({"n": 9, "m": 6}, targets=("c", "openmp", "emulate"))
    assert len(results) == 3 and all(r.ok for r in results)


# -- copies of values from before a loop nest (copy_original_reads) ------------------------
TRMM = """
void trmm(int m, int n, double alpha, double A[m][m], double B[m][n])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      for (k = i + 1; k < m; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
#pragma endscop
}
"""

# Gauss-Seidel in place: A[i + 1] is read before it is written, but A[i - 1] was written in
# the same nest: the nest's loop carries a flow dependence that no copy can remove.
SEIDEL = """
void seidel(int n, double A[n])
{
  int i;
#pragma scop
  for (i = 1; i < n - 1; i++)
    A[i] = 0.5 * (A[i - 1] + A[i + 1]);
#pragma endscop
}
"""


def test_trmm_reads_original_rows_from_a_copy_and_its_i_loop_is_freed():
    scop = polycuda.compile(TRMM, filename="trmm.c").scop
    ctx = isl.Context()
    product = scop.statements[0]
    assert false_deps.carried_loops(scop, product, ctx) == {0, 2}  # i (anti) and k (flow)
    copied = false_deps.copy_original_reads(scop)
    copy, product, scale = copied.statements
    assert copy.lhs.array == "B0" and copy.rhs.array == "B" and copy.beta[0] == 0
    assert [r.array for r in product.read_refs()] == ["B", "A", "B0"]  # B[k][j] -> B0[k][j]
    assert false_deps.carried_loops(copied, product, ctx) == {2}


def test_a_read_with_a_source_in_its_nest_is_not_copied():
    scop = polycuda.compile(SEIDEL, filename="seidel.c").scop
    assert false_deps.copy_original_reads(scop) == scop


def test_trmm_default_cuda_has_a_two_dimensional_product_kernel_and_verifies():
    prog = polycuda.compile(TRMM, filename="trmm.c", options=Options(target="cuda"))
    gen = prog.generate("cuda")
    assert gen.choice.startswith("auto: isl-distributed")
    assert "dim3(32, 8)" in gen.source and "dim3(256)>>>" not in gen.source
    assert all(r.ok for r in prog.verify({"m": 21, "n": 13},
                                         targets=("c", "openmp", "emulate")))


# Fuzz seed 40027: the convex hull of the footprint, taken with n as a dimension, reached past
# B at n = 8; the copy read B and wrote B0 past their ends (heap corruption in the process).
HULL_PAST_END = """
void hull(int n, double alpha, double B[6][n], double C[n - 4])
{
  int i;
#pragma scop
  for (i = 2; i <= n - 1; i++) {
    if (3 >= i) {
      B[i - 1][i - 2] += 0.5 * B[i - 2][i - 1] + 0.25 * B[n - i - 4][i + 1] + 0.3 * B[i - 1][n - i - 1] + alpha;
    } else {
      B[i - 2][i] += 0.5 * C[i - 4] + 0.1;
    }
  }
#pragma endscop
}
"""


def test_a_copy_keeps_to_its_array_at_every_parameter_value():
    from polycuda.analysis.bounds import BoundsChecker

    prog = polycuda.compile(HULL_PAST_END, filename="hull.c")
    copied = false_deps.copy_original_reads(prog.scop)
    assert any(s.lhs.array == "B0" for s in copied.statements)
    for n in range(8, 14):  # the copy statement (the program itself fits B only at n = 8)
        bad = BoundsChecker(copied).violations({"n": n})
        assert not [v for v in bad if v.stmt.lhs.array == "B0"], (n, bad)
    assert all(r.ok for r in prog.verify({"n": 8}, targets=("c", "openmp", "emulate")))


# Two trmm-like nests: two copy candidates, each needing the loops carried with and without it
TWO_CANDIDATES = """
void two(int m, int n, double A[m][m], double B[m][n], double C[m][n])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      for (k = i + 1; k < m; k++)
        B[i][j] += A[k][i] * B[k][j];
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      for (k = i + 1; k < m; k++)
        C[i][j] += A[k][i] * C[k][j];
#pragma endscop
}
"""


def test_copy_original_reads_runs_the_dataflow_analysis_once(monkeypatch):
    # each candidate copy is judged on the dependences of the original scop, minus those of
    # the reads it redirects: one dataflow analysis, not one or two per candidate (a random
    # 20-statement region spent most of its compile there)
    scop = polycuda.compile(TWO_CANDIDATES, filename="two.c").scop
    dependences._MAPS.clear()
    calls = []
    real = dependences._dependence_maps
    monkeypatch.setattr(dependences, "_dependence_maps",
                        lambda s, ctx: calls.append(s) or real(s, ctx))
    copied = false_deps.copy_original_reads(scop)
    assert {"B0", "C0"} <= {s.lhs.array for s in copied.statements}
    assert len(calls) == 1
