"""isl's AST checked against the domain (codegen/ast_check.py, issue 40): the check agrees with
running isl's own C of the AST, catches isl losing instances of a fuzz program's schedule
(seed 40091), and the compile rebuilds, falls back or refuses, always saying so."""

from __future__ import annotations

import subprocess
import warnings
from pathlib import Path

import islpy as isl
import pytest

import polycuda
from polycuda import program
from polycuda.codegen import ast_check
from polycuda.errors import PolycudaError, PolycudaWarning
from polycuda.schedule import fallback

DATA = Path(__file__).parent / "data"
JACOBI_1D = """
void jacobi_1d(int T, int n, double A[n], double B[n])
{
  int t, i;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
#pragma endscop
}
"""


def _leaves(ctx, *sets):
    leaves = ast_check.LeafDomains()
    leaves.leaves = [isl.UnionSet(s, context=ctx) for s in sets]
    return leaves


def test_check_accepts_a_partition_and_names_lost_repeated_and_extra_instances():
    ctx = isl.Context()
    domain = isl.UnionSet("[n] -> { S[i] : 0 <= i < n; T[i] : 0 <= i < 2 }", context=ctx)
    context = isl.Set("[n] -> { : n >= 0 }", context=ctx)
    ast_check.check(domain, context, _leaves(
        ctx, "[n] -> { S[i] : 0 <= i < 5 and i < n }", "[n] -> { S[i] : 5 <= i < n }",
        "[n] -> { T[i] : 0 <= i < 2 }"))
    cases = {"loses": ("[n] -> { S[i] : 0 <= i < n - 1 }", "{ T[i] : 0 <= i < 2 }"),
             "two leaves": ("[n] -> { S[i] : 0 <= i < n }", "[n] -> { S[i] : i = 0 < n }",
                            "{ T[i] : 0 <= i < 2 }"),
             "outside the domain": ("[n] -> { S[i] : 0 <= i <= n }", "{ T[i] : 0 <= i < 2 }"),
             "no leaf runs T": ("[n] -> { S[i] : 0 <= i < n }",)}
    for words, sets in cases.items():
        with pytest.raises(ast_check.AstNotExact, match=words):
            ast_check.check(domain, context, _leaves(ctx, *sets))


def _isl_c_instances(ast: isl.AstNode, tmp_path: Path, params: dict[str, int],
                     statements: tuple[str, ...] = ("S0", "S1")) -> list[tuple]:
    """Run isl's own C of `ast` (each statement call prints its arguments)."""
    macros = "\n".join(
        f'#define {s}(...) pr("{s}", (long[]){{__VA_ARGS__}}, '
        f"sizeof((long[]){{__VA_ARGS__}}) / sizeof(long))" for s in statements)
    decls = " ".join(f"long {k} = {v};" for k, v in params.items())
    src = tmp_path / "ast.c"
    src.write_text(
        "#include <stdio.h>\n"
        "#define floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))\n"
        "#define min(a, b) ((a) < (b) ? (a) : (b))\n#define max(a, b) ((a) > (b) ? (a) : (b))\n"
        "static void pr(const char *s, long *v, int n) { printf(\"%s\", s);\n"
        "  for (int i = 0; i < n; i++) printf(\" %ld\", v[i]); printf(\"\\n\"); }\n"
        f"{macros}\nint main(void) {{ {decls}\n{ast.to_C_str()}\n  return 0; }}\n")
    subprocess.run(["gcc", "-w", "-o", str(tmp_path / "ast"), str(src)], check=True)
    out = subprocess.run([str(tmp_path / "ast")], capture_output=True, text=True, check=True)
    return [(line.split()[0], *map(int, line.split()[1:])) for line in out.stdout.splitlines()]


def _points(uset: isl.UnionSet) -> set[tuple]:
    found: set[tuple] = set()

    def each(s: isl.Set) -> None:
        name, n = s.get_tuple_name(), s.dim(isl.dim_type.set)
        s.foreach_point(lambda p: found.add((name, *(
            p.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(n)))))

    uset.foreach_set(each)
    return found


