"""Division by zero in code generated from Python: a ZeroDivisionError, never a signal (issue 40).

C traps (SIGFPE) on an integer division by zero and on the most negative value divided by -1;
that killed the Python process of a `@polycuda.jit` call. The reference of a Python region is
the function itself run on NumPy arrays, and there the answer depends on the operands:
- an operand is an array element (a NumPy scalar, also through arithmetic): NumPy gives 0 for
  `//` and `%` by 0 (and wraps the most negative value // -1) with a RuntimeWarning, and IEEE
  inf/nan for `/`; the generated code gives the same values (the warning is not reproduced);
- the operands are Python numbers (loop variables, parameters, scalar arguments, constants):
  Python raises ZeroDivisionError. The generated code counts the division in
  pc_zero_divisions and skips it; the entry then returns abi.ZERO_DIVISION_ERROR + its kind and the
  launcher raises ZeroDivisionError with Python's message. The arrays are then left as the
  whole region made them (the divisions by 0 giving 0), not as Python's partial run would.
  The counts are the file's (one int per kind, atomic): a call that overlaps, in another
  thread, a call of the same file that divides by 0 may raise too.
A cast keeps the NumPy-ness of its operand (the frontend's implicit casts cannot be told from
`int(x)`, which in Python would make a Python int). A nonzero constant divisor gets no guard.
C input keeps C's semantics (undefined behaviour, as the user's own C).
"""

from __future__ import annotations

import dataclasses
import re

from polycuda.codegen import abi
from polycuda.ir.c_expr import C_HELPERS
from polycuda.ir.expr import (MATH_FUNCS, BinOp, Call, Cast, Const, Expr, Ref, Ternary, UnaryOp,
                              Var, children, walk, with_children)
from polycuda.ir.scop import Scop

_FLOATS = ("float", "double")
_INT_RESULT = ("<", "<=", ">", ">=", "==", "!=", "&&", "||", "%")
RAISING = ("pc_div_py", "pc_rem_py", "pc_tdiv_py", "pc_fdiv_py")

