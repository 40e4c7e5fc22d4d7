"""Indirect subscripts on a real GPU (issue 17): the CUDA inspector/executor checked against
the sequential program (the C target, gcc) and timed against it, at sizes that fill the GPU.

    python bench/indirect_gpu.py OUT.json [--quick] [--threads N] [--only CASE,...]
    python bench/indirect_gpu.py OUT.json --emulate   # no GPU: tiny sizes, the CUDA emulator

Per case: the levels the inspector found; the GPU time of the whole run-time path (inspection
+ execution, device arrays in place, CUDA events, median); with a second build under
-DPC_TIMING (no pipelining) the inspection and execution times separately; the sequential C
time (host arrays, median); the result compared with the sequential one (exact for
histograms of integers-valued doubles, rtol 1e-12 otherwise, 1e-9 for the mesh's reordered
flux sums as in sptrsv_gpu.py; nvcc may contract a*b+c to FMA).
Scatter-add also gets CuPy's atomic scatter_add (cupyx.scatter_add) as a reference point.
Per case, every executor of EXECUTORS (levels, one launch, each with reused levels, the host
fallback, the default fallback threshold "auto" against none) timed alike, under "executors";
auto's threshold and where its costs came from under executors.fallback-auto.fallback.
`--only move-chain,scatter-random-levels` runs some cases only (the fallback check: a chain
and randAcc-like random moves and levelized scatters).

OpenMP (issue 17's evidence: speedup over sequential gcc -O3 and over OpenMP), for the cases of
a source in HAND (scatter-adds and a histogram, rows, the mesh edge loop in CSR and as an edge
list), measured in the same run on `--threads` threads (default os.cpu_count()), each the whole
function on host arrays like the sequential entry (median and spread of --repeats calls),
each checked against the sequential result with the case's tolerance:
  "polycuda": polycuda's own --target openmp output of the same source; "status" says whether
      it runs the loop in parallel or in order, and why (a run-time nest runs in order there);
  "hand": a HAND-WRITTEN baseline, bench/openmp_hand/<name>.c: `omp parallel for` with `omp
      atomic` on each scatter-add update (the mesh's CSR node loop needs none: f[i] is its own).
"gpu_speedup_vs_openmp_polycuda" and "..._hand" are the same-run ratios of their times to the
GPU entry's. The GPU entry runs on device arrays (no copies), the host entries on host arrays.
--emulate runs the whole script here at tiny sizes with the CUDA emulator in place of the GPU
(no CuPy): it checks every entry, its times mean nothing.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import sys
from pathlib import Path

import numpy as np

import polycuda
from polycuda.bench import scripts, timing
from polycuda.bench.scripts import copy_args as _copy, ordered as _ordered, sequential
from kernels.indirect import MESH, MESH_EDGES, MOVE, SCATTER, mesh_graph
from polycuda.analysis import indirect
from polycuda.runtime import build, launch

ROWS = """
void rows(int n, int m, int k, double A[m][k], double B[n][k], int idx[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < k; j++)
      A[idx[i]][j] += B[i][j];
#pragma endscop
}
"""


# rtol of the comparison with the sequential result per case (default RTOL): atomics reorder
# the sums, exact for the integer-valued scatter-adds; the mesh's flux sums of doubles also
# differ by nvcc's FMA contraction (sptrsv_gpu.py's tolerance for the same loop)
RTOL = 1e-12
RTOL_CASE = {"mesh-csr": 1e-9, "mesh-edge-list": 1e-9}


def cases(size: str) -> list[tuple[str, str, dict]]:
    """(name, source, host arguments) of every case; sizes fill an H100 at size "full", a
    smoke test at "quick", seconds on the emulator at "emulate". A name ending in "-levels"
    runs with --no-allow-reassociation: scatter-add levelized instead of atomicAdd."""
    rng = np.random.default_rng(0)
    big = 1 << {"full": 24, "quick": 20, "emulate": 10}[size]  # 16M iterations
    out = []

    def scatter(name: str, n: int, m: int, key: np.ndarray, ones: bool = False) -> None:
        v = np.ones(n) if ones else rng.integers(1, 4, n).astype(np.float64)
        out.append((name, SCATTER, {"n": n, "m": m, "H": np.ones(m),
                                    "key": key.astype(np.int32), "v": v}))

    scatter("scatter-permutation", big, big, rng.permutation(big))
    scatter("scatter-random", big, big, rng.integers(0, big, big))
    scatter("scatter-random-levels", big, big, rng.integers(0, big, big))
    scatter("scatter-hot-16-per-element", big, big // 16, rng.integers(0, big // 16, big))
    scatter("scatter-hot-16-per-element-levels", big, big // 16,
            rng.integers(0, big // 16, big))
    n = big
    out.append(("move-random", MOVE, {"n": n, "m": n, "A": rng.uniform(0.5, 1.5, n),
                                      "src": rng.integers(0, n, n).astype(np.int32),
                                      "dst": rng.integers(0, n, n).astype(np.int32),
                                      "v": rng.uniform(0.5, 1.5, n)}))
    chain = 1 << {"full": 13, "quick": 10, "emulate": 6}[size]  # one iteration per level
    out.append(("move-chain", MOVE, {"n": chain, "m": chain + 1,
                                     "A": rng.uniform(0.5, 1.5, chain + 1),
                                     "src": np.arange(chain, dtype=np.int32),
                                     "dst": np.arange(1, chain + 1, dtype=np.int32),
                                     "v": rng.uniform(0.5, 1.5, chain)}))
    rows_n, k = big // 64, 64
    out.append(("rows-random", ROWS, {"n": rows_n, "m": rows_n, "k": k,
                                      "A": rng.uniform(0.5, 1.5, (rows_n, k)),
                                      "B": rng.uniform(0.5, 1.5, (rows_n, k)),
                                      "idx": rng.integers(0, rows_n, rows_n).astype(np.int32)}))
    # a histogram proper: v all ones, 256 bins (every bin hot)
    scatter("histogram-256-bins", big, 256, rng.integers(0, 256, big), ones=True)
    # the mesh edge loop (sptrsv_gpu.py's graph: 2^20 nodes, ~9.4M edges at full size), as CSR
    # node loop (static path) and as an edge list (two scatter-adds per edge, run-time path)
    nodes = big // 16
    ptr, adj = mesh_graph(nodes, rng)
    ne = len(adj)
    out.append(("mesh-csr", MESH, {"n": nodes, "ne": ne, "f": rng.uniform(0.5, 1.5, nodes),
                                   "u": rng.uniform(0.5, 1.5, nodes), "ptr": ptr, "adj": adj,
                                   "w": rng.uniform(0.5, 1.5, ne)}))
    ends = np.repeat(np.arange(nodes, dtype=np.int32), np.diff(ptr))
    out.append(("mesh-edge-list", MESH_EDGES, {"n": nodes, "ne": ne,
                                               "f": rng.uniform(0.5, 1.5, nodes),
                                               "u": rng.uniform(0.5, 1.5, nodes), "a": ends,
                                               "b": adj, "w": rng.uniform(0.5, 1.5, ne)}))
    return out





def runtime_nest(prog) -> bool:
    """Whether the region has a run-time nest (its CUDA code an inspector: levels, phases);
    the mesh's CSR node loop has none (static path)."""
    return bool(indirect.runtime_nests(prog.scop))


