"""CSR loops on a real GPU (issue 17): a sparse lower-triangular solve written as a plain loop
(kernels/indirect.py SPTRSV) through polycuda's CUDA run-time path (inspector/executor,
Anantpur & Govindarajan 2013) against cuSPARSE's SpSV (CuPy spsolve_triangular) in the same
run, both checked against the sequential solve; also SpMV (static path) against cuSPARSE SpMV
and a CSR mesh edge loop.

    python bench/sptrsv_gpu.py OUT.json [--quick] [--repeats N]
    python bench/sptrsv_gpu.py OUT.json --emulate      # no GPU: small sizes, the CUDA emulator

Pattern: n = 2^20 rows (2^12 with --quick, 2^9 with --emulate), up to 8 distinct random
columns < i per row, then the diagonal (last in its row): about 9.4M nonzeros at 2^20.
Off-diagonal values in [-0.1, 0.1], diagonal in [1, 2] (the solution stays O(1)). Per case:
the levels the inspector found, the median GPU time of polycuda's whole call on device
arrays (inspection + execution; CUDA events), inspection and execution separately from a
-DPC_TIMING build (no pipelining), cuSPARSE's median time (SpSV: analysis + solve per call, as
spsolve_triangular does), the sequential C time (gcc, the region run in order), and the
largest relative error of each against the sequential result (rtol 1e-9: nvcc may contract
a*b+c to FMA). For the solve, each run-time executor of EXECUTORS is also timed in the same run
(`executors`: its median seconds, the executor the library reports it ran, its error):
syncfree-affine is the one launch without inspector (codegen/syncfree_affine.py), one thread
per row; syncfree-affine-warp the same with one warp per row.
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
from polycuda.bench.scripts import copy_args as _copy, ordered as _ordered, sequential
from kernels.indirect import MESH, SPMV, SPTRSV, lower_pattern, mesh_graph
from polycuda.runtime import launch

RTOL = 1e-9
# Options.runtime_executor values timed beside the default (levels) for run-time nests
EXECUTORS = ("syncfree-affine", "syncfree-affine-warp")


def cases(n: int, rng: np.random.Generator) -> list[tuple[str, str, dict]]:
    """(name, source, host arguments)."""
    rowptr, col = lower_pattern(n, 8, rng)
    nnz = len(col)
    val = rng.uniform(-0.1, 0.1, nnz)
    val[rowptr[1:] - 1] = rng.uniform(1.0, 2.0, n)
    solve = {"n": n, "nnz": nnz, "x": np.zeros(n), "b": rng.uniform(0.5, 1.5, n),
             "rowptr": rowptr, "col": col, "val": val}
    spmv = {"n": n, "nnz": nnz, "y": np.zeros(n), "rowptr": rowptr, "col": col, "val": val,
            "x": rng.uniform(0.5, 1.5, n)}
    # a mesh-like graph: each node's edges to random nodes (both triangles: symmetric degree)
    ptr, adj = mesh_graph(n, rng)
    mesh = {"n": n, "ne": len(adj), "f": np.zeros(n), "u": rng.uniform(0.5, 1.5, n),
            "ptr": ptr, "adj": adj, "w": rng.uniform(0.5, 1.5, len(adj))}
    return [("sptrsv", SPTRSV, solve), ("spmv", SPMV, spmv), ("mesh-edges", MESH, mesh)]




def _out(name: str) -> str:
    return {"sptrsv": "x", "spmv": "y", "mesh-edges": "f"}[name]



def levels_of(kernel, prog) -> int | None:
    """The levels of the region's run-time nest; None for a static region (none)."""
    if "pc_writer0" not in prog.generate("cuda").source:
        return None
    return ctypes.c_longlong.in_dll(kernel.lib, f"pc_{prog.name}_levels").value


def on_gpu(prog, args: dict, repeats: int, target: str, **changes
           ) -> tuple[dict, float, int | None]:
    """polycuda's result, median seconds (device arrays, CUDA events; host arrays and the
    wall clock on the emulator) and the levels of its run-time nest (options `changes`)."""
    kernel = prog.kernel(target, **changes)
    on_gpu.kernel = kernel  # for executor_of
    if target == "emulate":
        result = _copy(args)
        kernel(*_ordered(prog, result))
        times = launch.time_calls(kernel, _ordered(prog, _copy(args)), repeats=repeats,
                                  warmup=0)
        return result, statistics.median(times), levels_of(kernel, prog)
    import cupy as cp

    dev = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    kernel(*_ordered(prog, dev))
    cp.cuda.Device().synchronize()
    result = {k: (cp.asnumpy(v) if isinstance(v, cp.ndarray) else v) for k, v in dev.items()}
    times = []
    for _ in range(repeats):
        fresh = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in args.items()}
        cp.cuda.Device().synchronize()
        times += launch.time_calls(kernel, _ordered(prog, fresh), repeats=1, warmup=0)
    return result, statistics.median(times), levels_of(kernel, prog)


