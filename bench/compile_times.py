"""Compile time of every suite kernel: frontend, and frontend-to-source per scheduler/target;
scheduling alone (the scheduler and its legality check, dependences given) per scheduler.

Usage: python3 bench/compile_times.py [OUT.json] [--config NAME ...]   (from the repository root)
nvcc/gcc are excluded: this is polycuda's own time, measured on the machine it runs on.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import sys
import time
import warnings

import islpy as isl

from kernels import suite
from polycuda.analysis import dependences
from polycuda.bench import environment
from polycuda.errors import PolycudaWarning
from polycuda.frontend import c as cfront
from polycuda.options import Options
from polycuda.pipeline import compile_scop, schedule_scop, transform_scop

# "default-cuda": the compiler's defaults (scheduler auto: isl, pluto, isl-distributed and,
# since 2026-11-26, superposition each scheduled and mapped, the least cost kept); reports
# before 2026-11-25 call it "isl-cuda"
CONFIGS = {"default-cuda": Options(target="cuda"),
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


def _inputs():
    """(name, C file or source text, function) of every suite kernel, then the 20-statement
    5-deep random region that isl's scheduler did not finish before budgets existed."""
    for kernel in suite.KERNELS:
        yield kernel.name, str(kernel.c_path), kernel.function
    from tests.unit.random_c import random_region

    yield "random-20x5 (tests/unit/random_c.py seed 1)", random_region(1), None


def _parse(source: str):
    return (cfront.parse_file(source) if "\n" not in source else
            cfront.parse_source(source, filename="random.c"))


def measure(configs: dict[str, Options]) -> dict:
    rows = {}
    for label, source, function in _inputs():
        scop = next(s for s in _parse(source) if function in (None, s.name))
        row = {"frontend_s": _median_time(lambda p=source: _parse(p))}
        for name, options in configs.items():
            try:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", PolycudaWarning)
                    row[name + "_s"] = _median_time(lambda s=scop, o=options: compile_scop(s, o))
                if caught:  # a budget ran out or a mapping was refused: what was given up
                    row[name + "_fallback"] = sorted({str(w.message)[:200] for w in caught})
                row[name.removesuffix("-cuda") + "-schedule_s"] = _schedule_time(scop, options)
            except Exception as err:  # noqa: BLE001 (a failing configuration is reported)
                row[name + "_s"] = None
                row[name + "_error"] = f"{type(err).__name__}: {err}"[:300]
        rows[label] = row
        print(label, {k: (round(v, 3) if isinstance(v, float) else v)
                            for k, v in row.items()}, file=sys.stderr)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", help="JSON report (default: print the slowest only)")
    parser.add_argument("--config", action="append", choices=sorted(CONFIGS),
                        help="measure only these configurations (repeatable; default: all)")
    args = parser.parse_args()
    configs = {name: CONFIGS[name] for name in (args.config or CONFIGS)}
    rows = measure(configs)
    slowest = {}
    keys = ["frontend_s"] + [n + "_s" for n in configs] + [
        n.removesuffix("-cuda") + "-schedule_s" for n in configs]
    for key in keys:
        values = [(r[key], k) for k, r in rows.items() if r.get(key) is not None]
        slowest[key] = max(values)
    commit = environment.git_commit()
    result = {"date": datetime.date.today().isoformat(), "commit": commit,
              "host": platform.processor() or platform.machine(), "cores": os.cpu_count(),
              "python": platform.python_version(),
              "what": "median of 3 runs; frontend = C parse of the file; *_s = Scop to source "
                      "text (dependences, scheduling, legality, mapping, AST, printing); "
                      "*-schedule_s = the scheduler and its legality check alone",
              "kernels": rows, "slowest": {k: {"seconds": v[0], "kernel": v[1]}
                                           for k, v in slowest.items()}}
    text = json.dumps(result, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(json.dumps(result["slowest"], indent=1))


if __name__ == "__main__":
    main()