def on_gpu(prog, args: dict, repeats: int, changes: dict, target: str = "cuda"
           ) -> tuple[dict, float, int | None]:
    """The CUDA result, the median time of the run-time path on device arrays, the levels
    (None without a run-time nest). Target "emulate": host arrays, the wall clock."""
    kernel = prog.kernel(target, **changes)

    def levels() -> int | None:
        if not runtime_nest(prog):
            return None
        return ctypes.c_longlong.in_dll(kernel.lib, f"pc_{prog.name}_levels").value

    if target == "emulate":
        result = _copy(args)
        kernel(*_ordered(prog, result))
        times = launch.time_calls(kernel, _ordered(prog, _copy(args)), repeats=repeats,
                                  warmup=0)
        return result, statistics.median(times), levels()
    import cupy as cp

    dev = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    kernel(*_ordered(prog, dev))
    cp.cuda.Device().synchronize()
    result = {k: (cp.asnumpy(v) if isinstance(v, cp.ndarray) else v) for k, v in dev.items()}
    found = levels()
    times = []
    for _ in range(repeats):
        fresh = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in args.items()}
        cp.cuda.Device().synchronize()
        times += launch.time_calls(kernel, _ordered(prog, fresh), repeats=1, warmup=0)
    return result, statistics.median(times), found


