"""Dual reductions (gpu/dual_reduction.py, codegen/dual_reduction_code.py): a row and a column
reduction of one matrix run as one kernel that reads the matrix once. Each case is checked
against the sequential program on the emulator and the C target, and the mapping is read from
the kernels, so that a fallback to two kernels (or a fusion isl should have refused) fails."""

import json

import islpy as isl
import numpy as np
import pytest

import polycuda
from polycuda.errors import IllegalScheduleError, LaunchError
from polycuda.gpu.mapping import COLUMNS, DUAL, ROWS
from polycuda.gpu.plan import ChainReductionKernel, DualReductionKernel
from polycuda.options import Options
from polycuda.runtime import emulate, launch
from polycuda.schedule import legality
from polycuda.show import show
from tests.unit.test_blas2 import _mapped
from tests.unit.test_emulate import PRELUDE, one_array
from tests.unit.test_runtime import random

# bicg's pair, the two updates' operators and the loop bounds to be replaced
PAIR = """
void pair(int n, int m, DATA_TYPE A[n][m], DATA_TYPE s[m], DATA_TYPE q[n], DATA_TYPE p[m],
          DATA_TYPE r[n])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      s[j] COL_OP r[i] * A[i][j];
      q[i] ROW_OP A[i][j] * p[j];
    }
#pragma endscop
}
"""


def _pair(dtype="double", col_op="+=", row_op="+=", text=PAIR, **options):
    source = (text.replace("DATA_TYPE", dtype).replace("COL_OP", col_op)
              .replace("ROW_OP", row_op))
    return polycuda.compile(source, options=Options(target="cuda", **options))


def _dual(prog, combine=DUAL):
    """The statement pairs of the kernels of `prog` mapped as `combine` (DUAL, or CHAIN)."""
    kind = DualReductionKernel if combine == DUAL else ChainReductionKernel
    return [k.dual_statements for k in prog.generate("cuda").kernels if isinstance(k, kind)]


@pytest.mark.parametrize("dtype", ["float", "double"])
@pytest.mark.parametrize("col_op,row_op", [("+=", "+="), ("-=", "+="), ("+=", "-=")])
def test_pair_runs_in_one_kernel_and_verifies(dtype, col_op, row_op):
    prog = _pair(dtype, col_op, row_op)
    assert _dual(prog) == [("S1", "S0")]  # S1 (q[i]) reduces along the row, S0 along columns
    assert _mapped(prog) == [(DUAL, "S1")]
    for sizes in ({"n": 37, "m": 300}, {"n": 300, "m": 37}, {"n": 1, "m": 1}, {"n": 33, "m": 257}):
        assert all(r.ok for r in prog.verify(sizes, targets=("emulate", "c"))), sizes


def test_the_matrix_is_read_by_one_kernel_only():
    source = _pair().generate("cuda").source
    kernels = source.split("__global__")[1:]
    assert len(kernels) == 1 and kernels[0].count("A[((long long)(c0)) * (m) + (c1)]") == 2
    # p[j] does not change with the row: read once per thread (r[i] does: read per row)
    assert "const double pc_hoisted0 = (pc_in && pc_rows) ? p[c1] : (double)0;" in kernels[0]
    assert "* pc_hoisted0)" in kernels[0] and "(r[c0] *" in kernels[0]
    assert "__shfl_xor_sync(0xffffffffu, pc_term, pc_s)" in kernels[0]
    assert "atomicAdd(&q[c0], pc_sum);" in kernels[0]
    assert "atomicAdd(pc_cell, pc_col)" in kernels[0]
    assert "dim3(256)>>>" in source


@pytest.mark.parametrize("scheduler", ["isl", "pluto", "isl-distributed"])
@pytest.mark.parametrize("name", ["bicg", "mvt"])
def test_suite_pairs_under_every_scheduler(name, scheduler):
    with open(f"kernels/c/{name}.c") as f:
        prog = polycuda.compile(f.read(), options=Options(target="cuda", scheduler=scheduler))
    assert len(_dual(prog)) == 1
    assert not [how for how, _ in _mapped(prog) if how in (ROWS, COLUMNS)]
    sizes = {"n": 45, "m": 70} if name == "bicg" else {"n": 45}
    assert all(r.ok for r in prog.verify(sizes, targets=("emulate", "c")))


@pytest.mark.parametrize("options", [{"dual_reductions": False}, {"allow_reassociation": False},
                                     {"reduction_combine": "pass"}, {"reduction_blocks": 1},
                                     {"column_reductions": False}, {"row_reductions": False}])
def test_only_where_the_options_allow_atomics_and_both_rules(options):
    assert not _dual(_pair(**options))


