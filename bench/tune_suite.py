"""The tuner on the suite, on a GPU: for each kernel of kernels/suite.py at its bench sizes,
in one run, the median time of (1) the default tables (no tile or block size given), (2) the
layout `polycuda tune` chooses (model ranking, then its top k and the defaults measured:
search.tune), and (3) the best of a wide hand sweep (tile sizes SWEEP_TILES per band member x
threads SWEEP_THREADS, the layouts search.exclusion rejects left out, a fixed-seed sample of
--sweep of them); plus 2-D Jacobi 4096^2 x 1000 float (the target: <= 45.8 ms, the single-sweep
bandwidth floor, with no hand-given size). --schedulers: tune also picks the scheduler among
the auto candidates by measuring each (e.g. --kernels fdtd_2d --schedulers --no-jacobi). The
tuned and the sweep's best layouts are verified against the sequential program at the kernel's
small sizes. JSON with the GPU, date and commit.

    python bench/tune_suite.py OUT.json [--quick] [--budget 360] [--kernels a,b] [--sweep 48]
    python bench/tune_suite.py OUT.json --dry-run --kernels sor_1d --sweep 2   # no GPU
    python bench/tune_suite.py OUT.json --merge PART1.json PART2.json ...      # parts -> one

--quick: QUICK_KERNELS, a sweep of 12, top 3, 2 repeats: about 8 minutes on an H100. --budget:
seconds after which no more layouts are measured (the rest counted as skipped; the Jacobi entry
runs first). --dry-run: the emulator at the small sizes (CPU; checks the plumbing, not speed).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime
import json
import math
import multiprocessing
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import polycuda  # noqa: E402
from kernels import suite  # noqa: E402
from polycuda.bench import environment  # noqa: E402
from polycuda.bench.configs import dtype_defines  # noqa: E402
from polycuda.errors import PolycudaError  # noqa: E402
from polycuda.options import Options  # noqa: E402
from polycuda.tune import occupancy, problem, search  # noqa: E402

QUICK_KERNELS = ("jacobi_2d", "heat_2d", "sor_2d", "fdtd_2d", "jacobi_3d", "sor_1d", "gemm")
SWEEP_TILES = (4, 8, 16, 32, 64, 128)
SWEEP_THREADS = (64, 128, 256, 512)
# bench/README.md: 41.25 ms at tiles 16x64x64 with these options (intra + inter two-level
# wavefronts, tiles staged in up to 227 KiB of shared memory), hand-given sizes
JACOBI = {"name": "jacobi_2d_t1000_float", "kernel": "jacobi_2d", "sizes": {"T": 1000, "n": 4096},
          "dtype": "float", "target_ms": 45.8,
          "options": {"scheduler": "pluto", "balanced_wavefront": True,
                      "eliminate_false_deps": True, "shared_staging": True,
                      "shared_memory_kib": 227}}
SLOW_FACTOR = 20.0  # a layout whose warm-up run is this much slower than the best is run once


class Timer:
    """Median seconds of a layout's runs: CUDA events on CuPy arrays (target "cuda"), or the
    emulator on NumPy arrays (--dry-run)."""

    def __init__(self, target: str, repeats: int):
        self.target = target
        self.repeats = repeats

    def arguments(self, kernel: suite.Kernel, sizes: dict, dtype: str) -> list:
        host = suite.random_args(kernel, sizes, np.random.default_rng(0),
                                 np.float32 if dtype == "float" else np.float64)
        if self.target != "cuda":
            return host
        from polycuda.runtime import device

        cupy = device.require_cupy()
        return [cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in host]

    def seconds(self, prog, args: list, tiles: tuple, block: tuple, best: float,
                scheduler: str | None = None, registers: tuple = (), sequential: int = 0
                ) -> float:
        from polycuda.runtime import launch

        kernel = prog.kernel(self.target, tile_sizes=tiles, block_sizes=block,
                             scheduler=scheduler or prog.options.scheduler, tuned_sizes=False,
                             register_tiles=registers, sequential_tile=sequential)
        first = launch.time_calls(kernel, args, repeats=1, warmup=0)[0]
        if first > SLOW_FACTOR * best:
            return first
        times = launch.time_calls(kernel, args, repeats=self.repeats, warmup=0)
        return statistics.median(times)


def _build(job: tuple[str, tuple, str]) -> str:
    """Worker: build one layout for the GPU (fills the build cache); '' or the error."""
    from polycuda.runtime import build

    path, defines, options_text = job
    try:
        prog = polycuda.compile(path, options=Options.from_text(options_text),
                                defines=defines)
        build.build_shared(prog.generate("cuda").source, "cuda")
        return ""
    except Exception as err:  # noqa: BLE001 (recorded per layout)
        return f"{type(err).__name__}: {str(err)[:300]}"


def submit_builds(pool, kernel: suite.Kernel, defines: tuple, options: Options,
                  layouts: list[tuple[tuple, tuple]]) -> dict:
    """Each (tiles, block) of `layouts` built by `pool` (_build): its future, by layout."""
    return {(tiles, block): pool.submit(_build, (str(kernel.c_path), defines, options.replace(
        tile_sizes=tiles, block_sizes=block, tuned_sizes=False).to_text()))
            for tiles, block in layouts}


def sweep_layouts(models, props, count: int, seed: int = 0
                  ) -> tuple[list[tuple[tuple, tuple]], int, int]:
    """(a fixed-seed sample of `count` admissible layouts of the hand grid, how many the grid
    has, how many of them search.exclusion rejects)."""
    primary = search.primary_model(models)
    n = len(primary.default_tiles)
    threaded = n - 1 if primary.problem.kind == "wavefront" else n
    grid, excluded = set(), 0
    for tiles in _products(SWEEP_TILES, n):
        for threads in SWEEP_THREADS:
            block = search.fill_inner_first(tiles[n - threaded:], threads)
            grid.add((tiles, block))
    admissible = []
    for tiles, block in sorted(grid):
        if any(search.exclusion(search.kernel_layout(km, tiles, block), km, props)
               for km in models):
            excluded += 1
        else:
            admissible.append((tiles, block))
    random.Random(seed).shuffle(admissible)
    return admissible[:count], len(grid), excluded


def _products(choices: tuple[int, ...], n: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = [()]
    for _ in range(n):
        out = [t + (c,) for t in out for c in choices]
    return out


def run_entry(spec: dict, args, timer: Timer, pool, deadline: float, log) -> dict:
    """Default, tuned and sweep-best times of one kernel at one size."""
    kernel = suite.by_name(spec["kernel"])
    defines = dtype_defines(spec["dtype"])
    options = Options(target="cuda", **spec.get("options", {}))
    prog = polycuda.compile(str(kernel.c_path), options=options, defines=defines)
    sizes = dict(spec["sizes"])
    entry = {"name": spec["name"], "kernel": kernel.name, "sizes": sizes,
             "dtype": spec["dtype"], "options": options.to_text()}
    start = time.perf_counter()
    gen = prog.generate("cuda", tile_sizes=(), block_sizes=(), tuned_sizes=False)
    try:
        models = problem.kernel_models(gen, sizes)
    except PolycudaError as err:
        models = ()
        entry["model_error"] = str(err)
    props, _ = occupancy.current_device()
    sweep, grid, excluded = (sweep_layouts(models, props, args.sweep) if models else ([], 0, 0))
    entry["sweep_grid"] = {"layouts": grid, "excluded": excluded, "sampled": len(sweep)}
    # the sweep builds while the defaults and tune run
    builds = submit_builds(pool, kernel, defines, options, sweep) if pool is not None else {}
    data = timer.arguments(kernel, sizes, spec["dtype"])
    best = [math.inf]

    def measure(tiles: tuple, block: tuple, scheduler: str | None = None,
                registers: tuple = (), sequential: int = 0) -> float:
        seconds = timer.seconds(prog, data, tiles, block, best[0], scheduler, registers,
                                sequential)
        best[0] = min(best[0], seconds)
        return seconds

    entry["default"] = {"ms": measure((), ()) * 1e3}
    log(f"{spec['name']}: default {entry['default']['ms']:.3f} ms")
    try:
        entry["tuned"] = _tuned(prog, sizes, args, measure, log) if models else None
    except PolycudaError as err:  # nothing to tune, or every layout excluded
        entry["tuned"], entry["tune_error"] = None, str(err)[:500]
        log(f"  tune: {err}")
    entry["sweep"] = _sweep(sweep, builds, measure, deadline, log)
    entry["seconds"] = time.perf_counter() - start
    _compare(entry, spec)
    if args.verify:
        entry["verified"] = _verify(prog, kernel, entry, timer.target)
    return entry


def _tuned(prog, sizes: dict, args, measure, log) -> dict:
    start = time.perf_counter()

    def timed(o: Options) -> float:
        return measure(o.tile_sizes, o.block_sizes, o.scheduler, o.register_tiles,
                       o.sequential_tile)

    # tune's batches built in parallel, as its own measure_on_gpu builds them
    target = "emulate" if args.dry_run else "cuda"
    timed.prepare = lambda batch: prog.build_many(  # type: ignore[attr-defined]
        [search.kernel_changes(o) for o in batch], target)
    with tempfile.TemporaryDirectory() as cache:
        result = search.tune(prog, sizes, top_k=args.top_k, limit=args.rank_layouts,
                             measure=timed,
                             schedulers=args.schedulers,
                             cache=Path(cache), use_cache=False,
                             progress=lambda m: log(f"  tune: {m}"))
    seconds = result.measured_s_of_choice()
    return {"tiles": list(result.tile_sizes), "block": list(result.block_sizes),
            "register_tiles": list(result.register_tiles),
            "sequential_tile": result.sequential_tile, "registers": result.registers,
            "scheduler": result.scheduler or prog.options.scheduler,
            "scheduler_candidates_ms": {k: v * 1e3 if v is not None else None
                                        for k, v in result.candidates.items()},
            "ms": seconds * 1e3 if seconds is not None else None,
            "kept_default": result.tile_sizes == (), "ranked": result.evaluated,
            "tune_s": time.perf_counter() - start, "refit": result.refit,
            "local": result.local,
            "top": [{"tiles": list(r.tiles), "block": list(r.block),
                     "register_tiles": list(r.registers), "sequential_tile": r.sequential,
                     "model_ms": r.model_s * 1e3 if math.isfinite(r.model_s) else None,
                     "ms": r.measured_s * 1e3 if r.measured_s is not None else None}
                    for r in result.top]}


def _sweep(sweep: list, builds: dict, measure, deadline: float, log) -> dict:
    measured, failed, skipped = [], {}, 0
    for tiles, block in sweep:
        if time.perf_counter() > deadline:
            skipped += 1
            continue
        error = builds[(tiles, block)].result() if builds else ""
        if not error:
            try:
                measured.append({"tiles": list(tiles), "block": list(block),
                                 "ms": measure(tiles, block) * 1e3})
                continue
            except PolycudaError as err:
                error = str(err)[:300]
        failed[f"{tiles} {block}"] = error
    best = min(measured, key=lambda m: m["ms"]) if measured else None
    if best:
        log(f"  sweep: {len(measured)} measured, best {best['tiles']} {best['block']} "
            f"{best['ms']:.3f} ms")
    return {"measured": measured, "failed": failed, "skipped_past_budget": skipped,
            "best": best}


def _compare(entry: dict, spec: dict) -> None:
    """Ratios of the tuned layout's time over the sweep's best and the defaults'."""
    tuned = entry["tuned"]["ms"] if entry["tuned"] else None
    best = entry["sweep"]["best"]
    candidates = [m for m in (best["ms"] if best else None, entry["default"]["ms"], tuned)
                  if m is not None]
    entry["best_ms"] = min(candidates)
    entry["tuned_over_best"] = tuned / entry["best_ms"] if tuned else None
    entry["tuned_over_default"] = tuned / entry["default"]["ms"] if tuned else None
    if "target_ms" in spec:
        entry["target_ms"] = spec["target_ms"]
        entry["tuned_meets_target"] = bool(tuned and tuned <= spec["target_ms"])


