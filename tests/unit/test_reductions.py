"""Reduction loops that would run in one GPU thread are summed by a block (analysis/
reductions.py, mapping._reduction, cuda_target.ReductionPrinter), checked on the emulator."""

import re
import shutil

import numpy as np
import pytest

import polycuda
from kernels import suite
from polycuda.analysis.reductions import reduction_ops, terms_per_cell
from polycuda.options import Options
from polycuda.verify import compare

# Column norms as gramschmidt computes them: each column k is updated from column k - 1's
# norm, so k is sequential; over i, a reduction and a parallel loop.
NORMS = """
void norms(int m, int n, double A[m][n + 1], double R[n][n], double P[n], int C[n])
{
  int i, k;
#pragma scop
  for (k = 0; k < n; k++) {
    R[k][k] = 0.0;
    for (i = 0; i < m; i++)
      R[k][k] += A[i][k] * A[i][k];
    for (i = 0; i < m; i++)
      A[i][k + 1] += A[i][k] / (1.0 + R[k][k]);
  }
#pragma endscop
}
"""

# Running products and integer differences, each step starting from the previous one's.
CHAINS = """
void chains(int m, int n, double A[m][n], double P[n], int C[n])
{
  int i, k;
#pragma scop
  for (k = 1; k < n; k++) {
    P[k] = P[k - 1];
    for (i = 0; i < m; i++)
      P[k] *= 1.0 + 0.001 * A[i][k];
  }
  for (k = 1; k < n; k++) {
    C[k] = C[k - 1] % 1000;
    for (i = 0; i < m; i++)
      C[k] -= i % 7 + k;
  }
#pragma endscop
}
"""

# x[k] grows by a multiple of itself: each step reads the cell the loop updates (not a
# reduction), and x[k] reads x[k - 1] (k is sequential too).
RECURRENCE = """
void recurrence(int n, double x[n], double A[n][n])
{
  int k, i;
#pragma scop
  for (k = 1; k < n; k++)
    for (i = 0; i < k; i++)
      x[k] += 0.01 * A[k][i] * x[k] + 0.01 * x[k - 1];
#pragma endscop
}
"""


def test_reduction_statements_are_updates_that_do_not_read_their_array():
    prog = polycuda.compile(CHAINS, filename="chains.c")
    assert sorted(u.op for u in reduction_ops(prog.scop).values()) == ["*=", "-="]
    norm, update = reduction_ops(polycuda.compile(NORMS, filename="n.c").scop).values()
    assert norm.op == "+=" and norm.self_reads == ()  # R[k][k] += A[i][k] * A[i][k]
    assert [text.split("->")[-1].strip() for text in update.self_reads] == ["A[i, k] }"]
    (update,) = reduction_ops(polycuda.compile(RECURRENCE, filename="r.c").scop).values()
    assert [text.split("->")[-1].strip() for text in update.self_reads] == [
        "x[k] }", "x[(k - (1))] }"]


# CUDA's atomic functions (atomicAdd, atomicInc, ...): the host version's flag of
# codegen/host_choice.py is set with the host compiler's __atomic_store_n
DEVICE_ATOMIC = re.compile(r"\batomic[A-Z]\w*\(")


def test_each_reduction_loop_is_one_block_not_one_thread():
    one = Options(reduction_blocks=1)
    source = polycuda.compile(NORMS, filename="norms.c", options=one).generate("cuda").source
    # the reduction's launch; from 128 iterations of k on, the loop in one block of 256
    # threads instead (codegen/fused_loops.py), the same tree as a section
    assert source.count("kernel1<<<dim3(1), dim3(256)>>>") == 1
    assert "kernel1_block<<<dim3(1), dim3(256)>>>" in source and "dim3(1), dim3(1)" not in source
    source = polycuda.compile(CHAINS, filename="chains.c", options=one).generate("cuda").source
    assert len(re.findall(r"kernel\d+<<<dim3\(1\), dim3\(256\)>>>", source)) == 2
    assert len(re.findall(r"kernel\d+_block<<<dim3\(1\), dim3\(256\)>>>", source)) == 2
    assert not DEVICE_ATOMIC.search(source)
    assert "pc_part[threadIdx.x] = pc_part[threadIdx.x] * pc_part[threadIdx.x + pc_s];" in source
    assert "int pc_acc = (int)0;" in source and "*pc_cell += pc_part[0];" in source
    off = polycuda.compile(CHAINS, filename="chains.c",
                           options=Options(allow_reassociation=False))
    assert "dim3(256)" not in off.generate("cuda").source


