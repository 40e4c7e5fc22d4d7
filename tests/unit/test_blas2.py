"""BLAS-2 reductions (issue 15): update statements spelled `X = X op e`, column-split
reductions, and the distribution of nests whose reductions coalesce along different loops;
each checked against the sequential program on the emulator and the C target, and the mapping
read from the kernels, so that a fallback fails."""

import shutil

import islpy as isl
import pytest

import polycuda
from polycuda.analysis.reductions import reduction_ops
from polycuda.gpu.column_reduction import distributed
from polycuda.gpu.mapping import CHAIN, COLUMNS, DUAL, ROWS
from polycuda.gpu.plan import ReductionKernel
from polycuda.options import Options
from polycuda.show import show

FORMS = """
void forms(int m, int n, DATA_TYPE A[m][n], DATA_TYPE x[n], DATA_TYPE y[m])
{
  int i, j;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      y[i] = BODY;
#pragma endscop
}
"""


def _forms(body, dtype="double", **options):
    text = FORMS.replace("BODY", body).replace("DATA_TYPE", dtype)
    return polycuda.compile(text, options=Options(target="cuda", **options))


# Each operator in both element types; its commuted spelling in one (the spelling is read by
# the front end, before any type enters)
@pytest.mark.parametrize("body,op,dtype", [("y[i] + A[i][j] * x[j]", "+=", "float"),
                                           ("y[i] + A[i][j] * x[j]", "+=", "double"),
                                           ("A[i][j] * x[j] + y[i]", "+=", "double"),
                                           ("y[i] - A[i][j] * x[j]", "-=", "float"),
                                           ("y[i] - A[i][j] * x[j]", "-=", "double"),
                                           ("y[i] * (1.0 + A[i][j] * x[j] / 64)", "*=", "float"),
                                           ("y[i] * (1.0 + A[i][j] * x[j] / 64)", "*=", "double"),
                                           ("(1.0 + A[i][j] * x[j] / 64) * y[i]", "*=", "float")])
def test_spelled_updates_are_reductions_and_verify(body, op, dtype):
    prog = _forms(body, dtype)
    assert {name: u.op for name, u in reduction_ops(prog.scop).items()} == {"S0": op}
    assert [k.reduction for k in prog.generate("cuda").kernels
            if isinstance(k, ReductionKernel)] == [op]
    for sizes in ({"m": 37, "n": 300}, {"m": 2, "n": 1}):
        assert all(r.ok for r in prog.verify(sizes, targets=("emulate", "c")))


@pytest.mark.parametrize("body", ["y[i] + y[i] * x[j]", "x[j] - y[i]", "y[i] / x[j]",
                                  "y[i] + A[i][j] + x[j]"])
def test_other_assignments_are_not_updates(body):
    """The term reads the cell; the target subtracted from e; not + - *; (y + a) + b, whose
    top operation does not take y alone."""
    assert reduction_ops(_forms(body).scop) == {}


# y[j] += A[i][j] * x[i]: j parallel and coalescing, i the reduction (a column per thread)
COLUMN = """
void column(int m, int n, DATA_TYPE A[m][n], DATA_TYPE x[m], DATA_TYPE y[n])
{
  int i, j;
#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      y[j] OP A[i][j] * x[i];
#pragma endscop
}
"""


def _column(dtype="double", op="+=", **options):
    text = COLUMN.replace("DATA_TYPE", dtype).replace("OP", op)
    return polycuda.compile(text, options=Options(target="cuda", **options))


def _mapped(prog):
    """(how, statement) of every reduction kernel, in kernel order."""
    return [(k.reduction_combine, k.reduction_statement)
            for k in prog.generate("cuda").kernels if isinstance(k, ReductionKernel)]


SIZES = ({"m": 37, "n": 300}, {"m": 300, "n": 37}, {"m": 2, "n": 1})


@pytest.mark.parametrize("op", ["+=", "-="])
@pytest.mark.parametrize("dtype", ["float", "double"])
def test_column_split_maps_and_verifies(dtype, op):
    prog = _column(dtype, op)
    assert _mapped(prog) == [(COLUMNS, "S0")]
    source = prog.generate("cuda").source
    assert "atomicAdd(pc_cell, pc_acc)" in source
    assert "c1 += (int)gridDim.y * 1)" in source  # the rows of A dealt to the chunks
    for sizes in SIZES:  # y starts random: its value must count once, not once per chunk
        assert all(r.ok for r in prog.verify(sizes, targets=("emulate", "c")))


@pytest.mark.parametrize("options", [{"allow_reassociation": False},
                                     {"column_reductions": False},
                                     {"reduction_combine": "pass"}, {"reduction_blocks": 1}])
def test_column_split_only_with_atomics_allowed(options):
    assert COLUMNS not in [how for how, _ in _mapped(_column(**options))]


def test_column_split_needs_a_parametric_reduction_and_an_additive_update():
    short = COLUMN.replace("i < m", "i < 4").replace("DATA_TYPE", "double").replace("OP", "+=")
    assert not _mapped(polycuda.compile(short, options=Options(target="cuda")))
    assert COLUMNS not in [how for how, _ in _mapped(_column(op="*="))]


def test_the_chunks_fill_the_gpu_by_its_sm_count():
    source = _column().generate("cuda").source
    assert "cudaDevAttrMultiProcessorCount" in source
    assert ("pc_ceild(pc_reduce_blocks, pc_max(pc_ceild(n, 256LL), 1LL)), pc_ceild(m, 32LL))"
            in source)


