"""The Python frontend: Scops of loop functions, Python semantics, errors with real locations."""

import importlib.util
import inspect
import itertools
import math
import tempfile
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
from polycuda.frontend.python import (
    ArgSpec,
    arg_specs_from_values,
    default_arg_specs,
    parse_function,
    shape_values,
)
from polycuda.ir.c_expr import expr_to_c
from polycuda.ir.expr import BinOp, Call, Cast, Const, Ref, Ternary, UnaryOp, Var

P = ArgSpec("param", "int")
D = ArgSpec("scalar", "double")


def arr(ndim, dtype="double"):
    return ArgSpec("array", dtype, ndim)


def domains_equal(stmt, expected):
    return isl.Set(stmt.domain).is_equal(isl.Set(expected))


def arg_names(scop):
    return [(a.name, a.kind, a.dtype) for a in scop.args]


# -- kernels ---------------------------------------------------------------------------------
def jacobi_1d(T, N, A, B):
    for t in range(T):
        for i in range(1, N - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
        for i in range(1, N - 1):
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])


def jacobi_2d(T, N, A, B):
    """Both subscript forms."""
    for t in range(T):
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                B[i, j] = 0.2 * (A[i, j] + A[i, j - 1] + A[i, j + 1] + A[i + 1, j] + A[i - 1, j])
        for i in range(1, N - 1):
            for j in range(1, N - 1):
                A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][j + 1] + B[i + 1][j] + B[i - 1][j])


def gemm(alpha, beta, C, A, B):
    for i in range(C.shape[0]):
        for j in range(C.shape[1]):
            C[i, j] *= beta
        for k in range(A.shape[1]):
            for j in range(C.shape[1]):
                C[i, j] += alpha * A[i, k] * B[k, j]


def lower_solve(n, L, x, b):
    for i in range(n):
        x[i] = b[i]
        for j in range(i + 1):
            x[i] -= L[i, j] * x[j]


def back_solve(n, U, x):
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            x[i] -= U[i, j] * x[j]
        x[i] = x[i] / U[i, i]


def branches(n, A):
    for i in range(n):
        if i < 2:
            A[i] = 0.0
        elif 2 <= i < n - 2 and i % 2 == 0:
            A[i] = 1.0
        else:
            A[i] = 2.0


def row_dot(n, m, A, x, y):
    for i in range(n):
        s = 0.0
        for j in range(m):
            s += A[i, j] * x[j]
        y[i] = s


def scale(alpha, A):
    for i in range(len(A)):
        for j in range(A.shape[1]):
            A[i, j] *= alpha


def fig2(T, I, A):  # Di et al. 2012, Figure 2
    for t in range(1, T + 1):
        for i in range(1, I + 1):
            A[i] = 0.5 * (A[i] + A[i + 1])


def bounded(n, m, A):
    """min/max/floordiv bounds; a top-level alias `h`."""
    h = n // 2
    for i in range(max(1, m), min(n, h + 3)):
        A[i] = 1.0


# -- structure -------------------------------------------------------------------------------
def test_jacobi_1d():
    scop = parse_function(jacobi_1d, {"T": P, "N": P, "A": arr(1), "B": arr(1)})
    assert scop.name == "jacobi_1d"
    assert arg_names(scop) == [("T", "param", "int"), ("N", "param", "int"),
                               ("A", "array", "double"), ("B", "array", "double"),
                               ("A_d0", "param", "int"), ("B_d0", "param", "int")]
    assert scop.array("A").shape == (Var("A_d0"),)
    assert len(scop.statements) == 2
    for stmt in scop.statements:
        assert domains_equal(stmt, f"[T, N] -> {{ {stmt.name}[t, i] : 0 <= t < T and "
                                   "1 <= i < N - 1 }")
    assert [s.beta for s in scop.statements] == [(0, 0, 0), (0, 1, 0)]
    assert scop.statements[0].lhs == Ref("B", (Var("i"),))
    assert scop.statements[1].rhs.lhs == Const(0.33333, "double")


