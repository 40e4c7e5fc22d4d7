"""Loops whose bounds read index arrays (CSR, issue 17 items 1 and 5): frontends, the static
analysis' may-accesses, SpMV on the static path with its row loop parallel, the triangular
solve on the run-time path (Anantpur & Govindarajan 2013) with exact levels, empty rows,
nnz = 0, and bad row pointers refused at run time, on c, openmp and the CUDA emulator."""

from __future__ import annotations

import numpy as np
import pytest

import polycuda
from kernels.indirect import MESH, SPMV, SPTRSV
from polycuda.analysis import indirect
from polycuda.errors import LaunchError, NotAffineError, UnsupportedConstruct
from polycuda.frontend import c as cfront
from polycuda.ir import isl_build
from tests.unit.test_indirect import launch_levels, run_both
from tests.unit.test_runtime import needs_nvcc

TARGETS = ("c", "openmp", "emulate")


def assert_same(prog, target, args, **changes):
    """The region on `target` (with option `changes`) and the sequential program agree on
    every written argument, and the region changed something (else the test could not fail)."""
    expected, actual = run_both(prog, target, args, **changes)
    written = [a for a in prog.scop.written_arrays() if not prog.scop.array(a).local]
    for name in written:
        np.testing.assert_allclose(actual[name], expected[name], rtol=1e-12,
                                   err_msg=f"{target}: {name}")
    assert any(not np.array_equal(expected[a], args[a]) for a in written)


