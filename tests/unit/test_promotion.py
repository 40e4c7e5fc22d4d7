"""Private (register) promotion in generated CUDA (gpu/promotion.py, codegen/private_code.py):
which elements go to registers, the code around them, and the emulator's verdict on it."""

from __future__ import annotations

import ctypes
import re

import islpy as isl
import numpy as np

import polycuda
from kernels import suite
from polycuda.cli import main
from polycuda.gpu import mapping, promotion, staging, tiling
from polycuda.ir import isl_build
from polycuda.ir.scop import Scop
from polycuda.options import Options
from polycuda.runtime import emulate

PROMOTED = re.compile(r"\bpc_p\d")  # a private register (pc_p0, ...), not the host pc_pins

GEMM = suite.by_name("gemm")
# sizes that leave partial tiles along every mapped loop
GEMM_SIZES = {"ni": 13, "nj": 37, "nk": 11}


def _kernels_text(source: str) -> str:
    """The __global__ functions of a generated .cu file."""
    return source[source.index("__global__"):source.index('extern "C"')]


def _program(source: str, **options: object) -> polycuda.Program:
    return polycuda.compile(source, options=Options(target="cuda", shared_promotion=False, **options))


def _emulated_ok(prog: polycuda.Program, sizes: dict[str, int]) -> bool:
    results = prog.verify(sizes, targets=("emulate",), raise_on_mismatch=False)
    return len(results) == 1 and results[0].ok


def test_gemm_accumulates_in_a_register_with_one_load_and_one_store_of_c():
    prog = polycuda.compile(str(GEMM.c_path), function=GEMM.function,
                            options=Options(target="cuda", shared_promotion=False))
    kernel = _kernels_text(prog.generate("cuda").source)
    assert kernel.count("C[") == 2, kernel  # the load before the k loop, the store after it
    load = re.search(r"double pc_p0 = NAN;\n\s*if \([^\n]*\) pc_p0 = C\[[^;]*\];\n\s*pc_p0 \*= beta;",
                     kernel)
    assert load, kernel
    loop = kernel[kernel.index("for (int c4"):]
    body = loop.splitlines()[1]  # the k loop's statement: on the register, not on C
    assert body.strip().startswith("pc_p0 += ((alpha * A[") and "C[" not in body, kernel
    assert re.search(r"\}\n\s*if \([^\n]*\) C\[[^;]*\] = pc_p0;", loop), kernel
    assert _emulated_ok(prog, GEMM_SIZES)


def test_an_element_written_before_it_is_read_is_not_loaded():
    """atax: tmp[i] = 0 starts the first kernel's scope and y[j] = 0 the second's (isl fuses
    it with the y[j] += ... loop), so neither register is loaded, and both are stored. (The
    first kernel's rows would otherwise run as a row reduction, and the second's columns as a
    column-split reduction, without registers.)"""
    kernel = suite.by_name("atax")
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(target="cuda", shared_promotion=False, row_reductions=False,
                                            column_reductions=False))
    first, second = _kernels_text(prog.generate("cuda").source).split("__global__")[1:]
    assert re.search(r"double pc_p0 = NAN;\n\s*pc_p0 = 0\.0;", first), first
    assert "= tmp[" not in first and re.search(r"tmp\[[^;]*\] = pc_p0;", first), first
    assert "double pc_p0 = NAN;" in second and "= y[" not in second, second
    assert re.search(r"y\[[^;]*\] = pc_p0;", second), second
    assert _emulated_ok(prog, dict(kernel.small))


def test_the_option_and_the_flag_turn_promotion_off(tmp_path):
    prog = polycuda.compile(str(GEMM.c_path), function=GEMM.function,
                            options=Options(target="cuda", shared_promotion=False, private_promotion=False))
    kernel = _kernels_text(prog.generate("cuda").source)
    assert not PROMOTED.search(kernel)
    assert "C[" in kernel[kernel.index("for (int c4"):].splitlines()[1], kernel
    out = tmp_path / "gemm.cu"
    assert main(["compile", str(GEMM.c_path), "--target", "cuda", "--no-private-promotion",
                 "-o", str(out)]) == 0
    assert not PROMOTED.search(out.read_text())
    assert Options.from_text(Options(private_promotion=False, shared_promotion=False).to_text()).private_promotion is False


