"""The `polycuda bench` subcommand: arguments, the run, the JSON file, table and plots."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from polycuda.bench.datasets import DATASETS, PPCG_DATASET
from polycuda.errors import PolycudaError

DEFAULT_OUT = Path("bench") / "results"


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The bench subcommand's arguments (see README's command table)."""
    p.add_argument("kernels", nargs="*", metavar="KERNEL",
                   help="kernels of kernels/suite.py (default: all)")
    p.add_argument("--config", default="isl,pluto",
                   help="polycuda configurations, comma-separated: isl, isl-noreg (isl without "
                        "register promotion), isl-rt2x2 (isl with 2x2 register tiles), pluto, "
                        "intra (pluto + balanced intra-tile wavefronts), inter (intra + "
                        "false-dependence elimination), superposition (Shirako et al.'s block- and "
                        "thread-level schedules superposed), default (polycuda's default "
                        "Options()); "
                        "default isl,pluto")
    sizes = p.add_mutually_exclusive_group()
    sizes.add_argument("--quick", action="store_true",
                       help="smaller sizes: the whole suite in < 2 minutes on an H100")
    sizes.add_argument("--small", action="store_true",
                       help="the suite's verification sizes: a smoke test of seconds")
    sizes.add_argument("--paper", action="store_true",
                       help="Di et al. 2012 Table II stencils at its spatial sizes, fewer time "
                            "steps (see polycuda/bench/sizes.py)")
    sizes.add_argument("--ppcg", action="store_true",
                       help="as PPCG was measured (DESIGN.md): PolyBench LARGE sizes, the whole "
                            "drop-in function from host arrays (allocation, copies, kernels, "
                            "free), median of 3, against PPCG's times; the default Options() "
                            "is always among the configurations")
    p.add_argument("--dataset", choices=DATASETS, metavar="NAME",
                   help="with --ppcg: PolyBench's dataset (MINI, SMALL, MEDIUM, LARGE, "
                        "EXTRALARGE; default LARGE, where PPCG's times are): the results "
                        "file is ...-ppcg-<name>.json unless LARGE")
    p.add_argument("--size", action="append", default=[], metavar="NAME=VALUE",
                   help="set a size parameter of every kernel that has it, over the mode's "
                        "(repeatable; e.g. --size T=1000: the sequential oracle runs at "
                        "these sizes too)")
    _sweep_arguments(p)
    _output_arguments(p)
    p.set_defaults(func=main)


def _sweep_arguments(p: argparse.ArgumentParser) -> None:
    """The bench's sweeps: tile and block sizes, wavefront orders, staging, element type."""
    p.add_argument("--tiles", metavar="T1,T2;...",
                   help="tile-size sweep: semicolon-separated candidates, each measured with "
                        "every configuration as <config>@<t1>x<t2> besides its default tiles "
                        "(e.g. '16,64;32,32;8,8,32')")
    p.add_argument("--blocks", metavar="B1,B2;...",
                   help="threads-per-block sweep: candidates as for --tiles, each measured "
                        "with every tiling besides the threads derived from it (entries "
                        "<config>@[tiles+]b<b1>x<b2>)")
    p.add_argument("--sync", default="kernels", metavar="ORDER,...",
                   help="orders of the inter-tile wavefronts to measure, each with every "
                        "configuration and tile candidate: kernels (one launch per wavefront, "
                        "the default), grid (one cooperative launch, a grid-wide barrier "
                        "between wavefronts; entries <config>@[tiles+]grid)")
    p.add_argument("--staging", default="global", metavar="WHERE,...",
                   help="where wavefront tiles work, each measured with every other choice: "
                        "global (the default), smem (staged in 48 KiB of shared memory per "
                        "block when they fit; entries <config>@[...+]smem), smem<KiB> (as "
                        "much as asked: smem227 on an H100)")
    p.add_argument("--dtype", choices=("double", "float"), default="double",
                   help="compile the kernels with DATA_TYPE=float or double (default double); "
                        "float results go to ...-float.json")


def _output_arguments(p: argparse.ArgumentParser) -> None:
    """Where the bench writes, what it reads back, and how it measures."""
    p.add_argument("--ceilings", action="store_true",
                   help="measure the GPU's copy bandwidth and dgemm/sgemm rates first")
    p.add_argument("--out", default=str(DEFAULT_OUT),
                   help="directory of the results JSON (default: bench/results)")
    p.add_argument("--plot", metavar="RESULTS.json",
                   help="only draw the plots of an earlier results file (PNG beside it)")
    p.add_argument("--report", nargs="+", metavar="RESULTS.json",
                   help="only print the tables of earlier results files, merged (a mode run "
                        "in parts: same mode, dtype and configurations; written beside the "
                        "first as ...-merged.json)")
    p.add_argument("--repeats", type=int,
                   help="timed runs per entry (default 10; --ppcg: 3)")
    p.add_argument("--max-run", type=float, metavar="SECONDS",
                   help="longest predicted run an entry may take before it is skipped "
                        "(default: the mode's, 2 s in full mode)")
    p.add_argument("--tag", default="",
                   help="appended to the results file's name (runs of one day kept apart)")
    p.add_argument("--cpu", action="store_true", help="CPU configurations only, even on a GPU")
    p.add_argument("--jobs", type=int, help="parallel build processes (default: all cores)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")


