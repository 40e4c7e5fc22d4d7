"""Indirect subscripts on a real GPU (issue 17): the CUDA inspector/executor checked against
the sequential program (the C target, gcc) and timed against it, at sizes that fill the GPU.

    python bench/indirect_gpu.py OUT.json [--quick]

Per case: the levels the inspector found; the GPU time of the whole run-time path (inspection
+ execution, device arrays in place, CUDA events, median); with a second build under
-DPC_TIMING (no pipelining) the inspection and execution times separately; the sequential C
time (host arrays, median); the result compared with the sequential one (exact for
histograms of integers-valued doubles, rtol 1e-12 otherwise; nvcc may contract a*b+c to FMA).
Scatter-add also gets CuPy's atomic scatter_add (cupyx.scatter_add) as a reference point.
Per case, every executor of EXECUTORS (levels, one launch, each with reused levels, the host
fallback, the default fallback threshold "auto" against none) timed alike, under "executors";
auto's threshold and where its costs came from under executors.fallback-auto.fallback.
`--only move-chain,scatter-random-levels` runs some cases only (the fallback check: a chain
and randAcc-like random moves and levelized scatters).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import statistics
import sys

import numpy as np

import polycuda
from polycuda.bench import scripts, timing
from polycuda.bench.scripts import ordered as _ordered, sequential
from kernels.indirect import MOVE, SCATTER
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


def cases(quick: bool) -> list[tuple[str, str, dict]]:
    """(name, source, host arguments) of every case; sizes fill an H100 unless quick. A name
    ending in "-levels" runs with --no-allow-reassociation: scatter-add levelized instead of
    atomicAdd."""
    rng = np.random.default_rng(0)
    big = 1 << (20 if quick else 24)  # 16M iterations
    out = []

    def scatter(name: str, n: int, m: int, key: np.ndarray) -> None:
        out.append((name, SCATTER, {"n": n, "m": m, "H": np.ones(m),
                                    "key": key.astype(np.int32),
                                    "v": rng.integers(1, 4, n).astype(np.float64)}))

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
    chain = 1 << (10 if quick else 13)  # worst case: one iteration per level
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
    return out





def on_gpu(prog, args: dict, repeats: int, changes: dict) -> tuple[dict, float, int]:
    """The CUDA result, the median time of the run-time path on device arrays, the levels."""
    import cupy as cp

    kernel = prog.kernel("cuda", **changes)
    dev = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    kernel(*_ordered(prog, dev))
    cp.cuda.Device().synchronize()
    result = {k: (cp.asnumpy(v) if isinstance(v, cp.ndarray) else v) for k, v in dev.items()}
    levels = ctypes.c_longlong.in_dll(kernel.lib, f"pc_{prog.name}_levels").value
    times = []
    for _ in range(repeats):
        fresh = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in args.items()}
        cp.cuda.Device().synchronize()
        times += launch.time_calls(kernel, _ordered(prog, fresh), repeats=1, warmup=0)
    return result, statistics.median(times), levels


def phases(prog, args: dict, changes: dict) -> tuple[float, float]:
    """(inspection, execution) seconds of a -DPC_TIMING build (no pipelining)."""
    import cupy as cp

    lib = build.build_shared(prog.generate("cuda", **changes).source, "cuda",
                             flags=("-DPC_TIMING",))
    kernel = launch.load(lib, prog.scop, "cuda")
    dev = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    kernel(*_ordered(prog, dev))  # warm-up (module load)
    dev = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    kernel(*_ordered(prog, dev))
    get = lambda what: ctypes.c_double.in_dll(kernel.lib, f"pc_{prog.name}_{what}_s").value  # noqa: E731
    return get("inspect"), get("execute")


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


def executors(prog, args: dict, expected: dict, repeats: int, changes: dict) -> dict:
    """{variant: {gpu_s, executor, reused, levels, correct}} for EXECUTORS."""
    out = {}
    for name, extra in EXECUTORS.items():
        both = {**changes, **extra}
        actual, gpu_s, levels = on_gpu(prog, args, repeats, both)
        kernel = prog.kernel("cuda", **both)
        def get(what: str) -> int | None:
            """A counter of the last call; None where the plain (paper's) code has none."""
            try:
                return ctypes.c_longlong.in_dll(kernel.lib, f"pc_{prog.name}_{what}").value
            except ValueError:
                return None
        out[name] = {"gpu_s": gpu_s, "levels": levels, "executor": get("executor"),
                     "reused_last_call": bool(get("reused")), "widest_level": get("widest"),
                     "correct": compare(prog, expected, actual)[0]}
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


def compare(prog, expected: dict, actual: dict) -> tuple[bool, float]:
    worst, ok = 0.0, True
    for name in prog.scop.written_arrays():
        exp, act = np.asarray(expected[name]), np.asarray(actual[name])
        err = float(np.max(np.abs(act - exp) / np.maximum(np.abs(exp), 1e-300)))
        worst = max(worst, err)
        ok &= bool(np.allclose(act, exp, rtol=1e-12, atol=0))
    return ok, worst


def cupy_scatter_add(args: dict, repeats: int) -> float:
    import cupy as cp
    import cupyx

    H, key, v = cp.asarray(args["H"]), cp.asarray(args["key"]), cp.asarray(args["v"])
    cupyx.scatter_add(H, key, v)
    times = timing.time_events(lambda: cupyx.scatter_add(H, key, v), repeats, cp)
    return statistics.median(times)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", default="", help="comma-separated case names")
    opts = parser.parse_args(argv)
    only = set(filter(None, opts.only.split(",")))
    rows, all_ok = [], True
    for name, source, args in cases(opts.quick):
        if only and name not in only:
            continue
        prog = polycuda.compile(source)
        expected, seq_s = sequential(prog, args, max(1, opts.repeats // 2))
        # the headline row: the inspector's levels on the GPU, the host fallback off (as in
        # the results before auto); auto against never under "executors"
        changes = {"cpu_fallback_per_level": 0.0}
        if name.endswith("-levels"):
            changes["allow_reassociation"] = False
        actual, gpu_s, levels = on_gpu(prog, args, opts.repeats, changes)
        ok, worst = compare(prog, expected, actual)
        inspect_s, execute_s = phases(prog, args, changes)
        row = {"case": name, "iterations": int(args["n"]), "levels": levels, "correct": ok,
               "atomic_scatter_add": source is SCATTER and not changes,
               "worst_relative_error": worst, "sequential_c_s": seq_s,
               "gpu_inspector_executor_s": gpu_s, "gpu_inspect_s_unpipelined": inspect_s,
               "gpu_execute_s_unpipelined": execute_s, "speedup_vs_sequential": seq_s / gpu_s}
        if source is SCATTER:
            row["cupyx_scatter_add_s"] = cupy_scatter_add(args, opts.repeats)
        row["executors"] = executors(prog, args, expected, opts.repeats, changes)
        ok &= all(e["correct"] for e in row["executors"].values())
        row["correct"] = ok
        all_ok &= ok
        rows.append(row)
        print(json.dumps(row), flush=True)
    report = {**scripts.header(),
              "quick": opts.quick, "all_correct": all_ok, "cases": rows}
    return scripts.write_report(opts.out, report, all_ok)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