def _verify(prog, kernel: suite.Kernel, entry: dict, target: str) -> dict:
    """The tuned and the sweep's best layouts against the sequential program, small sizes."""
    out = {}
    picks = {"tuned": entry["tuned"], "sweep_best": entry["sweep"]["best"]}
    for name, pick in picks.items():
        if not pick or not pick.get("tiles"):
            continue
        one = prog.with_options(tile_sizes=tuple(pick["tiles"]),
                                block_sizes=tuple(pick["block"]), tuned_sizes=False,
                                scheduler=pick.get("scheduler", prog.options.scheduler),
                                register_tiles=tuple(pick.get("register_tiles", ())),
                                sequential_tile=pick.get("sequential_tile", 0))
        try:
            one.verify(sizes=dict(kernel.small), targets=(target,))
            out[name] = "ok"
        except PolycudaError as err:
            out[name] = f"FAILED: {str(err)[:300]}"
    return out


def _specs(args) -> list[dict]:
    names = (args.kernels.split(",") if args.kernels else
             QUICK_KERNELS if args.quick else
             [k.name for k in suite.KERNELS if k.category in ("stencil", "doacross", "linalg")])
    specs = [] if args.no_jacobi else [dict(JACOBI)]
    for name in names:
        kernel = suite.by_name(name)
        sizes = dict(kernel.small if args.dry_run else kernel.bench)
        sizes.update({k: v for k, v in args.size if k in sizes})
        specs.append({"name": name, "kernel": name, "dtype": args.dtype, "sizes": sizes})
    if args.dry_run and specs and not args.no_jacobi:  # --size applies to it too
        specs[0]["sizes"] = dict(suite.by_name("jacobi_2d").small)
        specs[0]["sizes"].update({k: v for k, v in args.size if k in specs[0]["sizes"]})
    return specs


