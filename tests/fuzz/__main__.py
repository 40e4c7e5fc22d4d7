"""`python -m tests.fuzz --count N --seed S [--long]`: differential fuzzing of polycuda.

Default: program `seed + k` runs one (configuration, target) pair, rotated by seed as in the CI
test; --long runs every program through every pair. Prints per pair: programs run, wrong
results, crashes (known classes apart) and the slowest compile; then one smallest reproducer
per crash class, and every wrong result and new crash in full (seed and source).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator

from tests.fuzz.generator import PROFILES, generate
from tests.fuzz.children import run_isolated
from tests.fuzz.harness import CONFIGS, TARGETS, Outcome, report
from tests.fuzz.reduce import minimise, size
from tests.fuzz.tree import FuzzProgram


def rotation(seed: int, configs: tuple[str, ...], targets: tuple[str, ...]
             ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The one (configuration, target) pair that program `seed` runs outside --long."""
    return (configs[seed % len(configs)],), (targets[(seed // len(configs)) % len(targets)],)


def _parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    ap.add_argument("--count", type=int, default=100, help="programs to generate")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first program")
    ap.add_argument("--long", action="store_true", help="every configuration and target")
    ap.add_argument("--profile", choices=sorted(PROFILES), default="full")
    ap.add_argument("--configs", nargs="+", choices=sorted(CONFIGS), default=list(CONFIGS))
    ap.add_argument("--targets", nargs="+", choices=TARGETS + ("cuda",), default=list(TARGETS),
                    help="cuda: the generated CUDA on this machine's GPU")
    ap.add_argument("--time-limit", type=float, default=60.0,
                    help="seconds per step (compile; generate per target) before 'timeout': "
                         "SIGALRM first, then the child is killed")
    ap.add_argument("--minimise", action="store_true",
                    help="shrink wrong results and new crashes before printing them")
    ap.add_argument("--print-source", action="store_true", help="print each program")
    ap.add_argument("--minutes", type=float, default=0.0,
                    help="stop starting programs after this many minutes (0: no limit)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="forked children at once (one per program and configuration)")
    ap.add_argument("--json", metavar="FILE",
                    help="also write the counts, compile-time percentiles and failures as JSON")
    return ap.parse_args(argv)


class Tally:
    """Counts per (configuration, target) and crash class, with the smallest reproducers."""

    def __init__(self) -> None:
        self.runs: Counter[tuple[str, str]] = Counter()
        self.bad: Counter[tuple[str, str, str]] = Counter()  # (config, target, kind)
        self.slowest: dict[tuple[str, str], tuple[float, int]] = {}
        self.classes: Counter[str] = Counter()
        self.smallest: dict[str, tuple[FuzzProgram, Outcome]] = {}
        self.failures: list[tuple[FuzzProgram, Outcome]] = []
        self.not_ok: list[tuple[FuzzProgram, Outcome]] = []
        self.compile_s: list[float] = []

    def add(self, prog: FuzzProgram, out: Outcome) -> None:
        key = (out.config, out.target)
        self.runs[key] += 1
        self.compile_s.append(out.compile_s)
        if out.compile_s > self.slowest.get(key, (-1.0, 0))[0]:
            self.slowest[key] = (out.compile_s, prog.seed)
        if out.status == "ok":
            return
        self.not_ok.append((prog, out))
        kind = "mismatch" if out.status == "mismatch" else (
            "known crash" if out.known else "new crash")
        self.bad[(*key, kind)] += 1
        cls = "WRONG RESULT" if out.status == "mismatch" else out.crash_class
        self.classes[cls] += 1
        best = self.smallest.get(cls)
        if best is None or len(prog.source) < len(best[0].source):
            self.smallest[cls] = (prog, out)
        if not out.known:
            self.failures.append((prog, out))

    def table(self) -> str:
        head = (f"{'configuration':<16}{'target':<9}{'programs':>9}{'wrong':>7}"
                f"{'new crash':>11}{'known crash':>13}{'slowest compile':>22}")
        rows = [head]
        for (config, target), n in sorted(self.runs.items()):
            s, seed = self.slowest[(config, target)]
            rows.append(f"{config:<16}{target:<9}{n:>9}"
                        f"{self.bad[(config, target, 'mismatch')]:>7}"
                        f"{self.bad[(config, target, 'new crash')]:>11}"
                        f"{self.bad[(config, target, 'known crash')]:>13}"
                        f"{f'{s:.2f} s (seed {seed})':>22}")
        return "\n".join(rows)


def _shrink(prog: FuzzProgram, out: Outcome, time_limit: float
            ) -> tuple[FuzzProgram, Outcome]:
    """The smallest program found that fails the same way, and its outcome."""
    last = {"out": out}

    def still_fails(candidate: FuzzProgram) -> bool:
        ((_, (again,)),) = run_isolated([candidate], lambda _p: ((out.config,), (out.target,)),
                                        time_limit_s=time_limit)
        if again.status == out.status and again.crash_class == out.crash_class:
            last["out"] = again
            return True
        return False

    small = minimise(prog, still_fails)
    return small, (last["out"] if small is not prog else out)


def _results(args: argparse.Namespace, seeds: range, stop: Callable[[], bool]
             ) -> Iterator[tuple[FuzzProgram, list[Outcome]]]:
    """(program, outcomes) per seed, in seed order, each program in forked children (a
    straggler inside one islpy call is killed at its time limit); --jobs of them at once."""
    configs, targets = tuple(args.configs), tuple(args.targets)

    def pairs(prog: FuzzProgram) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return (configs, targets) if args.long else rotation(prog.seed, configs, targets)

    progs = (generate(seed, args.profile) for seed in seeds)
    yield from run_isolated(progs, pairs, time_limit_s=args.time_limit, jobs=args.jobs,
                            stop=stop)


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    _commit()
    tally = Tally()
    start = time.perf_counter()
    done = 0
    def stop() -> bool:
        return bool(args.minutes) and time.perf_counter() - start > 60 * args.minutes

    for prog, outcomes in _results(args, range(args.seed, args.seed + args.count), stop):
        if args.print_source:
            print(f"--- seed {prog.seed}\n{prog.source}")
        for out in outcomes:
            tally.add(prog, out)
            if out.status != "ok":  # as it happens: a long run cut short still tells
                print(f"seed {prog.seed}: {out.config} / {out.target}: {out.status} "
                      f"{out.crash_class}", flush=True)
        done += 1
        if args.json and done % 100 == 0:  # a campaign cut short still leaves its file
            _write_json(args, tally, done, time.perf_counter() - start)
    elapsed = time.perf_counter() - start
    print(f"{done} programs (profile {args.profile}, seeds {args.seed}.."
          f"{args.seed + done - 1}, {'all pairs' if args.long else 'rotated'}), "
          f"{sum(tally.runs.values())} runs in {elapsed:.0f} s\n{tally.table()}\n")
    for cls, n in tally.classes.most_common():
        prog, out = tally.smallest[cls]
        if args.minimise:
            prog, out = _shrink(prog, out, args.time_limit)
        print(f"== {cls}: {n} runs; smallest reproducer (seed {prog.seed}, size {size(prog)}"
              f"{', minimised' if args.minimise else ''}):")
        print(report(prog, out) + "\n")
    for prog, out in tally.failures:
        if args.minimise:
            prog, out = _shrink(prog, out, args.time_limit)
        print("== FAILURE " + report(prog, out) + "\n")
    if args.json:
        _write_json(args, tally, done, elapsed)
    return 1 if tally.failures else 0


def _write_json(args: argparse.Namespace, tally: Tally, done: int, elapsed: float) -> None:
    with open(args.json + ".part", "w") as f:
        json.dump(summary(args, tally, done, elapsed), f, indent=1)
    os.replace(args.json + ".part", args.json)


@functools.cache  # read once, at the start: a commit made during a campaign is not what ran
def _commit() -> str:
    if os.environ.get("POLYCUDA_COMMIT"):  # a copy of the tree without .git (the GPU machine)
        return os.environ["POLYCUDA_COMMIT"]
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=False).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def _percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 \
        else (values[0] if values else 0.0)


def summary(args: argparse.Namespace, tally: Tally, done: int, elapsed: float) -> dict:
    """The run as JSON: what ran, outcomes per pair, compile times, every non-ok outcome."""
    times = sorted(tally.compile_s)
    return {
        "date": time.strftime("%Y-%m-%d"), "commit": _commit(),
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(),
                    "python": platform.python_version()},
        "command": "python -m tests.fuzz " + " ".join(sys.argv[1:]),
        "profile": args.profile, "first_seed": args.seed, "programs": done,
        "pairs": "all" if args.long else "rotated", "runs": sum(tally.runs.values()),
        "elapsed_s": round(elapsed, 1), "jobs": args.jobs,
        "per_pair": [{"config": c, "target": t, "runs": n,
                      "mismatch": tally.bad[(c, t, "mismatch")],
                      "new_crash": tally.bad[(c, t, "new crash")],
                      "known_crash": tally.bad[(c, t, "known crash")]}
                     for (c, t), n in sorted(tally.runs.items())],
        "classes": dict(tally.classes.most_common()),
        "compile_s": {"p50": _percentile(times, 50), "p99": _percentile(times, 99),
                      "max": times[-1] if times else 0.0, "count": len(times)},
        "not_ok": [{"seed": p.seed, "config": o.config, "target": o.target,
                    "status": o.status, "class": o.crash_class, "message": o.message[:400]}
                   for p, o in tally.not_ok],
    }


if __name__ == "__main__":
    sys.exit(main())
