"""Row reductions (gpu/row_reduction.py, codegen/row_reduction_code.py; Shirako et al. 2017,
Sections 5.3 and 6): a parallel loop of reductions along the coalescing loop runs its rows on
blocks and the reduction loop on the threads of each row; checked on the emulator against the
sequential program, and the mapping itself read from the kernels, so that a silent fallback to
one thread per row fails."""

import shutil

import pytest

import polycuda
from polycuda.gpu.mapping import ROWS
from polycuda.gpu.plan import ReductionKernel, RowReductionKernel
from polycuda.options import Options
from polycuda.show import show

# A statement before and after the reduction loop of each row, the loop's length not a
# multiple of the 32 lanes, and a row loop of a stride-1 but offset range.
HAND = """
void hand(int m, int n, DATA_TYPE A[m][n], DATA_TYPE x[n], DATA_TYPE y[m], DATA_TYPE z[m])
{
  int i, j;
#pragma scop
  for (i = 1; i < m; i++) {
    y[i] = x[0] * 0.5;
    for (j = 0; j < n; j++)
      y[i] += A[i][j] * x[j];
    z[i] = y[i] * y[i] - z[i];
  }
#pragma endscop
}
"""


def _hand(dtype, **options):
    return polycuda.compile(HAND.replace("DATA_TYPE", dtype), options=Options(**options))


def _rows(prog):
    return [k for k in prog.generate("cuda").kernels if isinstance(k, RowReductionKernel)]


@pytest.mark.parametrize("dtype", ["float", "double"])
@pytest.mark.parametrize("m,n", [(37, 300), (300, 37), (2, 1)])
def test_hand_nest_rows_verify_on_the_emulator(dtype, m, n):
    prog = _hand(dtype)
    assert [k.row_statements for k in _rows(prog)] == [("S1",)]
    assert all(r.ok for r in prog.verify({"m": m, "n": n}, targets=("emulate", "c")))


def test_the_reduction_loop_is_on_the_lanes_and_the_rows_on_blocks():
    source = _hand("double").generate("cuda").source
    assert "int c1 = 0 + (int)threadIdx.x * 1;" in source
    assert "for (; ((c1 + 3 * (int)blockDim.x * 1) < n); c1 += 4 * (int)blockDim.x * 1) {" in source
    assert "for (; (c1 < n); c1 += (int)blockDim.x * 1) {" in source
    assert "const int c0 = 1 + (pc_rows + (int)threadIdx.y) * 1;" in source
    assert "dim3(32, 8)>>>" in source
    # rows of one length: a block per group of rows, no cap (codegen/row_reduction_code.grid)
    assert "pc_ceild((m - 1), 8LL), 1LL), 2147483647LL)), dim3(32, 8)>>>" in source
    assert "pc_reduce_blocks" not in source
    off = _hand("double", row_reductions=False)
    assert not _rows(off) and "pc_rows" not in off.generate("cuda").source
    assert not _rows(_hand("double", allow_reassociation=False))


@pytest.mark.parametrize("name,rows", [("atax", [("S2",)]), ("gesummv", [("S2", "S3")]),
                                       ("gemver", [("S3",)])])
@pytest.mark.parametrize("dtype", ["float", "double"])
def test_blas2_kernels_map_rows_and_verify(name, rows, dtype):
    with open(f"kernels/c/{name}.c") as f:
        text = f.read()
    # atax's rows run in its chain by default (gpu/chain_reduction.py)
    prog = polycuda.compile(text.replace("#define DATA_TYPE double", f"#define DATA_TYPE {dtype}"),
                            options=Options(chain_reductions=False))
    assert [k.row_statements for k in _rows(prog)] == rows
    sizes = {"m": 37, "n": 300} if name == "atax" else {"n": 37}
    if name == "gemver":  # w[i] = w[i] + alpha * A[i][j] * x[j]: an update statement
        assert "pc_acc += ((alpha * A[" in prog.generate("cuda").source
    assert all(r.ok for r in prog.verify(sizes, targets=("emulate",)))


# Every row of one launch sums t terms: the length changes with the host loop only
HOST_TRIANGLE = """
void lengths_by_step(int n, int T, double A[n][n], double x[n], double y[n])
{
#pragma scop
  for (int t = 1; t < T; t++) {
    for (int i = 0; i < n; i++)
      for (int j = 0; j < t; j++)
        y[i] += A[i][j] * x[j];
    for (int k = 0; k < n; k++)
      x[k] = y[k] * 0.5;
  }
#pragma endscop
}
"""