# The same statements, where isl must refuse the fusion: a triangle of A (not a box), the two
# reading different elements, a dependence between them
REFUSED = {
    "triangle": PAIR.replace("j < m", "j <= i"),
    "other elements": PAIR.replace("i < n", "i < n - 1").replace("A[i][j] * p[j]",
                                                                  "A[i + 1][j] * p[j]"),
    "dependence": PAIR.replace("A[i][j] * p[j]", "A[i][j] * s[j]"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_where_isl_does_not_prove_it(case):
    prog = _pair(text=REFUSED[case])
    assert not _dual(prog)
    assert all(r.ok for r in prog.verify({"n": 40, "m": 40}, targets=("emulate", "c")))


# Statements around the pair: an initialization that must run before it, a use after it
AROUND = """
void around(int n, int m, double A[n][m], double s[m], double q[n], double p[m], double r[n],
            double z[n])
{
  int i, j;
#pragma scop
  BEFORE
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      s[j] += r[i] * A[i][j];
      q[i] += A[i][j] * p[j];
    }
  AFTER
#pragma endscop
}
"""
INIT = "for (j = 0; j < m; j++) s[j] = 0.5 * p[j];"
USE = "for (i = 0; i < n; i++) z[i] = q[i] * s[0];"


@pytest.mark.parametrize("before,after,fused", [(INIT, "", True), ("", USE, True),
                                                (INIT, USE, False)])
def test_other_statements_run_before_or_after_the_pair(before, after, fused):
    text = AROUND.replace("BEFORE", before).replace("AFTER", after)
    prog = polycuda.compile(text, options=Options(target="cuda"))
    assert bool(_dual(prog)) == fused  # both at once: neither order is legal, not fused
    assert all(r.ok for r in prog.verify({"n": 37, "m": 41}, targets=("emulate", "c")))


# Variants of the pair: each statement's cell and the matrix element it reads as affine
# functions of its loops (loop order, offsets, a transposed or strided matrix, shifted cells,
# the `X = X + e` spelling); and three that isl must refuse: loops run backwards (the fused
# row-major order would reverse the updates' order, which the legality check keeps), the
# column statement's cells read by the row statement, and a cell read by its own update.
VARIANT = """
void v(int n, int m, double A[AN][AM], double s[SM], double q[QN], double p[PM], double r[RN])
{
  int i, j;
#pragma scop
  LOOPS {
      S1;
      S2;
    }
#pragma endscop
}
"""
VARIANTS = {
    "swapped": dict(AN="n", AM="m", SM="m", QN="n", PM="m", RN="n",
                LOOPS="for (j = 0; j < m; j++)\n    for (i = 0; i < n; i++)",
                S1="s[j] += r[i] * A[i][j]", S2="q[i] += A[i][j] * p[j]"),
    "offsets": dict(AN="n", AM="m", SM="m", QN="n", PM="m", RN="n",
                LOOPS="for (i = 1; i < n; i++)\n    for (j = 2; j < m - 1; j++)",
                S1="s[j] += r[i] * A[i][j]", S2="q[i] -= A[i][j] * p[j]"),
    "transposed": dict(AN="m", AM="n", SM="m", QN="n", PM="m", RN="n",
                LOOPS="for (i = 0; i < n; i++)\n    for (j = 0; j < m; j++)",
                S1="s[j] += r[i] * A[j][i]", S2="q[i] += A[j][i] * p[j]"),
    "scaled": dict(AN="2 * n", AM="m", SM="m", QN="n", PM="m", RN="n",
                LOOPS="for (i = 0; i < n; i++)\n    for (j = 0; j < m; j++)",
                S1="s[j] += r[i] * A[2 * i][j]", S2="q[i] += A[2 * i][j] * p[j]"),
    "reversed": dict(AN="n", AM="m", SM="m", QN="n", PM="m", RN="n",
                LOOPS="for (i = n - 1; i >= 0; i--)\n    for (j = m - 1; j >= 0; j--)",
                S1="s[j] += r[i] * A[i][j]", S2="q[i] += A[i][j] * p[j]"),
    "shifted cells": dict(AN="n", AM="m", SM="m + 1", QN="n + 2", PM="m", RN="n",
                LOOPS="for (i = 0; i < n; i++)\n    for (j = 0; j < m; j++)",
                S1="s[j + 1] += r[i] * A[i][j]", S2="q[i + 2] += A[i][j] * p[j]"),
    "same vector": dict(AN="n", AM="n", SM="n", QN="n", PM="n", RN="n",
                LOOPS="for (i = 0; i < n; i++)\n    for (j = 0; j < n; j++)",
                S1="s[j] += r[i] * A[i][j]", S2="q[i] += A[i][j] * s[j]"),
    "self cell read": dict(AN="n", AM="m", SM="m", QN="n", PM="m", RN="n",
                LOOPS="for (i = 0; i < n; i++)\n    for (j = 0; j < m; j++)",
                S1="s[j] += r[i] * A[i][j]", S2="q[i] += A[i][j] * q[0]"),
    "scalar factor": dict(AN="n", AM="m", SM="m", QN="n", PM="m", RN="n",
                LOOPS="for (i = 0; i < n; i++)\n    for (j = 0; j < m; j++)",
                S1="s[j] = s[j] + 2.0 * r[i] * A[i][j] * p[j]", S2="q[i] = A[i][j] * r[i] + q[i]"),
    "column stride": dict(AN="n", AM="2 * m", SM="m", QN="n", PM="m", RN="n",
                LOOPS="for (i = 0; i < n; i++)\n    for (j = 0; j < m; j++)",
                S1="s[j] += r[i] * A[i][2 * j]", S2="q[i] += A[i][2 * j] * p[j]"),
}
VARIANT_PAIRS = {
    "swapped": ("S1", "S0"), "offsets": ("S1", "S0"), "transposed": ("S0", "S1"),
    "scaled": ("S1", "S0"), "reversed": None, "shifted cells": ("S1", "S0"),
    "same vector": None, "self cell read": None, "scalar factor": ("S1", "S0"),
    "column stride": ("S1", "S0")}


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_variants_fuse_where_isl_proves_it_and_verify(name):
    text = VARIANT
    for key, value in VARIANTS[name].items():
        code = key in ("LOOPS", "S1", "S2")
        text = text.replace(key if code else f"[{key}]", value if code else f"[{value}]")
    prog = polycuda.compile(text, options=Options(target="cuda"))
    expected = VARIANT_PAIRS[name]
    assert _dual(prog) == ([expected] if expected else [])
    for sizes in ({"n": 37, "m": 70}, {"n": 3, "m": 1}):
        assert all(r.ok for r in prog.verify(sizes, targets=("emulate", "c"))), sizes


def test_pair_repeated_by_an_outer_loop_is_not_fused():
    """Each instance must read its own element (an injective read over the instances that
    reach the subtree): repeated by a loop t, A[i][j] is read once per t, and the pair is
    mapped apart."""
    text = PAIR.replace("  for (i = 0; i < n; i++)\n",
                        "  for (t = 0; t < 3; t++)\n  for (i = 0; i < n; i++)\n").replace(
        "int i, j;", "int i, j, t;")
    prog = _pair(text=text)
    assert not _dual(prog)
    assert all(r.ok for r in prog.verify({"n": 35, "m": 66}, targets=("emulate", "c")))


def test_show_schedule_names_the_one_pass():
    text = show("schedule", (_pair(),))
    assert f"kernel0: {DUAL} (one cell per matrix row, with S0)" in text
    assert f"kernel0: {DUAL} (one cell per matrix column, with S1)" in text
    statements = json.loads(show("schedule", (_pair(),), as_json=True))["statements"]
    assert [s.get("dual_reduction", {}).get("cells") for s in statements] == ["column", "row"]


def test_parallel_check_allows_only_each_statements_own_updates():
    ctx = isl.Context()
    tree = ('{ domain: "[n] -> { S0[i, j] : 0 <= i, j < n; S1[i, j] : 0 <= i, j < n }", '
            'child: { schedule: "[n] -> [{ S0[i, j] -> [(i)]; S1[i, j] -> [(i)] }, '
            '{ S0[i, j] -> [(j)]; S1[i, j] -> [(j)] }]" } }')
    band = isl.Schedule.read_from_str(ctx, tree).get_root().child(0)
    own = isl.UnionMap("[n] -> { S0[i, j] -> S0[i, j2] : j2 > j }", context=ctx)
    legality.check_parallel(band, own, "pair", updates=("S0", "S1"))
    with pytest.raises(IllegalScheduleError):
        legality.check_parallel(band, own, "pair")
    cross = own.union(isl.UnionMap("[n] -> { S0[i, j] -> S1[i2, j] : i2 > i }", context=ctx))
    with pytest.raises(IllegalScheduleError, match="S1"):
        legality.check_parallel(band, cross, "pair", updates=("S0", "S1"))


# The emulator's warp shuffle (cuda_emu_device.h): a butterfly sum leaves each warp's total in
# every lane; a partner outside a block of a partial warp is an error.
SHUFFLE_CU = PRELUDE + """
__global__ void butterfly(double *A) {
  double v = A[threadIdx.x];
  for (int s = 16; s > 0; s /= 2) v += __shfl_xor_sync(0xffffffffu, v, s);
  A[threadIdx.x] = v;
}
extern "C" int pc_butterfly_dev(long long n, double *A) {
  butterfly<<<1, (unsigned)n>>>(A);
  return (int)cudaDeviceSynchronize();
}
"""


def test_emulated_warp_shuffle(tmp_path):
    lib = emulate.build_emulated(SHUFFLE_CU, cache=tmp_path)
    kernel = launch.load(lib, one_array("butterfly"), "emulate", device_entry=True)
    A = random(64, seed=7)
    expected = np.repeat(A.reshape(2, 32).sum(axis=1), 32)
    kernel(64, A)
    np.testing.assert_allclose(A, expected, rtol=1e-14)
    with pytest.raises(LaunchError, match="partner lane is not a thread of the block"):
        kernel(48, random(48))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float", "double"])
def test_pair_verifies_on_the_gpu(dtype):
    prog = _pair(dtype, "-=", "+=")
    assert _dual(prog)
    for sizes in ({"n": 1, "m": 1}, {"n": 37, "m": 300}, {"n": 2000, "m": 3001}):
        assert all(r.ok for r in prog.verify(sizes, targets=("cuda",))), sizes
