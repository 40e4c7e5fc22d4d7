"""char, short, unsigned and typedef'd element types (issue 41, item 5): C's promotions, usual
arithmetic conversions, conversion on store and signed/unsigned comparisons on every target,
NumPy's rules for int8 / uint8 / int16 / uint16 / uint32 arrays from Python, and the clear
refusals where isl's unbounded integers cannot be exact (unsigned or narrow iterators, unsigned
values in bounds and subscripts).

The oracle is the untransformed program (gcc for C, the function itself for Python) on random
inputs that verify draws over the whole range of each narrow or unsigned type.
"""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

import polycuda
from polycuda.cli import main
from polycuda.errors import UnsupportedConstruct
from polycuda.verify import random_arguments

TARGETS = ("c", "openmp", "emulate")
NUSSINOV = Path(__file__).parent / "c_inputs" / "nussinov_polybench.c"


def _verified(prog: polycuda.Program, sizes: dict[str, int]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's overflow warnings: wanted
        results = prog.verify(sizes=sizes, targets=TARGETS)
    assert [r.target for r in results if r.ok] == list(TARGETS), results


def test_nussinov_in_polybench_form_verifies():
    prog = polycuda.compile(NUSSINOV.read_text(), filename=str(NUSSINOV))
    assert {a.name: a.dtype for a in prog.scop.arrays} == {"seq": "char", "table": "int"}
    _verified(prog, {"n": 60})
    _verified(prog, {"n": 17})


C_KERNELS = {
    # char elements promote to int: C*C leaves char's range
    "char_promotion": ("""
void f(int n, int m, char C[n][m], int S[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      S[i] += C[i][j] * C[i][j] - C[i][j];
#pragma endscop
}""", {"n": 23, "m": 11}),
    # unsigned arithmetic wraps modulo 2^32, also with an int operand (converted to unsigned)
    "unsigned_wrap": ("""
void f(int n, unsigned U[n], unsigned V[n], unsigned T[1]) {
#pragma scop
  for (int i = 0; i < n; i++) {
    T[0] += U[i] * 3u + V[i];
    V[i] = U[i] - V[i] - 1;
  }
#pragma endscop
}""", {"n": 37}),
    # the store truncates to 16 bits (two's complement); the next loop reads the short values
    "short_truncation": ("""
void f(int n, short A[n], int B[n], unsigned short W[n]) {
#pragma scop
  for (int i = 0; i < n; i++) {
    A[i] = A[i] * 3 + 7;
    W[i] = W[i] * 5 / 3 + A[i];  /* int arithmetic: W * W could overflow int */
  }
  for (int i = 1; i < n; i++)
    B[i] = A[i] / A[i - 1] + (A[i] > 20000);
#pragma endscop
}""", {"n": 37}),
    # A[i] - 5 < U[i] compares in unsigned (a negative left side is large); signed char
    # against unsigned char compares in int
    "signed_unsigned_comparison": ("""
typedef unsigned char byte;
void f(int n, int A[n], unsigned U[n], int R[n], byte UC[n], signed char SC[n]) {
#pragma scop
  for (int i = 0; i < n; i++) {
    R[i] = (A[i] - 5 < U[i]) ? 1 : (SC[i] < UC[i] ? 2 : 3);
    UC[i] = SC[i] + UC[i];
  }
#pragma endscop
}""", {"n": 37}),
    # sums of integer terms into char and unsigned short cells (sequential: no 8- or 16-bit
    # atomics in CUDA) and into an unsigned one (a reduction, exact in any order)
    "narrow_reductions": ("""
void f(int n, int m, int C[n][m], char S[n], unsigned short T[m], unsigned X[1]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      S[i] += C[i][j] * 77;
      T[j] = T[j] + C[i][j];
      X[0] += C[i][j] * 16777216u;
    }
#pragma endscop
}""", {"n": 40, "m": 30}),
    # an int iterator or parameter meets an unsigned: C converts it to unsigned, though the
    # generated code declares iterators long long (C) or int (CUDA), parameters long long
    "iterator_meets_unsigned": ("""
void f(int n, long m, unsigned U[n], double D[n], int R[n], long L[n]) {
#pragma scop
  for (int i = 0; i < n; i++) {
    D[i] = i - U[i];
    R[i] = (i - 5 < U[i]) + (n - 40 < U[i]);
    L[i] = (i - 3) / U[i] + (m - 40 < U[i]);
  }
  for (long i = 0; i < n; i++)
    L[i] += (i - 5 < U[i]);
#pragma endscop
}""", {"n": 37, "m": 11}),
    # scalars of narrow and unsigned types in the body
    "unsigned_scalars": ("""
void f(int n, unsigned s, short t, int A[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = (A[i] - 3 < s) + t * 1000;
#pragma endscop
}""", {"n": 37}),
    # <math.h> functions of integers: C converts each argument to double (fuzz seed 61486:
    # nvcc refused sqrt(int) in a kernel, a constexpr host overload in CUDA C++)
    "math_of_integers": ("""
void f(int n, int A[n], unsigned char C[n], double D[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    D[i] = sqrt(A[i] * A[i] + 1) + exp(C[i] % 3) + pow(i, 2) + fabs(i - 5) + abs(A[i] - 3);
#pragma endscop
}""", {"n": 37}),
}


@pytest.mark.parametrize("name", sorted(C_KERNELS))
def test_c_kernel_matches_gcc(name):
    text, sizes = C_KERNELS[name]
    _verified(polycuda.compile(text, filename=f"{name}.c"), sizes)


def test_unsigned_integer_sum_is_a_reduction_narrow_and_truncating_ones_are_not():
    from polycuda.analysis.reductions import reduction_ops

    text, _ = C_KERNELS["narrow_reductions"]
    scop = polycuda.compile(text, filename="r.c").scop
    assert [scop.statement(s).lhs.array for s in reduction_ops(scop)] == ["X"]
    truncating = """
void f(int n, int m, double C[n][m], int S[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      S[i] += C[i][j] * 0.7;
#pragma endscop
}"""
    prog = polycuda.compile(truncating, filename="t.c")
    assert reduction_ops(prog.scop) == {}
    _verified(prog, {"n": 40, "m": 300})


def test_verify_draws_the_whole_range_of_narrow_and_unsigned_types():
    text, _ = C_KERNELS["signed_unsigned_comparison"]
    scop = polycuda.compile(text, filename="cmp.c").scop
    args = random_arguments(scop, {"n": 200})
    assert args["SC"].dtype == np.int8 and args["SC"].min() < -100 and args["SC"].max() > 100
    assert args["UC"].dtype == np.uint8 and args["UC"].max() > 200
    assert args["U"].dtype == np.uint32 and args["U"].max() > 2**32 - 20
    assert 0 not in args["U"] and 0 not in args["SC"]
    assert args["A"].max() < 10  # int arrays keep the small values (no signed overflow)


# -- Python: NumPy's rules ----------------------------------------------------------------------
def py_promotion(n: int, m: int, C, S):
    for i in range(n):
        for j in range(m):
            S[i] = S[i] + C[i, j] * C[i, j] - C[i, j]


def py_wrap8(n: int, A, B, U8):
    for i in range(n):
        A[i] = A[i] * 3 + B[i] - 7
        U8[i] += A[i] > B[i]


def py_wrap_then_compare(n: int, A, B, H, R, G):
    for i in range(n):
        R[i] = 1 if A[i] + B[i] > 100 else 0  # int8 + int8 wraps before the comparison
        G[i] = (H[i] * H[i]) / 2.0 + (A[i] - B[i])  # uint16 * uint16 wraps too


def py_uint32(n: int, U, V, T, S32, R):
    for i in range(n):
        T[0] += U[i] * 3 + V[i]
        V[i] = U[i] - V[i]
        R[i] = 1 if U[i] < S32[i] - 5 else 2  # compared exactly (in int64), not in uint32


def _arrays(n: int, *dtypes: type) -> list[np.ndarray]:
    return [np.zeros(n, d) for d in dtypes]


PY_KERNELS = {
    "promotion": (py_promotion, (23, 11, np.zeros((23, 11), np.int8), np.zeros(23, np.int32)),
                  {"n": 23, "m": 11}),
    "wrap8": (py_wrap8, (37, *_arrays(37, np.int8, np.int8, np.uint8)), {"n": 37}),
    "wrap_then_compare": (py_wrap_then_compare,
                          (37, *_arrays(37, np.int8, np.int8, np.uint16, np.int32, np.float64)),
                          {"n": 37}),
    "uint32": (py_uint32, (37, *_arrays(37, np.uint32, np.uint32, np.uint32, np.int32,
                                        np.int32)), {"n": 37}),
}


@pytest.mark.parametrize("name", sorted(PY_KERNELS))
def test_python_kernel_matches_numpy(name):
    fn, args, sizes = PY_KERNELS[name]
    _verified(polycuda.jit(fn).program(*args), sizes)


def py_python_int_variable(n: int, A, H):
    for i in range(n):
        A[i] = A[i] + i


def py_wider_store(n: int, A, H):
    for i in range(n):
        A[i] = H[i]


def py_constant_out_of_range(n: int, A, H):
    for i in range(n):
        A[i] = A[i] * 300


def py_floor_division(n: int, A, H):
    for i in range(n):
        A[i] = A[i] // 3


def py_float_store(n: int, A, H):
    for i in range(n):
        A[i] = A[i] * 0.5


@pytest.mark.parametrize("fn, needle", [
    (py_python_int_variable, "'+' of a NumPy int8 value and a Python integer variable"),
    (py_wider_store, "store of a int16 value into a int8 array: NumPy raises OverflowError"),
    (py_constant_out_of_range, "the constant 300: NumPy raises OverflowError"),
    (py_floor_division, "operator '//' of a NumPy int8 value is not supported"),
    (py_float_store, "store of a floating-point value into a int8 array"),
])
def test_python_numpy_int_refusals_name_the_line(fn, needle):
    with pytest.raises(UnsupportedConstruct) as err:
        polycuda.jit(fn).program(8, np.zeros(8, np.int8), np.zeros(8, np.int16))
    assert needle in str(err.value)
    assert f"test_element_types.py:{fn.__code__.co_firstlineno + 2}:" in str(err.value)


# -- refusals through the command line -----------------------------------------------------------
REFUSED = {
    "unsigned_down": ("void f(int n, double A[n])\n{\n  unsigned i;\n#pragma scop\n"
                      "  for (i = n - 1; i >= 0; i--)\n    A[i] = 2.0 * A[i];\n"
                      "#pragma endscop\n}\n",
                      5, "loop iterator 'i' of type 'unsigned' (unsigned): C's unsigned "
                         "iterator wraps around at 0"),
    "unsigned_up": ("void f(int n, double A[n])\n{\n#pragma scop\n"
                    "  for (unsigned i = 0; i < n; i++)\n    A[i] = 2.0 * A[i];\n"
                    "#pragma endscop\n}\n",
                    4, "of type 'unsigned' (unsigned): C's unsigned iterator wraps"),
    "short_iterator": ("void f(int n, double A[n])\n{\n  short i;\n#pragma scop\n"
                       "  for (i = 0; i < n; i++)\n    A[i] = 2.0;\n#pragma endscop\n}\n",
                       5, "loop iterator 'i' of type 'short': C truncates it to 16 bits"),
    "unsigned_constant_bound": ("void f(int n, double A[n])\n{\n#pragma scop\n"
                                "  for (int i = 0; i < 10u; i++)\n    A[i] = 2.0;\n"
                                "#pragma endscop\n}\n",
                                4, "unsigned constant '10u' in a loop bound"),
    "unsigned_param_bound": ("void f(unsigned n, double A[100])\n{\n#pragma scop\n"
                             "  for (int i = 0; i < n; i++)\n    A[i] = 2.0;\n"
                             "#pragma endscop\n}\n",
                             4, "'n' of type 'unsigned' in a loop bound"),
    "narrowing_cast_subscript": ("void f(int n, double A[n])\n{\n#pragma scop\n"
                                 "  for (int i = 0; i < n; i++)\n"
                                 "    A[(unsigned char)i] = 2.0;\n#pragma endscop\n}\n",
                                 5, "cast to 'unsigned char' in a subscript"),
    "unsigned_min": ("void f(int n, unsigned U[n], int A[n])\n{\n#pragma scop\n"
                     "  for (int i = 0; i < n; i++)\n    A[i] = min(U[i], A[i]);\n"
                     "#pragma endscop\n}\n", 5, "min() of an unsigned operand"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_c_refusal_through_the_cli(capsys, tmp_path, name):
    text, line, needle = REFUSED[name]
    path = tmp_path / f"{name}.c"
    path.write_text(text)
    rc = main(["compile", str(path), "--target", "c"])
    err = capsys.readouterr().err
    assert rc == 1, err
    assert f"{path}:{line}:" in err and needle in err, err
    assert "Traceback" not in err


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: CUDA not compiled")
@pytest.mark.parametrize("name", ["math_of_integers", "narrow_reductions", "unsigned_wrap"])
def test_generated_cuda_of_narrow_and_unsigned_updates_compiles_with_nvcc(name):
    # the emulator accepts an atomicAdd of a char, nvcc does not
    from polycuda.runtime import build

    text, _ = C_KERNELS[name]
    build.compile_only(polycuda.compile(text, filename=f"{name}.c").generate("cuda").source,
                       "cuda")
