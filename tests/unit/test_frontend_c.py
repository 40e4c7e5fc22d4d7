"""The C frontend: regions -> Scops, error locations, includes, rewriting, reference builds."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import islpy as isl
import numpy as np
import pytest

from polycuda.analysis import dependences
from polycuda.errors import (
    NotAffineError,
    UnsupportedConstruct,
    UserError,
)
from polycuda.frontend import c as cfront
from polycuda.ir import isl_build
from polycuda.ir.expr import BinOp, Const, Ref, Var

INPUTS = Path(__file__).parent / "c_inputs"


def parse_one(text: str, **kwargs):
    scops = cfront.parse_source(text, "kernel.c", **kwargs)
    assert len(scops) == 1
    return scops[0]


def same_set(text_a: str, text_b: str) -> bool:
    return isl.Set(text_a).is_equal(isl.Set(text_b))


def region_fn(signature: str, body: str, decls: str = "int i, j, k;") -> str:
    return f"{signature}\n{{\n  {decls}\n#pragma scop\n{body}\n#pragma endscop\n}}\n"


# -- representative kernels -----------------------------------------------------------------------
FIG2 = region_fn("void fig2(int T, int I, double A[I+2])",
                 "  for (t=1; t<=T; t++) for (i=1; i<=I; i++) A[i]=0.5*(A[i]+A[i+1]);",
                 "int t, i;")


def test_figure2_of_di2012_gives_table_1():
    scop = parse_one(FIG2)
    assert scop.name == "fig2"
    assert [(a.name, a.kind) for a in scop.args] == [("T", "param"), ("I", "param"),
                                                       ("A", "array")]
    (stmt,) = scop.statements
    assert same_set(stmt.domain, "[T, I] -> { S0[t, i] : 1 <= t <= T and 1 <= i <= I }")
    found = sorted((d.kind, d.distance) for d in dependences.compute(scop))
    assert found == sorted([("flow", (1, 0)), ("flow", (1, -1)), ("anti", (0, 1)),
                            ("anti", (1, 0)), ("output", (1, 0))])


def test_jacobi_two_statements_in_textual_order():
    body = """
  for (t = 0; t < T; t++) {
    for (i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i-1] + A[i] + A[i + 1]);
    for (i = 1; i < n - 1; i++)
      A[i] = B[i];
  }"""
    scop = parse_one(region_fn("void jacobi_1d(int T, int n, double A[n], double B[n])", body,
                               "int t, i;"))
    s0, s1 = scop.statements
    for stmt in (s0, s1):
        assert same_set(stmt.domain.replace(stmt.name, "S"),
                        "[T, n] -> { S[t, i] : 0 <= t < T and 1 <= i <= n - 2 }")
    assert s0.beta == (0, 0, 0) and s1.beta == (0, 1, 0)
    assert s0.lhs == Ref("B", (Var("i"),)) and s1.rhs == Ref("B", (Var("i"),))
    assert scop.array("A").shape == (Var("n"),)


def test_gemm_with_vla_parameters_and_scalars():
    (scop,) = cfront.parse_file(INPUTS / "gemm.c")
    assert [(a.name, a.kind, a.dtype) for a in scop.args] == [
        ("ni", "param", "int"), ("nj", "param", "int"), ("nk", "param", "int"),
        ("alpha", "scalar", "double"), ("beta", "scalar", "double"),
        ("C", "array", "double"), ("A", "array", "double"), ("B", "array", "double")]
    assert scop.array("A").shape == (Var("ni"), Var("nk"))
    s0, s1 = scop.statements
    assert (s0.op, s1.op) == ("*=", "+=")
    assert same_set(s1.domain, "[ni, nj, nk, alpha, beta] -> { S1[i, k, j] : 0 <= i < ni and "
                               "0 <= k < nk and 0 <= j < nj }".replace(", alpha, beta", ""))
    assert s1.rhs == BinOp("*", BinOp("*", Var("alpha"), Ref("A", (Var("i"), Var("k")))),
                           Ref("B", (Var("k"), Var("j"))))


def test_triangular_loop():
    body = """  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++)
      L[i][j] = L[i][j] / L[j][j];"""
    scop = parse_one(region_fn("void tri(int n, float L[n][n])", body))
    assert same_set(scop.statements[0].domain,
                    "[n] -> { S0[i, j] : 0 <= i < n and 0 <= j <= i }")
    assert scop.array("L").dtype == "float"


@pytest.mark.parametrize("lower, upper", [
    ("max(a, b)", "min(c, d)"),
    ("MAX(a, b)", "MIN(c, d)"),
    ("(a > b ? a : b)", "(c < d ? c : d)"),
    ("(b >= a ? b : a)", "(d <= c ? d : c)"),
])
def test_min_max_bounds(lower, upper):
    prelude = "#define MAX(x, y) ((x) > (y) ? (x) : (y))\n#define MIN(x, y) ((x) < (y) ? (x) : (y))\n"
    body = f"  for (i = {lower}; i <= {upper}; i++)\n    A[i] = 0.0;"
    scop = parse_one(prelude + region_fn("void mm(int a, int b, int c, int d, double A[100])",
                                         body))
    assert same_set(scop.statements[0].domain,
                    "[a, b, c, d] -> { S0[i] : i >= a and i >= b and i <= c and i <= d }")


def test_upper_bound_with_strict_min_and_conjunction():
    body = "  for (i = 0; i < min(n, m) && i < 50; i++)\n    A[i] = 1.0;"
    scop = parse_one(region_fn("void f(int n, int m, double A[n])", body))
    assert same_set(scop.statements[0].domain,
                    "[n, m] -> { S0[i] : 0 <= i and i < n and i < m and i < 50 }")


@pytest.mark.parametrize("step", ["i--", "--i", "i -= 1", "i = i - 1"])
def test_decreasing_loops(step):
    body = f"  for (i = n - 1; i >= 1; {step})\n    A[i] = A[i - 1];"
    scop = parse_one(region_fn("void shift(int n, double A[n])", body))
    stmt = scop.statements[0]
    assert stmt.loop_directions() == (-1,)
    assert same_set(stmt.domain, "[n] -> { S0[i] : 1 <= i <= n - 1 }")
    # the copy runs downward: the read of A[i-1] happens after the write of A[i], no flow dep
    assert {d.kind for d in dependences.compute(scop)} == {"anti"}


@pytest.mark.parametrize("step", ["i++", "++i", "i += 1", "i = i + 1", "i = 1 + i"])
def test_increasing_steps(step):
    scop = parse_one(region_fn("void f(int n, double A[n])",
                               f"  for (i = 0; n > i; {step})\n    A[i] = 2.0;"))
    assert same_set(scop.statements[0].domain, "[n] -> { S0[i] : 0 <= i < n }")


def test_decreasing_loop_with_strict_bound_and_iterator_declared_in_for():
    body = "  for (int i = n; i > 0; i--)\n    A[i - 1] += 1;"
    scop = parse_one(region_fn("void f(int n, double A[n])", body, ""))
    assert same_set(scop.statements[0].domain, "[n] -> { S0[i] : 1 <= i <= n }")


def test_if_else_conditions():
    body = """  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      if (i == j || (i < j && !(j > 2 * i)))
        A[i][j] = 1.0;
      else
        A[i][j] = 0.0;"""
    scop = parse_one(region_fn("void f(int n, double A[n][n])", body))
    s0, s1 = scop.statements
    base = "0 <= i < n and 0 <= j < n"
    cond = "(i = j or (i < j and j <= 2i))"
    assert same_set(s0.domain, f"[n] -> {{ S0[i, j] : {base} and {cond} }}")
    assert same_set(s1.domain, f"[n] -> {{ S1[i, j] : {base} and not {cond} }}")


def test_local_scalars_declared_inside_and_outside_the_region():
    body = """  for (i = 0; i < n; i++) {
    double acc = 0.0;
    for (j = 0; j < n; j++)
      acc += A[i][j];
    tmp = acc * 0.5f;
    x[i] = tmp;
  }"""
    scop = parse_one(region_fn("void rowsum(int n, double A[n][n], double x[n])", body,
                               "int i, j; double tmp;"))
    locals_ = {a.name: a for a in scop.arrays if a.local}
    assert set(locals_) == {"acc", "tmp"} and locals_["acc"].shape == ()
    init, acc, store_tmp, _ = scop.statements
    assert init.lhs == Ref("acc", ()) and init.rhs == Const(0.0, "double")
    assert same_set(init.domain, "[n] -> { S0[i] : 0 <= i < n }")
    assert acc.op == "+=" and acc.iterators == ("i", "j")
    assert store_tmp.rhs == BinOp("*", Ref("acc", ()), Const(0.5, "float"))


def test_read_only_locals_and_int_locals_are_substituted():
    body = """  for (i = 0; i < half; i++) {
    int k = 2 * i + 1;
    x[k] = x[k] <= eps ? 1.0 : x[k];
  }"""
    scop = parse_one(region_fn("void f(int n, double x[n])", body,
                               "int i; int half = n / 2; double eps = 0.1;"))
    stmt = scop.statements[0]
    assert not any(a.local for a in scop.arrays)
    assert same_set(stmt.domain, "[n] -> { S0[i] : 0 <= i and 2i + 2 <= n }")
    assert stmt.lhs == Ref("x", (BinOp("+", BinOp("*", Const(2), Var("i")), Const(1)),))


def test_floord_ceild_and_division_in_bounds():
    prelude = ("#define floord(n,d) (((n)<0) ? -((-(n)+(d)-1)/(d)) : (n)/(d))\n"
               "#define ceild(n,d) (((n)<0) ? -((-(n))/(d)) : ((n)+(d)-1)/(d))\n")
    body = """  for (i = ceild(m, 3); i <= floord(n, 2); i++)
    for (j = 0; j <= (n - 1) / 4; j++)
      A[i][j] = 1.0;"""
    scop = parse_one(prelude + region_fn("void f(int n, int m, double A[n][n])", body))
    # C's (n - 1) / 4 rounds toward zero: 0 (one iteration of j) for -2 <= n <= 0
    assert same_set(scop.statements[0].domain,
                    "[n, m] -> { S0[i, j] : 3i >= m and 2i <= n and 0 <= j and 4j <= n - 1; "
                    "S0[i, 0] : 3i >= m and 2i <= n and -2 <= n <= 0 }")


def test_explicit_floord_ceild_calls():
    body = """  for (i = floord(n, 2); i <= ceild(m, 2); i++)
    A[i] = 1.0;"""
    scop = parse_one(region_fn("void f(int n, int m, double A[n])", body))
    assert same_set(scop.statements[0].domain,
                    "[n, m] -> { S0[i] : 2i >= n - 1 and 2i <= m + 1 }")


def test_c_division_in_subscripts_keeps_c_semantics():
    """C '/' stays C's truncating division in the IR (printed as written); its access relation
    is exact where the numerator is negative; a division by a variable is refused at it."""
    body = "  for (i = -n; i < n; i++)\n    A[(i + n) / 2] = A[i / 2];"
    scop = parse_one(region_fn("void f(int n, double A[n])", body))
    stmt = scop.statements[0]
    assert stmt.lhs.index[0] == BinOp("/", BinOp("+", Var("i"), Var("n")), Const(2))
    read = isl_build.statement_accesses(scop, stmt)[1]
    # trunc(i / 2): i = -3 and i = -2 read A[-1], i = -1, 0, 1 read A[0]
    assert isl.Map(read.index_map).is_equal(isl.Map(
        "[n] -> { S0[i] -> A[o] : (i >= 0 and 2o <= i < 2o + 2) or "
        "(i < 0 and 2o - 2 < i <= 2o) }"))
    body = "  for (i = 0; i < n; i++)\n    A[i / n] = 1.0;"
    with pytest.raises(NotAffineError, match="non-constant") as info:
        parse_one(region_fn("void f(int n, double A[n])", body))
    assert info.value.loc.col == body.splitlines()[1].index("i / n") + 1


def test_global_arrays_become_arguments_after_parameters():
    text = "#define N 16\ndouble G[N][N];\nconst int K = 3;\n" + region_fn(
        "void f(int n, double A[N])", "  for (i = 0; i < n; i++)\n    G[i][K] = A[i];")
    scop = parse_one(text)
    assert [(a.name, a.kind) for a in scop.args] == [("n", "param"), ("A", "array"),
                                                       ("G", "array")]
    assert scop.array("G").shape == (Const(16), Const(16))
    assert scop.statements[0].lhs == Ref("G", (Var("i"), Const(3)))


def test_several_regions_and_names():
    text = ("void f(int n, double A[n])\n{\n  int i;\n#pragma scop\n  for (i = 0; i < n; i++)"
            "\n    A[i] = 1.0;\n#pragma endscop\n  A[0] = 2.0;\n#pragma scop\n  for (i = 0; i < n;"
            " i++)\n    A[i] += 1.0;\n#pragma endscop\n}\n" + region_fn(
                "void g(int n, double B[n])", "  for (i = 0; i < n; i++)\n    B[i] = 0.0;"))
    scops = cfront.parse_source(text, "two.c")
    assert [s.name for s in scops] == ["f", "f_1", "g"]
    assert scops[1].statements[0].op == "+="
    assert all(s.source.function == n for s, n in zip(scops, ["f", "f", "g"]))


# -- errors ---------------------------------------------------------------------------------------
ERRORS = [
    ("A[i*n] = 0.0;", NotAffineError, "subscript"),
    ("A[idx[i] * idx[i]] = 0.0;", NotAffineError, "indirect subscript"),
    ("{ idx[i] = i; A[i] = A[idx[i]]; }", UnsupportedConstruct, "index array"),
    ("A[i] = *A;", UnsupportedConstruct, "pointer dereference"),
    ('printf("%d", i);', UnsupportedConstruct, "printf"),
    ("A[i] = helper(A[i]);", UnsupportedConstruct, "helper"),
    ("goto out;", UnsupportedConstruct, "goto"),
    ("break;", UnsupportedConstruct, "break"),
    ("continue;", UnsupportedConstruct, "continue"),
    ("while (i < n) A[i] = 0.0;", UnsupportedConstruct, "while"),
    ("do A[i] = 0.0; while (0);", UnsupportedConstruct, "do-while"),
    ("A[i] = A[j++];", UnsupportedConstruct, "j++"),
    ("A[i] = 1.0 + (A[j] = 1.0);", UnsupportedConstruct, "assignment"),
    ("A[i] = A[i] + (i & 1);", UnsupportedConstruct, "operator '&'"),
    ("for (k = 0; k < i * i; k++) A[k] = 0.0;", NotAffineError, "loop bound"),
    ("for (k = 0; k < n; k += 2) A[k] = 0.0;", UnsupportedConstruct, "step 2"),
    ("for (k = 0; k != n; k++) A[k] = 0.0;", NotAffineError, "loop condition"),
    ("if (i * i > n) A[i] = 0.0;", NotAffineError, "condition"),  # data conditions: if-converted
    ("n = 3;", UnsupportedConstruct, "parameter 'n'"),
    ("i = 3;", UnsupportedConstruct, "loop iterator 'i'"),
    ("A[i] = A[i] / (1 << 2);", UnsupportedConstruct, "operator '<<'"),
]


@pytest.mark.parametrize("stmt, cls, words", ERRORS)
def test_rejected_constructs_name_the_construct_and_the_line(stmt, cls, words):
    text = region_fn("void f(int n, double A[n], int idx[n])",
                     f"  for (i = 0; i < n; i++) {{\n    {stmt}\n  }}", "int i, j = 0, k;")
    with pytest.raises(cls) as info:
        cfront.parse_source("#include <stdio.h>\n" + text, "bad.c")
    err = info.value
    assert err.loc is not None and err.loc.file == "bad.c"
    assert err.loc.line == 7, str(err)  # the line of the statement in the user's file
    assert words in err.msg
    assert err.loc.text.strip().startswith(stmt.split()[0][:3])


def test_error_column_points_into_the_original_line_through_macros():
    text = "#define SZ 10\n" + region_fn("void f(int n, double A[n])",
                                        "  for (i = 0; i < SZ; i++)\n    A[i] =    A[i*i];")
    with pytest.raises(NotAffineError) as info:
        cfront.parse_source(text, "col.c")
    loc = info.value.loc
    assert (loc.line, loc.text[loc.col - 1:loc.col + 2]) == (7, "i*i")
    assert "col.c:7:" in str(info.value) and "^" in str(info.value)


def test_pointer_parameter_is_rejected_with_a_hint():
    with pytest.raises(UnsupportedConstruct, match="pointer parameter 'A'") as info:
        cfront.parse_source(region_fn("void f(int n, double *A)",
                                      "  for (i = 0; i < n; i++) A[i] = 0;"), "p.c")
    assert info.value.loc.line == 1


def test_unterminated_region():
    text = "void f(int n, double A[n])\n{\n  int i;\n#pragma scop\n  for (i = 0; i < n; i++)\n" \
           "    A[i] = 0;\n}\n"
    with pytest.raises(UserError, match="unterminated") as info:
        cfront.parse_source(text, "u.c")
    assert info.value.loc.line == 4


def test_region_outside_a_function():
    text = "#pragma scop\nint x;\n#pragma endscop\nvoid f(void) {}\n"
    with pytest.raises(UserError, match="outside a function") as info:
        cfront.parse_source(text, "o.c")
    assert info.value.loc.line == 1


def test_local_value_from_outside_the_region_is_rejected():
    body = "  for (i = 0; i < n; i++)\n    A[i] = s;"
    with pytest.raises(UnsupportedConstruct, match="'s' is a local variable of 'f'") as info:
        cfront.parse_source(region_fn("void f(int n, double A[n])", body,
                                      "int i; double s; s = A[0];"), "l.c")
    assert info.value.loc.line == 6


def test_scalar_written_in_region_and_read_after_it_is_rejected():
    text = ("double f(int n, double A[n])\n{\n  int i; double s;\n#pragma scop\n"
            "  for (i = 0; i < n; i++)\n    s = A[i];\n#pragma endscop\n  return s;\n}\n")
    with pytest.raises(UnsupportedConstruct, match="read after it"):
        cfront.parse_source(text, "s.c")


def test_syntax_errors_point_at_the_users_line():
    with pytest.raises(UserError, match="syntax error") as info:
        cfront.parse_source("#include <stdlib.h>\nvoid f(int n)\n{\n#pragma scop\n  n = ;\n"
                            "#pragma endscop\n}\n", "syn.c")
    assert info.value.loc.line == 5


def test_missing_header_is_a_user_error():
    with pytest.raises(UserError, match="no_such_header.h") as info:
        cfront.parse_source('#include "no_such_header.h"\n', "h.c")
    assert info.value.loc.line == 1


# -- includes and flags ---------------------------------------------------------------------------
def test_system_headers_own_header_and_defines():
    path = INPUTS / "headers.c"
    (scop,) = cfront.parse_file(path, include_dirs=(str(INPUTS / "include"),),
                                defines=("SCALE=2.5",))
    assert scop.name == "smooth"
    assert scop.array("A").shape == (Const(64), Const(64))
    assert scop.array("A").dtype == "double"  # real_t from the user's header
    stmt = scop.statements[0]
    assert same_set(stmt.domain, "[n] -> { S0[i, j] : i >= 1 and i >= n - 64 and i <= n - 1 "
                                 "and i <= 62 and 1 <= j <= 62 }")
    assert stmt.rhs.lhs == Const(2.5, "double") and stmt.rhs.rhs.func == "sqrt"
    assert stmt.loc.file == str(path) and stmt.loc.line == 22
    assert "real_t A[N][N]" in scop.source.signature


def test_defines_without_value_and_include_dirs_reach_the_preprocessor():
    text = ('#include "pc_kernel.h"\n#ifdef USE_X\n#define VAL 3.0\n#else\n#define VAL 4.0\n'
            '#endif\n' + region_fn("void f(real_t A[N])",
                                   "  for (i = 0; i < N; i++)\n    A[i] = VAL;"))
    for defines, value in (((), 4.0), (("USE_X",), 3.0)):
        scop = cfront.parse_source(text, "d.c", include_dirs=(str(INPUTS / "include"),),
                                   defines=defines)[0]
        assert scop.statements[0].rhs == Const(value, "double")


# -- rewriting and the reference build ------------------------------------------------------------
def test_rewrite_source_keeps_everything_outside_regions():
    text = (INPUTS / "gemm.c").read_text()
    (scop,) = cfront.parse_source(text, str(INPUTS / "gemm.c"))
    src = scop.source
    assert text[src.start:].startswith("#pragma scop")
    assert text[:src.end].endswith("#pragma endscop\n")
    out = cfront.rewrite_source(text, [scop], {"gemm": "{ run_gemm(); }"})
    assert out == text[:src.start] + "{ run_gemm(); }\n" + text[src.end:]
    assert cfront.rewrite_source(text, [scop], {}) == text


def test_rewrite_several_regions():
    text = ("void f(int n, double A[n])\n{\n  int i;\n#pragma scop\n  for (i = 0; i < n; i++)"
            "\n    A[i] = 1.0;\n#pragma endscop\n  A[0] = 2.0;\n  #pragma scop\n  for (i = 0; "
            "i < n; i++)\n    A[i] += 1.0;\n  #pragma endscop\n}\n")
    scops = cfront.parse_source(text, "r.c")
    out = cfront.rewrite_source(text, scops, {"f": "R0\n", "f_1": "R1\n"})
    assert out == ("void f(int n, double A[n])\n{\n  int i;\nR0\n  A[0] = 2.0;\nR1\n}\n")


def _build(tmp_path: Path, scop) -> ctypes.CDLL:
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler")
    src = tmp_path / "ref.c"
    src.write_text(cfront.reference_source(scop))
    lib = tmp_path / "ref.so"
    subprocess.run([gcc, "-O2", "-shared", "-fPIC", str(src), "-o", str(lib), "-lm",
                    *cfront.reference_flags(scop)], check=True, capture_output=True)
    return ctypes.CDLL(str(lib))


def _ptr(a: np.ndarray):
    return a.ctypes.data_as(ctypes.c_void_p)


def test_reference_gemm_matches_numpy(tmp_path):
    (scop,) = cfront.parse_file(INPUTS / "gemm.c")
    lib = _build(tmp_path, scop)
    ni, nj, nk, alpha, beta = 5, 7, 3, 1.5, -0.5
    rng = np.random.default_rng(0)
    C, A, B = rng.random((ni, nj)), rng.random((ni, nk)), rng.random((nk, nj))
    expected = alpha * A @ B + beta * C
    fn = lib.pc_ref_gemm
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_longlong] * 3 + [ctypes.c_double] * 2 + [ctypes.c_void_p] * 3
    assert fn(ni, nj, nk, alpha, beta, _ptr(C), _ptr(A), _ptr(B)) == 0
    np.testing.assert_allclose(C, expected, rtol=1e-12)


def test_reference_with_own_header_and_global_array(tmp_path):
    text = '#include "pc_kernel.h"\n#include <math.h>\nreal_t G[N];\n' + region_fn(
        "void f(int n, real_t A[N][N])",
        "  for (i = 0; i < n; i++)\n    G[i] = sqrt(A[i][i]) + G[i];")
    (INPUTS / "include" / "pc_kernel.h").read_text()
    path = tmp_path / "g.c"
    path.write_text(text)
    (tmp_path / "pc_kernel.h").write_text((INPUTS / "include" / "pc_kernel.h").read_text())
    (scop,) = cfront.parse_file(path)
    assert [a.name for a in scop.args] == ["n", "A", "G"]
    lib = _build(tmp_path, scop)
    rng = np.random.default_rng(1)
    A, G = rng.random((64, 64)), rng.random(64)
    expected = G.copy()
    expected[:10] += np.sqrt(np.diag(A)[:10])
    lib.pc_ref_f.argtypes = [ctypes.c_longlong, ctypes.c_void_p, ctypes.c_void_p]
    assert lib.pc_ref_f(10, _ptr(A), _ptr(G)) == 0
    np.testing.assert_allclose(G, expected, rtol=1e-12)


def test_chained_assignment_becomes_two_statements():
    body = "  for (i = 0; i < n; i++)\n    A[i] = s = B[i];"
    scop = parse_one(region_fn("void f(int n, double A[n], double B[n])", body,
                               "int i; double s;"))
    first, second = scop.statements
    assert (first.lhs, first.rhs) == (Ref("s", ()), Ref("B", (Var("i"),)))
    assert (second.lhs, second.rhs) == (Ref("A", (Var("i"),)), Ref("s", ()))


def test_reference_leaves_out_main_and_what_only_main_needs(tmp_path):
    text = ("#include <stdio.h>\nextern double *external_alloc(int n);\n"
            + region_fn("void scale(int n, double A[n])",
                        "  for (i = 0; i < n; i++)\n    A[i] *= 2.0;")
            + "int main(void)\n{\n  double *A = external_alloc(10);\n#define TEN 10\n"
              "  scale(TEN, (double (*))A);\n  printf(\"%f\\n\", A[0]);\n  return 0;\n}\n")
    (scop,) = cfront.parse_source(text, str(tmp_path / "m.c"))
    assert "external_alloc(10)" not in cfront.reference_source(scop)
    assert "#define TEN 10" in cfront.reference_source(scop)
    lib = _build(tmp_path, scop)  # loads: external_alloc is not needed
    A = np.arange(4.0)
    lib.pc_ref_scale.argtypes = [ctypes.c_longlong, ctypes.c_void_p]
    lib.pc_ref_scale(4, _ptr(A))
    np.testing.assert_array_equal(A, [0.0, 2.0, 4.0, 6.0])


def test_pragma_operator_nested_block_enums_constants_and_gnu_attributes():
    text = """#include <math.h>