@pytest.mark.parametrize("m", [5, 256, 700])  # fewer iterations than threads, equal, more
@pytest.mark.parametrize("source", [NORMS, CHAINS])
def test_reductions_verify_on_the_emulator(source, m):
    prog = polycuda.compile(source, filename="x.c")
    assert all(r.ok for r in prog.verify({"m": m, "n": 9}, targets=("emulate", "c")))


def test_an_update_that_reads_its_own_cell_stays_sequential():
    prog = polycuda.compile(RECURRENCE, filename="r.c")
    source = prog.generate("cuda").source
    assert "pc_part" not in source and "pc_acc" not in source
    assert all(r.ok for r in prog.verify({"n": 40}, targets=("emulate",)))


@pytest.mark.parametrize("name", ["gramschmidt", "durbin", "correlation"])
def test_suite_kernels_with_reductions_verify_on_the_emulator(name):
    kernel = suite.by_name(name)
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function)
    assert all(r.ok for r in prog.verify(dict(kernel.small), targets=("emulate",)))


# -- verify's tolerance from the reduction length ---------------------------------------------
DOT_FLOAT = """
void dot(int n, float x[n], float y[n], float s[1])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    s[0] += x[i] * y[i];
#pragma endscop
}
"""


def test_terms_per_cell_bounds_the_updates_of_one_cell():
    gemm = suite.by_name("gemm")
    scop = polycuda.compile(str(gemm.c_path), function=gemm.function).scop
    assert terms_per_cell(scop, {"ni": 30, "nj": 40, "nk": 50}) == {"C": 50}
    dot = polycuda.compile(DOT_FLOAT, filename="dot.c").scop
    assert terms_per_cell(dot, {"n": 100000}) == {"s": 100000}


def test_a_long_float_reduction_is_compared_with_a_tolerance_of_its_length():
    scop = polycuda.compile(DOT_FLOAT, filename="dot.c").scop
    exact = {"n": 100000, "x": None, "y": None, "s": np.array([1000.0], dtype=np.float32)}
    off = dict(exact, s=np.array([1000.5], dtype=np.float32))  # 5e-4 relative: reordered sum
    assert compare(scop, "cuda", exact, off).ok  # 2 * eps * 1e5 = 2.4e-2 allowed
    short = dict(exact, n=10)
    assert not compare(scop, "cuda", short, dict(off, n=10)).ok  # 10 terms: base 2e-4


# -- reductions on many blocks (codegen/reduction_code.py) ------------------------------------
# Each operator on a cell of its own, after a statement that changes a cell (whose value from
# before each loop must count exactly once) and before one that reads every result. The cells'
# random initial values are never zero.
MANY = """
void many(int m, int n, {t} x[m], {t} s[4])
{{
  int i;
#pragma scop
  s[0] = s[0] + s[3];
  for (i = 0; i < n; i++)
    s[0] += x[i];
  for (i = 0; i < n; i++)
    s[1] -= x[i] * x[i];
  for (i = 0; i < n; i++)
    s[2] *= {factor};
  s[3] = s[0] - s[1] + s[2];
#pragma endscop
}}
"""
# products that stay finite over 100000 factors (float's exp(88) included) and exact integers
FACTORS = {"double": "1.0 + 0.00001 * x[i]", "float": "1.0f + 0.00001f * x[i]",
           "int": "(x[i] % 3 == 0 ? -1 : 1)", "long": "(x[i] % 3 == 0 ? -1 : 1)"}
# none, one, about a block of 256 threads, 2 blocks (1024 iterations per block), and more
# than the emulator's 8 blocks (2 SMs x 4) hold: a grid-stride loop over all of them
LENGTHS = (0, 1, 255, 256, 257, 1025, 100000)


def _many(dtype: str, **options) -> polycuda.Program:
    return polycuda.compile(MANY.format(t=dtype, factor=FACTORS[dtype]), filename="many.c",
                            options=Options(**options))


def _verify_lengths(prog: polycuda.Program) -> None:
    for n in LENGTHS:
        results = prog.verify({"m": max(n, 1), "n": n}, targets=("emulate", "c"))
        assert all(r.ok for r in results), (n, [r.message for r in results])


