"""Executors of run-time nests beyond the paper's one launch per level (issue 17, items 2-3;
codegen/executor_cuda.py): the one-launch executor, reuse of levels when the index arrays are
unchanged, and the host fallback when levels are too many; each against the sequential
program on the CUDA emulator, on adversarial index arrays, and compiled by nvcc."""

from __future__ import annotations

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

import polycuda
from kernels.indirect import MOVE, SCATTER
from polycuda.codegen import executor_cuda
from polycuda.errors import InvalidConfigError
from polycuda.frontend import c as cfront
from polycuda.analysis import indirect
from polycuda.options import Options
from tests.unit.test_runtime import needs_nvcc

KINDS = {"levels": 0, "syncfree": 1, "host": 2}


def counter(kernel, what, ctype=ctypes.c_longlong):
    return ctype.in_dll(kernel.lib, f"pc_{kernel.scop.name}_{what}").value


def call_and_check(prog, kernel, args):
    """Runs `kernel` on `args` (in place) and the reference on a copy; compares every written
    array and makes sure that the region changed something."""
    expected = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    before = {k: v.copy() for k, v in args.items() if isinstance(v, np.ndarray)}
    prog._reference(expected)
    kernel(*[args[a.name] for a in prog.scop.args])
    for name in prog.scop.written_arrays():
        np.testing.assert_allclose(args[name], expected[name], rtol=1e-12, err_msg=name)
        assert not np.array_equal(before[name], args[name]), "nothing changed: cannot fail"


def move_args(src, dst, m, seed=0):
    rng = np.random.default_rng(seed)
    return {"n": len(src), "m": m, "A": rng.uniform(0.5, 1.5, m),
            "src": np.asarray(src, np.int32), "dst": np.asarray(dst, np.int32),
            "v": rng.uniform(0.5, 1.5, len(src))}


N = 300  # more than one block of 256: tickets cross blocks (and emulator waves)
PATTERNS = {  # (src, dst) of MOVE: A[dst[i]] = 0.5 * A[src[i]] + v[i]
    "one_element": (np.full(N, 3), np.full(N, 3)),
    "chain": (np.arange(N), np.arange(N) + 1),
    "permutation": (np.random.default_rng(1).permutation(N),) * 2,  # independent
    "duplicates": (np.random.default_rng(3).integers(0, 5, N),
                   np.random.default_rng(4).integers(0, 5, N)),
}


@needs_nvcc
@pytest.mark.parametrize("pattern", sorted(PATTERNS))
def test_one_launch_executor_matches_levels(pattern):
    """The one-launch executor computes the sequential result and runs the inspector's levels
    (the same count as the per-level executor); its widest level is reported."""
    prog = polycuda.compile(MOVE)
    src, dst = PATTERNS[pattern]
    args = move_args(src, dst, N + 1)
    plain = prog.kernel("emulate", cpu_fallback_per_level=0)  # the levels, not the host
    call_and_check(prog, plain, {k: (v.copy() if isinstance(v, np.ndarray) else v)
                                 for k, v in args.items()})
    sync = prog.kernel("emulate", runtime_executor="syncfree", cpu_fallback_per_level=0)
    call_and_check(prog, sync, args)
    assert counter(sync, "executor") == KINDS["syncfree"]
    assert counter(sync, "levels") == counter(plain, "levels")
    levels = counter(sync, "levels")
    assert 1 <= counter(sync, "widest") <= N and counter(sync, "widest") >= N / levels
    if pattern == "chain":
        assert levels == N
    if pattern == "permutation":
        assert levels == 1


@needs_nvcc
def test_one_launch_executor_on_levelized_scatter_add():
    """Scatter-add levelized (--no-allow-reassociation): all iterations on one element."""
    prog = polycuda.compile(SCATTER)
    rng = np.random.default_rng(0)
    args = {"n": N, "m": 7, "H": rng.uniform(0.5, 1.5, 7), "key": np.full(N, 4, np.int32),
            "v": rng.uniform(0.5, 1.5, N)}
    kernel = prog.kernel("emulate", runtime_executor="syncfree", allow_reassociation=False,
                         cpu_fallback_per_level=0)
    call_and_check(prog, kernel, args)
    assert counter(kernel, "levels") == N and counter(kernel, "executor") == KINDS["syncfree"]


