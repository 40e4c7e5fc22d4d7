"""Accuracy of the tuner's execution-time model on the GPU, as Di & Xue 2011 evaluate theirs
(Section 5): 1-D, 2-D and 3-D SOR at four sizes each; for each, the model ranks every
admissible layout (search time recorded), >= 100 sampled layouts are measured, and the JSON
gives each layout's model and measured times, the relative errors, and the gap between the
model's choice (and the fastest of its measured top k) and the best sampled layout.

    python bench/tune_accuracy.py OUT.json [--samples 100] [--deadline 450] [--workers 14]

Needs a GPU, CuPy and nvcc. Calibrates first when no calibration of this GPU is cached
(python -m polycuda.tune.calibrate). The same sampled layouts are measured at the four sizes of
a kernel (tile sizes are compiled in; sizes are run-time values), so each is built once, the
builds in parallel. The JSON is rewritten after every kernel; past --deadline seconds the
remaining layouts are skipped (and counted as such).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
import multiprocessing
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import polycuda  # noqa: E402
from polycuda.bench import environment  # noqa: E402
from polycuda.options import Options  # noqa: E402
from polycuda.tune import accuracy, calibrate, occupancy, problem, search  # noqa: E402
from polycuda.tune.search import Ranked  # noqa: E402

# (kernel, sizes): four problem sizes per kernel, a few ms to tens of ms each on an H100
PROBLEMS = {
    "sor_1d": [{"T": 500, "n": n} for n in (8192, 32768, 131072, 524288)],
    "sor_2d": [{"T": 64, "n": n} for n in (256, 512, 1024, 2048)],
    "sor_3d": [{"T": 16, "n": n} for n in (32, 64, 96, 128)],
}
TOP_K = 5
SLOW_S = 0.3  # a layout slower than this on its warm-up run is timed once, not `repeats`


def _build(job: tuple[str, str]) -> str:
    """Worker: generate and build one layout; the library's path or 'error: ...'."""
    from polycuda.runtime import build

    path, options_text = job
    try:
        prog = polycuda.compile(path, options=Options.from_text(options_text))
        return str(build.build_shared(prog.generate("cuda").source, "cuda"))
    except Exception as err:  # noqa: BLE001 (recorded per layout)
        return f"error: {type(err).__name__}: {str(err)[:300]}"


def _key(r: Ranked) -> tuple:
    return (r.tiles, r.block)


