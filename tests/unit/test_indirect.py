"""Indirect subscripts (issue 17): frontends, may-accesses, run-time nests, and the generated
code (C, OpenMP, and the GPU inspector/executor on the CUDA emulator) against the sequential
program, on random and adversarial index arrays (one hot element, chains, permutations,
duplicates)."""

from __future__ import annotations

import numpy as np
import pytest

import polycuda
from kernels.indirect import MOVE, SCATTER
from polycuda.analysis import dependences, indirect
from polycuda.errors import LaunchError, NotAffineError, UnsupportedConstruct
from polycuda.frontend import c as cfront
from polycuda.ir import isl_build
from polycuda.show import deps_json, show
from tests.unit.test_runtime import needs_nvcc

# static nests around a run-time nest with an inner loop over a 2-D array; a gather at the end
MIXED = """
void mixed(int n, int m, int k, double A[m][k], double B[n][k], int idx[n], double C[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    C[i] = C[i] * 2.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < k; j++)
      A[idx[i]][j] += B[i][j] * C[i];
  for (int i = 0; i < n; i++)
    C[i] += A[idx[i]][k - 1];
#pragma endscop
}
"""
# nested indirection, an offset, and a decreasing loop
NESTED = """
void nested(int n, int m, double A[m], int p[m], int q[n], int row[n], double y[m]) {
#pragma scop
  for (int i = n - 1; i >= 0; i--) {
    A[p[q[i]]] = A[p[q[i]]] * 0.5 + y[row[i] + 1];
    y[row[i] + 1] += 1.0;
  }
#pragma endscop
}
"""
TARGETS = ("c", "openmp", "emulate")


def program(source):
    return polycuda.compile(source)


def run_both(prog, target, args, **changes):
    """(reference result, target result) of the region on copies of `args`."""
    expected = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    actual = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    prog._reference(expected)
    prog.kernel(target, **changes)(*[actual[a.name] for a in prog.scop.args])
    return expected, actual


def assert_same(prog, target, args, **changes):
    expected, actual = run_both(prog, target, args, **changes)
    changed = False
    for name in prog.scop.written_arrays():
        np.testing.assert_allclose(actual[name], expected[name], rtol=1e-12,
                                   err_msg=f"{target}: {name}")
        changed |= not np.array_equal(expected[name], args[name])
    assert changed, "the region changed nothing: the test could not fail"


# -- frontends and IR ----------------------------------------------------------------------------
def test_c_frontend_accepts_indirect_forms():
    scops = cfront.parse_source(SCATTER + MOVE + MIXED + NESTED, "k.c")
    stmts = {s.name + "/" + scop.name: s for scop in scops for s in scop.statements}
    assert all(s.is_indirect() for k, s in stmts.items() if not k.startswith(("S0/mixed",)))
    nested = scops[3]
    assert {r.array for r in nested.statements[0].index_refs()} == {"p", "q", "row"}
    # the read of idx in the target's subscript is an access of its own
    reads = [a.array for a in isl_build.statement_accesses(scops[0], scops[0].statements[0])]
    assert reads == ["H", "H", "key", "v"]


def test_python_frontend_accepts_indirect_subscripts():
    def gather(n, m, y, x, col):
        for i in range(n):
            y[i] = x[col[i]] + x[col[i] + 1]

    n, m = 40, 30
    rng = np.random.default_rng(5)
    args = (n, m, rng.uniform(1, 2, n), rng.uniform(1, 2, m),
            rng.integers(0, m - 1, n).astype(np.int32))
    prog = polycuda.jit(gather).program(*args)
    assert prog.scop.statements[0].is_indirect()
    assert prog.scop.array("col").dtype == "int"
    assert not indirect.runtime_nests(prog.scop)  # a gather: no run-time dependence
    prog.verify(sizes={"n": n, "m": m}, targets=("c", "emulate"))


def test_indirect_access_is_a_may_access_of_the_whole_extent():
    scop = cfront.parse_source(MIXED, "k.c")[0]
    acc = isl_build.statement_accesses(scop, scop.statements[1])[0]
    assert acc.indirect and acc.array == "A"
    assert "0 <= pc_a0 < m" in acc.index_map and "pc_a0, j]" in acc.index_map