HELPERS = """\
#ifndef PC_ZERO_DIVISION_DEFINED
#define PC_ZERO_DIVISION_DEFINED
/* Divisions of code generated from Python by a value that may be 0 (codegen/zero_division.py):
   never a trap. _np (an operand is an array element, a NumPy scalar in Python): 0, as NumPy
   gives; _py (Python numbers): counted in pc_zero_divisions[k] (k: 0 `//`, 1 `%`, 2 `/` of
   integers, 3 `/` of floats), which the entry turns into its error code. A divisor -1 negates,
   wrapping, as NumPy does. */
static int pc_zero_divisions[4];
#ifdef __cplusplus
static __device__ int pc_zero_divisions_dev[4];
__host__ __device__ static inline void pc_zero_division(int k) {
#ifdef __CUDA_ARCH__
  atomicAdd(&pc_zero_divisions_dev[k], 1);
#else
  __atomic_fetch_add(&pc_zero_divisions[k], 1, __ATOMIC_RELAXED);
#endif
}
#define PC_FN template <typename A, typename B> __host__ __device__ static inline auto
PC_FN pc_div_np(A a, B b) -> decltype(a + b) {
  return b == 0 ? (decltype(a + b))0 : b == -1 ? (decltype(a + b))(0ULL - (unsigned long long)a)
      : (decltype(a + b))(a / b);
}
PC_FN pc_rem_np(A a, B b) -> decltype(a + b) {
  return (b == 0 || b == -1) ? (decltype(a + b))0 : (decltype(a + b))(a % b);
}
PC_FN pc_div_py(A a, B b) -> decltype(a + b) {
  if (b == 0) pc_zero_division(0);
  return pc_div_np(a, b);
}
PC_FN pc_rem_py(A a, B b) -> decltype(a + b) {
  if (b == 0) pc_zero_division(1);
  return pc_rem_np(a, b);
}
PC_FN pc_tdiv_py(A a, B b) -> decltype(a / b) {
  if (b == 0) pc_zero_division(2);
  return a / b;
}
PC_FN pc_fdiv_py(A a, B b) -> decltype(a / b) {
  if (b == 0) pc_zero_division(3);
  return a / b;
}
#undef PC_FN
/* The counts of this process (host code, the emulator) and of the device's kernels. */
static void pc_zero_division_counts(int *n) {
  int dev[4] = {0, 0, 0, 0};
  if (cudaMemcpyFromSymbol(dev, pc_zero_divisions_dev, sizeof dev) != cudaSuccess) {
    (void)cudaGetLastError();  /* no device: only host code ran */
    dev[0] = dev[1] = dev[2] = dev[3] = 0;
  }
  for (int k = 0; k < 4; k++)
    n[k] = __atomic_load_n(&pc_zero_divisions[k], __ATOMIC_RELAXED) + dev[k];
}
#else
static inline void pc_zero_division(int k)
{ __atomic_fetch_add(&pc_zero_divisions[k], 1, __ATOMIC_RELAXED); }
static inline long long pc_div_np(long long a, long long b)
{ return b == 0 ? 0 : b == -1 ? (long long)(0ULL - (unsigned long long)a) : a / b; }
static inline long long pc_rem_np(long long a, long long b)
{ return (b == 0 || b == -1) ? 0 : a % b; }
static inline long long pc_div_py(long long a, long long b)
{ if (b == 0) pc_zero_division(0); return pc_div_np(a, b); }
static inline long long pc_rem_py(long long a, long long b)
{ if (b == 0) pc_zero_division(1); return pc_rem_np(a, b); }
static inline double pc_tdiv_py(double a, double b)
{ if (b == 0) pc_zero_division(2); return a / b; }
static inline double pc_fdiv_py(double a, double b)
{ if (b == 0) pc_zero_division(3); return a / b; }
static void pc_zero_division_counts(int *n)
{ for (int k = 0; k < 4; k++) n[k] = __atomic_load_n(&pc_zero_divisions[k], __ATOMIC_RELAXED); }
#endif
/* The entry's error code for the divisions by 0 since `before` (pc_zero_division_counts). */
static int pc_zero_division_error(const int *before) {
  int now[4];
  pc_zero_division_counts(now);
  for (int k = 0; k < 4; k++)
    if (now[k] != before[k]) return PC_ZERO_DIVISION_ERROR + k;
  return 0;
}
#endif
""".replace("PC_ZERO_DIVISION_ERROR", str(abi.ZERO_DIVISION_ERROR))


def guard_divisions(scop: Scop) -> Scop:
    """`scop` with each division by a non-constant divisor in its statements replaced by the
    guarded helpers above (module docstring); unchanged where there is none."""
    dtypes = {a.name: a.dtype for a in scop.args if a.kind == "scalar"}
    dtypes.update({a.name: a.dtype for a in scop.arrays})

    def go(e: Expr) -> Expr:
        e = with_children(e, tuple(go(c) for c in children(e)))
        if not isinstance(e, BinOp) or e.op not in ("/", "%") or _nonzero_const(e.rhs):
            return e
        python = not (_numpy(e.lhs) or _numpy(e.rhs))
        if _dtype(e.lhs, dtypes) in _FLOATS or _dtype(e.rhs, dtypes) in _FLOATS:
            # true division: IEEE inf/nan, as NumPy; Python numbers raise (the frontend casts
            # integers to double: Python's message differs from floats')
            ints = all(isinstance(x, Cast) and _dtype(x.operand, dtypes) not in _FLOATS
                       for x in (e.lhs, e.rhs))
            helper = "pc_tdiv_py" if ints else "pc_fdiv_py"
            return Call(helper, (e.lhs, e.rhs), e.loc) if python else e
        kind = "div" if e.op == "/" else "rem"
        return Call(f"pc_{kind}_{'py' if python else 'np'}", (e.lhs, e.rhs), e.loc)

    stmts = tuple(dataclasses.replace(s, rhs=go(s.rhs), lhs=go(s.lhs)) for s in scop.statements)
    return scop if stmts == scop.statements else dataclasses.replace(scop, statements=stmts)