# Thread j runs i and k; its k loop reads C[k][j] besides C[i][j]: two elements of C, so the
# k loop cannot hold C[i][j] in a register (another access could alias it).
ALIASED = """
void aliased(int n, double alpha, double C[n][n], double A[n][n]) {
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        C[i][j] += alpha * C[k][j] * A[i][k];
#pragma endscop
}
"""

# Thread i runs k, whose index changes the subscript of B: no single element per thread.
MOVING = """
void moving(int n, int m, double B[n][m], double A[n][m]) {
  int i, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (k = 1; k < m; k++)
      B[i][k] = B[i][k - 1] + A[i][k];
#pragma endscop
}
"""

# Each element once per thread: a register would save nothing.
ONCE = """
void once(int n, double B[n][n], double A[n][n]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      B[i][j] = 2.0 * A[i][j] + B[i][j];
#pragma endscop
}
"""


def test_no_register_where_another_element_of_the_array_is_accessed():
    prog = _program(ALIASED)
    kernel = _kernels_text(prog.generate("cuda").source)
    assert not PROMOTED.search(kernel), kernel
    assert _emulated_ok(prog, {"n": 9})


def test_no_register_where_an_inner_loop_moves_the_subscript():
    prog = _program(MOVING)
    kernel = _kernels_text(prog.generate("cuda").source)
    assert not PROMOTED.search(kernel), kernel
    assert _emulated_ok(prog, {"n": 7, "m": 19})


def test_no_register_for_an_element_accessed_once_per_thread():
    kernel = _kernels_text(_program(ONCE).generate("cuda").source)
    assert not PROMOTED.search(kernel), kernel


# gemver's second statement: x[i] for the whole j loop, and A[j][i] written by the first
# statement at the same j: A's register lives inside the j loop only.
NESTED = """
void nested(int n, double beta, double A[n][n], double u[n], double x[n], double y[n]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      A[j][i] = A[j][i] + u[j];
      x[i] = x[i] + beta * A[j][i] * y[j];
    }
#pragma endscop
}
"""


def test_a_register_per_loop_iteration_inside_a_register_for_the_loop():
    # both statements in one nest (auto splits them); the DOALL kernel, not a column split
    prog = _program(NESTED, scheduler="isl", column_reductions=False)
    kernel = _kernels_text(prog.generate("cuda").source)
    outer = re.search(r"(pc_p\d) = x\[", kernel)
    inner = re.search(r"for \(int c2[^\n]*\n(\s*\{\n)?\s*double (pc_p\d) = NAN;\n[^\n]*\2 = A\[", kernel)
    assert outer and inner, kernel
    assert kernel.count("x[") == 2 and kernel.count("A[") == 2, kernel
    assert _emulated_ok(prog, {"n": 21})


# One block only (4 rows < one tile): its loop is not in the AST, and the statements run on
# block 0 (cuda_target's owner guard); the register's load and store must be guarded as well.
SMALL = """
void small(int n, double x[4], double A[4][n]) {
  int i, k;
#pragma scop
  for (i = 0; i < 4; i++) {
    x[i] = 1.0;
    for (k = 0; k < n; k++)
      x[i] += A[i][k];
  }
#pragma endscop
}
"""


def test_loads_and_stores_carry_the_owner_guards_of_unrealised_mapped_loops():
    prog = _program(SMALL, row_reductions=False)  # the DOALL kernel (else a row reduction)
    kernel = _kernels_text(prog.generate("cuda").source)
    # the single tile (coordinate 0) runs on the block that owns coordinate 0, loads and
    # stores included
    assert re.search(r"if \(pc_mod\(0, \(int\)gridDim\.x\) == \(int\)blockIdx\.x\) "
                     r"x\[c1\] = pc_p0;", kernel.replace(" && (((c1 >= 0) && (c1 <= 3)))", "")), kernel
    assert _emulated_ok(prog, {"n": 6})