def test_jacobi_2d_subscript_forms_are_the_same_ref():
    scop = parse_function(jacobi_2d, {"T": P, "N": P, "A": arr(2), "B": arr(2)})
    assert len(scop.statements) == 2
    s0, s1 = scop.statements
    assert s0.lhs == Ref("B", (Var("i"), Var("j")))
    assert s1.lhs == Ref("A", (Var("i"), Var("j")))
    assert s1.read_refs()[0] == Ref("B", (Var("i"), Var("j")))
    assert domains_equal(s1, "[T, N] -> { S1[t, i, j] : 0 <= t < T and 1 <= i < N - 1 and "
                             "1 <= j < N - 1 }")
    assert scop.array("A").shape == (Var("A_d0"), Var("A_d1"))


def test_gemm_scalars_and_shape_params():
    specs = {"alpha": D, "beta": D, "C": arr(2), "A": arr(2), "B": arr(2)}
    scop = parse_function(gemm, specs)
    assert [a.name for a in scop.args] == ["alpha", "beta", "C", "A", "B", "C_d0", "C_d1",
                                           "A_d0", "A_d1", "B_d0", "B_d1"]
    assert scop.params == ("C_d0", "C_d1", "A_d0", "A_d1", "B_d0", "B_d1")
    s0, s1 = scop.statements
    assert (s0.op, s0.rhs) == ("*=", Var("beta"))
    assert s1.op == "+="
    assert s1.rhs == BinOp("*", BinOp("*", Var("alpha"), Ref("A", (Var("i"), Var("k")))),
                           Ref("B", (Var("k"), Var("j"))))
    assert domains_equal(s1, "[C_d0, C_d1, A_d1] -> { S1[i, k, j] : 0 <= i < C_d0 and "
                             "0 <= k < A_d1 and 0 <= j < C_d1 }")


def test_triangular_nest():
    scop = parse_function(lower_solve, {"n": P, "L": arr(2), "x": arr(1), "b": arr(1)})
    assert len(scop.statements) == 2
    assert domains_equal(scop.statements[1], "[n] -> { S1[i, j] : 0 <= j <= i < n }")


def test_decreasing_loop():
    scop = parse_function(back_solve, {"n": P, "U": arr(2), "x": arr(1)})
    s0, s1 = scop.statements
    assert s0.loop_directions() == (-1, 1)
    assert s1.loop_directions() == (-1,)
    assert domains_equal(s0, "[n] -> { S0[i, j] : 0 <= i < j < n }")
    assert domains_equal(s1, "[n] -> { S1[i] : 0 <= i < n }")


def test_if_elif_else():
    scop = parse_function(branches, {"n": P, "A": arr(1)})
    s0, s1, s2 = scop.statements
    assert domains_equal(s0, "[n] -> { S0[i] : 0 <= i < n and i < 2 }")
    assert domains_equal(s1, "[n] -> { S1[i] : 2 <= i <= n - 3 and i mod 2 = 0 }")
    assert domains_equal(s2, "[n] -> { S2[i] : 2 <= i < n and (i >= n - 2 or i mod 2 = 1) }")


def test_local_scalar_accumulator():
    scop = parse_function(row_dot, {"n": P, "m": P, "A": arr(2), "x": arr(1), "y": arr(1)})
    s = scop.array("s")
    assert (s.dtype, s.shape, s.local) == ("double", (), True)
    assert "s" not in [a.name for a in scop.args]
    s0, s1, s2 = scop.statements
    assert (s0.lhs, s0.op, s0.rhs) == (Ref("s", ()), "=", Const(0.0, "double"))
    assert (s1.lhs, s1.op) == (Ref("s", ()), "+=")
    assert s2.rhs == Ref("s", ())
    assert domains_equal(s1, "[n, m] -> { S1[i, j] : 0 <= i < n and 0 <= j < m }")