@pytest.mark.parametrize("combine", ["auto", "pass"])
@pytest.mark.parametrize("dtype", ["float", "double"])
def test_many_block_reductions_verify_at_every_length(dtype, combine):
    _verify_lengths(_many(dtype, reduction_combine=combine))


@pytest.mark.parametrize("dtype", ["int", "long"])
def test_integer_reductions_on_many_blocks_are_exact(dtype):
    _verify_lengths(_many(dtype))  # verify compares integers exactly


def test_a_given_number_of_blocks_verifies():
    prog = _many("double", reduction_blocks=3)
    assert "const long long pc_reduce_blocks = 3;" in prog.generate("cuda").source
    _verify_lengths(prog)


def test_each_operator_picks_its_combine():
    source = _many("double").generate("cuda").source
    # += and -=: atomicAdd; *=: the partial array, finished by the last block
    assert source.count("atomicAdd(pc_cell, pc_part[0]);") == 2
    assert source.count("atomicInc(&kernel3_done, gridDim.x - 1)") == 1
    assert "static __device__ double kernel3_partial[1024];" in source
    assert "pc_part[threadIdx.x] = pc_part[threadIdx.x] * pc_part[threadIdx.x + pc_s];" in source
    # the grid: a block per 1024 iterations, at most 4 per SM of the GPU it runs on
    assert "cudaDeviceGetAttribute(&pc_reduce_sms, cudaDevAttrMultiProcessorCount" in source
    assert source.count("pc_min(pc_max(pc_ceild(") == 3
    assert "if (blockIdx.x == 0 && threadIdx.x == 0)" not in source  # no lone statement here
    assert "atomicAdd((unsigned long long *)pc_cell" in _many("long").generate("cuda").source
    deterministic = _many("float", reduction_combine="pass").generate("cuda").source
    assert "atomicAdd" not in deterministic and deterministic.count("atomicInc") == 3
    one = _many("float", reduction_blocks=1).generate("cuda").source
    assert not DEVICE_ATOMIC.search(one) and one.count("<<<dim3(1), dim3(256)>>>") == 3


def test_partial_pass_gives_one_result_whatever_the_order_of_blocks():
    """The pass combines the blocks' totals in block order: the same float sum on every run,
    while the emulator runs the blocks in another order on each (seeded)."""
    rng = np.random.default_rng(1)
    n = 50000
    # magnitudes 1 to 1e6: a float sum whose rounding shows the order of its terms
    x = (rng.uniform(0.5, 1.5, n) * 1e3 ** rng.integers(0, 3, n)).astype(np.float32)
    results = {}
    for combine in ("pass", "auto"):
        kernel = _many("float", reduction_combine=combine).kernel("emulate")
        sums = set()
        for seed in range(4):
            s = np.array([1.5, 2.5, 0.5, 1.0], dtype=np.float32)
            kernel.set_seed(seed)
            kernel(n, n, x, s)
            sums.add(s.tobytes())
        results[combine] = sums
    assert len(results["pass"]) == 1
    assert len(results["auto"]) > 1  # atomics: the order in which blocks finish shows


# The domain is a union: isl writes the instance i == 0 as a statement of its own before the
# loop over i >= 3, both in the reduction kernel.
SPLIT = """
void split(int n, double x[n], double s[1])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    if (i == 0 || i >= 3)
      s[0] += x[i];
#pragma endscop
}
"""


def test_a_statement_beside_the_loop_in_the_reduction_kernel_runs_once():
    """Block 0's thread 0 alone runs it (every block's thread 0 would add x[0] once per
    block); the loop's length is not one expression, so the grid is the most blocks."""
    prog = polycuda.compile(SPLIT, filename="split.c")
    source = prog.generate("cuda").source
    assert "if (blockIdx.x == 0 && threadIdx.x == 0) { pc_cell = &s[0]; pc_acc += x[0]; }" \
        in source
    assert "<<<dim3((unsigned)pc_reduce_blocks), dim3(256)>>>" in source
    for n in (1, 2, 3, 4, 3000):
        assert all(r.ok for r in prog.verify({"n": n}, targets=("emulate",)))


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: CUDA not compiled")
@pytest.mark.parametrize("dtype", ["float", "double", "int", "long"])
def test_many_block_reductions_compile_with_nvcc(dtype):
    from polycuda.runtime import build

    build.compile_only(_many(dtype, target="cuda").generate("cuda").source, "cuda")
    if dtype == "float":
        deterministic = _many(dtype, target="cuda", reduction_combine="pass")
        build.compile_only(deterministic.generate("cuda").source, "cuda")