def test_isl_loses_instances_of_fuzz_seed_40091_and_the_check_says_so(tmp_path):
    """The Pluto schedule of tests/unit/data/isl_ast_bug_40091.c (balanced wavefronts, tiled),
    at n = 7, m = 4: isl's AST runs 10 of the 15 instances; the check fails it, and its verdict
    is the one of running isl's C."""
    ctx = isl.Context()
    schedule = isl.Schedule.read_from_str(
        ctx, (DATA / "isl_ast_bug_40091.schedule").read_text())
    context = isl.Set("[n, m] -> { : n = 7 and m = 4 }", context=ctx)

    def build_ast(sched: isl.Schedule, leaves: ast_check.LeafDomains) -> isl.AstNode:
        build, handle = isl.AstBuild.from_context(context).set_at_each_domain(leaves.hook())
        return build.node_from_schedule(sched)

    leaves = ast_check.LeafDomains()
    ran = _isl_c_instances(build_ast(schedule, leaves), tmp_path, {"n": 7, "m": 4})
    wanted = _points(schedule.get_domain().intersect_params(context))
    assert len(ran) == len(set(ran)) and set(ran) < wanted  # isl's AST loses instances
    with pytest.raises(ast_check.AstNotExact, match="loses the instances"):
        ast_check.check(schedule.get_domain(), context, leaves)


def _failing_first(monkeypatch, tmp_path: Path, failures: int) -> None:
    """ast_check.check fails its first `failures` calls, counted over the forked AST builds
    too (in a file)."""
    count = tmp_path / "calls"
    count.write_text("0")
    check = ast_check.check

    def flaky(domain, context, leaves):
        calls = int(count.read_text()) + 1
        count.write_text(str(calls))
        if calls <= failures:
            raise ast_check.AstNotExact("it loses the instances { S0[0] } (test)")
        check(domain, context, leaves)

    monkeypatch.setattr(ast_check, "check", flaky)


def _compiled(scheduler: str = "isl") -> tuple:
    """The program, its generated code (compiled afresh) and the PolycudaWarnings said."""
    options = polycuda.Options(target="c", scheduler=scheduler, progress=False)
    prog = polycuda.compile(JACOBI_1D, options=options)
    program._generate.cache_clear()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        generated = prog.generate()
    return prog, generated, [str(w.message) for w in seen
                             if issubclass(w.category, PolycudaWarning)]


def test_a_failed_check_rebuilds_with_atomic_loops_and_says_so(monkeypatch, tmp_path):
    _failing_first(monkeypatch, tmp_path, 1)
    prog, generated, said = _compiled()
    assert any("isl's default AST: it loses" in m and "atomic loops used" in m for m in said)
    assert "atomic loops used" in generated.choice
    assert all(r.ok for r in prog.verify({"T": 3, "n": 20}, targets=("c",)))


def test_every_loop_type_failing_falls_back_to_the_original_order(monkeypatch, tmp_path):
    _failing_first(monkeypatch, tmp_path, len(ast_check.LOOP_TYPES))
    prog, generated, said = _compiled()
    assert any("AST build given up" in m and "AstNotExact" in m for m in said)
    assert f"used: {fallback.ORIGINAL_ORDER}" in generated.choice
    assert all(r.ok for r in prog.verify({"T": 3, "n": 20}, targets=("c",)))


def test_no_exact_ast_at_all_is_an_error_not_code(monkeypatch, tmp_path):
    _failing_first(monkeypatch, tmp_path, 10**6)
    with pytest.raises(PolycudaError, match="no code is generated"):
        _compiled()


def test_original_order_where_isl_cannot_build_the_schedule_map(tmp_path):
    """Fuzz seed 60589: isl's AST build of the original-order map fails on an `n % (-2)`
    bound; the one-band tree of the same order builds, checked, and runs every instance."""
    from polycuda.frontend import c as cfront
    from polycuda.ir import isl_build

    (scop,) = cfront.parse_file(DATA / "isl_ast_map_60589.c")
    ctx = isl.Context()
    schedule = isl_build.original_schedule(scop, ctx)
    with pytest.raises(isl.Error, match="unknown divs"):
        isl.AstBuild.from_context(isl_build.context_set(scop, ctx)).node_from_schedule_map(
            schedule)
    params = {"n": 9, "m": 6}
    context = isl.Set("[n, m] -> { : n = 9 and m = 6 }", context=ctx)
    ast = ast_check.original_ast(context, schedule)
    ran = _isl_c_instances(ast, tmp_path, params, ("S0", "S1", "S2", "S3"))
    assert ran and len(ran) == len(set(ran))
    assert set(ran) == _points(schedule.domain().intersect_params(context))