@needs_nvcc
@pytest.mark.parametrize("executor", ["levels", "syncfree", "auto"])
def test_reused_levels_and_a_changed_index_array(executor):
    """With --reuse-levels a second call on equal index arrays skips the inspection; changing
    one element of an index array between calls is seen: levels inspected again, the result
    still the sequential one."""
    prog = polycuda.compile(MOVE)
    kernel = prog.kernel("emulate", runtime_executor=executor, reuse_levels=True,
                         cpu_fallback_per_level=0)  # a chain would run on the host
    n = 40
    src, dst = np.arange(n), np.arange(n) + 1  # a chain: n levels
    call_and_check(prog, kernel, move_args(src, dst, n + 1, seed=1))
    assert counter(kernel, "reused") == 0 and counter(kernel, "levels") == n
    call_and_check(prog, kernel, move_args(src, dst, n + 1, seed=2))
    assert counter(kernel, "reused") == 1 and counter(kernel, "levels") == n
    if executor == "auto":  # reused and many levels: one launch
        assert counter(kernel, "executor") == KINDS["syncfree"]
    src2 = src.copy()
    src2[n // 2] = n  # breaks the chain in the middle: two chains of n / 2
    call_and_check(prog, kernel, move_args(src2, dst, n + 1, seed=3))
    assert counter(kernel, "reused") == 0 and counter(kernel, "levels") == n // 2
    # another size: other parameters, inspected again
    call_and_check(prog, kernel, move_args(src[:20], dst[:20], 21, seed=4))
    assert counter(kernel, "reused") == 0 and counter(kernel, "levels") == 20


STEPS = """
void steps(int T, int n, int m, double H[m], int key[n], int src[n], double v[n]) {
#pragma scop
  for (int t = 0; t < T; t++)
    for (int i = n - 1; i >= 0; i--)
      H[key[i]] = 0.5 * H[src[i]] + v[i] * t;
#pragma endscop
}
"""
SHIFTED = """
void shifted(int T, int n, int m, double H[m], int key[n], double v[n]) {
#pragma scop
  for (int t = 0; t < T; t++)
    for (int i = 0; i < n; i++)
      H[key[i] + t] = 0.5 * H[key[i]] + v[i];
#pragma endscop
}
"""


@needs_nvcc
def test_levels_reused_across_host_iterations_only_when_accesses_do_not_move():
    """for t: for i: the levels of i are reused for every t when no subscript uses t; with
    H[key[i] + t] each t is inspected again (t is part of the key)."""
    scops = {s.name: s for s in cfront.parse_source(STEPS + SHIFTED, "k.c")}
    nests = {name: indirect.runtime_nests(scop)[0] for name, scop in scops.items()}
    assert not executor_cuda.levels_depend_on_host(scops["steps"], nests["steps"])
    assert executor_cuda.levels_depend_on_host(scops["shifted"], nests["shifted"])
    rng = np.random.default_rng(5)
    n, m, T = 30, 11, 3
    steps = polycuda.compile(STEPS)
    kernel = steps.kernel("emulate", reuse_levels=True, cpu_fallback_per_level=0)
    args = {"T": T, "n": n, "m": m, "H": rng.uniform(0.5, 1.5, m),
            "key": rng.integers(0, m, n).astype(np.int32),
            "src": rng.integers(0, m, n).astype(np.int32), "v": rng.uniform(0.5, 1.5, n)}
    call_and_check(steps, kernel, args)
    assert counter(kernel, "reused") == 1  # the last t reused the first t's levels
    shifted = polycuda.compile(SHIFTED)
    kernel = shifted.kernel("emulate", reuse_levels=True, cpu_fallback_per_level=0)
    args = {"T": T, "n": n, "m": m + T, "H": rng.uniform(0.5, 1.5, m + T),
            "key": rng.integers(0, m, n).astype(np.int32), "v": rng.uniform(0.5, 1.5, n)}
    call_and_check(shifted, kernel, args)
    assert counter(kernel, "reused") == 0


@needs_nvcc
@pytest.mark.parametrize("executor", ["levels", "syncfree"])
def test_host_fallback_when_levels_are_too_many(executor):
    """A chain (one iteration per level) with --cpu-fallback-per-level 4: the inspector stops
    once more than n / 4 levels are found, the rest runs in order on the host; a permutation
    (one level) stays on the GPU."""
    prog = polycuda.compile(MOVE)
    kernel = prog.kernel("emulate", runtime_executor=executor, cpu_fallback_per_level=4.0)
    n = 40
    call_and_check(prog, kernel, move_args(np.arange(n), np.arange(n) + 1, n + 1))
    assert counter(kernel, "executor") == KINDS["host"]
    assert counter(kernel, "levels") * 4 > n  # levels found when it stopped, and one more
    perm = np.random.default_rng(8).permutation(n)
    call_and_check(prog, kernel, move_args(perm, perm, n + 1))
    assert counter(kernel, "executor") == KINDS[executor] and counter(kernel, "levels") == 1


def test_options_and_cli():
    with pytest.raises(InvalidConfigError, match="runtime_executor"):
        Options(runtime_executor="fast")
    with pytest.raises(InvalidConfigError, match="cpu_fallback_per_level"):
        Options(cpu_fallback_per_level=-1.0)
    opts = Options(runtime_executor="auto", reuse_levels=True, cpu_fallback_per_level=64.0)
    assert Options.from_text(opts.to_text()) == opts
    from polycuda.cli import _options, parser

    args = parser().parse_args(["compile", "f.c", "--runtime-executor", "syncfree",
                                "--reuse-levels", "--cpu-fallback-per-level", "8"])
    assert _options(args).replace(target="auto") == Options(
        runtime_executor="syncfree", reuse_levels=True, cpu_fallback_per_level=8.0,
        scheduler="auto")


def test_defaults_keep_the_papers_code():
    """Without the new options (the host fallback off) the generated code has none of their
    parts; the default fallback ("auto") adds only the fallback."""
    source = polycuda.compile(MOVE).generate("cuda", cpu_fallback_per_level=0).source
    assert "pc_sync0" not in source and "pc_saved0" not in source and "pc_fell" not in source
    source = polycuda.compile(MOVE).generate("cuda").source
    assert "pc_sync0" not in source and "pc_saved0" not in source and "pc_fell" in source


@needs_nvcc
def test_run_reports_executor_and_reuse(monkeypatch):
    from polycuda.run import run_and_time

    prog = polycuda.compile(SCATTER, options=Options(allow_reassociation=False,
                                                     runtime_executor="syncfree",
                                                     cpu_fallback_per_level=0))
    monkeypatch.setattr(prog, "resolve_target", lambda target: "emulate")
    report = run_and_time(prog, {"n": 60, "m": 1}, repeats=1)
    assert report.verified and report.levels == [("i", 60, 60)]
    assert report.executors[0][0] == "syncfree" and report.executors[0][3] == 1
    text = report.render()
    assert "executor: syncfree; levels inspected in" in text and "(widest 1)" in text


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
def test_every_executor_compiles_with_nvcc(tmp_path):
    prog = polycuda.compile(STEPS)
    source = prog.generate("cuda", runtime_executor="auto", reuse_levels=True,
                           cpu_fallback_per_level=16.0).source
    path = tmp_path / "steps.cu"
    path.write_text(source)
    subprocess.run(["nvcc", "-c", str(path), "-o", str(tmp_path / "steps.o")], check=True,
                   capture_output=True)