# A ternary's branch reads y[i] only when i > 0: a load before the loop would read an element
# that the program may never read (in the drop-in output, which no bounds check guards, one
# outside the array: i > 0 ? y[i - 1] : 0).
CONDITIONAL = """
void conditional(int n, double x[n], double y[n], double A[n][n]) {
  int i, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (k = 0; k < n; k++)
      x[i] = x[i] + (i > 0 ? y[i] : 0.0) * A[i][k];
#pragma endscop
}
"""


def test_no_register_for_an_array_read_in_a_ternary_branch():
    # the DOALL kernel (x[i] = x[i] + ... is an update: else a row reduction)
    prog = _program(CONDITIONAL, row_reductions=False)
    kernel = _kernels_text(prog.generate("cuda").source)
    assert re.search(r"pc_p\d = x\[", kernel), kernel
    assert "= y[" not in kernel and "y[" in kernel, kernel
    assert _emulated_ok(prog, {"n": 10})


def _wrongly_parallel(subscript: str) -> tuple[mapping.MappedSchedule, Scop,
                                               staging.Accesses]:
    """`for i, k: x[<subscript>] += A[i][k]` mapped with i marked parallel, unchecked."""
    scop = polycuda.compile(f"""
void f(int n, double x[n], double A[n][n]) {{
  int i, k;
#pragma scop
  for (i = 0; i < n; i++)
    for (k = 0; k < n; k++)
      x[{subscript}] += A[i][k];
#pragma endscop
}}""").scop
    ctx = isl.Context()
    stmt = scop.statements[0].name
    node = isl.Schedule.from_domain(isl_build.domain_union(scop, ctx)).get_root().child(0)
    for dim in ("k", "i"):
        node = node.insert_partial_schedule(isl.MultiUnionPwAff.read_from_str(
            ctx, f"[n] -> [{{ {stmt}[i, k] -> [({dim})] }}]"))
    node = node.band_member_set_coincident(0, True)
    mapped = tiling.map_schedule(node.get_schedule(), Options(target="cuda", shared_promotion=False),
                                  isl_build.context_set(scop, ctx))
    accesses = staging.Accesses(isl_build.accesses_union(scop, ctx, writes=False),
                                isl_build.accesses_union(scop, ctx, writes=True),
                                {a.name: a.dtype for a in scop.arrays})
    return mapped, scop, accesses


def test_an_element_that_other_threads_write_is_never_promoted():
    """Condition 2 on its own: with every thread accumulating into x[0] (a mapping that the
    pipeline's parallel check would refuse), no register; with x[i], one."""
    shared = promotion.promote_private(*_wrongly_parallel("0"))
    assert not any(k.private for k in shared.kernels)
    private = promotion.promote_private(*_wrongly_parallel("i"))
    assert [e.array for k in private.kernels for s in k.private for e in s.elements] == ["x"]


# Found by the fuzzer (seed 20018, reduced): with s0 expanded, isl drops the thread coordinate
# of the last statement (the i loop determines it) and its guard once said thread 0, while the
# loop iteration it reads from ran on the thread of its coordinate.
IMPLIED_COORDINATE = """
void fuzz(int n, double A[n + 2][8], int B[n - 1][9][7])
{
  int i, j, k;
  double s0;
#pragma scop
  for (i = 2; i < n; i++) {
    for (j = 0; j < n - 1; j++) {
      s0 = 0.0;
      for (k = 0; k <= i; k++) {
        s0 = 0.5 * B[j][k][n - i - 1] + 0.0;
      }
      A[j][i - 1] = 0.5 * s0 + 0.25 * A[n - j + 1][i - 2] + 0.1;
    }
  }
#pragma endscop
}
"""


def test_an_implied_thread_coordinate_runs_on_its_own_thread():
    prog = polycuda.compile(IMPLIED_COORDINATE, filename="fuzz.c",
                            options=Options(shared_promotion=False, scheduler="pluto", balanced_wavefront=True))
    source = prog.generate("cuda").source
    assert "(threadIdx.x == 0)" not in source and "pc_mod(((c0 / 2) - (32 * c2))" in source
    assert all(r.ok for r in prog.verify({"n": 9}, targets=("emulate",)))