def test_static_dependences_stay_sound():
    """An indirect write is a may-write: the flow from the first nest to the last one is kept
    (a must-write of the whole array would kill it)."""
    src = """
void f(int n, double A[n], int idx[n], double B[n]) {
#pragma scop
  for (int i = 0; i < n; i++) A[i] = 1.0;
  for (int i = 0; i < n; i++) A[idx[i]] = 2.0;
  for (int i = 0; i < n; i++) B[i] = A[i];
#pragma endscop
}
"""
    scop = cfront.parse_source(src, "k.c")[0]
    deps = dependences.compute(scop)
    flows = {(d.source, d.sink) for d in deps if d.kind == "flow"}
    assert ("S0", "S2") in flows and ("S1", "S2") in flows
    outputs = {(d.source, d.sink) for d in deps if d.kind == "output"}
    assert ("S1", "S1") in outputs


@pytest.mark.parametrize("body, needle, cls", [
    ("{ idx[i] = 0; A[idx[i]] = 1.0; }", "uses 'idx' as an index array", UnsupportedConstruct),
    ("A[(int)A[i]] = 1.0;", "'A', an array of double", UnsupportedConstruct),
    ("A[idx[i] * idx[i]] = 1.0;", "indirect subscript", NotAffineError),
])
def test_refused_indirect_forms_are_located(body, needle, cls):
    src = (f"void f(int n, double A[n], int idx[n]) {{\n#pragma scop\n"
           f"  for (int i = 0; i < n; i++)\n    {body}\n#pragma endscop\n}}\n")
    with pytest.raises(cls) as info:
        cfront.parse_source(src, "bad.c")
    assert needle in info.value.msg and info.value.loc.line == 4 and info.value.loc.file == "bad.c"


def test_runtime_nests_and_show_deps():
    scop = cfront.parse_source(MIXED, "k.c")[0]
    nests = indirect.runtime_nests(scop)
    assert [(n.iterator, n.statements, n.monitored) for n in nests] == [("i", ("S1",), ("A",))]
    prog = program(MIXED)
    text = show("deps", (prog,))
    assert "run-time: loop 'i' takes the run-time path: S1 (line 8)" in text
    assert "stays on the static path: it reads A through index arrays" in text
    marked = [d for d in deps_json(prog) if "run_time" in d]
    assert marked and all(d["source"] == d["sink"] == "S1" for d in marked)


# -- generated code against the sequential program -----------------------------------------------
def scatter_args(key, m, seed=0):
    rng = np.random.default_rng(seed)
    n = len(key)
    return {"n": n, "m": m, "H": rng.uniform(0.5, 1.5, m), "key": np.asarray(key, np.int32),
            "v": rng.uniform(0.5, 1.5, n)}


PATTERNS = {
    "one_element": lambda n, m: np.full(n, 3),
    "permutation": lambda n, m: np.random.default_rng(1).permutation(n) % m,
    "duplicates": lambda n, m: np.random.default_rng(2).integers(0, 4, n),
    "random": lambda n, m: np.random.default_rng(3).integers(0, m, n),
}


@needs_nvcc
@pytest.mark.parametrize("target, atomics", [(t, True) for t in TARGETS] + [("emulate", False)])
@pytest.mark.parametrize("pattern", sorted(PATTERNS))
def test_scatter_patterns(target, atomics, pattern):
    """Scatter-add with atomicAdd (the default on cuda) and with levels
    (--no-allow-reassociation)."""
    prog = program(SCATTER)
    n, m = 70, 70
    assert_same(prog, target, scatter_args(PATTERNS[pattern](n, m), m),
                allow_reassociation=atomics)


@needs_nvcc
def test_scatter_add_is_atomic_unless_reassociation_is_refused():
    prog = program(SCATTER)
    nest, = indirect.runtime_nests(prog.scop, atomic_updates=True)
    assert nest.atomic == ("H",) and nest.monitored == ()
    assert "atomicAdd(&H[key[pc_it]], (double)(v[pc_it]));" in prog.generate("cuda").source
    args = scatter_args(np.full(12, 5), 9)
    for reassociate, levels in ((True, 1), (False, 12)):
        kernel = prog.kernel("emulate", allow_reassociation=reassociate,
                             cpu_fallback_per_level=0)  # all the levels, not the host
        kernel(*[args[a.name] for a in prog.scop.args])
        assert launch_levels(kernel) == levels
    strict = prog.generate("cuda", allow_reassociation=False).source
    assert "atomicAdd(&H" not in strict and "pc_aux_H" in strict


