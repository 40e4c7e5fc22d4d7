"""Chained reductions (gpu/chain_reduction.py, codegen/chain_reduction_code.py): a row reduction
and a column reduction that reads the row's result run as one kernel that reads the matrix
once. Each case is checked against the sequential program on the emulator and the C target
(random inputs: the cells keep values from before the region), and the mapping is read from
the kernels, so that a fallback to two kernels (or a fusion isl should have refused) fails."""

import json
from pathlib import Path

import pytest

import polycuda
from polycuda.codegen import chain_reduction_code
from polycuda.gpu.mapping import CHAIN, COLUMNS, DUAL, ROWS
from polycuda.options import Options
from polycuda.program import _generate
from polycuda.pyfile import programs_of_file
from polycuda.show import show
from tests.unit.test_blas2 import _mapped
from tests.unit.test_dual_reductions import _dual, _pair

# atax's chain without the initializations, the two updates' operators to be replaced
CHAIN_TEXT = """
void chain(int m, int n, DATA_TYPE A[m][n], DATA_TYPE x[n], DATA_TYPE y[n], DATA_TYPE t[m])
{
  int i, j;
#pragma scop
  for (i = 0; i < m; i++) {
    for (j = 0; j < n; j++)
      t[i] ROW_OP A[i][j] * x[j];
    for (j = 0; j < n; j++)
      y[j] COL_OP A[i][j] * t[i];
  }
#pragma endscop
}
"""
# The emulated device's grid is 2 blocks (2 SMs: pc_reduce_blocks / 4), so m = 37 already gives
# each block many rows of its grid-stride loop; the many-rows case (most of the emulator's time)
# runs once, in the first case below (and for atax in both types in test_blas2).
MANY_ROWS = {"m": 300, "n": 37}
SIZES = ({"m": 37, "n": 45}, {"m": 1, "n": 1}, {"m": 3, "n": 1100})


def _chain(dtype="double", row_op="+=", col_op="+=", text=CHAIN_TEXT, **options):
    return _pair(dtype, col_op=col_op, row_op=row_op, text=text, **options)


def _chains(prog):
    return _dual(prog, CHAIN)


def _verified(prog, sizes):
    return all(r.ok for r in prog.verify(sizes, targets=("emulate", "c")))


@pytest.mark.parametrize("dtype", ["float", "double", "long long"])
@pytest.mark.parametrize("row_op,col_op", [("+=", "+="), ("-=", "+="), ("+=", "-=")])
def test_chain_runs_in_one_kernel_and_verifies(dtype, row_op, col_op):
    prog = _chain(dtype, row_op, col_op)
    assert _chains(prog) == [("S0", "S1")]  # S0 (t[i]) along the row, S1 (y[j]) the columns
    assert _mapped(prog) == [(CHAIN, "S0")]
    many = (MANY_ROWS,) if (dtype, row_op, col_op) == ("double", "+=", "+=") else ()
    for sizes in SIZES + many:
        assert _verified(prog, sizes), sizes


def test_the_matrix_is_read_once_into_registers():
    source = _chain().generate("cuda").source
    kernels = source.split("__global__")[1:]
    assert len(kernels) == 1
    element = "A[((long long)(c0)) * (n) + (c1)]"
    # a slot's element loaded once, then used by both statements; read again only for the
    # columns past the slots
    assert f"pc_m0[pc_k] = {element};" in kernels[0]
    assert "pc_term += (pc_m0[pc_k] * pc_h0[pc_k]);" in kernels[0]
    assert "pc_col[pc_k] += (pc_m0[pc_k] * t[c0]);" in kernels[0]
    assert kernels[0].count(element) == 3
    # x[j] does not change with the row: read once per slot before the rows
    assert "pc_h0[pc_k] = (pc_rows && ((c1 < n))) ? x[c1] : (double)0;" in kernels[0]
    assert "if ((c1 < n)) t[c0] += pc_term;" in kernels[0]
    assert "atomicAdd(&y[c1], pc_col[pc_k]);" in kernels[0]
    assert "__launch_bounds__(1024)" in kernels[0] and "dim3(1024)>>>" in source
    assert "pc_max(pc_reduce_blocks / 4LL, 1LL)" in source  # a block per SM


def test_columns_past_the_registers_are_added_one_by_one(monkeypatch):
    """With one slot per thread, columns 1024 and on are read again for the column statement
    and added with an atomicAdd each; the emulator runs that path at n = 2500."""
    monkeypatch.setattr(chain_reduction_code, "CHAIN_SLOTS", 1)
    _generate.cache_clear()  # generated code of this process's other tests: 8 slots
    try:
        prog = _chain()
        source = prog.generate("cuda").source
        assert ("for (int c1 = 0 + ((int)threadIdx.x + 1024) * 1; (c1 < n); c1 += 1024 * 1)"
                in source)
        assert "atomicAdd(&y[c1], pc_one);" in source
        for sizes in ({"m": 4, "n": 2500}, {"m": 2, "n": 1025}):
            assert _verified(prog, sizes), sizes
    finally:
        _generate.cache_clear()