def phases(prog, args: dict, changes: dict, target: str = "cuda"
           ) -> tuple[float | None, float | None]:
    """(inspection, execution) seconds of a -DPC_TIMING build (no pipelining); (None, None)
    without a run-time nest."""
    if not runtime_nest(prog):
        return None, None
    return scripts.timing_phases(prog, prog.generate("cuda", **changes).source, args, target)


# Executors of run-time nests (codegen/executor_cuda.py), each timed on the same case: the
# per-level launches (the paper), the one-launch executor, and both with the levels reused
# (every timed call after the first finds the index arrays unchanged); "host-fallback" forces
# the sequential fallback (threshold above n, so it stops after the first pass) to time the
# host path with its copies. The times feed executor_cuda.SYNCFREE_MIN_LEVELS and the
# --cpu-fallback-per-level default.
EXECUTORS = {
    "levels": {"runtime_executor": "levels"},
    "syncfree": {"runtime_executor": "syncfree"},
    "levels-reused": {"runtime_executor": "levels", "reuse_levels": True},
    "syncfree-reused": {"runtime_executor": "syncfree", "reuse_levels": True},
    "host-fallback": {"cpu_fallback_per_level": 1e12},
    # the default threshold (tune/level_cost.py) against the fallback off
    "fallback-auto": {"cpu_fallback_per_level": "auto"},
    "fallback-never": {"cpu_fallback_per_level": 0.0},
}


def executors(prog, args: dict, expected: dict, repeats: int, changes: dict, rtol: float,
              target: str = "cuda") -> dict:
    """{variant: {gpu_s, executor, reused, levels, correct}} for EXECUTORS."""
    out = {}
    for name, extra in EXECUTORS.items():
        both = {**changes, **extra}
        actual, gpu_s, levels = on_gpu(prog, args, repeats, both, target)
        kernel = prog.kernel(target, **both)
        def get(what: str) -> int | None:
            """A counter of the last call; None where the plain (paper's) code has none."""
            try:
                return ctypes.c_longlong.in_dll(kernel.lib, f"pc_{prog.name}_{what}").value
            except ValueError:
                return None
        out[name] = {"gpu_s": gpu_s, "levels": levels, "executor": get("executor"),
                     "reused_last_call": bool(get("reused")), "widest_level": get("widest"),
                     "correct": compare(prog, expected, actual, rtol)[0]}
        if extra.get("cpu_fallback_per_level") == "auto":
            out[name]["fallback"] = fallback_record(prog, kernel)
        print(f"  {name}: {json.dumps(out[name])}", flush=True)
    return out


def fallback_record(prog, kernel) -> dict:
    """auto's threshold of the last call and where its costs came from (run.Fallback)."""
    from polycuda.run import runtime_fallbacks
    from polycuda.tune import level_cost

    fb, = runtime_fallbacks(prog, kernel, 1)
    return {"threshold_iterations_per_level": fb.threshold, "gpu_level_s": fb.level_s,
            "gpu_level_source": level_cost.gpu_level_cost().source if fb.level_measured
            else f"reference {level_cost.REFERENCE_GPU}",
            "host_iteration_s": fb.host_iteration_s,
            "host_iteration_source": "measured on this loop" if fb.host_measured
            else "reference host"}


def compare(prog, expected: dict, actual: dict, rtol: float = RTOL) -> tuple[bool, float]:
    """Every written array within `rtol` of the sequential result; the largest relative
    error."""
    worst, ok = 0.0, True
    for name in prog.scop.written_arrays():
        exp, act = np.asarray(expected[name]), np.asarray(actual[name])
        err = float(np.max(np.abs(act - exp) / np.maximum(np.abs(exp), 1e-300)))
        worst = max(worst, err)
        ok &= bool(np.allclose(act, exp, rtol=rtol, atol=0))
    return ok, worst