def test_shape_bounds():
    scop = parse_function(scale, {"alpha": D, "A": arr(2, "float")})
    assert arg_names(scop) == [("alpha", "scalar", "double"), ("A", "array", "float"),
                               ("A_d0", "param", "int"), ("A_d1", "param", "int")]
    assert domains_equal(scop.statements[0],
                         "[A_d0, A_d1] -> { S0[i, j] : 0 <= i < A_d0 and 0 <= j < A_d1 }")
    assert isl.Set(scop.context).is_equal(isl.Set("[A_d0, A_d1] -> { : A_d0 >= 0 and "
                                                  "A_d1 >= 0 }"))


def test_min_max_floordiv_bounds_and_alias():
    scop = parse_function(bounded, {"n": P, "m": P, "A": arr(1)})
    assert len(scop.statements) == 1  # `h = n // 2` is substituted, not a statement
    assert domains_equal(scop.statements[0], "[n, m] -> { S0[i] : i >= 1 and i >= m and "
                                             "i < n and i < floor(n / 2) + 3 }")


def test_figure2_dependences():
    scop = parse_function(fig2, {"T": P, "I": P, "A": arr(1)})
    deps = dependences.compute(scop)
    assert sorted((d.kind, d.distance) for d in deps) == sorted(
        [("flow", (1, 0)), ("flow", (1, -1)), ("anti", (0, 1)), ("anti", (1, 0)),
         ("output", (1, 0))])


def test_source_info():
    scop = parse_function(fig2, {"T": P, "I": P, "A": arr(1)})
    src = scop.source
    assert src.file == __file__ and src.function == "fig2"
    assert src.text[src.start:src.end] == inspect.getsource(fig2)


def decorate(fn):
    return fn


@decorate
def decorated(n, A):
    for i in range(n):
        A[i] = 1.0


def test_decorator_is_ignored():
    scop = parse_function(decorated, {"n": P, "A": arr(1)})
    assert len(scop.statements) == 1
    src = scop.source
    assert src.text[src.start:src.end].startswith("@decorate\ndef decorated")


# -- Python semantics ------------------------------------------------------------------------
_TMP = tempfile.TemporaryDirectory()
_COUNTER = itertools.count()


def _rhs(body, specs=None):
    """The rhs of the single statement of `def f(n, m, x, A): A[0] = <body>`."""
    src = f"import math\nimport numpy as np\n\n\ndef f(n, m, x, A):\n    A[0] = {body}\n"
    name = f"kernel_{next(_COUNTER)}"
    path = Path(_TMP.name) / f"{name}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    specs = specs or {"n": P, "m": P, "x": D, "A": arr(1)}
    return parse_function(module.f, specs).statements[0].rhs


def c_eval(e, env):
    """Evaluate an Expr with C semantics (truncating / and %) on Python ints."""
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Var):
        return env[e.name]
    if isinstance(e, UnaryOp):
        v = c_eval(e.operand, env)
        return -v if e.op == "-" else int(not v)
    if isinstance(e, Ternary):
        return c_eval(e.then if c_eval(e.cond, env) else e.other, env)
    a, b = c_eval(e.lhs, env), c_eval(e.rhs, env)
    ops = {"+": a + b, "-": a - b, "*": a * b, "<": int(a < b), "!=": int(a != b),
           "==": int(a == b), "&&": int(bool(a and b))}
    if e.op in ops:
        return ops[e.op]
    if e.op == "floordiv":
        assert b > 0
        return a // b
    trunc = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
    return trunc if e.op == "/" else a - b * trunc  # C's / and %