def move_args(src, dst, m, seed=0):
    rng = np.random.default_rng(seed)
    return {"n": len(src), "m": m, "A": rng.uniform(0.5, 1.5, m),
            "src": np.asarray(src, np.int32), "dst": np.asarray(dst, np.int32),
            "v": rng.uniform(0.5, 1.5, len(src))}


@needs_nvcc
@pytest.mark.parametrize("target", TARGETS)
def test_chains_raw_war_and_waw(target):
    """A RAW chain (each iteration reads what the previous one wrote: n levels), a WAR chain
    (each reads what the next one overwrites) and random reads and writes."""
    prog = program(MOVE)
    n = 40
    ramp = np.arange(n)
    rng = np.random.default_rng(7)
    for src, dst in ((ramp, ramp + 1), (ramp + 1, ramp), (rng.integers(0, 9, n),
                                                          rng.integers(0, 9, n))):
        assert_same(prog, target, move_args(src, dst, n + 1))


@needs_nvcc
def test_levels_of_a_chain_and_of_independent_iterations():
    """The inspector's level count: n for a RAW chain, 1 for a permutation (the GPU path does
    not just run everything in order)."""
    from polycuda.runtime import emulate, launch

    prog = program(MOVE)
    lib_kernel = prog.kernel("emulate", cpu_fallback_per_level=0)  # all the levels
    levels = lambda: launch_levels(lib_kernel)  # noqa: E731
    n = 24
    ramp = np.arange(n)
    for src, dst, expect in ((ramp, ramp + 1, n), (ramp + n, ramp, 1),
                             (np.ones(n, int), ramp + 1, 2)):
        args = move_args(src, dst, 2 * n + 1)
        lib_kernel(*[args[a.name] for a in prog.scop.args])
        assert levels() == expect
    del emulate, launch


def launch_levels(kernel):
    import ctypes

    return ctypes.c_longlong.in_dll(kernel.lib, f"pc_{kernel.scop.name}_levels").value


@needs_nvcc
@pytest.mark.parametrize("target", TARGETS)
def test_mixed_region_and_nested_indirection(target):
    prog = program(MIXED)
    prog.verify(sizes={"n": 30, "m": 7, "k": 3}, targets=(target,))
    nested = program(NESTED)
    nested.verify(sizes={"n": 25, "m": 9}, targets=(target,))
    # adversarial: every iteration hits one element through p[q[i]]
    n, m = 20, 9
    rng = np.random.default_rng(4)
    args = {"n": n, "m": m, "A": rng.uniform(0.5, 1.5, m), "p": np.full(m, 2, np.int32),
            "q": rng.integers(0, m, n).astype(np.int32),
            "row": np.full(n, 3, np.int32), "y": rng.uniform(0.5, 1.5, m)}
    assert_same(nested, target, args)


@needs_nvcc
def test_index_out_of_bounds_names_the_array_and_writes_nothing():
    prog = program(SCATTER)
    args = scatter_args([0, 1, 70, 2], 70)
    before = args["H"].copy()
    with pytest.raises(LaunchError, match="out of bounds.*'H'"):
        prog.kernel("emulate")(*[args[a.name] for a in prog.scop.args])
    assert np.array_equal(args["H"], before)


def test_random_index_arrays_stay_in_bounds():
    from polycuda.verify import random_arguments

    scop = cfront.parse_source(NESTED, "k.c")[0]
    args = random_arguments(scop, {"n": 50, "m": 6})
    assert args["q"].min() >= 0 and args["q"].max() <= 5
    assert args["row"].min() >= 0 and args["row"].max() <= 4  # row[i] + 1 < m
    assert len(set(args["q"].tolist())) > 1  # not a constant