def cupy_scatter_add(args: dict, repeats: int) -> float:
    import cupy as cp
    import cupyx

    H, key, v = cp.asarray(args["H"]), cp.asarray(args["key"]), cp.asarray(args["v"])
    cupyx.scatter_add(H, key, v)
    times = timing.time_events(lambda: cupyx.scatter_add(H, key, v), repeats, cp)
    return statistics.median(times)


# Hand-written OpenMP baselines (bench/openmp_hand/), by source: the cases of these sources get
# the OpenMP entries. The move has none: its iterations read what others write, no `omp
# atomic` makes a parallel loop of it right.
HAND_DIR = Path(__file__).resolve().parent / "openmp_hand"
HAND = {SCATTER: ("scatter.c", "omp parallel for over i, omp atomic on each H update"),
        ROWS: ("rows.c", "omp parallel for over the rows i, omp atomic on each A update"),
        MESH: ("mesh.c", "omp parallel for over the nodes i, no atomics (f[i] its own)"),
        MESH_EDGES: ("edges.c", "omp parallel for over the edges, omp atomic on both f updates")}


def check_indices(source: str, args: dict) -> None:
    """Raises ValueError where a hand baseline of `source` (which checks nothing) would read
    or write outside an array with these arguments (the sizes are checked by launch)."""
    def within(name: str, extent: int) -> None:
        a = args[name]
        if a.size and (int(a.min()) < 0 or int(a.max()) >= extent):
            raise ValueError(f"index array {name} outside [0, {extent})")

    if source is SCATTER:
        within("key", args["m"])
    elif source is ROWS:
        within("idx", args["m"])
    elif source is MESH:
        ptr = args["ptr"]
        if ptr[0] < 0 or np.any(np.diff(ptr) < 0) or ptr[-1] > args["ne"]:
            raise ValueError("ptr decreases or leaves [0, ne]")
        within("adj", args["n"])
    elif source is MESH_EDGES:
        within("a", args["n"])
        within("b", args["n"])


def set_threads(kernel, threads: int) -> int:
    """Sets the OpenMP threads of later parallel regions of this (the calling) thread through
    the libgomp that `kernel`'s library loaded (OMP_NUM_THREADS is read once, when libgomp
    loads); returns omp_get_max_threads() as read back."""
    kernel.lib.omp_set_num_threads(ctypes.c_int(threads))
    kernel.lib.omp_get_max_threads.restype = ctypes.c_int
    return int(kernel.lib.omp_get_max_threads())


def openmp_entry(prog, kernel, args: dict, expected: dict, repeats: int, threads: int,
                 rtol: float, seq_s: float) -> dict:
    """One OpenMP build timed as the sequential entry (whole function, host arrays, fresh
    copies) and checked against the sequential result."""
    used = set_threads(kernel, threads)
    actual, times = scripts.timed_samples(prog, kernel, args, repeats)
    ok, worst = compare(prog, expected, actual, rtol)
    spread = timing.spread(times)
    return {"threads": used, "s": spread["median_s"], "spread": spread, "correct": ok,
            "worst_relative_error": worst, "speedup_vs_sequential": seq_s / spread["median_s"]}