def settings_from(args: argparse.Namespace) -> Any:
    from polycuda.bench.configs import parse_configs, parse_stagings, parse_syncs, parse_tiles
    from polycuda.bench.harness import DEFAULT_REPEATS, MODE_REPEATS, Settings
    from polycuda.bench.sizes import parse_size

    configs = _parsed("--config", parse_configs, args.config)
    tiles = _parsed("--tiles", parse_tiles, args.tiles) if args.tiles is not None else ()
    blocks = (_parsed("--blocks", lambda text: parse_tiles(text, "threads per block"),
                      args.blocks) if args.blocks is not None else ())
    syncs = _parsed("--sync", parse_syncs, args.sync)
    stagings = _parsed("--staging", parse_stagings, args.staging)
    sizes = _parsed("--size", lambda texts: tuple(parse_size(t) for t in texts), args.size)
    if args.repeats is not None and args.repeats < 1:
        raise PolycudaError(f"--repeats must be >= 1, got {args.repeats}")
    if args.max_run is not None and args.max_run <= 0:
        raise PolycudaError(f"--max-run must be > 0, got {args.max_run}")
    if args.tag and not all(c.isalnum() or c in "-_" for c in args.tag):
        raise PolycudaError(f"--tag may hold letters, digits, '-' and '_' only, got {args.tag!r}")
    mode = _mode(args)
    if args.dataset and mode != "ppcg":
        raise PolycudaError("--dataset sets PolyBench's sizes of --ppcg: add --ppcg")
    repeats = args.repeats or MODE_REPEATS.get(mode, DEFAULT_REPEATS)
    return Settings(kernels=tuple(args.kernels), configs=configs, mode=mode,
                    repeats=repeats, use_gpu=not args.cpu,
                    measure_ceilings=args.ceilings, out_dir=Path(args.out), jobs=args.jobs,
                    seed=args.seed, dtype=args.dtype, tiles=tiles, blocks=blocks, syncs=syncs,
                    stagings=stagings, max_run_s=args.max_run, tag=args.tag, sizes=sizes,
                    dataset=args.dataset or PPCG_DATASET)


def _mode(args: argparse.Namespace) -> str:
    """The size mode of the mutually exclusive flags; full without one."""
    modes = ("quick", "small", "paper", "ppcg")
    return next((mode for mode in modes if getattr(args, mode)), "full")


def _parsed(flag: str, parse: Callable[[Any], Any], text: Any) -> Any:
    """parse(text), its ValueError reported as a PolycudaError naming the flag."""
    try:
        return parse(text)
    except ValueError as err:
        raise PolycudaError(f"{flag}: {err}") from None


def write_results(results: dict[str, Any], out_dir: Path) -> Path:
    """<out_dir>/<date>-<gpu-slug>[-<mode>[-<dataset>]][-float].json (indented, keys in insertion
    order; the dataset in ppcg mode unless LARGE)."""
    from polycuda.bench import environment
    from polycuda.runtime.device import GpuInfo

    gpu_data = results["machine"]["gpu"]
    gpu = GpuInfo(**gpu_data) if gpu_data else None
    dataset = results.get("dataset", PPCG_DATASET)
    mode = results["mode"] + ("" if dataset == PPCG_DATASET else f"-{dataset.lower()}")
    path = environment.results_path(out_dir, gpu, mode,
                                    dtype=results.get("dtype", "double"),
                                    tag=results.get("tag", ""))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1) + "\n")
    return path


def main(args: argparse.Namespace) -> int:
    """Run the benchmark (or only plot with --plot); exit 1 when an entry FAILED."""
    if args.plot:
        from polycuda.bench import plot

        for path in plot.plot_file(Path(args.plot)):
            print(f"wrote {path}", file=sys.stderr)
        return 0
    if args.report:
        return report_files([Path(p) for p in args.report])
    from polycuda.bench import harness
    from polycuda.bench.progress import Progress

    settings = settings_from(args)
    try:
        harness.select_kernels(settings.kernels, settings.mode, settings.dtype)
    except KeyError as err:
        raise PolycudaError(str(err.args[0])) from None
    progress = Progress(0)
    # after every kernel: what is measured so far survives a run that is cut short
    results = harness.run_bench(settings, progress,
                                on_kernel=lambda part: write_results(part, settings.out_dir))
    progress.close()
    path = write_results(results, settings.out_dir)
    print_tables(results)
    print(f"wrote {path}", file=sys.stderr)
    return 1 if results["summary"]["failed"] else 0


def print_tables(results: dict[str, Any]) -> None:
    """The results table, in ppcg mode the comparison with PPCG, then the summary."""
    from polycuda.bench import ppcg, report

    print(report.table(results))
    print()
    if results["mode"] == "ppcg":
        print(ppcg.table(results))
        print()
    print(results["summary_text"])


def report_files(paths: list[Path]) -> int:
    """`--report`: merge earlier results files, write the merge beside the first (when there
    are several) and print its tables; exit 1 when an entry FAILED.

    Raises:
        PolycudaError: a file that cannot be read, or files that cannot be merged.
    """
    from polycuda.bench import report

    try:
        parts = [json.loads(path.read_text()) for path in paths]
        results = report.merge(parts)
    except (OSError, ValueError, KeyError) as err:
        raise PolycudaError(f"--report: {err}") from None
    if len(paths) > 1:
        merged = paths[0].with_name(paths[0].stem + "-merged.json")
        merged.write_text(json.dumps(results, indent=1) + "\n")
        print(f"wrote {merged}", file=sys.stderr)
    print_tables(results)
    return 1 if results["summary"]["failed"] else 0
