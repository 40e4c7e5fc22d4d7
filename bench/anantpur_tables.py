"""Anantpur & Govindarajan 2013, Tables 1-6, on a real GPU (issue 17): the paper's benchmarks,
written by us from its descriptions (kernels/anantpur.py), through polycuda's run-time path.

    python bench/anantpur_tables.py OUT.json [--scale S] [--repeats N] [--only NAME ...]
        [--variant NAME=JSON_OPTIONS ...] [--tables]

Every loop that writes a monitored array is levelized (allow_reassociation off, as the paper:
no atomics). Per benchmark, in one run:
- levels (the paper's Lvls), per run-time loop, from the library's counters;
- sequential: the C target (gcc -O3, one thread) on host arrays, median (the paper's CPU time);
- dc_exec: the run-time path on device-resident arrays (inspection and execution, pipelined,
  Algorithm 6), median, CUDA-synchronised wall time;
- total: the drop-in function on host arrays, so with allocation and copies both ways (the
  paper's GPU Time: DC+Exec plus Mem); mem = total - dc_exec;
- a -DPC_TIMING build (no pipelining, Table 3 and Table 5's P-Off): inspection and execution
  seconds, and the fraction inspection / sequential (Table 3's last column);
- speedup = sequential / total (Table 2), and sequential / dc_exec.
fdtd-2d calls its step FDTD_STEPS times per run (the paper's host loop around its kernels).
Variants (Table 4's reuse, Table 6's auxiliary-array sizes) run where the Options have the
fields (--variant NAME=JSON_OPTIONS, repeatable); an unknown field is reported, not ignored.
--tables adds, in the same run, Table 6 (every benchmark with auxiliary arrays of 1, 1/2, 1/4,
1/8, dynamic chunking on: variants aux1..aux8, levels and times) and Table 4 (a row "fdtd-2d x50":
the step called TABLE4_CALLS times, auxiliary arrays 1..1/8, reuse of levels off and on:
variants aux<d>-reuse-off/-on; device-resident time only, the paper's GPU Time without the
copies of 50 calls). Variants with options beyond the paper's defaults go through the
inspector's feature path, which has no -DPC_TIMING phases: their unpipelined_* fields are null.
The results are compared with the sequential ones (normwise, see compare): a wrong result fails
the run.
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import json
import statistics
import sys
import time

import numpy as np

import polycuda
from polycuda.bench import scripts
from polycuda.bench.scripts import ordered as _ordered, sequential
from kernels.anantpur import BENCHMARKS, FDTD_STEPS
from polycuda.options import Options
from polycuda.run import runtime_executors, runtime_levels
from polycuda.runtime import build, launch

BASE = {"allow_reassociation": False,  # the paper levelizes every monitored array
        "cpu_fallback_per_level": 0.0}  # and runs every level on the GPU (its tables)
AUX_DIVISORS = (1, 2, 4, 8)  # Tables 4 and 6: auxiliary arrays of 1, 1/2, 1/4, 1/8
# Table 6: dynamic chunking on (the paper's Table 6 caption)
TABLE6 = {f"aux{d}": {"aux_fraction": d, "runtime_chunking": "dynamic"} for d in AUX_DIVISORS}
TABLE4_CALLS = 50  # Table 4: fdtd-2d's kernels called 50 times
TABLE4 = {f"aux{d}-reuse-{'on' if reuse else 'off'}":
          {"aux_fraction": d, "runtime_chunking": "dynamic", "reuse_levels": reuse}
          for d in AUX_DIVISORS for reuse in (False, True)}
# Options whose code has the paper's -DPC_TIMING phases (inspector_cuda's plain driver)
PLAIN = {"runtime_executor": "levels", "reuse_levels": False, "cpu_fallback_per_level": 0.0,
         "aux_fraction": 1, "runtime_chunking": "none"}




def _calls(name: str) -> int:
    return FDTD_STEPS if name == "fdtd-2d" else 1


def _levels(kernel, prog) -> list[int]:
    return [levels for _, levels, _ in runtime_levels(prog, kernel, "cuda")]


def _counters(lib, prog, what: str, ctype, count: int) -> list:
    return list((ctype * count).in_dll(lib, f"pc_{prog.name}_{what}"))



def _counters_of(kernel, prog, name: str) -> dict:
    """Per run-time loop of the last call: executor, reused, chunk steps (dynamic chunking)."""
    count = len(_levels(kernel, prog))
    out = {"executors": [list(e) for e in runtime_executors(prog, kernel, count)]}
    try:
        out["chunk_steps"] = _counters(kernel.lib, prog, "chunk_steps", ctypes.c_longlong, count)
    except ValueError:
        out["chunk_steps"] = None  # no dynamic chunking in this build
    return out


def on_device(prog, args: dict, calls: int, repeats: int, changes: dict
              ) -> tuple[dict, float, list[int], dict]:
    """Result, median seconds on device-resident arrays, levels per run-time loop, counters."""
    import cupy as cp

    kernel = prog.kernel("cuda", **changes)
    to_dev = lambda a: {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v)  # noqa: E731
                        for k, v in a.items()}
    dev = to_dev(args)
    for _ in range(calls):
        kernel(*_ordered(prog, dev))
    cp.cuda.Device().synchronize()
    result = {k: (cp.asnumpy(v) if isinstance(v, cp.ndarray) else v) for k, v in dev.items()}
    levels = _levels(kernel, prog)
    counters = _counters_of(kernel, prog, prog.name)
    times = []
    for _ in range(repeats):
        fresh = to_dev(args)
        cp.cuda.Device().synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            kernel(*_ordered(prog, fresh))
        cp.cuda.Device().synchronize()
        times.append(time.perf_counter() - start)
    return result, statistics.median(times), levels, counters


def from_host(prog, args: dict, calls: int, repeats: int, changes: dict) -> tuple[dict, float]:
    """Result and median seconds of the drop-in function on host arrays (with copies)."""
    return scripts.timed_runs(prog, prog.kernel("cuda", **changes), args, repeats, calls)


def phases(prog, args: dict, calls: int, changes: dict) -> tuple[float, float]:
    """(inspection, execution) seconds, summed over loops and calls, of a -DPC_TIMING build."""
    import cupy as cp

    lib = build.build_shared(prog.generate("cuda", **changes).source, "cuda",
                             flags=("-DPC_TIMING",))
    kernel = launch.load(lib, prog.scop, "cuda")
    count = len(_levels(kernel, prog))
    dev = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    kernel(*_ordered(prog, dev))  # warm-up (module load)
    dev = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    inspect = execute = 0.0
    for _ in range(calls):
        kernel(*_ordered(prog, dev))
        inspect += sum(_counters(kernel.lib, prog, "inspect_s", ctypes.c_double, count))
        execute += sum(_counters(kernel.lib, prog, "execute_s", ctypes.c_double, count))
    return inspect, execute


def compare(prog, expected: dict, actual: dict, calls: int = 1) -> tuple[bool, float]:
    """(all within tolerance, worst error relative to the array's largest magnitude). nvcc
    contracts a*b+c to a fused multiply-add, which gcc -O3 does not on x86-64 by default: a
    cell that sums terms of both signs to near zero (2dconv, fdtd-2d) then differs in many
    relative digits; the tolerance is therefore normwise, 1e-12 of the largest magnitude, per
    call (errors of fdtd-2d's steps accumulate)."""
    worst, ok = 0.0, True
    for name in prog.scop.written_arrays():
        exp, act = np.asarray(expected[name]), np.asarray(actual[name])
        scale = max(float(np.max(np.abs(exp))), 1e-300)
        err = float(np.max(np.abs(act - exp))) / scale
        worst = max(worst, err)
        ok &= err <= 1e-12 * calls
    return ok, worst


def parse_variants(texts: list[str]) -> dict[str, dict]:
    """NAME=JSON -> {NAME: options}; every field must be one of Options'."""
    fields = {f.name for f in dataclasses.fields(Options)}
    variants = {}
    for text in texts:
        name, _, body = text.partition("=")
        changes = json.loads(body)
        unknown = sorted(set(changes) - fields)
        if unknown:
            raise SystemExit(f"--variant {name}: {unknown} are not Options fields")
        variants[name] = changes
    return variants


def _plain(changes: dict) -> bool:
    return all(changes.get(k, v) == v for k, v in PLAIN.items())


def measure(name: str, scale: float, repeats: int, variants: dict[str, dict],
            calls: int | None = None, host: bool = True, label: str | None = None) -> dict:
    """One row: the sequential time and, per variant (base first unless `variants` has one),
    levels, counters and times; `host`: also the drop-in function on host arrays."""
    source, make = BENCHMARKS[name]
    args = make(np.random.default_rng(0), scale)
    prog = polycuda.compile(source)
    calls = calls or _calls(name)
    expected, seq_s = sequential(prog, args, max(1, repeats // 2), calls)
    row = {"benchmark": label or name, "scale": scale, "calls": calls, "sequential_c_s": seq_s,
           "variants": {}}
    for variant, extra in ({"base": {}, **variants} if "base" not in variants
                           else variants).items():
        changes = {**BASE, **extra}
        actual, dc_exec_s, levels, counters = on_device(prog, args, calls, repeats, changes)
        ok, worst = compare(prog, expected, actual, calls)
        entry = {"options": changes, "levels": levels, **counters, "dc_exec_s": dc_exec_s,
                 "speedup_dc_exec": seq_s / dc_exec_s}
        if host:
            host_result, total_s = from_host(prog, args, calls, max(1, repeats // 2), changes)
            ok_host, worst_host = compare(prog, expected, host_result, calls)
            ok, worst = ok and ok_host, max(worst, worst_host)
            entry.update(total_s=total_s, mem_s=total_s - dc_exec_s,
                         speedup_total=seq_s / total_s)
        inspect_s = execute_s = None
        if _plain(changes):
            inspect_s, execute_s = phases(prog, args, calls, changes)
        entry.update(
            correct=ok, worst_relative_error=worst,
            unpipelined_inspect_s=inspect_s, unpipelined_execute_s=execute_s,
            unpipelined_dc_exec_s=None if inspect_s is None else inspect_s + execute_s,
            inspect_fraction_of_sequential=None if inspect_s is None else inspect_s / seq_s)
        row["variants"][variant] = entry
        print(json.dumps({"benchmark": row["benchmark"], "variant": variant, **entry}),
              flush=True)
    return row


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="problem size relative to the paper's (64M iterations at 1)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--only", nargs="*", choices=sorted(BENCHMARKS), default=None)
    parser.add_argument("--variant", action="append", default=[],
                        help="NAME=JSON of Options fields, e.g. reuse='{\"...\": true}'")
    parser.add_argument("--tables", action="store_true",
                        help="also Table 6 (aux1..aux8 variants, dynamic chunking) and Table 4 "
                             f"(row 'fdtd-2d x{TABLE4_CALLS}': aux arrays x reuse off/on)")
    opts = parser.parse_args(argv)
    variants = parse_variants(opts.variant)
    if opts.tables:
        variants = {**variants, **TABLE6}
    rows = []
    for name in opts.only or list(BENCHMARKS):
        start = time.perf_counter()
        rows.append(measure(name, opts.scale, opts.repeats, variants))
        print(f"# {name}: {time.perf_counter() - start:.1f} s", flush=True)
    if opts.tables and "fdtd-2d" in (opts.only or list(BENCHMARKS)):
        start = time.perf_counter()
        rows.append(measure("fdtd-2d", opts.scale, opts.repeats, {"base": {}, **TABLE4},
                            calls=TABLE4_CALLS, host=False, label=f"fdtd-2d x{TABLE4_CALLS}"))
        print(f"# Table 4: {time.perf_counter() - start:.1f} s", flush=True)
    all_ok = all(v["correct"] for r in rows for v in r["variants"].values())
    report = {**scripts.header(),
              "paper": "Anantpur & Govindarajan 2013, Tables 1-6 (benchmarks written by us)",
              "scale": opts.scale, "repeats": opts.repeats, "all_correct": all_ok,
              "benchmarks": rows}
    return scripts.write_report(opts.out, report, all_ok)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