def executor_of(prog) -> str:
    """The executor that the last on_gpu call's library reports for its run-time nest."""
    from polycuda.codegen.executor_cuda import EXECUTOR_CODES

    code = ctypes.c_longlong.in_dll(on_gpu.kernel.lib, f"pc_{prog.name}_executor").value
    return EXECUTOR_CODES[int(code)]


def phases(prog, args: dict, target: str) -> tuple[float, float] | None:
    """(inspection, execution) seconds of a -DPC_TIMING build (no pipelining); None for a
    region without a run-time nest."""
    source = prog.generate("cuda", cpu_fallback_per_level=0).source  # the phases: paper driver
    if "pc_writer0" not in source:
        return None
    return scripts.timing_phases(prog, source, args, target)


def cusparse(name: str, args: dict, repeats: int) -> tuple[np.ndarray, float]:
    """cuSPARSE through CuPy: SpSV (spsolve_triangular, lower) or SpMV (A @ x): the result
    and the median seconds (CUDA events)."""
    import cupy as cp
    import cupyx.scipy.sparse as sparse
    from cupyx.scipy.sparse.linalg import spsolve_triangular

    n = args["n"]
    A = sparse.csr_matrix((cp.asarray(args["val"]), cp.asarray(args["col"]),
                           cp.asarray(args["rowptr"])), shape=(n, n))
    if name == "sptrsv":
        b = cp.asarray(args["b"])
        run = lambda: spsolve_triangular(A, b, lower=True)  # noqa: E731
    else:
        x = cp.asarray(args["x"])
        run = lambda: A @ x  # noqa: E731
    result = cp.asnumpy(run())
    times = timing.time_events(run, repeats, cp)
    return result, statistics.median(times)


def worst_error(expected: np.ndarray, actual: np.ndarray) -> float:
    scale = np.maximum(np.abs(expected), 1e-300)
    return float(np.max(np.abs(np.asarray(actual) - expected) / scale)) if expected.size else 0.0


def run_case(name: str, source: str, args: dict, repeats: int, target: str) -> dict:
    prog = polycuda.compile(source)
    out = _out(name)
    expected, seq_s = sequential(prog, args, max(1, repeats // 2))
    actual, gpu_s, levels = on_gpu(prog, args, repeats, target)
    err = worst_error(expected[out], actual[out])
    row = {"case": name, "rows": int(args["n"]), "nonzeros": int(len(args.get("col", args.get(
           "adj", [])))), "levels": levels, "polycuda_s": gpu_s, "sequential_c_s": seq_s,
           "polycuda_worst_relative_error": err, "correct": err <= RTOL,
           "speedup_vs_sequential": seq_s / gpu_s}
    split = phases(prog, args, target)
    if split is not None:
        row["inspect_s_unpipelined"], row["execute_s_unpipelined"] = split
    if levels is not None:
        row["executors"] = {}
        for executor in EXECUTORS:
            result, seconds, _ = on_gpu(prog, args, repeats, target, runtime_executor=executor)
            error = worst_error(expected[out], result[out])
            all_ok = error <= RTOL
            row["executors"][executor] = {"s": seconds, "ran": executor_of(prog),
                                          "worst_relative_error": error, "correct": all_ok}
            row["correct"] &= all_ok
    if target == "cuda" and name in ("sptrsv", "spmv"):
        ref, ref_s = cusparse(name, args, repeats)
        ref_err = worst_error(expected[out], ref)
        row.update({"cusparse_s": ref_s, "cusparse_worst_relative_error": ref_err,
                    "cusparse_correct": ref_err <= RTOL,
                    "polycuda_over_cusparse_time": gpu_s / ref_s})
        for executor, timed in row.get("executors", {}).items():
            timed["over_cusparse_time"] = timed["s"] / ref_s
    return row


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--quick", action="store_true", help="2^12 rows (a smoke test)")
    parser.add_argument("--emulate", action="store_true",
                        help="no GPU: 2^9 rows on the CUDA emulator, no cuSPARSE")
    parser.add_argument("--repeats", type=int, default=7)
    opts = parser.parse_args(argv)
    target = "emulate" if opts.emulate else "cuda"
    n = 1 << (9 if opts.emulate else 12 if opts.quick else 20)
    rows, all_ok = [], True
    for name, source, args in cases(n, np.random.default_rng(0)):
        row = run_case(name, source, args, opts.repeats, target)
        all_ok &= row["correct"] and row.get("cusparse_correct", True)
        rows.append(row)
        print(json.dumps(row), flush=True)
    report = {**scripts.header(), **({"gpu": "emulator (CPU)"} if opts.emulate else {}),
              "target": target, "quick": opts.quick, "repeats": opts.repeats,
              "all_correct": all_ok, "cases": rows}
    return scripts.write_report(opts.out, report, all_ok)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
