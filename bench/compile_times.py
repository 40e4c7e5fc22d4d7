"""Compile time of every suite kernel: frontend, and frontend-to-source per scheduler/target;
scheduling alone (the scheduler and its legality check, dependences given) per scheduler.

Usage: python3 bench/compile_times.py [OUT.json]   (run from the repository root)
nvcc/gcc are excluded: this is polycuda's own time, measured on the machine it runs on.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import statistics
import sys
import time

import islpy as isl

from kernels import suite
from polycuda.analysis import dependences
from polycuda.frontend import c as cfront
from polycuda.options import Options
from polycuda.pipeline import compile_scop, schedule_scop, transform_scop

CONFIGS = {"isl-cuda": Options(target="cuda"),
           "pluto-cuda": Options(target="cuda", scheduler="pluto"),
           "pluto-balanced-cuda": Options(target="cuda", scheduler="pluto",
                                          balanced_wavefront=True),
           "pluto-inter-cuda": Options(target="cuda", scheduler="pluto", balanced_wavefront=True,
                                       eliminate_false_deps=True)}


def _schedule_time(scop, options: Options) -> float:
    """Median seconds of schedule_scop() alone (the scheduler and its legality check), on
    the scop it schedules, its dependences computed beforehand."""
    scop = transform_scop(scop, options)
    ctx = isl.Context()
    dep_map = dependences.untagged_union(scop, ctx)
    return _median_time(lambda: schedule_scop(scop, options, ctx, dep_map))


def _median_time(fn, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure() -> dict:
    rows = {}
    for kernel in suite.KERNELS:
        path = str(kernel.c_path)
        scop = next(s for s in cfront.parse_file(path) if s.name == kernel.function)
        row = {"frontend_s": _median_time(lambda p=path: cfront.parse_file(p))}
        for name, options in CONFIGS.items():
            try:
                row[name + "_s"] = _median_time(lambda s=scop, o=options: compile_scop(s, o))
                row[name.removesuffix("-cuda") + "-schedule_s"] = _schedule_time(scop, options)
            except Exception as err:  # noqa: BLE001 (a failing configuration is reported)
                row[name + "_s"] = None
                row[name + "_error"] = f"{type(err).__name__}: {err}"[:300]
        rows[kernel.name] = row
        print(kernel.name, {k: (round(v, 3) if isinstance(v, float) else v)
                            for k, v in row.items()}, file=sys.stderr)
    return rows


def main() -> None:
    rows = measure()
    slowest = {}
    keys = ["frontend_s"] + [n + "_s" for n in CONFIGS] + [
        n.removesuffix("-cuda") + "-schedule_s" for n in CONFIGS]
    for key in keys:
        values = [(r[key], k) for k, r in rows.items() if r.get(key) is not None]
        slowest[key] = max(values)
    result = {"date": datetime.date.today().isoformat(), "host": platform.processor() or
              platform.machine(), "cores": os.cpu_count(), "python": platform.python_version(),
              "what": "median of 3 runs; frontend = C parse of the file; *_s = Scop to source "
                      "text (dependences, scheduling, legality, mapping, AST, printing); "
                      "*-schedule_s = the scheduler and its legality check alone",
              "kernels": rows, "slowest": {k: {"seconds": v[0], "kernel": v[1]}
                                           for k, v in slowest.items()}}
    out = sys.argv[1] if len(sys.argv) > 1 else None
    text = json.dumps(result, indent=1)
    if out:
        with open(out, "w") as f:
            f.write(text + "\n")
    print(json.dumps(result["slowest"], indent=1))


if __name__ == "__main__":
    main()