@pytest.mark.parametrize("body, py", [("n // m", lambda a, b: a // b),
                                      ("n % m", lambda a, b: a % b),
                                      ("n // 3", lambda a, b: a // 3),
                                      ("n % 3", lambda a, b: a % 3),
                                      ("n // -3", lambda a, b: a // -3),
                                      ("n % -3", lambda a, b: a % -3)])
def test_integer_floordiv_and_mod_follow_python(body, py):
    rhs = _rhs(body)
    for a in range(-7, 8):
        for b in (-4, -3, -1, 1, 2, 5):
            assert c_eval(rhs, {"n": a, "m": b}) == py(a, b), (body, a, b)


def test_constant_floordiv_is_affine_floordiv():
    assert _rhs("n // 4") == BinOp("floordiv", Var("n"), Const(4))


def test_true_division_casts_integers():
    assert _rhs("n / m") == BinOp("/", Cast("double", Var("n")), Cast("double", Var("m")))
    assert _rhs("x / n") == BinOp("/", Var("x"), Var("n"))


def test_float_floordiv_and_mod():
    """Python's float // and % are built on fmod (CPython's float_rem / _float_div_mod), not
    on floor(x / y), which rounds (1.0 // 0.1 is 9.0 but floor(1.0 / 0.1) is 10.0)."""
    floordiv, mod = expr_to_c(_rhs("x // 2.0")), expr_to_c(_rhs("x % n"))
    assert "fmod(x, 2.0)" in floordiv and "floor((x / 2.0))" not in floordiv
    assert "fmod(x, ((double)n))" in mod and "copysign(0.0, ((double)n))" in mod


def test_power():
    assert _rhs("x ** 2") == BinOp("*", Var("x"), Var("x"))
    assert _rhs("n ** 3") == BinOp("*", BinOp("*", Var("n"), Var("n")), Var("n"))
    assert _rhs("10 ** 10") == Const(10**10, "long")
    assert _rhs("x ** 0.5") == Call("pow", (Var("x"), Const(0.5, "double")))
    assert _rhs("n ** -1") == Call("pow", (Cast("double", Var("n")), Cast("double", Const(-1))))


def test_min_max_abs_and_math():
    assert _rhs("min(n, m)") == BinOp("min", Var("n"), Var("m"))
    # Python's max(a, b) is b if b > a else a (a NaN first argument wins), not fmax
    assert _rhs("max(x, n)") == Ternary(BinOp(">", Cast("double", Var("n")), Var("x")),
                                        Cast("double", Var("n")), Var("x"))
    assert _rhs("abs(x)") == Call("fabs", (Var("x"),))
    assert _rhs("abs(n)") == Ternary(BinOp("<", Var("n"), Const(0)), UnaryOp("-", Var("n")),
                                     Var("n"))
    assert _rhs("math.sqrt(x)") == Call("sqrt", (Var("x"),))
    assert _rhs("np.exp(n)") == Call("exp", (Cast("double", Var("n")),))
    assert _rhs("math.floor(x)") == Cast("long", Call("floor", (Var("x"),)))
    assert _rhs("math.pi") == Const(math.pi, "double")


def test_conditional_values_and_casts():
    assert _rhs("x if n < m else 0.0") == Ternary(BinOp("<", Var("n"), Var("m")), Var("x"),
                                                  Const(0.0, "double"))
    assert _rhs("n < m and not m == 0") == BinOp(
        "&&", BinOp("<", Var("n"), Var("m")), UnaryOp("!", BinOp("==", Var("m"), Const(0))))
    assert _rhs("0 < n < m") == BinOp("&&", BinOp("<", Const(0), Var("n")),
                                      BinOp("<", Var("n"), Var("m")))
    assert _rhs("float(n)") == Cast("double", Var("n"))
    assert _rhs("int(x)") == Cast("long", Var("x"))
    assert _rhs("True") == Const(1)
    # Python's `x or n` is the first truthy operand, not a 0/1 truth value
    assert _rhs("x or n") == Ternary(BinOp("!=", Var("x"), Const(0.0, "double")), Var("x"),
                                     Var("n"))


def test_negative_literal_subscript_counts_from_the_end():
    assert _rhs("A[-1]") == Ref("A", (BinOp("-", Var("A_d0"), Const(1)),))


def int_local_widened(n, A):
    s = 0
    for i in range(n):
        s += A[i]
    A[0] = s


def int_local_read_then_widened(n, A, B):
    k = 0
    for i in range(n):
        B[i] = k // 2
        k += A[i]  # ERR


def test_integer_local_becomes_float_as_in_python():
    scop = parse_function(int_local_widened, {"n": P, "A": arr(1)})
    assert scop.array("s").dtype == "double"
    with pytest.raises(UnsupportedConstruct, match="initialize it with a float") as err:
        parse_function(int_local_read_then_widened, {"n": P, "A": arr(1), "B": arr(1)})
    assert err.value.loc.line == marked_line(int_local_read_then_widened)


def int_ops(n, A):
    for i in range(n):
        A[i] //= 2
        A[i] /= 3


def test_augmented_floordiv_and_integer_true_division():
    s0, s1 = parse_function(int_ops, {"n": P, "A": arr(1, "long")}).statements
    a_i = Ref("A", (Var("i"),))
    assert (s0.op, s0.rhs) == ("=", BinOp("floordiv", a_i, Const(2)))
    assert (s1.op, s1.rhs) == ("/=", Cast("double", Const(3)))


# -- errors ----------------------------------------------------------------------------------
def marked_line(fn):
    lines, start = inspect.getsourcelines(fn)
    marked = [k for k, line in enumerate(lines) if "# ERR" in line]
    assert len(marked) == 1
    return start + marked[0]


def e_while(n, A):
    i = 0
    while i < n:  # ERR
        A[i] = 0.0


def e_break(n, A):
    for i in range(n):
        A[i] = 0.0
        break  # ERR


def e_continue(n, A):
    for i in range(n):
        continue  # ERR


def e_return(n, A):
    for i in range(n):
        A[i] = 0.0
    return A  # ERR


def e_call(n, A):
    for i in range(n):
        A[i] = helper(A[i])  # ERR


def helper(v):
    return v


def e_attr_write(n, A):
    for i in range(n):
        A.x = 1.0  # ERR


def e_slice(n, A):
    A[1:n] = 0.0  # ERR


def e_not_affine(n, A):
    for i in range(n):
        for j in range(n):
            A[i * j] = 0.0  # ERR


def e_indirect(n, A, idx):
    for i in range(n):
        A[idx[i] * idx[i]] = 1.0  # ERR


def e_assign_param(n, A):
    for i in range(n):
        n = i  # ERR


def e_assign_iterator(n, A):
    for i in range(n):
        i = 2  # ERR
        A[i] = 0.0


def e_nested_def(n, A):
    def inner(v):  # ERR
        return v

    A[0] = 0.0


def e_step(n, A):
    for i in range(0, n, 2):  # ERR
        A[i] = 0.0


def e_tuple(n, A):
    for i in range(n):
        A[i], A[i + 1] = 0.0, 1.0  # ERR


def e_list(n, A):
    for i in range(n):
        A[i] = [1.0, 2.0][0]  # ERR


def e_reuse(n, A):
    for i in range(n):
        A[i] = 0.0
    A[i] = 1.0  # ERR


def e_global(n, A):
    for i in range(n):
        A[i] = GLOBAL_SCALE  # ERR


GLOBAL_SCALE = 2.0


def e_iterate_array(n, A):
    for v in A:  # ERR
        A[0] = v


def e_bound_not_affine(n, A):
    for i in range(n * n):  # ERR
        A[i] = 0.0


def e_partial_index(n, A):
    for i in range(n):
        A[i] = 1.0  # ERR


def e_bitwise(n, A):
    for i in range(n):
        A[i] = i & 1  # ERR


A1 = {"n": P, "A": arr(1)}


@pytest.mark.parametrize("fn, specs, cls, words", [
    (e_while, A1, UnsupportedConstruct, "'while' loop"),
    (e_break, A1, UnsupportedConstruct, "'break'"),
    (e_continue, A1, UnsupportedConstruct, "'continue'"),
    (e_return, A1, UnsupportedConstruct, "'return' with a value"),
    (e_call, A1, UnsupportedConstruct, "call of 'helper'"),
    (e_attr_write, A1, UnsupportedConstruct, "attribute write 'A.x"),
    (e_slice, A1, UnsupportedConstruct, "slice 'A[1:n]'"),
    (e_not_affine, A1, NotAffineError, "subscript multiplies two non-constant"),
    (e_indirect, {"n": P, "A": arr(1), "idx": arr(1, "int")}, NotAffineError,
     "indirect subscript multiplies two non-constant terms"),
    (e_assign_param, A1, UnsupportedConstruct, "assignment to argument 'n'"),
    (e_assign_iterator, A1, UnsupportedConstruct, "assignment to loop variable 'i'"),
    (e_nested_def, A1, UnsupportedConstruct, "nested function definition"),
    (e_step, A1, UnsupportedConstruct, "loop step '2'"),
    (e_tuple, A1, UnsupportedConstruct, "tuple assignment"),
    (e_list, A1, UnsupportedConstruct, "list"),
    (e_reuse, A1, UnsupportedConstruct, "loop variable 'i' is used after its loop"),
    (e_global, A1, UnsupportedConstruct, "name 'GLOBAL_SCALE'"),
    (e_iterate_array, A1, UnsupportedConstruct, "iteration over 'A'"),
    (e_bound_not_affine, A1, NotAffineError, "loop bound"),
    (e_partial_index, {"n": P, "A": arr(2)}, UnsupportedConstruct, "'A' has 2 dimension(s)"),
    (e_bitwise, A1, UnsupportedConstruct, "operator '&'"),
])
def test_rejected_constructs(fn, specs, cls, words):
    with pytest.raises(cls) as err:
        parse_function(fn, specs)
    assert type(err.value) is cls
    assert words in err.value.msg
    loc = err.value.loc
    assert (loc.file, loc.line) == (__file__, marked_line(fn))
    assert "# ERR" in loc.text


def test_error_column_and_rendering():
    with pytest.raises(NotAffineError) as err:
        parse_function(e_not_affine, A1)
    loc = err.value.loc
    assert loc.col == loc.text.index("i * j") + 1
    assert f"{__file__}:{loc.line}:{loc.col}: error:" in str(err.value)


def test_indented_function_columns():
    def inner(n, A):
        while n:  # ERR
            A[0] = 0.0

    with pytest.raises(UnsupportedConstruct) as err:
        parse_function(inner, A1)
    loc = err.value.loc
    assert loc.line == marked_line(inner)
    assert loc.col == loc.text.index("while") + 1


def test_missing_or_extra_specs():
    with pytest.raises(UserError, match="no kind given for argument 'A'"):
        parse_function(fig2, {"T": P, "I": P})
    with pytest.raises(UserError, match="'B', which is not an argument"):
        parse_function(fig2, {"T": P, "I": P, "A": arr(1), "B": arr(1)})


# -- argument kinds --------------------------------------------------------------------------
def kinds(a, n, x, y, B=2.5):
    pass


@pytest.mark.parametrize("dtype, expected", [(np.float64, "double"), (np.float32, "float"),
                                             (np.int32, "int"), (np.int64, "long")])
def test_arg_specs_of_numpy_arrays(dtype, expected):
    specs = arg_specs_from_values(kinds, (np.zeros((3, 4), dtype), 5, 1.5, np.float32(2.0)),
                                  {"B": np.zeros(2, dtype)})
    assert specs == {"a": ArgSpec("array", expected, 2), "n": P, "x": D,
                     "y": ArgSpec("scalar", "float"), "B": ArgSpec("array", expected, 1)}


def test_arg_specs_numpy_scalars_and_defaults():
    specs = arg_specs_from_values(kinds, (np.zeros(3), np.int32(5), np.float64(1.0), 2.0), {})
    assert specs["n"] == P and specs["x"] == D and specs["y"] == D
    assert specs["B"] == D  # from the default value


class FakeTensor:
    def __init__(self, dtype, shape):
        self.dtype, self.shape = dtype, shape


def test_arg_specs_duck_typed_tensor():
    specs = arg_specs_from_values(kinds, (FakeTensor("torch.float32", (2, 3)), 1, 1.0, 1.0,
                                          FakeTensor("torch.int64", (4,))), {})
    assert specs["a"] == ArgSpec("array", "float", 2)
    assert specs["B"] == ArgSpec("array", "long", 1)


@pytest.mark.parametrize("value, words", [(np.zeros(3, bool), "bool"),
                                          (np.zeros(3, np.complex128), "complex128"),
                                          (np.zeros(3, np.float16), "float16"),
                                          ("text", "str")])
def test_arg_specs_reject_bad_dtypes(value, words):
    with pytest.raises(UnsupportedConstruct) as err:
        arg_specs_from_values(kinds, (value, 1, 1.0, 1.0), {})
    assert "'a'" in err.value.msg and words in err.value.msg


def test_shape_values():
    scop = parse_function(gemm, {"alpha": D, "beta": D, "C": arr(2), "A": arr(2), "B": arr(2)})
    values = {"C": np.zeros((2, 3)), "A": np.zeros((2, 5)), "B": np.zeros((5, 3))}
    assert shape_values(scop, values) == {"C_d0": 2, "C_d1": 3, "A_d0": 2, "A_d1": 5,
                                          "B_d0": 5, "B_d1": 3}
    with pytest.raises(UserError, match="compiled for 2"):
        shape_values(scop, {**values, "A": np.zeros(4)})


def test_default_arg_specs_from_usage():
    assert default_arg_specs(gemm) == {"alpha": D, "beta": D, "C": arr(2), "A": arr(2),
                                       "B": arr(2)}
    assert default_arg_specs(fig2) == {"T": P, "I": P, "A": arr(1)}
    assert default_arg_specs(jacobi_2d) == {"T": P, "N": P, "A": arr(2), "B": arr(2)}
    assert default_arg_specs(scale) == {"alpha": D, "A": arr(2)}


def annotated(n: int, x: float, A):
    A[0] = x


def test_default_arg_specs_from_annotations():
    assert default_arg_specs(annotated) == {"n": P, "x": D, "A": arr(1)}


def e_csr_bound(n, ptr, A):
    for i in range(n):
        for k in range(ptr[i], ptr[i] * ptr[i + 1]):  # ERR
            A[k] = 0.0


def e_local_subscript(n, A):
    for i in range(n):
        m = A[i]
        A[m] = 0.0  # ERR


def loop_alias(n, A):
    for i in range(n):
        m = i + 1
        A[m] = 0.0
    for i in range(n):
        A[m] = 1.0  # ERR


def strided(n, A):
    for i in range(n):
        m = 2 * i + 1
        A[m] = A[m - 1]


def test_loop_alias_is_substituted_inside_its_loop_only():
    (stmt,) = parse_function(strided, A1).statements
    two_i_1 = BinOp("+", BinOp("*", Const(2), Var("i")), Const(1))
    assert stmt.lhs == Ref("A", (two_i_1,))
    assert stmt.rhs == Ref("A", (BinOp("-", two_i_1, Const(1)),))
    with pytest.raises(UnsupportedConstruct, match="'m' is used after the loop") as err:
        parse_function(loop_alias, A1)
    assert err.value.loc.line == marked_line(loop_alias)


def test_bounds_and_subscripts_reading_values():
    # bounds may read index arrays (a CSR loop, tests/unit/test_csr.py), affinely
    with pytest.raises(NotAffineError, match="loop bound read from arrays") as err:
        parse_function(e_csr_bound, {"n": P, "ptr": arr(1, "int"), "A": arr(1)})
    assert err.value.loc.line == marked_line(e_csr_bound)
    with pytest.raises(NotAffineError, match="uses local variable 'm'") as err:
        parse_function(e_local_subscript, {"n": P, "A": arr(1, "long")})
    assert err.value.loc.line == marked_line(e_local_subscript)