@pytest.mark.parametrize("scheduler", ["isl", "pluto", "isl-distributed", "superposition"])
def test_atax_under_every_scheduler(scheduler):
    with open("kernels/c/atax.c") as f:
        prog = polycuda.compile(f.read(), options=Options(target="cuda", scheduler=scheduler))
    assert _chains(prog) == [("S2", "S3")]
    assert not [how for how, _ in _mapped(prog) if how in (ROWS, COLUMNS, DUAL)]
    assert _verified(prog, {"m": 45, "n": 70})


def test_atax_from_python():
    (prog,) = programs_of_file(Path("kernels/python/atax.py"), Options(target="cuda"))
    assert len(_chains(prog)) == 1
    assert _verified(prog, {"m": 33, "n": 65})


@pytest.mark.parametrize("options", [{"chain_reductions": False}, {"allow_reassociation": False},
                                     {"reduction_combine": "pass"}, {"reduction_blocks": 1},
                                     {"column_reductions": False}, {"row_reductions": False}])
def test_only_where_the_options_allow_atomics_and_both_rules(options):
    prog = _chain(**options)
    assert not _chains(prog)
    assert _verified(prog, {"m": 20, "n": 30})


def test_without_chain_reductions_atax_runs_rows_and_columns_apart():
    with open("kernels/c/atax.c") as f:
        prog = polycuda.compile(f.read(), options=Options(target="cuda", chain_reductions=False))
    assert _mapped(prog) == [(ROWS, "S2"), (COLUMNS, "S3")]


# The same statements, where isl must refuse the chain: a triangle of A (not a box); the column
# statement reading another row's cell (t[i - 1]: another block's); the row statement reading
# the column statement's cells; a term reading its own array; the rows run backwards (the
# column updates' order reversed); both statements updating one array
REFUSED = {
    "triangle": CHAIN_TEXT.replace("j < n", "j <= i"),
    "first row": CHAIN_TEXT.replace("A[i][j] * t[i]", "A[i][j] * t[0]"),
    "other row affine": CHAIN_TEXT.replace("i < m; i++) {", "i < m - 1; i++) {").replace(
        "A[i][j] * t[i]", "A[i][j] * t[i + 1]"),
    "row reads columns": CHAIN_TEXT.replace("A[i][j] * x[j]", "A[i][j] * y[j]"),
    "own cell": CHAIN_TEXT.replace("A[i][j] * t[i];", "A[i][j] * t[i] * y[0];"),
    "reversed": CHAIN_TEXT.replace("for (i = 0; i < m; i++)", "for (i = m - 1; i >= 0; i--)"),
    "one array": CHAIN_TEXT.replace("y[j] COL_OP", "x[j] COL_OP"),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refused_where_isl_does_not_prove_it(case):
    prog = _chain(text=REFUSED[case])
    assert not _chains(prog)
    assert _verified(prog, {"m": 40, "n": 40})


# Statements around the chain: atax's initializations run before it; a use of both cells after
AROUND = CHAIN_TEXT.replace("  for (i = 0; i < m; i++) {", "  BEFORE\n  for (i = 0; i < m; i++) {"
                            ).replace("#pragma endscop", "  AFTER\n#pragma endscop")
INIT = "for (i = 0; i < m; i++) t[i] = x[0] * i;"
USE = "for (j = 0; j < n; j++) x[j] = y[j] * t[0];"


@pytest.mark.parametrize("before,after,fused", [(INIT, "", True), ("", USE, True),
                                                (INIT, USE, False)])
def test_other_statements_run_before_or_after_the_chain(before, after, fused):
    text = AROUND.replace("BEFORE", before).replace("AFTER", after).replace("DATA_TYPE",
                                                                            "double")
    prog = polycuda.compile(text.replace("ROW_OP", "+=").replace("COL_OP", "+="),
                            options=Options(target="cuda"))
    assert bool(_chains(prog)) == fused
    assert _verified(prog, {"m": 37, "n": 41})


def test_show_schedule_names_the_one_pass():
    text = show("schedule", (_chain(),))
    assert f"kernel0: {CHAIN} (one cell per matrix row, with S1)" in text
    assert f"kernel0: {CHAIN} (one cell per matrix column, with S0)" in text
    statements = json.loads(show("schedule", (_chain(),), as_json=True))["statements"]
    assert [s.get("dual_reduction", {}).get("cells") for s in statements] == ["row", "column"]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float", "double"])
def test_chain_verifies_on_the_gpu(dtype):
    """Every slot in use (n = 8192), the columns past them (n = 9001), a row per SM and more."""
    prog = _chain(dtype, "+=", "-=")
    assert _chains(prog)
    for sizes in ({"m": 1, "n": 1}, {"m": 37, "n": 300}, {"m": 300, "n": 8192},
                  {"m": 1000, "n": 9001}):
        assert all(r.ok for r in prog.verify(sizes, targets=("cuda",))), sizes
