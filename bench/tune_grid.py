"""Every layout of a small product grid of tile sizes and thread counts, measured on a GPU in
one run: the landscape around the tuner's choice and a sweep's best, from which the local
search's moves (search.neighbours) can be replayed offline (--replay). Issue 16's open miss: on
2-D Jacobi 4096^2 x 1000 float, tune kept 24x96x128 tiles on 4x128 threads (45.65 ms), where
the wide sweep's best, 16x64x64 on 4x64, ran 41.15 ms, and no single-size move was faster.

    python bench/tune_grid.py OUT.json --jacobi --tiles 12,16,24,32 --tiles 48,64,96,128 \
        --tiles 48,64,96,128 --threads 128,256,512,1024 [--deadline 450]
    python bench/tune_grid.py OUT.json --kernel sor_2d [--size n=4096] --tiles ... --threads ...
    python bench/tune_grid.py REPLAY.json --replay GRID.json      # offline, no GPU

Blocks fill the tiles' inner sizes first with the given thread count (search.primary_block, as
tune builds them); layouts search.exclusion rejects are left out and counted. The builds run in
parallel; each layout is timed as tune_suite times it (median of --repeats after one warm-up).
--replay runs search.local_search on the grid's times from every measured layout as start (a
layout outside the grid counts as failed) and reports where it ends, with search.neighbours
and with single moves only (the neighbourhood before 2026-11-26).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import itertools
import json
import math
import multiprocessing
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import polycuda  # noqa: E402
import tune_suite  # noqa: E402
from kernels import suite  # noqa: E402
from polycuda.bench import environment  # noqa: E402
from polycuda.bench.configs import dtype_defines  # noqa: E402
from polycuda.errors import InvalidConfigError  # noqa: E402
from polycuda.options import Options  # noqa: E402
from polycuda.tune import calibrate, occupancy, problem, search  # noqa: E402

NEAR = 1.25  # --replay also reports the starts within this factor of the best (tune's start:
             # the fastest of its measured top k, probes and refits)


def _spec(args) -> dict:
    if args.jacobi:
        return dict(tune_suite.JACOBI)
    kernel = suite.by_name(args.kernel)
    sizes = dict(kernel.bench)
    sizes.update(dict(args.size))
    return {"name": args.kernel, "kernel": args.kernel, "dtype": args.dtype, "sizes": sizes}


def _program(spec: dict):
    kernel = suite.by_name(spec["kernel"])
    options = Options(target="cuda", **spec.get("options", {}))
    prog = polycuda.compile(str(kernel.c_path), options=options,
                            defines=dtype_defines(spec["dtype"]))
    gen = prog.generate("cuda", tile_sizes=(), block_sizes=(), tuned_sizes=False)
    return kernel, options, prog, problem.kernel_models(gen, spec["sizes"])


def grid_layouts(models, props, tiles: list[tuple[int, ...]], threads: tuple[int, ...]
                 ) -> tuple[list[tuple[tuple, tuple]], dict[str, int]]:
    """The admissible (tiles, block) of the product grid and the excluded ones' reasons."""
    primary = search.primary_model(models)
    found, excluded = [], {}
    for sizes in itertools.product(*tiles):
        for k in threads:
            block = search.primary_block(primary, sizes, k)
            why = search.excluded_by(models, sizes, block, props)
            if why:
                excluded[f"{sizes} {block}"] = why
            elif (sizes, block) not in found:
                found.append((sizes, block))
    return found, excluded


def measure_grid(args) -> dict:
    spec = _spec(args)
    kernel, options, prog, models = _program(spec)
    props, _ = occupancy.current_device()
    tiles = [tuple(int(t) for t in text.split(",")) for text in args.tiles]
    layouts, excluded = grid_layouts(models, props, tiles, tuple(args.threads))
    print(f"{spec['name']}: {len(layouts)} layouts, {len(excluded)} excluded", flush=True)
    timer = tune_suite.Timer("cuda", args.repeats)
    data = timer.arguments(kernel, spec["sizes"], spec["dtype"])
    best = [math.inf]

    def measure(sizes: tuple, block: tuple) -> float:
        seconds = timer.seconds(prog, data, sizes, block, best[0])
        best[0] = min(best[0], seconds)
        return seconds

    start = time.perf_counter()
    with concurrent.futures.ProcessPoolExecutor(args.workers) as pool:
        builds = tune_suite.submit_builds(pool, kernel, dtype_defines(spec["dtype"]), options,
                                          layouts)
        swept = tune_suite._sweep(layouts, builds, measure, start + args.deadline, print)
        for future in builds.values():
            future.cancel()
    rows = sorted(swept["measured"], key=lambda r: r["ms"])
    for r in rows[:5]:
        print(f"  {r['tiles']} {r['block']}: {r['ms']:.3f} ms", flush=True)
    return {"gpu": props.name, "date": datetime.date.today().isoformat(),
            "commit": environment.git_commit(), "entry": spec, "tiles": tiles,
            "threads": args.threads, "timing": f"median of {args.repeats} runs after one "
            "warm-up (CUDA events, device arrays); one run when over 20x the best so far",
            "measured": rows, "failed": swept["failed"], "excluded": excluded,
            "skipped_past_deadline": swept["skipped_past_budget"],
            "seconds": time.perf_counter() - start}