def test_a_read_that_every_column_shares_is_one_broadcast_load():
    # gramschmidt's R[k][j] += Q[i][k] * A[i][j]: Q[i][k] is the same element for every column
    # j (a broadcast load per warp), A[i][j] coalesces along j: split into column chunks, where
    # each thread had walked all of m (5 blocks for n = 1200)
    shared = COLUMN.replace("DATA_TYPE", "double").replace("OP", "+=").replace(
        "x[m]", "X[m][n]").replace("x[i]", "X[i][0]")
    prog = polycuda.compile(shared, options=Options(target="cuda"))
    assert _mapped(prog) == [(COLUMNS, "S0")]
    for sizes in SIZES[:2]:
        assert all(r.ok for r in prog.verify(sizes, targets=("emulate", "c")))
    # a read that moves along j in its outer subscript (stride n) is not coalesced
    strided = shared.replace("X[i][0]", "X[j][i]").replace("X[m][n]", "X[n][m]")
    assert COLUMNS not in [how for how, _ in _mapped(polycuda.compile(
        strided, options=Options(target="cuda")))]
    gram = polycuda.compile("kernels/c/gramschmidt.c",
                            options=Options(target="cuda", tuned_sizes=False))
    assert f"reduction (+=), kernel5: {COLUMNS}" in show("schedule", (gram,))


def test_show_schedule_says_the_columns_run_on_threads():
    assert f"reduction (+=), kernel0: {COLUMNS}" in show("schedule", (_column(),))


# Per kernel: its reduction kernels (how, statement) in kernel order
BLAS2 = {
    "atax": [(CHAIN, "S2")],  # one pass over A (gpu/chain_reduction.py)
    "bicg": [(DUAL, "S3")],  # one pass over A (gpu/dual_reduction.py)
    "mvt": [(DUAL, "S0")],
    "gemver": [(COLUMNS, "S1"), (ROWS, "S3")],
    "gesummv": [(ROWS, "S2")],
}


@pytest.mark.parametrize("name", sorted(BLAS2))
@pytest.mark.parametrize("dtype", ["float", "double"])
def test_blas2_kernels_map_and_verify(name, dtype):
    with open(f"kernels/c/{name}.c") as f:
        text = f.read().replace("#define DATA_TYPE double", f"#define DATA_TYPE {dtype}")
    prog = polycuda.compile(text, options=Options(target="cuda"))
    assert _mapped(prog) == BLAS2[name]
    two = name in ("atax", "bicg")
    for sizes in SIZES if two else ({"n": 37}, {"n": 300}, {"n": 1}):
        assert all(r.ok for r in prog.verify(sizes, targets=("emulate", "c")))


@pytest.mark.parametrize("name,split", [("bicg", [(COLUMNS, "S2"), (ROWS, "S3")]),
                                        ("mvt", [(COLUMNS, "S1"), (ROWS, "S0")])])
def test_without_dual_reductions_the_pair_is_distributed(name, split):
    with open(f"kernels/c/{name}.c") as f:
        text = f.read()
    prog = polycuda.compile(text, options=Options(target="cuda", dual_reductions=False))
    assert _mapped(prog) == split


def test_no_distribution_without_the_better_mappings():
    with open("kernels/c/mvt.c") as f:
        text = f.read()
    off = Options(target="cuda", row_reductions=False, column_reductions=False)
    assert _mapped(polycuda.compile(text, options=off)) == []
    rows_only = Options(target="cuda", column_reductions=False)
    assert _mapped(polycuda.compile(text, options=rows_only)) == [(ROWS, "S0")]


# A band [i, j] over two statements; distributed, every S0 runs before every S1
TREE = ('{ domain: "[n] -> { S0[i, j] : 0 <= i < n and 0 <= j < n; '
        'S1[i, j] : 0 <= i < n and 0 <= j < n }", '
        'child: { schedule: "[n] -> [{ S0[i, j] -> [(i)]; S1[i, j] -> [(i)] }, '
        '{ S0[i, j] -> [(j)]; S1[i, j] -> [(j)] }]", coincident: [ 1, 0 ], '
        'child: { sequence: [ { filter: "[n] -> { S0[i, j] }" }, '
        '{ filter: "[n] -> { S1[i, j] }" } ] } } }')


@pytest.mark.parametrize("dep,legal", [
    ("[n] -> { S0[i, j] -> S1[i, j] }", True),  # S0 before S1: kept
    ("[n] -> { S0[i, j] -> S1[i2, j2] : i2 > i }", True),
    ("[n] -> { S1[i, j] -> S0[i2, j] : i2 > i }", False),  # S1 before a later S0: broken
])
def test_distribution_is_checked_with_isl(dep, legal):
    ctx = isl.Context()
    band = isl.Schedule.read_from_str(ctx, TREE).get_root().child(0)
    seq = distributed(band, isl.UnionMap(dep, context=ctx))
    assert (seq is not None) == legal
    if legal:
        assert seq.get_type() == isl.schedule_node_type.sequence
        assert [seq.child(k).child(0).band_member_get_coincident(0) for k in range(2)] == \
            [True, True]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: CUDA not compiled")
@pytest.mark.parametrize("dtype", ["float", "double"])
def test_column_split_compiles_with_nvcc(dtype):
    from polycuda.runtime import build

    build.compile_only(_column(dtype).generate("cuda").source, "cuda")


def test_column_reductions_option_round_trips_and_is_checked():
    from polycuda.errors import InvalidConfigError

    off = Options(column_reductions=False)
    assert Options.from_text(off.to_text()) == off
    with pytest.raises(InvalidConfigError, match="column_reductions"):
        Options(column_reductions="no")
