"""Subscript forms of stencils (issue 41, item 6): ping-pong buffers `T[t % 2]`, `B[i / 2]`, and
border clamps with min, max and `?:` in subscripts, static accesses with exact dependences.

A clamp `A[max(i - 1, 0)]` is a piecewise affine access, one piece per condition
({ S[i] -> A[i - 1] : i >= 1; S[i] -> A[0] : i = 0 }); C's '/' and '%' truncate toward zero
(a case split on the numerator's sign), Python's floor. Each program must compile, keep
parallel loops (OpenMP and CUDA with threads) and verify against the original on c, openmp
(shuffled parallel loops) and emulated CUDA.
"""

from __future__ import annotations

import math
from pathlib import Path

import islpy as isl
import numpy as np
import pytest

import polycuda
from polycuda.analysis.bounds import OutOfBoundsError
from polycuda.errors import NotAffineError
from polycuda.ir import isl_build
from polycuda.ir.c_expr import expr_to_c
from polycuda.show import schedule_of

INPUTS = Path(__file__).parent / "c_inputs"
TARGETS = ("c", "openmp", "emulate")

C_CASES = {
    "pingpong_jacobi": {"tsteps": 5, "n": 20},
    "clamp_ternary": {"tsteps": 4, "n": 17},
    "clamp_minmax": {"tsteps": 4, "n": 17},
    "half_gather": {"n": 20, "m": 7},  # i - m < 0 for i < 7: C's '/' and '%' truncate there
}

MINMAX = "#define min(a, b) ((a) < (b) ? (a) : (b))\n#define max(a, b) ((a) > (b) ? (a) : (b))\n"

C_CLAMP_2D = MINMAX + """
void clamp_2d(int tsteps, int n, double A[n][n], double B[n][n]) {
#pragma scop
  for (int t = 0; t < tsteps; t++) {
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        B[i][j] = 0.2 * (A[i][j] + A[max(i - 1, 0)][j] + A[min(i + 1, n - 1)][j]
                         + A[i][j == 0 ? 0 : j - 1] + A[i][j == n - 1 ? j : j + 1]);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        A[i][j] = B[i][j];
  }
#pragma endscop
}
"""


def _compile_input(name: str) -> polycuda.Program:
    path = INPUTS / f"{name}.c"
    return polycuda.compile(path.read_text(), filename=str(path))


def _assert_parallel(prog: polycuda.Program) -> None:
    omp = prog.generate("openmp").source
    assert "#pragma omp parallel for" in omp or "#pragma omp for" in omp, omp
    kernels = prog.generate("cuda").kernels
    assert kernels, "no CUDA kernel"
    assert any(not k.serial and math.prod(k.block_sizes) > 1 for k in kernels), kernels


def _read_map(prog: polycuda.Program, stmt_name: str, text: str,
              ctx: isl.Context) -> isl.Map:
    """The access map (restricted to the domain) of the first read whose C text holds `text`."""
    stmt = next(s for s in prog.scop.statements if s.name == stmt_name)
    for access in isl_build.statement_accesses(prog.scop, stmt):
        if not access.is_write and text in expr_to_c(access.ref):
            return isl_build.access_map(access, stmt, ctx, tagged=False)
    raise AssertionError(f"no read of {stmt_name} holds {text}")


def _indices_at(prog: polycuda.Program, stmt_name: str, text: str,
                point: dict[str, int]) -> list[int]:
    """The (1-D) indices that read reaches at one point: parameters and iterators fixed."""
    ctx = isl.Context()
    amap = _read_map(prog, stmt_name, text, ctx)
    stmt = next(s for s in prog.scop.statements if s.name == stmt_name)
    fixed = " and ".join(f"{k} = {v}" for k, v in point.items())
    at = isl.Set.read_from_str(ctx, f"[{', '.join(prog.scop.params)}] -> "
                                    f"{{ {stmt_name}[{', '.join(stmt.iterators)}] : {fixed} }}")
    found: list[int] = []
    amap.intersect_domain(at).range().foreach_point(
        lambda p: found.append(p.get_coordinate_val(isl.dim_type.set, 0).to_python()))
    return sorted(found)


@pytest.mark.parametrize("name", sorted(C_CASES))
def test_c_subscript_form_is_parallel_and_verifies(name):
    prog = _compile_input(name)
    _assert_parallel(prog)
    results = prog.verify(C_CASES[name], targets=TARGETS)
    assert len(results) == 3 and all(r.ok for r in results), results