@needs_nvcc
def test_timing_build_separates_inspection_and_execution():
    """-DPC_TIMING: no pipelining, every level after the inspection, both timed; the result
    is still the sequential one."""
    import ctypes

    from polycuda.runtime import emulate, launch

    prog = program(MOVE)
    lib = emulate.build_emulated(prog.generate("cuda", cpu_fallback_per_level=0).source,
                                 flags=("-DPC_TIMING",))  # the paper's driver has the phases
    kernel = launch.load(lib, prog.scop, "emulate")
    n = 16
    args = move_args(np.arange(n), np.arange(n) + 1, n + 1)
    expected, actual = {k: (v.copy() if isinstance(v, np.ndarray) else v)
                        for k, v in args.items()}, args
    prog._reference(expected)
    kernel(*[actual[a.name] for a in prog.scop.args])
    np.testing.assert_allclose(actual["A"], expected["A"], rtol=1e-12)
    assert launch_levels(kernel) == n
    assert ctypes.c_double.in_dll(kernel.lib, "pc_move_inspect_s").value > 0
    assert ctypes.c_double.in_dll(kernel.lib, "pc_move_execute_s").value > 0


@needs_nvcc
def test_run_reports_levels_of_run_time_nests(monkeypatch):
    from polycuda.options import Options
    from polycuda.run import run_and_time

    prog = polycuda.compile(SCATTER, options=Options(allow_reassociation=False,
                                                     cpu_fallback_per_level=0))
    monkeypatch.setattr(prog, "resolve_target", lambda target: "emulate")
    report = run_and_time(prog, {"n": 60, "m": 1}, repeats=1)
    assert report.verified and report.levels == [("i", 60, 60)]  # one element: a chain
    assert "loop 'i': 60 level(s) for 60 iterations" in report.render()


@needs_nvcc
@pytest.mark.parametrize("target", TARGETS)
def test_python_scatter_and_move_on_every_target(target):
    """The Python frontend's run-time nests: a RAW/WAR mix over a 2-D array through nested
    index arrays, one hot row (every iteration conflicts) and a permutation."""
    def spread(n, m, k, A, p, q, w):
        for i in range(n):
            for j in range(k):
                A[p[q[i]], j] = A[q[i], j] * 0.5 + w[i]

    n, m, k = 30, 8, 3
    rng = np.random.default_rng(9)
    for p in (np.full(m, 5), rng.permutation(m), rng.integers(0, m, m)):
        args = (n, m, k, rng.uniform(0.5, 1.5, (m, k)), p.astype(np.int32),
                rng.integers(0, m, n).astype(np.int32), rng.uniform(0.5, 1.5, n))
        jitted = polycuda.jit(spread)
        prog = jitted.program(*args)
        assert indirect.runtime_nests(prog.scop)
        names = [a.name for a in prog.scop.args]
        assert_same(prog, target, dict(zip(names, jitted.entry_arguments(prog, args, {}))))


STEPS = """
void steps(int T, int n, int m, double H[m], int key[n], int src[n], double v[n]) {
#pragma scop
  for (int t = 0; t < T; t++)
    for (int i = n - 1; i >= 0; i--)
      H[key[i]] = 0.5 * H[src[i]] + v[i] * t;
#pragma endscop
}
"""


@needs_nvcc
@pytest.mark.parametrize("target", TARGETS)
def test_time_loop_runs_on_the_host_around_the_levelized_loop(target):
    """for t: for i: H[key[i]] = ... H[src[i]]: the loop i (whose iterator subscripts the
    index arrays) is levelized once per t; t runs in order on the host."""
    prog = program(STEPS)
    nest, = indirect.runtime_nests(prog.scop)
    assert (nest.depth, nest.iterator) == (1, "i")
    assert "the loop(s) t around it run in order on the host" in nest.reason
    n, m = 40, 11
    rng = np.random.default_rng(6)
    for key, src in ((np.full(n, 2), rng.integers(0, m, n)), (rng.permutation(m)[np.arange(n) % m],
                                                              rng.integers(0, m, n))):
        args = {"T": 3, "n": n, "m": m, "H": rng.uniform(0.5, 1.5, m),
                "key": key.astype(np.int32), "src": src.astype(np.int32),
                "v": rng.uniform(0.5, 1.5, n)}
        assert_same(prog, target, args)
    if target == "emulate":
        source = prog.generate("cuda").source
        assert "for (long long pc_hl0 = 0; (pc_hl0 < T); pc_hl0 += 1)" in source