def _size(text: str) -> tuple[str, int]:
    name, _, value = text.partition("=")
    if not name or not value.isdigit() or int(value) < 1:
        raise argparse.ArgumentTypeError(f"expected NAME=V with V >= 1, got '{text}'")
    return name, int(value)


def summarize(entries: list[dict]) -> dict:
    """Geometric means of tuned / best and tuned / default, how many tuned layouts are within
    5% (2%) of the best measured layout (of the sweep, the defaults and the tuned one), and
    the entries whose sweep measured nothing (their best is the defaults' or the tuned)."""
    ratios = [e["tuned_over_best"] for e in entries if e.get("tuned_over_best")]
    gains = [e["tuned_over_default"] for e in entries if e.get("tuned_over_default")]
    return {"entries": len(entries), "tuned": len(ratios),
            "geomean_tuned_over_best": _geomean(ratios),
            "geomean_tuned_over_default": _geomean(gains),
            "within_5pct": sum(r <= 1.05 for r in ratios),
            "within_2pct": sum(r <= 1.02 for r in ratios),
            "without_sweep": [e["name"] for e in entries
                              if "sweep" in e and not e["sweep"].get("measured")]}


def _geomean(values: list[float]) -> float | None:
    return math.exp(statistics.fmean(math.log(v) for v in values)) if values else None