def test_pingpong_space_loops_are_parallel_or_skewed_in_time():
    # exact dependences: flow and anti (1, +-1, 0), (1, 0, +-1), output (2, 0, 0); a
    # conservative access T[*][i][j] would add (0, ...) dependences and serialize i and j
    (stmt,) = schedule_of(_compile_input("pingpong_jacobi"))["statements"]
    rows, parallel = stmt["hyperplanes"], stmt["parallel"]
    assert rows[0][:3] == [1, 0, 0] and not parallel[0]
    assert all(parallel[1:]) or all(row[0] == 1 for row in rows), stmt


def test_clamp_access_is_the_union_of_its_pieces():
    prog = _compile_input("clamp_minmax")
    ctx = isl.Context()
    low = _read_map(prog, "S0", "max", ctx)
    expected = isl.Map.read_from_str(
        ctx,
        "[tsteps, n] -> { S0[t, i] -> A[i - 1] : 0 <= t < tsteps and 1 <= i < n; "
        "S0[t, 0] -> A[0] : 0 <= t < tsteps and n >= 1 }")
    assert low.is_equal(expected), low
    prog = _compile_input("clamp_ternary")
    high = _read_map(prog, "S0", "(n - 1)", ctx)
    expected = isl.Map.read_from_str(
        ctx,
        "[tsteps, n] -> { S0[t, x] -> A[x + 1] : 0 <= t < tsteps and 0 <= x < n - 1; "
        "S0[t, x] -> A[x] : 0 <= t < tsteps and x = n - 1 and n >= 1 }")
    assert high.is_equal(expected), high


def test_c_negative_numerator_truncates_in_the_access():
    prog = _compile_input("half_gather")
    at = {"n": 20, "m": 7, "i": 6}
    # (6 - 7) / 2 == 0 and (-1) % 2 == -1 in C; isl's floor would give A[6] and A[2]
    assert _indices_at(prog, "S0", "/", at) == [7]
    assert _indices_at(prog, "S1", "%", at) == [0]


def test_clamped_2d_stencil_with_min_max_and_conditionals_verifies():
    prog = polycuda.compile(C_CLAMP_2D, filename="clamp_2d.c")
    _assert_parallel(prog)
    results = prog.verify({"tsteps": 3, "n": 37}, targets=TARGETS)
    assert all(r.ok for r in results), results


@pytest.mark.parametrize("write", ["B[min(i, 5)] = A[i] + B[min(i, 5)];",
                                   "B[i < 5 ? i : 5] = A[i] + B[i];"])
def test_clamped_write_keeps_its_output_dependences(write):
    # every i >= 5 writes B[5]: the last writer must stay last in the parallel targets too
    source = (MINMAX + "void f(int n, double A[n], double B[n]) {\n#pragma scop\n"
              f"  for (int i = 0; i < n; i++)\n    {write}\n#pragma endscop\n}}\n")
    results = polycuda.compile(source, filename="w.c").verify({"n": 12}, targets=TARGETS)
    assert all(r.ok for r in results), results


def test_truth_value_condition_in_a_subscript():
    source = ("void f(int n, double A[n], double B[n]) {\n#pragma scop\n"
              "  for (int i = 0; i < n; i++)\n    B[i] = A[i ? i - 1 : 0] + A[!i ? 1 : i];\n"
              "#pragma endscop\n}\n")
    prog = polycuda.compile(source, filename="truth.c")
    _assert_parallel(prog)
    assert all(r.ok for r in prog.verify({"n": 9}, targets=TARGETS))


@pytest.mark.parametrize("subscript, needle", [
    ("(i * i > 3) ? i : 0", "conditional '\\?:' whose condition is not affine"),
    ("min(i * i, n - 1)", "multiplies two non-constant terms"),
    ("max(i, 0) % n", "divides by a non-constant"),
])
def test_non_affine_piece_is_refused_at_its_line(subscript, needle):
    source = (MINMAX + "void f(int n, double A[n], double B[n]) {\n#pragma scop\n"
              f"  for (int i = 0; i < n; i++)\n    B[i] = A[{subscript}];\n#pragma endscop\n}}\n")
    with pytest.raises(NotAffineError, match=needle) as info:
        polycuda.compile(source, filename="bad.c")
    assert info.value.loc is not None and info.value.loc.line == 6