def test_rows_of_different_lengths_go_to_a_capped_grid():
    """trmv's triangle (row i sums i + 1 terms): row_reduction.uneven, so its groups of rows
    go to at most CAP blocks (by default 4 per SM of the running GPU); the hand nest's box
    and a triangle under a host loop whose rows do not depend on the row: even."""
    with open("kernels/c/trmv.c") as f:
        trmv = polycuda.compile(f.read())
    assert [k.uneven_rows for k in _rows(trmv)] == [True]
    source = trmv.generate("cuda").source
    assert "const long long pc_reduce_blocks = pc_max(1LL, pc_min(4LL * pc_reduce_sms" in source
    assert "pc_ceild(n, 8LL), 1LL), pc_reduce_blocks)), dim3(32, 8)>>>" in source
    assert [k.uneven_rows for k in _rows(_hand("double"))] == [False]
    host = polycuda.compile(HOST_TRIANGLE)
    assert [k.uneven_rows for k in _rows(host)] == [False]
    assert "pc_reduce_blocks" not in host.generate("cuda").source
    assert all(r.ok for r in host.verify({"n": 50, "T": 7}, targets=("emulate",)))


@pytest.mark.parametrize("blocks", [1, 3, 4])
def test_groups_of_rows_dealt_in_zigzag_rounds_verify(blocks):
    """More groups of rows than blocks (Options.reduction_blocks caps the grid): each block
    takes a group per round, in reversed block order every other round, a last round that
    some blocks sit out; trmv's triangle (rows of growing length) and the hand nest."""
    with open("kernels/c/trmv.c") as f:
        trmv = polycuda.compile(f.read(), options=Options(reduction_blocks=blocks))
    source = trmv.generate("cuda").source
    assert "(pc_round & 1) ? (int)gridDim.x - 1 - (int)blockIdx.x : (int)blockIdx.x" in source
    assert f"const long long pc_reduce_blocks = {blocks};" in source
    assert "pc_ceild(n, 8LL), 1LL), pc_reduce_blocks)), dim3(32, 8)>>>" in source
    assert all(r.ok for r in trmv.verify({"n": 131}, targets=("emulate",)))
    hand = _hand("double", reduction_blocks=blocks)
    assert all(r.ok for r in hand.verify({"m": 70, "n": 45}, targets=("emulate",)))


@pytest.mark.parametrize("name", ["atax", "bicg", "gesummv"])
def test_row_dual_and_chained_kernels_take_the_options_block_cap(name):
    """Options.reduction_blocks reaches every many-block reduction kernel (rows, dual pairs,
    chains), so that a region mixing them sets one cap (reduction_code.grid_setup)."""
    with open(f"kernels/c/{name}.c") as f:
        prog = polycuda.compile(f.read(), options=Options(reduction_blocks=3))
    assert {k.reduction_blocks for k in prog.generate("cuda").kernels
            if isinstance(k, ReductionKernel)} == {3}
    sizes = {"n": 45, "m": 70} if name != "gesummv" else {"n": 45}
    assert all(r.ok for r in prog.verify(sizes, targets=("emulate",)))


def test_show_schedule_says_the_rows_run_on_blocks():
    text = show("schedule", (_hand("double", target="cuda"),))
    assert f"reduction (+=), kernel0: {ROWS}" in text


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: CUDA not compiled")
@pytest.mark.parametrize("dtype", ["float", "double"])
def test_row_reductions_compile_with_nvcc(dtype):
    from polycuda.runtime import build

    build.compile_only(_hand(dtype, target="cuda").generate("cuda").source, "cuda")


@pytest.mark.gpu
@pytest.mark.parametrize("blocks", [0, 3])
def test_zigzag_rounds_verify_on_the_gpu(blocks):
    """trmv's triangle on the GPU, n = 1000 (125 groups of rows): with the default cap (4
    blocks per SM) and with 3 blocks, 42 rounds of zigzag."""
    with open("kernels/c/trmv.c") as f:
        prog = polycuda.compile(f.read(), options=Options(target="cuda", reduction_blocks=blocks))
    assert all(r.ok for r in prog.verify({"n": 1000}, targets=("cuda",)))
