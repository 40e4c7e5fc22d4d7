"""Row reductions (gpu/row_reduction.py, codegen/row_reduction_code.py; Shirako et al. 2017,
Sections 5.3 and 6): a parallel loop of reductions along the coalescing loop runs its rows on
blocks and the reduction loop on the threads of each row; checked on the emulator against the
sequential program, and the mapping itself read from the kernels, so that a silent fallback to
one thread per row fails."""

import shutil

import pytest

import polycuda
from polycuda.gpu.mapping import ROWS
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
    return [k for k in prog.generate("cuda").kernels if k.reduction_combine == ROWS]


@pytest.mark.parametrize("dtype", ["float", "double"])
@pytest.mark.parametrize("m,n", [(37, 300), (300, 37), (2, 1)])
def test_hand_nest_rows_verify_on_the_emulator(dtype, m, n):
    prog = _hand(dtype)
    assert [k.row_statements for k in _rows(prog)] == [("S1",)]
    assert all(r.ok for r in prog.verify({"m": m, "n": n}, targets=("emulate", "c")))


def test_the_reduction_loop_is_on_the_lanes_and_the_rows_on_blocks():
    source = _hand("double").generate("cuda").source
    assert "int c1 = 0 + (int)threadIdx.x * 1;" in source
    assert "for (; ((c1 + 1 * (int)blockDim.x * 1) < n); c1 += 2 * (int)blockDim.x * 1) {" in source
    assert "for (; (c1 < n); c1 += (int)blockDim.x * 1) {" in source
    assert "const int c0 = 1 + (pc_rows + (int)threadIdx.y) * 1;" in source
    assert "dim3(32, 8)>>>" in source
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


def test_show_schedule_says_the_rows_run_on_blocks():
    text = show("schedule", (_hand("double", target="cuda"),))
    assert f"reduction (+=), kernel0: {ROWS}" in text


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: CUDA not compiled")
@pytest.mark.parametrize("dtype", ["float", "double"])
def test_row_reductions_compile_with_nvcc(dtype):
    from polycuda.runtime import build

    build.compile_only(_hand(dtype, target="cuda").generate("cuda").source, "cuda")