def single_moves(models, layout, cal, props) -> list:
    """search.neighbours less the moves that change two tile sizes, or a tile size and the
    thread count, at once: the local search's neighbourhood before 2026-11-26."""
    primary = search.primary_model(models)
    threads = math.prod(layout.block)

    def single(r) -> bool:
        changed = sum(a != b for a, b in zip(r.tiles, layout.tiles))
        return changed == 0 or (changed == 1 and
                                r.block == search.primary_block(primary, r.tiles, threads))
    return [r for r in search.neighbours(models, layout, cal, props) if single(r)]


def replay(grid: dict, rounds: int = search.LOCAL_ROUNDS, single: bool = False) -> dict:
    """search.local_search on the grid's times, from every measured layout (single: with
    single_moves as the neighbourhood)."""
    spec = grid["entry"]
    _, options, _, models = _program(spec)
    props, _ = occupancy.current_device()
    cal = calibrate.load_calibration(grid["gpu"], warn=False)
    times = {(tuple(r["tiles"]), tuple(r["block"])): r["ms"] / 1e3 for r in grid["measured"]}

    def measure(opts: Options) -> float:
        key = (tuple(opts.tile_sizes), tuple(opts.block_sizes))
        if key not in times:
            raise InvalidConfigError(f"{key} is outside the grid")
        return times[key]

    best = min(times.values())
    runs = _replay_runs(models, options, measure, cal, props, times, best, rounds,
                        single_moves if single else search.neighbours)
    near = [r for r in runs if r["start_ms"] <= NEAR * best * 1e3]
    return {"grid": {k: grid[k] for k in ("gpu", "date", "commit", "entry")},
            "neighbourhood": "single moves" if single else "search.neighbours",
            "best_ms": best * 1e3, "rounds": rounds, **_ends(runs, "all"),
            **_ends(near, f"starts_within_{NEAR}x"), "runs": runs}


def _ends(runs: list[dict], label: str) -> dict:
    """How the searches from `runs`' starts ended against the grid's best."""
    ratios = [r["end_over_best"] for r in runs]
    return {label: {"starts": len(runs), "within_2pct": sum(r <= 1.02 for r in ratios),
                    "within_5pct": sum(r <= 1.05 for r in ratios),
                    "geomean_end_over_best": math.exp(sum(map(math.log, ratios)) / len(ratios)),
                    "worst_end_over_best": max(ratios),
                    "mean_measured": sum(r["measured"] for r in runs) / len(runs)}}


def _replay_runs(models, options, measure, cal, props, times, best, rounds, near
                 ) -> list[dict]:
    runs = []
    for (tiles, block), seconds in sorted(times.items(), key=lambda kv: kv[1]):
        start = search.Ranked(tiles, block, math.inf, measured_s=seconds)
        found, local = search.local_search(models, [start], options, measure, cal, props,
                                           rounds, budget_s=math.inf, near=near)
        ended = min([start] + found, key=lambda r: r.measured_s)
        runs.append({"start": [list(tiles), list(block)], "start_ms": seconds * 1e3,
                     "end": [list(ended.tiles), list(ended.block)],
                     "end_ms": ended.measured_s * 1e3, "measured": len(found),
                     "rounds": local.get("rounds", 0),
                     "end_over_best": ended.measured_s / best})
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--jacobi", action="store_true",
                        help="tune_suite's 2-D Jacobi 4096^2 x 1000 float entry")
    parser.add_argument("--kernel", help="a suite kernel at its bench sizes")
    parser.add_argument("--size", action="append", type=tune_suite._size, default=[],
                        metavar="NAME=V")
    parser.add_argument("--dtype", default="double", choices=("double", "float"))
    parser.add_argument("--tiles", action="append", default=[],
                        help="the tile sizes of one band member, comma-separated (one "
                             "--tiles per member, outermost first)")
    parser.add_argument("--threads", type=lambda t: [int(x) for x in t.split(",")],
                        default=[128, 256, 512, 1024])
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--deadline", type=float, default=450.0)
    parser.add_argument("--workers", type=int, default=max(1, multiprocessing.cpu_count() - 2))
    parser.add_argument("--replay", type=Path, metavar="GRID.json",
                        help="offline: replay the local search on a grid's times")
    args = parser.parse_args(argv)
    if args.replay:
        grid = json.loads(args.replay.read_text())
        report = {"single_moves": replay(grid, single=True), "neighbours": replay(grid)}
        for name, one in report.items():
            for label in ("all", f"starts_within_{NEAR}x"):
                e = one[label]
                print(f"{name:13s} {label:20s} best {one['best_ms']:.3f} ms: {e['starts']} "
                      f"starts, {e['within_2pct']} end within 2%, {e['within_5pct']} within "
                      f"5%, geomean end/best {e['geomean_end_over_best']:.3f}, worst "
                      f"{e['worst_end_over_best']:.3f}, {e['mean_measured']:.1f} measured")
    else:
        if not args.jacobi and not args.kernel:
            parser.error("--jacobi or --kernel K")
        if not args.tiles:
            parser.error("--tiles for each band member")
        report = measure_grid(args)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