def _nonzero_const(e: Expr) -> bool:
    return isinstance(e, Const) and e.value != 0 and e.value != -1


def _numpy(e: Expr) -> bool:
    """Whether Python would compute `e` as a NumPy scalar: it reads an array element."""
    return isinstance(e, Ref) or any(_numpy(c) for c in children(e))


def _dtype(e: Expr, dtypes: dict[str, str]) -> str:
    """The C type class of `e`: "double"/"float" or "long" (iterators and parameters: long)."""
    if isinstance(e, Const):
        return e.dtype
    if isinstance(e, Var):
        return dtypes.get(e.name, "long")
    if isinstance(e, Ref):
        return dtypes.get(e.array, "double")
    if isinstance(e, Cast):
        return e.dtype
    if isinstance(e, BinOp) and e.op in _INT_RESULT:
        return "long"
    if isinstance(e, UnaryOp) and e.op == "!":
        return "long"
    if isinstance(e, Call) and e.func in MATH_FUNCS and e.func != "abs":
        return "double"
    kids = e.args if isinstance(e, Call) else (
        (e.then, e.other) if isinstance(e, Ternary) else children(e))
    found = [_dtype(k, dtypes) for k in kids]
    return next((d for d in ("double", "float") if d in found), "long")


def raises(scop: Scop) -> bool:
    """Whether a statement of `scop` holds a division that Python would raise on."""
    return any(isinstance(e, Call) and e.func in RAISING
               for s in scop.statements for root in (s.lhs, s.rhs) for e in walk(root))


def guard_source(scop: Scop, source: str, target: str) -> str:
    """`source` (generated from `scop`, after guard_divisions) with the helpers after the C
    helpers and, where a division can raise, each entry (pc_<name>, CUDA's pc_<name>_dev)
    wrapped: its body renamed pc_<name>[_dev]_divided, the counts compared around the call."""
    if not any(f"pc_{k}_{s}(" in source for k in ("div", "rem", "tdiv", "fdiv")
               for s in ("py", "np")):
        return source
    helpers = C_HELPERS.rstrip() + "\n"
    assert helpers in source, "zero_division: the C helpers are not in the source"
    source = source.replace(helpers, helpers + HELPERS, 1)
    if not raises(scop):
        return source
    for suffix in ("", "_dev") if target == "cuda" else ("",):
        source = _wrapped(scop, source, suffix, 'extern "C" ' if target == "cuda" else "")
    return source


def _wrapped(scop: Scop, source: str, suffix: str, extern: str) -> str:
    name = abi.entry_name(scop, suffix)
    head = f"{extern}int {name}({abi.arg_decls(scop)}) {{\n"
    found = [m.start() for m in re.finditer(re.escape(head), source)]
    found = [at for at in found if at == 0 or source[at - 1] == "\n"]
    assert len(found) == 1, f"zero_division: {len(found)} definitions of {name}"
    inner = f"{name}_divided"
    names = ", ".join(a.name for a in scop.args)
    wrapper = (f"static int {inner}({abi.arg_decls(scop)});\n"
               "/* divisions by 0 that Python raises on: counted by the code, an error here */\n"
               f"{head}  int pc_before[4];\n  pc_zero_division_counts(pc_before);\n"
               f"  const int pc_err = {inner}({names});\n"
               "  return pc_err ? pc_err : pc_zero_division_error(pc_before);\n}\n"
               f"static int {inner}({abi.arg_decls(scop)}) {{\n")
    at = found[0]
    return source[:at] + wrapper + source[at + len(head):]