def openmp_entries(prog, source: str, args: dict, expected: dict, repeats: int,
                   threads: int, changes: dict, rtol: float, seq_s: float) -> dict:
    """{"polycuda": ..., "hand": ...}: polycuda's --target openmp of the same source (with
    whether its loops run in parallel, and why not) and the hand-written baseline."""
    gen = prog.generate("openmp", **changes)
    parallel = any(not k.serial for k in gen.kernels)
    nests = indirect.runtime_nests(prog.scop, gen.options.allow_reassociation)
    why = "; ".join(n.reason for n in nests)
    if parallel:
        status = ("parallel: `omp parallel for` on a loop proved parallel at compile time"
                  + (f" (inside it: {why})" if why else ""))
    else:
        status = ("sequential: no loop of the nest proved parallel at compile time, and the "
                  "OpenMP target has no inspector/executor" + (f" ({why})" if why else ""))
    ours = openmp_entry(prog, prog.kernel("openmp", **changes), args, expected, repeats,
                        threads, rtol, seq_s)
    ours.update({"what": "polycuda --target openmp, same source",
                 "status": "parallel" if parallel else "sequential", "reason": status})
    check_indices(source, args)
    file, form = HAND[source]
    lib = build.build_shared((HAND_DIR / file).read_text(), "openmp")
    hand = openmp_entry(prog, launch.load(lib, prog.scop, "openmp"), args, expected, repeats,
                        threads, rtol, seq_s)
    hand.update({"what": f"HAND-WRITTEN OpenMP baseline, not polycuda output: {form}",
                 "source": f"bench/{HAND_DIR.name}/{file}"})
    return {"polycuda": ours, "hand": hand}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--emulate", action="store_true",
                        help="no GPU: tiny sizes on the CUDA emulator, no CuPy (checks only)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="OpenMP threads of the OpenMP entries (default: os.cpu_count())")
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument("--executors", action=argparse.BooleanOptionalAction, default=True,
                        help="time every executor variant of run-time nests (default on)")
    opts = parser.parse_args(argv)
    if opts.threads < 1:
        parser.error(f"--threads must be at least 1, got {opts.threads}")
    target = "emulate" if opts.emulate else "cuda"
    size = "emulate" if opts.emulate else "quick" if opts.quick else "full"
    all_cases = cases(size)
    only = [c for c in opts.only.split(",") if c]
    unknown = sorted(set(only) - {name for name, _, _ in all_cases})
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; cases: "
                     f"{', '.join(name for name, _, _ in all_cases)}")
    rows, all_ok, status = [], True, 1
    for name, source, args in all_cases:
        if only and name not in only:
            continue
        prog = polycuda.compile(source)
        rtol = RTOL_CASE.get(name, RTOL)
        expected, seq_s = sequential(prog, args, max(1, opts.repeats // 2))
        # the headline row: the inspector's levels on the GPU, the host fallback off (as in
        # the results before auto); auto against never under "executors"
        changes = {"cpu_fallback_per_level": 0.0}
        if name.endswith("-levels"):
            changes["allow_reassociation"] = False
        actual, gpu_s, levels = on_gpu(prog, args, opts.repeats, changes, target)
        ok, worst = compare(prog, expected, actual, rtol)
        inspect_s, execute_s = phases(prog, args, changes, target)
        allow = prog.generate("cuda", **changes).options.allow_reassociation
        atomic = any(n.atomic for n in indirect.runtime_nests(prog.scop, allow))
        row = {"case": name, "iterations": int(args["ne" if source is MESH_EDGES else "n"]),
               "levels": levels, "correct": ok, "atomic_scatter_add": atomic,
               "worst_relative_error": worst, "rtol": rtol, "sequential_c_s": seq_s,
               "gpu_inspector_executor_s": gpu_s, "gpu_inspect_s_unpipelined": inspect_s,
               "gpu_execute_s_unpipelined": execute_s, "speedup_vs_sequential": seq_s / gpu_s}
        if "ne" in args:
            row["edges"] = int(args["ne"])
        if source is SCATTER and target == "cuda":
            row["cupyx_scatter_add_s"] = cupy_scatter_add(args, opts.repeats)
        if source in HAND:
            omp = openmp_entries(prog, source, args, expected, opts.repeats, opts.threads,
                                 changes, rtol, seq_s)
            row["openmp"] = omp
            row["gpu_speedup_vs_openmp_polycuda"] = omp["polycuda"]["s"] / gpu_s
            row["gpu_speedup_vs_openmp_hand"] = omp["hand"]["s"] / gpu_s
            ok &= omp["polycuda"]["correct"] and omp["hand"]["correct"]
        if opts.executors and levels is not None:
            row["executors"] = executors(prog, args, expected, opts.repeats, changes, rtol,
                                         target)
            ok &= all(e["correct"] for e in row["executors"].values())
        row["correct"] = ok
        all_ok &= ok
        rows.append(row)
        print(json.dumps(row), flush=True)
        # written after every case: a run cut short by the device's time limit keeps them
        status = scripts.write_report(opts.out, {
            **scripts.header(), **({"gpu": "emulator (CPU)"} if opts.emulate else {}),
            "target": target, "quick": opts.quick, "repeats": opts.repeats,
            "openmp_threads": opts.threads, "cpu_count": os.cpu_count(),
            "omp_environment": {k: v for k, v in sorted(os.environ.items())
                                if k.startswith(("OMP_", "GOMP_"))},
            "all_correct": all_ok, "cases": rows}, all_ok)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