def csr(rows: list[list[int]], rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(rowptr, col) of the rows' column lists."""
    rowptr = np.zeros(len(rows) + 1, np.int32)
    rowptr[1:] = np.cumsum([len(r) for r in rows])
    col = np.asarray([c for r in rows for c in r], np.int32)
    return rowptr, col


def spmv_args(rows, n, seed=0):
    rng = np.random.default_rng(seed)
    rowptr, col = csr(rows, rng)
    nnz = len(col)
    return {"n": n, "nnz": nnz, "y": rng.uniform(0.5, 1.5, n), "rowptr": rowptr, "col": col,
            "val": rng.uniform(0.5, 1.5, nnz), "x": rng.uniform(0.5, 1.5, n)}


def lower_rows(n, pattern, rng):
    """Columns < i of each row i, then the diagonal i (the solve's layout)."""
    if pattern == "chain":  # row i needs row i - 1: n levels
        below = [[i - 1] if i else [] for i in range(n)]
    elif pattern == "diagonal":  # no off-diagonal element: one level
        below = [[] for _ in range(n)]
    elif pattern == "dense":  # every earlier row: n levels
        below = [list(range(i)) for i in range(n)]
    else:  # about 3 random earlier columns per row
        below = [sorted(rng.choice(i, min(i, 3), replace=False).tolist()) if i else []
                 for i in range(n)]
    return [b + [i] for i, b in enumerate(below)]


def sptrsv_args(rows, seed=0):
    rng = np.random.default_rng(seed)
    n = len(rows)
    rowptr, col = csr(rows, rng)
    nnz = len(col)
    val = rng.uniform(0.1, 0.3, nnz)
    val[rowptr[1:] - 1] = rng.uniform(1.0, 2.0, n)  # a dominant diagonal: values stay O(1)
    return {"n": n, "nnz": nnz, "x": np.zeros(n), "b": rng.uniform(0.5, 1.5, n),
            "rowptr": rowptr, "col": col, "val": val}


def expected_levels(rows) -> int:
    """The longest chain of the solve's dependences (row i after the rows it reads)."""
    level = []
    for i, r in enumerate(rows):
        level.append(1 + max((level[j] for j in r if j < i), default=0))
    return max(level)


# -- frontends and the static analysis ----------------------------------------------------------
def test_csr_loop_is_inside_its_statement_and_a_may_access():
    scop = cfront.parse_source(SPMV, "k.c")[0]
    update = scop.statements[1]
    assert update.iterators == ("i",) and update.csr_iterators() == ("k",)
    assert "k" not in update.domain
    maps = {a.ref_id: (a.index_map, a.indirect) for a in isl_build.statement_accesses(scop, update)}
    # the write may not happen (an empty row); val[k] may be any element; rowptr[i] is exact
    assert maps["S1_0"] == ("[n, nnz] -> { S1[i] -> y[i] }", True)
    assert "rowptr[i] }" in maps["S1_1"][0] and not maps["S1_1"][1]
    assert "val[pc_a0] : 0 <= pc_a0 < nnz" in maps["S1_4"][0]


def test_python_frontend_reads_bounds_from_arrays():
    def spmv(n, nnz, y, rowptr, col, val, x):
        for i in range(n):
            y[i] = 0.0
            for k in range(rowptr[i], rowptr[i + 1]):
                y[i] += val[k] * x[col[k]]

    args = spmv_args([[0, 2], [], [1, 1, 3], [3]], 4)
    values = tuple(args[a] for a in ("n", "nnz", "y", "rowptr", "col", "val", "x"))
    jitted = polycuda.jit(spmv)
    prog = jitted.program(*values)
    loop, = prog.scop.statements[1].csr
    assert loop.iterator == "k" and loop.bound_refs()[0].array == "rowptr"
    names = [a.name for a in prog.scop.args]
    for target in ("c", "emulate"):
        assert_same(prog, target, dict(zip(names, jitted.entry_arguments(prog, values, {}))))


@pytest.mark.parametrize("loop, needle, cls", [
    ("for (int k = rowptr[i]; k < rowptr[i + 1]; k++) if (k > 2) y[i] += x[k];",
     "condition inside loop 'k'", UnsupportedConstruct),
    ("for (int k = rowptr[i]; k < rowptr[i + 1]; k++) for (int j = 0; j < 2; j++) y[i] += x[k];",
     "loop 'j' inside loop 'k'", UnsupportedConstruct),
    ("for (int k = rowptr[i]; k < rowptr[i + 1]; k++) { y[i] += x[k]; x[k] = 1.0; }",
     "share 'x'", UnsupportedConstruct),
    ("for (int k = rowptr[i] * rowptr[i]; k < rowptr[i + 1]; k++) y[i] += x[k];",
     "loop bound read from arrays", NotAffineError),
    ("for (int k = (int)x[i]; k < rowptr[i + 1]; k++) y[i] += x[k];",
     "an array of double", UnsupportedConstruct),
    ("for (int k = rowptr[i]; k < rowptr[i + 1]; k++) rowptr[k] = 0;",
     "uses 'rowptr' as an index array", UnsupportedConstruct),
])
def test_refused_csr_forms_are_located(loop, needle, cls):
    src = ("void f(int n, double y[n], double x[n], int rowptr[n + 1]) {\n#pragma scop\n"
           f"  for (int i = 0; i < n; i++)\n    {loop}\n#pragma endscop\n}}\n")
    with pytest.raises(cls) as info:
        cfront.parse_source(src, "bad.c")
    assert needle in info.value.msg and info.value.loc.line == 4 and info.value.loc.file == "bad.c"


def test_csr_loop_outside_every_affine_loop_is_refused():
    src = ("void f(int n, double y[n], int p[2]) {\n#pragma scop\n"
           "  for (int k = p[0]; k < p[1]; k++)\n    y[k] = 1.0;\n#pragma endscop\n}\n")
    with pytest.raises(UnsupportedConstruct, match="outside every affine loop"):
        cfront.parse_source(src, "bad.c")


def test_independent_statements_share_one_csr_loop():
    """Two statements in one CSR loop that share no written array: each gets the loop."""
    src = """
void two(int n, int nnz, double y[n], double z[n], int rowptr[n + 1], double val[nnz]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int k = rowptr[i]; k < rowptr[i + 1]; k++) {
      y[i] += val[k];
      z[i] += 2.0 * val[k];
    }
#pragma endscop
}
"""
    prog = polycuda.compile(src)
    assert [s.csr_iterators() for s in prog.scop.statements] == [("k",), ("k",)]
    prog.verify(sizes={"n": 17, "nnz": 40}, targets=("c",))


# -- generated code against the sequential program ----------------------------------------------
@needs_nvcc
@pytest.mark.parametrize("target", TARGETS)
def test_decreasing_csr_loop_keeps_its_order(target):
    """A CSR loop counting down, its statement not commutative in k (Horner's rule)."""
    src = """
void horner(int n, int nnz, double y[n], int rowptr[n + 1], double val[nnz]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int k = rowptr[i + 1] - 1; k >= rowptr[i]; k--)
      y[i] = y[i] * 0.5 + val[k];
#pragma endscop
}
"""
    prog = polycuda.compile(src)
    assert prog.scop.statements[0].csr[0].direction == -1
    args = spmv_args([[0, 1, 2], [], [3], [4, 5, 6, 7]], 4)
    assert_same(prog, target, {k: args[k] for k in ("n", "nnz", "y", "rowptr", "val")})


def test_spmv_stays_static_with_its_row_loop_parallel():
    prog = polycuda.compile(SPMV)
    assert not indirect.runtime_nests(prog.scop)
    cuda = prog.generate("cuda").source
    # the row loop on threads, the real bounds in the kernel, a check kernel before it
    kernel = cuda[cuda.index("spmv_s1_kernel0("):]
    assert "threadIdx.x" in kernel[:kernel.index("pc_csr_k")]
    assert "for (long long pc_csr_k = rowptr[" in kernel
    assert "pc_check0<<<" in cuda
    assert "#pragma omp parallel for" in prog.generate("openmp").source


@needs_nvcc
@pytest.mark.parametrize("target", TARGETS)
def test_spmv_with_empty_rows_and_no_elements(target):
    prog = polycuda.compile(SPMV)
    prog.verify(sizes={"n": 40, "nnz": 150}, targets=(target,))
    rows = [[0, 3], [], [], [1, 2, 3, 5], [], [5], [4, 4]]  # empty rows, repeated columns
    assert_same(prog, target, spmv_args(rows, 7))
    # nnz = 0: every row empty, y set to 0
    args = spmv_args([[] for _ in range(6)], 6)
    expected, actual = run_both(prog, target, args)
    assert np.array_equal(actual["y"], np.zeros(6)) and np.array_equal(expected["y"], actual["y"])


@needs_nvcc
@pytest.mark.parametrize("target", TARGETS)
def test_mesh_edge_loop(target):
    polycuda.compile(MESH).verify(sizes={"n": 33, "ne": 120}, targets=(target,))


@needs_nvcc
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("pattern", ["chain", "diagonal", "dense", "random"])
def test_sptrsv_patterns(target, pattern):
    """The solve on the run-time path; the user's pattern decides the dependences."""
    prog = polycuda.compile(SPTRSV)
    nest, = indirect.runtime_nests(prog.scop)
    assert nest.monitored == ("x",) and nest.private == ("s",)
    rows = lower_rows(24, pattern, np.random.default_rng(11))
    assert_same(prog, target, sptrsv_args(rows))


@needs_nvcc
@pytest.mark.parametrize("changes", [{"runtime_executor": "syncfree"}, {"reuse_levels": True},
                                     {"cpu_fallback_per_level": 4.0}])
def test_sptrsv_with_the_executor_options(changes):
    """The one-launch executor, reused levels (twice: the second call reuses them) and the
    CPU fallback (a chain: more levels than n / 4) run the CSR loop and its private scalar."""
    prog = polycuda.compile(SPTRSV)
    for pattern in ("random", "chain"):
        args = sptrsv_args(lower_rows(30, pattern, np.random.default_rng(2)))
        assert_same(prog, "emulate", args, **changes)
        assert_same(prog, "emulate", args, **changes)


@needs_nvcc
def test_sptrsv_levels_are_the_longest_dependence_chain():
    """Section 3.3: the inspector's levels are exact: the longest chain of rows that read
    each other, not one level per row (s is private to each row, not a conflict)."""
    prog = polycuda.compile(SPTRSV)
    kernel = prog.kernel("emulate", runtime_executor="levels",  # auto: no inspector here
                         cpu_fallback_per_level=0)  # all the levels, not the host
    rng = np.random.default_rng(5)
    for pattern in ("chain", "diagonal", "random"):
        rows = lower_rows(40, pattern, rng)
        args = sptrsv_args(rows)
        kernel(*[args[a.name] for a in prog.scop.args])
        assert launch_levels(kernel) == expected_levels(rows), pattern
    assert expected_levels(lower_rows(40, "random", rng)) < 40  # the test can tell


@needs_nvcc
def test_verify_draws_valid_row_pointers():
    from polycuda.verify import random_arguments

    prog = polycuda.compile(SPTRSV)
    args = random_arguments(prog.scop, {"n": 30, "nnz": 90})
    rowptr = args["rowptr"]
    assert rowptr[0] == 0 and rowptr[-1] == 90 and np.all(np.diff(rowptr) >= 1)
    assert args["col"].min() >= 0 and args["col"].max() < 30
    prog.verify(sizes={"n": 30, "nnz": 90}, targets=TARGETS)


@needs_nvcc
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case, array", [
    ("decreasing", "rowptr"), ("past_nnz", "rowptr"), ("negative", "rowptr"),
    ("bad_column", "x"),
])
def test_bad_row_pointers_are_refused_before_any_write(target, case, array):
    prog = polycuda.compile(SPMV)
    args = spmv_args([[0, 1], [2], [3, 4], [1], []], 5)
    if case == "decreasing":
        args["rowptr"][2] = 1  # rowptr = 0 2 1 5 6
        args["rowptr"][1] = 2
    elif case == "past_nnz":
        args["rowptr"][4] = 7  # nnz = 6
    elif case == "negative":
        args["rowptr"][0] = -1
    else:
        args["col"][3] = 5  # x has 5 elements
    before = args["y"].copy()
    kernel = prog.kernel(target)
    word = "bad loop bounds read from" if array == "rowptr" else "subscript of"
    with pytest.raises(LaunchError, match=f"{word} '{array}'"):
        kernel(*[args[a.name] for a in prog.scop.args])
    assert np.array_equal(args["y"], before)


@pytest.mark.gpu
@pytest.mark.parametrize("source, sizes", [(SPMV, {"n": 5000, "nnz": 40000}),
                                           (SPTRSV, {"n": 5000, "nnz": 40000}),
                                           (MESH, {"n": 5000, "ne": 40000})])
def test_csr_on_the_gpu(source, sizes):
    """On a real GPU: the CSR loops against the sequential program, and a bad row pointer
    refused on device arrays with nothing written."""
    cupy = pytest.importorskip("cupy")
    prog = polycuda.compile(source)
    assert all(r.ok for r in prog.verify(sizes=sizes, targets=("cuda",)))
    if source is SPMV:
        args = spmv_args([[0, 1], [2], [3, 4], [1], []], 5)
        args["rowptr"][4] = 9
        dev = {k: (cupy.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in args.items()}
        with pytest.raises(LaunchError, match="bad loop bounds read from 'rowptr'"):
            prog.kernel("cuda")(*[dev[a.name] for a in prog.scop.args])
        np.testing.assert_array_equal(cupy.asnumpy(dev["y"]), args["y"])