def test_show_schedule_names_the_reduction_loops_and_how_they_run():
    from polycuda.show import schedule_of, show

    prog = _many("double", target="cuda")
    text = show("schedule", (prog,))
    for op, run in (("+=", "atomics"), ("-=", "atomics"), ("*=", "pass")):
        assert re.search(rf"reduction \({re.escape(op)}\), kernel\d: many blocks \+ {run}\n",
                         text), (op, text)
    one = schedule_of(_many("double", target="cuda", reduction_blocks=1))
    assert [s.get("reduction", {}).get("run") for s in one["statements"]] == [
        None, "one block", "one block", "one block", None]
    openmp = show("schedule", (_many("double", target="openmp"),))
    assert "reduction" not in openmp  # the CPU targets run the loops in order


def test_reduction_options_are_checked_and_written_out():
    from polycuda.errors import InvalidConfigError

    for bad in ({"reduction_blocks": -1}, {"reduction_blocks": 1025},
                {"reduction_combine": "atomic"}):
        with pytest.raises(InvalidConfigError):
            Options(**bad)
    options = Options(reduction_blocks=16, reduction_combine="pass")
    assert Options.from_text(options.to_text()) == options


# -- on a GPU (pytest -m gpu) -----------------------------------------------------------------
DOT_DOUBLE = DOT_FLOAT.replace("float", "double")


@pytest.mark.gpu
@pytest.mark.parametrize("combine", ["auto", "pass"])
@pytest.mark.parametrize("source", [DOT_FLOAT, DOT_DOUBLE], ids=["float", "double"])
def test_long_dot_product_on_the_gpu(source, combine):
    prog = polycuda.compile(source, filename="dot.c",
                            options=Options(target="cuda", reduction_combine=combine))
    assert all(r.ok for r in prog.verify({"n": 1 << 24}, targets=("cuda",)))


# Two reduction kernels by the partial pass in the static parts around a run-time nest: each
# part's kernels are renamed (<region>_s0_kernel0, ...), and their file-scope variables with them.
MIXED = """
void mixed(int n, int m, double A[m], int src[n], int dst[n], double v[n], double s[2]) {
#pragma scop
  for (int i = 0; i < n; i++)
    s[0] *= 1.0 + 0.001 * v[i];
  for (int i = 0; i < n; i++)
    A[dst[i]] = 0.5 * A[src[i]] + v[i];
  for (int i = 0; i < n; i++)
    s[1] *= 1.0 + 0.001 * A[i];
#pragma endscop
}
"""


def test_partial_pass_variables_follow_their_kernels_around_a_run_time_nest():
    prog = polycuda.compile(MIXED, filename="mixed.c")
    source = prog.generate("cuda").source
    assert "static __device__ double mixed_s0_kernel0_partial[1024];" in source
    assert "static __device__ double mixed_s2_kernel0_partial[1024];" in source
    if shutil.which("nvcc"):
        from polycuda.runtime import build

        build.compile_only(source, "cuda")
    assert all(r.ok for r in prog.verify({"n": 3000, "m": 3000}, targets=("emulate",)))


def test_reduction_flags_reach_the_code_and_dump_options(tmp_path, capsys):
    from polycuda.cli import main

    source, out, opts = tmp_path / "dot.c", tmp_path / "dot.cu", tmp_path / "opts.json"
    source.write_text(DOT_FLOAT)
    assert main(["compile", str(source), "--target", "cuda", "-o", str(out),
                 "--reduction-blocks", "8", "--reduction-combine", "pass",
                 "--dump-options", str(opts)]) == 0
    assert "const long long pc_reduce_blocks = 8;" in out.read_text()
    assert "atomicInc(&kernel0_done" in out.read_text()
    assert Options.from_text(opts.read_text()) == Options(
        target="cuda", reduction_blocks=8, reduction_combine="pass")
    assert main(["compile", str(source), "--target", "cuda", "-o", str(out),
                 "--reduction-blocks", "-1"]) != 0
    assert "reduction_blocks=-1 must be 0" in capsys.readouterr().err