# Fuzz seed 40021 (reduced): S1 runs only when n <= 4 (i >= n - 1, i <= 3), so at n = 9 its
# i loop is empty, but isl still prints the threads' guards around it. The store of B's
# register after the loop was printed unconditionally (its condition was simplified against
# isl's assumption that some instance runs below) and wrote B[2], B[3] past B's 2 elements.
EMPTY_BELOW = """
void empty_below(int n, int m, double A[5][n - 3], double B[n - 7]) {
  int i, j, k;
#pragma scop
  for (i = 1; i <= min(m - 1, 3); i++)
    for (j = 1; j < m; j++)
      for (k = 2; k < m; k++) {
        if (n >= i + 2)
          A[i + k - 2][k + j - 1] += 0.5 * A[i + k - 3][k + j - 2];
        else
          B[n - k - 3] = 0.5 * A[4][i] + 0.1;
      }
#pragma endscop
}
"""


def test_no_store_of_a_register_whose_statement_never_ran():
    source = "#define min(x, y) ((x) < (y) ? (x) : (y))\n" + EMPTY_BELOW
    prog = polycuda.compile(source, filename="empty_below.c", options=Options(shared_promotion=False, scheduler="isl"))
    cuda = prog.generate("cuda").source
    lib = ctypes.CDLL(str(emulate.build_emulated(cuda, seed=1)))
    n, m = 9, 4
    a = np.random.default_rng(0).uniform(0.5, 1.5, (5, n - 3))
    guarded = np.full(n - 7 + 8, 7.0)  # B, then 8 sentinels past its end
    lib.pc_empty_below.restype = ctypes.c_int
    assert lib.pc_empty_below(ctypes.c_longlong(n), ctypes.c_longlong(m),
                              a.ctypes.data_as(ctypes.c_void_p),
                              guarded.ctypes.data_as(ctypes.c_void_p)) == 0
    assert (guarded[n - 7:] == 7.0).all(), guarded  # nothing written past B
    assert _emulated_ok(prog, {"n": 9, "m": 4}) and _emulated_ok(prog, {"n": 12, "m": 4})


# Fuzz seed 63056, reduced: S2's point loop is 2 * (j mod 128) (after S0 and S1 at i + 6 and
# 2i + 6); isl's AST build divided that loop by its stride in one copy of the kernel body,
# which then ran element j's updates on thread j while thread 2j held A[j - 2][n - j - 1] in
# its register: A came out unchanged there. The AST iterators now keep the schedule's values.
STRIDED = """
void fuzz(int n, double alpha, double A[6][6], int B[7][9][7], int C[4][6])
{
  int i, j;
#pragma scop
  for (i = 2; i <= n - 2; i++) {
    B[i][n - i - 2][i] = (1) / 1;
  }
  for (i = n - 1; i >= 0; i--) {
    for (j = 2; j <= i; j++) {
      if (n >= 2 * i + 1) {
        B[i][2 * i - 1][i + 1] = (B[2 * i][j + 1][2 * i] + 2) / 2;
      } else {
        A[j - 2][n - j - 1] = 0.5 * A[j - 2][n - j - 1] + 0.25 * B[n - i - 1][i + 1][j - 2]
                              + 0.3 * C[i - 4][j - 2] + alpha;
      }
    }
  }
#pragma endscop
}
"""


def test_a_register_follows_a_point_loop_of_stride_two():
    from polycuda.schedule import isl_scheduler

    assert isl_scheduler.new_context().get_ast_build_scale_strides() == 0
    prog = polycuda.compile(STRIDED, filename="strided.c",
                            options=Options(target="cuda", scheduler="isl"))
    source = prog.generate("cuda").source
    assert "pc_c0" in source  # A's element is promoted, the case that went wrong
    (result,) = prog.verify({"n": 8}, targets=("emulate",))
    assert result.ok, result