# -- Python: floor '%' and '//', min/max and `a if c else b` in subscripts ---------------------
def py_pingpong(tsteps, n, T):
    for t in range(tsteps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                T[(t + 1) % 2, i, j] = 0.2 * (T[t % 2, i, j] + T[t % 2, i - 1, j]
                                              + T[t % 2, i + 1, j] + T[t % 2, i, j - 1]
                                              + T[t % 2, i, j + 1])


def py_clamp_minmax(tsteps, n, A, B):
    for t in range(tsteps):
        for i in range(n):
            B[i] = 0.25 * A[max(i - 1, 0)] + 0.5 * A[i] + 0.25 * A[min(i + 1, n - 1)]
        for i in range(n):
            A[i] = B[i]


def py_clamp_ternary(n, A, B):
    for i in range(n):
        B[i] = A[i if i == 0 else i - 1] + A[i if i == n - 1 else i + 1]


def py_negative_floor(n, m, A, B):
    for i in range(n):
        B[i] = A[(i - m) % 3] + A[(i - m) // 2 + m]


PY_CASES = [
    (py_pingpong, (5, 14, np.zeros((2, 14, 14)))),
    (py_clamp_minmax, (4, 17, np.zeros(17), np.zeros(17))),
    (py_clamp_ternary, (12, np.zeros(12), np.zeros(12))),
    (py_negative_floor, (12, 7, np.zeros(12), np.zeros(12))),
]


@pytest.mark.parametrize("fn, args", PY_CASES, ids=[f.__name__ for f, _ in PY_CASES])
def test_python_subscript_form_is_parallel_and_verifies(fn, args):
    jit = polycuda.jit(fn)
    prog = jit.program(*args)
    _assert_parallel(prog)
    sizes = {a.name: int(v) for a, v in zip(prog.scop.args, args) if a.kind == "param"}
    results = prog.verify(sizes, targets=TARGETS)
    assert len(results) == 3 and all(r.ok for r in results), results


def test_python_modulo_floors_in_the_access():
    prog = polycuda.jit(py_negative_floor).program(12, 7, np.zeros(12), np.zeros(12))
    at = {"n": 12, "m": 7, "A_d0": 12, "B_d0": 12, "i": 6}
    # Python: (-1) % 3 == 2 and (-1) // 2 + 7 == 6 (C's truncation would give -1 and 7)
    assert _indices_at(prog, "S0", "3)", at) == [2]
    assert _indices_at(prog, "S0", "2)", at) == [6]


def test_bounds_check_sees_each_piece():
    # the first clamp's unclamped branch alone would read A[n] (i = n - 1): only the second
    # read's piece at i = 0 is out of bounds
    source = ("void f(int n, double A[n], double B[n]) {\n#pragma scop\n"
              "  for (int i = 0; i < n; i++)\n"
              "    B[i] = A[(i == n - 1) ? i : i + 1] + A[(i == 0) ? i - 1 : i];\n"
              "#pragma endscop\n}\n")
    prog = polycuda.compile(source, filename="oob.c")
    with pytest.raises(OutOfBoundsError, match=r"reads 'A' at index -1\.\.7 along dimension 0"):
        prog.verify({"n": 8}, targets=("c",))


def test_index_array_read_at_a_clamped_subscript():
    # idx[max(i - 1, 0)]: the index array's own subscript is piecewise, its value run-time
    source = (MINMAX + "void f(int n, int m, int idx[n], double x[m], double A[n], "
              "double B[n]) {\n#pragma scop\n  for (int i = 0; i < n; i++)\n"
              "    B[i] = x[idx[i]] + A[min(i + 1, n - 1)] + x[idx[max(i - 1, 0)]];\n"
              "#pragma endscop\n}\n")
    prog = polycuda.compile(source, filename="ind.c")
    assert "#pragma omp parallel for" in prog.generate("openmp").source
    results = prog.verify({"n": 20, "m": 9}, targets=TARGETS)
    assert all(r.ok for r in results), results


def test_locality_model_takes_the_moving_piece_of_a_clamp():
    # A[max(i - 1, 0)] moves with i (its border piece A[0] holds one point per t): it counts as
    # A[i]'s reference, not as a reference that stays in one line for the whole tile
    from polycuda.schedule import dl_model

    prog = _compile_input("clamp_minmax")
    found = dl_model.references(prog.scop, prog.scop.statements[0], isl.Context())
    assert {(r.array, r.rows) for r in found} == {("B", ((0, 1),)), ("A", ((0, 1),))}, found