def merge(out: Path, parts: list[Path]) -> dict:
    """One report of several runs' reports (a whole suite run in parts, each within a time
    limit): their entries, a later part's entry replacing an earlier one of the same name,
    each marked with its part; the summary recomputed. The parts must name one GPU."""
    reports = [json.loads(p.read_text()) for p in parts]
    gpus = {r["gpu"] for r in reports}
    if len(gpus) != 1:
        raise SystemExit(f"tune_suite --merge: the parts name several GPUs: {sorted(gpus)}")
    entries: dict[str, dict] = {}
    for path, report in zip(parts, reports):
        for entry in report["entries"]:
            entries.pop(entry["name"], None)
            entries[entry["name"]] = {**entry, "part": path.name,
                                      "commit": report.get("commit")}
    merged = {"gpu": gpus.pop(), "date": max(r["date"] for r in reports),
              "commit": sorted({str(r.get("commit")) for r in reports}),
              "mode": sorted({r["mode"] for r in reports}),
              "timing": reports[-1]["timing"], "sweep": reports[-1]["sweep"],
              "top_k": sorted({r["top_k"] for r in reports}),
              "parts": [p.name for p in parts], "entries": list(entries.values())}
    merged["summary"] = summarize(merged["entries"])
    out.write_text(json.dumps(merged, indent=1) + "\n")
    return merged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--quick", action="store_true", help="QUICK_KERNELS, ~8 minutes")
    parser.add_argument("--budget", type=float,
                        help="seconds after which no sweep layout or kernel starts (3000; "
                             "quick 360)")
    parser.add_argument("--kernels", help="comma-separated suite names (default: all dense)")
    parser.add_argument("--sweep", type=int, help="sampled layouts of the hand grid (48; "
                        "quick 12)")
    parser.add_argument("--top-k", type=int, help="layouts tune measures (5; quick 3)")
    parser.add_argument("--repeats", type=int, help="timed runs per layout (5; quick 2)")
    parser.add_argument("--rank-layouts", type=int,
                        help="layouts the model ranks per kernel (search.RANK_LAYOUTS; quick "
                             "5000)")
    parser.add_argument("--size", action="append", type=_size, default=[], metavar="NAME=V",
                        help="set a size parameter of every suite kernel that has it")
    parser.add_argument("--dtype", default="double", choices=("double", "float"))
    parser.add_argument("--schedulers", action="store_true",
                        help="tune also chooses among the auto scheduler's candidates "
                             "(search.tune(schedulers=True)): about 3x the tuning time")
    parser.add_argument("--no-jacobi", action="store_true",
                        help="leave out the 2-D Jacobi 4096^2 x 1000 float entry")
    parser.add_argument("--no-verify", dest="verify", action="store_false")
    parser.add_argument("--workers", type=int, default=max(1, multiprocessing.cpu_count() - 2))
    parser.add_argument("--dry-run", action="store_true",
                        help="no GPU: the emulator at the small sizes (plumbing only)")
    parser.add_argument("--merge", nargs="+", type=Path, metavar="PART",
                        help="measure nothing: write to OUT one report of these reports (a "
                             "later part's entry replaces an earlier one of the same name)")
    args = parser.parse_args(argv)
    if args.merge:
        merged = merge(args.out, args.merge)
        print(f"wrote {args.out}: {merged['summary']}", file=sys.stderr)
        return 0
    quick = args.quick
    args.sweep = args.sweep if args.sweep is not None else (12 if quick else 48)
    args.top_k = args.top_k or (3 if quick else 5)
    args.repeats = args.repeats or (2 if quick else 5)
    budget = args.budget or (360.0 if quick else 3000.0)  # quick: + tuning and checks ~8 min
    if args.rank_layouts is None:
        args.rank_layouts = 5000 if quick else search.RANK_LAYOUTS
    start = time.perf_counter()
    deadline = start + budget

    def log(message: str) -> None:
        print(f"tune_suite {time.perf_counter() - start:6.0f} s: {message}", file=sys.stderr,
              flush=True)

    props, on_gpu = occupancy.current_device()
    if not on_gpu and not args.dry_run:
        print("tune_suite: needs a GPU and CuPy (or --dry-run)", file=sys.stderr)
        return 2
    timer = Timer("emulate" if args.dry_run else "cuda", args.repeats)
    report = {"gpu": props.name if on_gpu else "no GPU (dry run: emulator)",
              "date": datetime.date.today().isoformat(), "commit": environment.git_commit(),
              "mode": "dry-run" if args.dry_run else ("quick" if quick else "full"),
              "timing": f"median of {args.repeats} runs after one warm-up (CUDA events; device "
                        "arrays), one run when over 20x the kernel's best so far",
              "sweep": {"tiles": SWEEP_TILES, "threads": SWEEP_THREADS, "sampled": args.sweep},
              "top_k": args.top_k, "entries": []}
    specs = _specs(args)
    context = multiprocessing.get_context("spawn")
    pool = (None if args.dry_run else
            concurrent.futures.ProcessPoolExecutor(args.workers, mp_context=context))
    try:
        for k, spec in enumerate(specs, 1):
            if time.perf_counter() > deadline:
                report.setdefault("skipped_past_budget", []).append(spec["name"])
                continue
            log(f"[{k}/{len(specs)}] {spec['name']} {spec['sizes']} {spec['dtype']}")
            try:
                report["entries"].append(run_entry(spec, args, timer, pool, deadline, log))
            except PolycudaError as err:
                report["entries"].append({"name": spec["name"], "error": str(err)[:500]})
                log(f"  error: {err}")
            report["summary"] = summarize(report["entries"])
            report["wall_s"] = time.perf_counter() - start
            args.out.write_text(json.dumps(report, indent=1) + "\n")
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    log(f"wrote {args.out}: {report.get('summary')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