typedef float real;
enum { LEN = 12, WIDTH };
const int K = 4;
static double G[LEN][WIDTH];
__attribute__((noinline)) static inline void f(int n, real A[n])
{
\tint i;
\tif (n > 0) {
\t\t_Pragma("scop")
\t\tfor (i = 0; i < n; i++)
\t\t\tA[i] = (real)i * 2.0f + K + G[i][WIDTH - 1];
\t\t_Pragma("endscop")
\t}
}
"""
    scop = parse_one(text)
    assert [a.name for a in scop.args] == ["n", "A", "G"]
    assert scop.array("G").shape == (Const(12), Const(13))
    assert scop.array("A").dtype == "float"
    assert text[scop.source.start:scop.source.end].strip().startswith('_Pragma("scop")')
    assert scop.source.signature.endswith("static inline void f(int n, real A[n])")


def test_crlf_file_is_rewritten_byte_for_byte(tmp_path):
    path = tmp_path / "crlf.c"
    path.write_bytes(b"void h(int n, double A[n])\r\n{\r\n  int i;\r\n#pragma scop\r\n"
                     b"  for (i = 0; i < n; i++)\r\n    A[i] = 1.0;\r\n#pragma endscop\r\n}\r\n")
    (scop,) = cfront.parse_file(path)
    text = scop.source.text
    assert text.encode() == path.read_bytes()
    out = cfront.rewrite_source(text, [scop], {"h": "CALL();\r\n"})
    assert out.encode() == b"void h(int n, double A[n])\r\n{\r\n  int i;\r\nCALL();\r\n}\r\n"


def test_reference_flags_repeat_the_preprocessor_flags(tmp_path):
    inc = str(INPUTS / "include")
    scop = cfront.parse_file(INPUTS / "headers.c", include_dirs=(inc,), defines=("SCALE=2",))[0]
    assert cfront.reference_flags(scop) == [f"-I{INPUTS}", f"-I{inc}", "-DSCALE=2"]


def test_values_left_by_the_region_must_not_be_read_after_it():
    def fn(after: str) -> str:
        return ("void f(int n, double A[n])\n{\n  int i; double s;\n#pragma scop\n"
                "  for (i = 0; i < n; i++) {\n    s = A[i];\n    A[i] = s * s;\n  }\n"
                f"#pragma endscop\n{after}\n}}\n")
    # rewritten before being read: fine
    parse_one(fn("  for (i = 0; i < n; i++) { s = 1.0; A[i] += s; }"))
    with pytest.raises(UnsupportedConstruct, match="'i' is a local variable") as info:
        parse_one(fn("  A[0] = i;"))
    assert info.value.loc.line == 5
    with pytest.raises(UnsupportedConstruct, match="'s' is a local variable"):
        parse_one(fn("  if (n > 2) A[0] = s;"))


def test_region_in_main_calls_the_renamed_main(tmp_path):
    text = region_fn("int main(void)", "  for (i = 0; i < 4; i++)\n    G[i] = i;")
    (scop,) = cfront.parse_source("double G[4];\n" + text, str(tmp_path / "main.c"))
    assert scop.name == "main" and [a.name for a in scop.args] == ["G"]
    lib = _build(tmp_path, scop)
    G = np.zeros(4)
    lib.pc_ref_main.argtypes = [ctypes.c_void_p]
    lib.pc_ref_main(_ptr(G))
    np.testing.assert_array_equal(G, [0.0, 1.0, 2.0, 3.0])


def test_unsupported_globals_and_enumerators_only_fail_when_used():
    text = ("enum { A = sizeof(int), B };\nconst int C = 3;\nconst double D = rand_value();\n"
            + region_fn("void f(int n, double X[n])", "  for (i = 0; i < n; i++)\n    X[i] = C;"))
    assert parse_one(text).statements[0].rhs == Const(3)
    with pytest.raises(UnsupportedConstruct, match="enumerator 'B'"):
        parse_one(text.replace("X[i] = C;", "X[i] = B;"))
    with pytest.raises(UnsupportedConstruct, match="global variable 'D'"):
        parse_one(text.replace("X[i] = C;", "X[i] = D;"))


def test_line_offsets_of_the_main_file():
    """Unit.line_start/line_end (where a region's text is cut out and replaced by a call): the
    offsets of every line, the last one without a newline, and a line past the end refused."""
    from polycuda.frontend.c_preprocess import Unit

    text = "a\nbc\n\nd"
    unit = Unit("f.c", text, None)
    assert [unit.line_start(k) for k in (1, 2, 3, 4)] == [0, 2, 5, 6]
    assert [text[unit.line_start(k):unit.line_end(k)] for k in (1, 2, 3, 4)] == \
        ["a\n", "bc\n", "\n", "d"]
    with pytest.raises(ValueError, match="line 5 is not in f.c"):
        unit.line_start(5)
