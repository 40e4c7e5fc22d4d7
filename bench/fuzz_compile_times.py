"""Compile time of random programs (tests/fuzz/generator.py): code generation only, per
(scheduler, target), with the time of each named pass; p50/p99/max and the slowest programs.

Usage (from the repository root, one process):
    PYTHONPATH=$PWD python3 bench/fuzz_compile_times.py --count 1000 --seed 0 \\
        --profiles full affine-shifts large --out bench/results/DATE-compile-times-COMMIT.json
A program is compiled from its C text as `polycuda compile` does (frontend included), each
(scheduler, target) in a fresh state: the dependence cache is emptied in between. No gcc or
nvcc. --seeds-from OLD.json measures the programs of an earlier report (before/after a fix).
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

from polycuda.analysis import dependences
from polycuda.bench import environment
from polycuda.errors import PolycudaWarning
from polycuda.frontend import c as cfront
from polycuda.options import Options
from polycuda.pipeline import compile_scop
from tests.fuzz.generator import PROFILES, generate
from tests.fuzz.harness import Timeout, time_limit

SCHEDULERS = ("auto", "isl")
TARGETS = ("cuda", "openmp")


def compile_one(source: str, scheduler: str, target: str) -> dict:
    """Seconds of frontend + compile_scop of every region, and seconds per named pass."""
    dependences._MAPS.clear()  # each compile as a fresh `polycuda compile` would run
    start = time.perf_counter()
    passes: dict[str, float] = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PolycudaWarning)
        scops = cfront.parse_source(source, filename="fuzz.c")
        passes["frontend"] = time.perf_counter() - start
        for scop in scops:
            generated = compile_scop(scop, Options(target=target, scheduler=scheduler))
            for step in generated.steps:
                passes[step.name] = passes.get(step.name, 0.0) + step.seconds
    row = {"seconds": time.perf_counter() - start,
           "passes": {k: round(v, 4) for k, v in passes.items()}}
    if caught:  # budgets that ran out, fallbacks: what was given up
        row["warnings"] = sorted({str(w.message)[:160] for w in caught})
    return row


def measure(programs: list[tuple[str, int]], limit_s: float, log) -> list[dict]:
    rows = []
    for profile, seed in programs:
        source = generate(seed, profile).source
        for scheduler in SCHEDULERS:
            for target in TARGETS:
                row = {"profile": profile, "seed": seed, "scheduler": scheduler,
                       "target": target}
                start = time.perf_counter()
                try:
                    with time_limit(limit_s):
                        row.update(compile_one(source, scheduler, target))
                except Timeout:
                    row.update(seconds=time.perf_counter() - start, error="timeout")
                except Exception as err:  # noqa: BLE001 (a crash is reported, timed)
                    row.update(seconds=time.perf_counter() - start,
                               error=f"{type(err).__name__}: {err}"[:200])
                rows.append(row)
                slowest = max(row.get("passes", {"-": 0}).items(), key=lambda kv: kv[1])
                print(f"{profile} {seed} {scheduler} {target} {row['seconds']:.2f} s "
                      f"(slowest pass {slowest[0]} {slowest[1]:.2f}) {row.get('error', '')}",
                      file=log, flush=True)
    return rows


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(rows: list[dict]) -> dict:
    """p50/p99/max over compiles and over programs (a program: its slowest compile)."""
    per_program: dict[tuple[str, int], float] = {}
    for r in rows:
        key = (r["profile"], r["seed"])
        per_program[key] = max(per_program.get(key, 0.0), r["seconds"])
    out = {}
    for name, values in (("compiles", [r["seconds"] for r in rows]),
                         ("programs", list(per_program.values()))):
        out[name] = {"count": len(values), "p50_s": round(statistics.median(values), 3),
                     "p99_s": round(_quantile(values, 0.99), 3),
                     "max_s": round(max(values), 3),
                     "over_10_s": sum(v > 10 for v in values)}
    slow = sorted(rows, key=lambda r: -r["seconds"])[:20]
    out["slowest"] = [{k: r.get(k) for k in ("profile", "seed", "scheduler", "target",
                                              "seconds", "error")} |
                      {"slowest_pass": max(r.get("passes", {"-": 0}).items(),
                                           key=lambda kv: kv[1])} for r in slow]
    totals: dict[str, float] = {}
    for r in rows:
        for k, v in r.get("passes", {}).items():
            totals[k] = totals.get(k, 0.0) + v
    out["pass_totals_s"] = {k: round(v, 2) for k, v in sorted(totals.items(),
                                                              key=lambda kv: -kv[1])}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100, help="programs per profile")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profiles", nargs="+", choices=sorted(PROFILES), default=["full"])
    ap.add_argument("--seeds-from", help="the programs of an earlier report instead")
    ap.add_argument("--limit", type=float, default=120.0, help="seconds per compile")
    ap.add_argument("--machine", default="", help="what else ran on the machine")
    ap.add_argument("--out", help="JSON report (default: print the summary only)")
    args = ap.parse_args()
    if args.seeds_from:
        with open(args.seeds_from) as f:
            old = json.load(f)["rows"]
        programs = list(dict.fromkeys((r["profile"], r["seed"]) for r in old))
    else:
        programs = [(p, args.seed + k) for p in args.profiles for k in range(args.count)]
    rows = measure(programs, args.limit, sys.stderr)
    result = {"date": datetime.date.today().isoformat(), "commit": environment.git_commit(),
              "host": platform.processor() or platform.machine(), "cores": os.cpu_count(),
              "machine": args.machine, "python": platform.python_version(),
              "what": "seconds of C frontend + compile_scop (code generation, no gcc/nvcc) "
                      "per program x scheduler (auto, isl) x target (cuda, openmp); "
                      "'programs' takes each program's slowest compile",
              "summary": summary(rows), "rows": rows}
    if args.out:
        with open(args.out, "w") as f:
            f.write(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result["summary"], indent=1)[:4000])


if __name__ == "__main__":
    main()