def _timer(prog, values: dict[str, int], repeats: int):
    import cupy
    import numpy as np

    from polycuda.runtime import launch
    from polycuda.verify import random_arguments

    host = random_arguments(prog.scop, values, 0)
    args = [cupy.asarray(v) if isinstance(v, np.ndarray) else v
            for v in (host[a.name] for a in prog.scop.args)]

    def run(lib: str) -> float:
        kernel = launch.load(lib, prog.scop, "cuda")
        start = time.perf_counter()
        kernel(*args)
        cupy.cuda.Device().synchronize()
        first = time.perf_counter() - start
        times = launch.time_calls(kernel, args, repeats=1 if first > SLOW_S else repeats,
                                  warmup=0)
        return sorted(times)[len(times) // 2]

    return run


def _dry_timer(prog, values: dict[str, int], repeats: int):
    """--dry-run: no GPU; 'measures' a layout as its model time times 1.1 (set per call)."""
    def run(lib: str) -> float:
        assert Path(lib).is_file()
        return _DRY_MODEL[0] * 1.1

    return run


_DRY_MODEL = [0.0]


def _kernel_problems(name: str, args, cal, props, pool, deadline: float, log) -> dict:
    """Rank, sample, build and measure one kernel at its four sizes."""
    path = str(ROOT / "kernels" / "c" / f"{name}.c")
    options = Options(target="cuda", scheduler=args.scheduler)
    prog = polycuda.compile(path, options=options)
    gen = prog.generate("cuda")
    resources = occupancy.kernel_resources(gen.source)
    ranked_by_size, search_s = [], []
    for values in PROBLEMS[name]:
        start = time.perf_counter()
        models = problem.kernel_models(gen, values, resources)
        ranked, excluded = search.rank(models, cal, props, args.rank_layouts)
        search_s.append(time.perf_counter() - start)
        ranked_by_size.append((ranked, dict(excluded)))
        log(f"{name} {values}: {len(ranked)} layouts ranked in {search_s[-1]:.1f} s")
    common = set.intersection(*[{_key(r) for r in rk} for rk, _ in ranked_by_size])
    pool_layouts = [r for r in ranked_by_size[0][0] if _key(r) in common]
    sampled = {_key(r) for r in accuracy.sample(pool_layouts, args.samples)}
    wanted = sampled | {_key(r) for rk, _ in ranked_by_size for r in rk[:TOP_K]}
    jobs = {k: (path, options.replace(tile_sizes=k[0], block_sizes=k[1]).to_text())
            for k in sorted(wanted)}
    start = time.perf_counter()
    libs = dict(zip(jobs, pool.map(_build, jobs.values())))
    log(f"{name}: built {len(libs)} layouts in {time.perf_counter() - start:.0f} s "
        f"({sum(v.startswith('error') for v in libs.values())} failed)")
    results = []
    for values, (ranked, excluded), seconds in zip(PROBLEMS[name], ranked_by_size, search_s):
        results.append(_measure_size(prog, values, ranked, excluded, seconds, sampled, libs,
                                     args, deadline, log))
    return {"kernel": name, "scheduler": args.scheduler, "problems": results}


def _measure_size(prog, values, ranked, excluded, search_s, sampled, libs, args, deadline,
                  log) -> dict:
    timer = _timer(prog, values, args.repeats)
    by_key = {_key(r): r for r in ranked}
    measured: dict[tuple, Ranked] = {}
    skipped = 0
    failures = {}
    for key in sorted(sampled | {_key(r) for r in ranked[:TOP_K]}):
        lib = libs[key]
        if time.perf_counter() > deadline:
            skipped += 1
            continue
        seconds = None
        _DRY_MODEL[0] = by_key[key].model_s
        if lib.startswith("error"):
            failures[str(key)] = lib
        else:
            try:
                seconds = timer(lib)
            except Exception as err:  # noqa: BLE001 (recorded per layout)
                failures[str(key)] = f"{type(err).__name__}: {str(err)[:200]}"
        measured[key] = dataclasses.replace(by_key[key], measured_s=seconds)
    samples = [measured[k] for k in sampled if k in measured]
    topk = [measured[_key(r)] for r in ranked[:TOP_K] if _key(r) in measured]
    choice = topk[0] if topk and _key(topk[0]) == _key(ranked[0]) else None
    entry = {"sizes": values, "search_s": search_s, "ranked": len(ranked),
             "excluded": excluded, "skipped_past_deadline": skipped, "failures": failures,
             "layouts": [dict(dataclasses.asdict(r), sampled=_key(r) in sampled,
                              rel_error=(accuracy.relative_error(r.model_s, r.measured_s)
                                         if r.measured_s else None))
                         for r in measured.values()]}
    try:
        summary = accuracy.summarize(samples, choice, topk)
        entry["summary"] = dataclasses.asdict(summary)
        log(f"  {values}: max |e| {summary.max_abs_rel_error:.1%}, mean |e| "
            f"{summary.mean_abs_rel_error:.1%}, gap {summary.gap}, top-{TOP_K} gap "
            f"{summary.gap_topk}")
    except ValueError as err:
        entry["summary"] = {"error": str(err)}
    return entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="JSON file to write")
    parser.add_argument("--samples", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rank-layouts", type=int, default=search.RANK_LAYOUTS,
                        help="layouts the model ranks per problem (search.rank's limit)")
    parser.add_argument("--deadline", type=float, default=450.0,
                        help="seconds after which no more layouts are measured")
    parser.add_argument("--workers", type=int, default=max(1, multiprocessing.cpu_count() - 2))
    parser.add_argument("--scheduler", default="pluto", choices=("auto", "isl", "pluto"))
    parser.add_argument("--kernels", default=",".join(PROBLEMS))
    parser.add_argument("--dry-run", action="store_true",
                        help="CPU check of the plumbing: builds with nvcc, no GPU; each "
                             "'measured' time is the model's times 1.1")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    deadline = start + args.deadline

    def log(message: str) -> None:
        print(f"tune_accuracy {time.perf_counter() - start:6.0f} s: {message}", file=sys.stderr,
              flush=True)

    props, on_gpu = occupancy.current_device()
    if args.dry_run:
        global _timer
        _timer = _dry_timer  # noqa: F811
        cal = calibrate.reference_calibration()
    elif not on_gpu:
        print("tune_accuracy: needs a GPU and CuPy", file=sys.stderr)
        return 2
    else:
        if not calibrate.cache_path(props.name).is_file():
            log("no calibration cached: calibrating")
            cal, raw = calibrate.measure(props, log=log)
            calibrate.cache_path(props.name).parent.mkdir(parents=True, exist_ok=True)
            calibrate.cache_path(props.name).write_text(calibrate.to_json(cal, raw) + "\n")
        cal = calibrate.load_calibration(props.name)
    report = {"gpu": props.name, "commit": environment.git_commit(),
              "calibration": dataclasses.asdict(cal), "samples": args.samples,
              "kernels": []}
    out = Path(args.out)
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(args.workers, mp_context=context) as pool:
        for name in args.kernels.split(","):
            report["kernels"].append(_kernel_problems(name, args, cal, props, pool, deadline,
                                                      log))
            report["total_s"] = time.perf_counter() - start
            out.write_text(json.dumps(report, indent=1) + "\n")
            log(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
