"""Print IR expressions as C/CUDA text (fully parenthesized where precedence could bite)."""

from __future__ import annotations

from collections.abc import Callable

from polycuda.ir.dtypes import INTEGER, cast_name, const_suffix
from polycuda.ir.expr import BinOp, Call, Cast, Const, Expr, Ref, Ternary, UnaryOp, Var

RefPrinter = Callable[[Ref, Callable[[Expr], str]], str]

_C_FUNCS = {"abs": "abs", "min": "min", "max": "max"}


def subscript_ref(ref: Ref, sub: Callable[[Expr], str]) -> str:
    """A[i][j] (C arrays, VLAs); a written scalar prints as its name."""
    return ref.array + "".join(f"[{sub(i)}]" for i in ref.index)


def const_to_c(value: float, dtype: str) -> str:
    if dtype in INTEGER and isinstance(value, int):
        text = f"{value}{const_suffix(dtype)}"
        return text if value >= 0 else f"({text})"
    text = repr(float(value))
    if text in ("inf", "-inf", "nan"):
        raise ValueError(f"cannot print non-finite constant {value}")
    text = text if ("e" in text or "." in text) else text + ".0"
    text = text + "f" if dtype == "float" else text
    return text if not text.startswith("-") else f"({text})"


def expr_to_c(expr: Expr, ref_printer: RefPrinter = subscript_ref,
              var_printer: Callable[[str], str] | None = None) -> str:
    """C text of `expr`; `ref_printer` decides how array elements are addressed."""

    def go(e: Expr) -> str:
        if isinstance(e, Const):
            return const_to_c(e.value, e.dtype)
        if isinstance(e, Var):
            return var_printer(e.name) if var_printer else e.name
        if isinstance(e, Ref):
            return ref_printer(e, go)
        if isinstance(e, BinOp):
            return _binop(e, go)
        if isinstance(e, UnaryOp):
            return f"({e.op}{go(e.operand)})"
        if isinstance(e, Call):
            return f"{e.func}({', '.join(go(a) for a in e.args)})"
        if isinstance(e, Ternary):
            return f"({go(e.cond)} ? {go(e.then)} : {go(e.other)})"
        if isinstance(e, Cast):
            return f"(({cast_name(e.dtype)}){go(e.operand)})"
        raise TypeError(f"unknown expression node {e!r}")

    return go(expr)


def _binop(e: BinOp, go: Callable[[Expr], str]) -> str:
    a, b = go(e.lhs), go(e.rhs)
    if e.op == "floordiv":
        return f"pc_floord({a}, {b})"
    if e.op == "ceildiv":
        return f"pc_ceild({a}, {b})"
    if e.op in ("min", "max"):
        return f"pc_{e.op}({a}, {b})"
    return f"({a} {e.op} {b})"


# Helpers every generated C/CUDA file defines (integer floor/ceil division, min, max, modulo).
# Functions, not macros: isl's bounds nest min/max/floord ten deep, and a macro that names an
# argument twice doubles the text at every level (sor-3d's kernel: 14 KB of source took gcc
# minutes and 10 GB). In C++ (CUDA, the emulator) templates keep int arithmetic in int, where
# 32-bit division is several times faster on the GPU than 64-bit; min and max of integers are
# the exception, in 64 bits: ptxas (CUDA 12.8 to 13.3, optimised builds) fuses a chain of 32-bit
# integer max or min with a negated operand into one VIMNMX3 and drops the negation (pytorch
# issue 190973, triton PR 11032; bench/repro/ptxas_minmax3.cu), which gave wrong bounds and a
# wrong result (tests/fuzz seed 61035); there is no 64-bit form of that instruction. Guarded: a
# file of several regions (polycuda compile of a C file with more than one) defines them once.
C_HELPERS = """\
#ifndef PC_HELPERS_DEFINED
#define PC_HELPERS_DEFINED
#ifdef __cplusplus
#define PC_FN template <typename A, typename B> __host__ __device__ static inline auto
PC_FN pc_floord(A n, B d) -> decltype(n + d) { return n < 0 ? -((-n + d - 1) / d) : n / d; }
PC_FN pc_ceild(A n, B d) -> decltype(n + d) { return pc_floord(n + d - 1, d); }
template <bool Max> __host__ __device__ static inline long long pc_minmax64(long long a, long long b) {
#ifdef __CUDA_ARCH__
  long long r;  /* asm: NVVM would narrow a 64-bit max of two ints back to 32 bits */
  if (Max) asm("max.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b));
  else asm("min.s64 %0, %1, %2;" : "=l"(r) : "l"(a), "l"(b));
  return r;
#else
  return (a > b) == Max ? a : b;
#endif
}
template <typename T> struct pc_signed_int {
  static constexpr bool value = (T)-1 < (T)0 && (T)1 / (T)2 == (T)0;
};
template <typename T, bool = pc_signed_int<T>::value> struct pc_minmax {
  __host__ __device__ static T min(T a, T b) { return a < b ? a : b; }
  __host__ __device__ static T max(T a, T b) { return a > b ? a : b; }
};
template <typename T> struct pc_minmax<T, true> {
  __host__ __device__ static T min(T a, T b) { return (T)pc_minmax64<false>(a, b); }
  __host__ __device__ static T max(T a, T b) { return (T)pc_minmax64<true>(a, b); }
};
PC_FN pc_min(A a, B b) -> decltype(a + b) { return pc_minmax<decltype(a + b)>::min(a, b); }
PC_FN pc_max(A a, B b) -> decltype(a + b) { return pc_minmax<decltype(a + b)>::max(a, b); }
PC_FN pc_mod(A a, B m) -> decltype(a + m) { return ((a % m) + m) % m; }
#undef PC_FN
#else
static inline long long pc_floord(long long n, long long d)
{ return n < 0 ? -((-n + d - 1) / d) : n / d; }
static inline long long pc_ceild(long long n, long long d) { return pc_floord(n + d - 1, d); }
static inline long long pc_min(long long a, long long b) { return a < b ? a : b; }
static inline long long pc_max(long long a, long long b) { return a > b ? a : b; }
static inline long long pc_mod(long long a, long long m) { return ((a % m) + m) % m; }
#endif
#endif
"""
