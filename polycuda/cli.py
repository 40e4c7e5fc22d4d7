"""The `polycuda` command: compile, run, verify, show, tune, bench, demo."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
import warnings
from pathlib import Path

from polycuda.bench import command as bench_command
from polycuda.errors import (InvalidConfigError, PolycudaError, PolycudaWarning, SourceLoc,
                             UserError)
from polycuda.options import (AUX_FRACTIONS, HOST_BUFFERS, HOST_COPIES, HOST_LOOPS,
                              HOST_SIDE_FIELDS, INTRA_WAVEFRONTS, MAX_REDUCTION_BLOCKS,
                              REDUCTION_COMBINES, RUNTIME_CHUNKINGS, RUNTIME_EXECUTORS,
                              SCHEDULERS, SERIAL_REGIONS, WAVEFRONT_SYNCS, HOST_FALLBACKS,
                              Options)
from polycuda.program import Program

VERIFY_TARGETS = ("c", "openmp", "cuda", "emulate")
# options whose value may start with '-' ("--tile-sizes -4,8" is a value, not an option)
_VALUE_OPTIONS = ("--tile-sizes", "--block-sizes", "--size", "--shared-memory", "--repeat",
                  "--top-k", "--budget", "--reduction-blocks")
_EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell reports for `yes | head`


def _ints(text: str) -> tuple[int, ...]:
    """Comma-separated sizes, each >= 1 (tile and block sizes)."""
    try:
        values = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, got '{text}'") from None
    bad = [v for v in values if v < 1]
    if bad:
        raise argparse.ArgumentTypeError(f"sizes must be >= 1, got {bad[0]} in '{text}'")
    return values


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got '{text}'") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _targets(text: str) -> tuple[str, ...]:
    names = tuple(t.strip() for t in text.split(","))
    bad = [t for t in names if t not in VERIFY_TARGETS]
    if bad or not names:
        raise argparse.ArgumentTypeError(
            f"unknown target '{bad[0] if bad else text}' (choose from {', '.join(VERIFY_TARGETS)})")
    return names


def _size(text: str) -> tuple[str, int]:
    name, sep, value = text.partition("=")
    if not sep or not value.lstrip("-").isdigit():
        raise argparse.ArgumentTypeError(f"expected NAME=INT, got '{text}'")
    return name, int(value)


def read_options_file(path: str) -> Options:
    """Options written by --dump-options; a missing, unreadable or malformed file is a UserError
    located at the offending line and column."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        why = err.strerror if isinstance(err, OSError) else "not a UTF-8 text file"
        raise UserError(f"cannot read options file '{path}': {why}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        lines = text.split("\n")
        line = lines[err.lineno - 1] if 0 < err.lineno <= len(lines) else ""
        raise UserError(f"options file is not JSON as written by --dump-options: {err.msg}",
                        SourceLoc(path, err.lineno, err.colno, line)) from None
    if not isinstance(data, dict):
        raise UserError(f"options file '{path}' must hold a JSON object, e.g. "
                        f"{Options().to_text()}", SourceLoc(path, 1))
    for name, value in data.items():
        expected = _expected_type(name, value)
        if expected:
            raise UserError(f"options file '{path}': '{name}' must be {expected}, got "
                            f"{json.dumps(value)}", SourceLoc(path, 1))
    try:
        return Options.from_text(text)
    except InvalidConfigError as err:
        raise InvalidConfigError(f"options file '{path}': {err}") from None


def _expected_type(name: str, value: object) -> str | None:
    """What an option's JSON value should be, when `value` is not that (else None)."""
    default = getattr(Options(), name, None)
    if default is None:
        return None  # Options.from_text names every unknown option
    if isinstance(default, tuple):
        good = isinstance(value, list) and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value)
        return None if good else "a list of integers"
    return None if type(value) is type(default) else type(default).__name__


def _fallback_threshold(text: str) -> float | str:
    """--cpu-fallback-per-level: "auto" or a number of iterations per level (argparse type)."""
    if text == "auto":
        return text
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not 'auto' or a number") from None


def _options(args: argparse.Namespace, target: str | None = None) -> Options:
    base = read_options_file(args.options) if args.options else Options()
    changes: dict[str, object] = {"scheduler": args.scheduler or base.scheduler}
    if target or getattr(args, "target", None):
        changes["target"] = target or args.target
    if args.tile_sizes:
        changes["tile_sizes"] = args.tile_sizes
    if args.block_sizes:
        changes["block_sizes"] = args.block_sizes
    if args.register_tiles:
        changes["register_tiles"] = args.register_tiles
    for flag in ("balanced_wavefront", "eliminate_false_deps", "shared_staging"):
        if getattr(args, flag):
            changes[flag] = True
    if args.no_wavefront:
        changes["wavefront"] = False
    if args.no_expand_scalars:
        changes["expand_scalars"] = False
    if args.allow_reassociation is not None:
        changes["allow_reassociation"] = args.allow_reassociation
    if args.reduction_blocks is not None:
        changes["reduction_blocks"] = args.reduction_blocks
    if args.reduction_combine:
        changes["reduction_combine"] = args.reduction_combine
    if args.shared_promotion is not None:
        changes["shared_promotion"] = args.shared_promotion
    if args.sequential_tile is not None:
        changes["sequential_tile"] = args.sequential_tile
    if args.no_private_promotion:
        changes["private_promotion"] = False
    if args.no_row_reductions:
        changes["row_reductions"] = False
    if args.no_column_reductions:
        changes["column_reductions"] = False
    if args.no_dual_reductions:
        changes["dual_reductions"] = False
    if args.no_chain_reductions:
        changes["chain_reductions"] = False
    if args.no_producer_fusion:
        changes["producer_fusion"] = False
    if args.no_runtime_choice:
        changes["runtime_choice"] = False
    if args.wavefront_sync:
        changes["wavefront_sync"] = args.wavefront_sync
    if args.host_loops:
        changes["host_loops"] = args.host_loops
    if args.intra_wavefront:
        changes["intra_wavefront"] = args.intra_wavefront
    if args.shared_memory is not None:
        changes["shared_memory_kib"] = args.shared_memory
    if getattr(args, "sizes", None):
        changes.update(read_sizes_file(args.sizes))
    if args.no_tuned_sizes:
        changes["tuned_sizes"] = False
    for name in HOST_SIDE_FIELDS:
        if getattr(args, name) is not None:
            changes[name] = getattr(args, name)
    if args.runtime_executor:
        changes["runtime_executor"] = args.runtime_executor
    if args.reuse_levels:
        changes["reuse_levels"] = True
    if args.cpu_fallback_per_level is not None:
        changes["cpu_fallback_per_level"] = args.cpu_fallback_per_level
    if args.aux_fraction is not None:
        changes["aux_fraction"] = args.aux_fraction
    if args.chunking is not None:
        changes["runtime_chunking"] = args.chunking
    return base.replace(**changes)


SIZES_FILE_KEYS = ("tile_sizes", "block_sizes", "register_tiles", "sequential_tile",
                   "scheduler")


def read_sizes_file(path: str) -> dict[str, object]:
    """tile_sizes, block_sizes (register_tiles and sequential_tile where tune chose them;
    scheduler, from `tune --schedulers`) written by `polycuda tune --dump-sizes`; anything
    else in the file is a UserError."""
    sizes = read_options_file(path)
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    other = sorted(set(data) - set(SIZES_FILE_KEYS))
    if other:
        raise UserError(f"sizes file '{path}' may hold only {', '.join(SIZES_FILE_KEYS)} "
                        f"(as written by --dump-sizes), not {other}",
                        SourceLoc(path, 1))
    return {k: getattr(sizes, k) for k in SIZES_FILE_KEYS if k in data}


def load_programs(args: argparse.Namespace, options: Options) -> tuple[Program, ...]:
    """Every region of the input file (C or Python), or the one named by --function."""
    path = Path(args.file)
    if path.is_dir():
        raise UserError(f"{path}: is a directory, not a C or Python file")
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    if path.suffix == ".py":
        from polycuda.pyfile import programs_of_file

        programs = programs_of_file(path, options, args.function)
    else:
        from polycuda.api import compile_all

        programs = compile_all(str(path), options=options,
                               include_dirs=tuple(args.include or ()),
                               defines=tuple(args.define or ()))
    if args.function:
        programs = tuple(p for p in programs if p.name == args.function)
        if not programs:
            raise UserError(f"{path}: no region or function named '{args.function}'")
    if not programs:
        raise UserError(f"{path}: no loop region found (C: #pragma scop ... #pragma "
                            "endscop inside a function; Python: a function of for loops)")
    return programs


def cmd_compile(args: argparse.Namespace) -> int:
    from polycuda.output import check_overwrite, output_paths, write_outputs

    options = _options(args)
    for out in (args.output, args.dump_options):
        _check_writable(out)
    paths = output_paths(Path(args.file), options.target, args.output)
    check_overwrite(Path(args.file), paths, args.force)
    programs = load_programs(args, options)
    _say_tuned(programs, options.target)
    for path in write_outputs(Path(args.file), programs, options, args.output):
        if path != "-":
            print(f"wrote {path}", file=sys.stderr)
    if not paths and options.target == "cuda" and Path(args.file).suffix != ".py":
        print("polycuda: the .cu went to stdout; its host file (the input with each region "
              "replaced by a call) is written only with -o OUT, as OUT's stem + _host.c",
              file=sys.stderr)
    if args.dump_options:
        try:
            Path(args.dump_options).write_text(options.to_text() + "\n")
        except OSError as err:
            raise UserError(f"cannot write '{args.dump_options}': {err.strerror}") from None
    return 0


def _say_tuned(programs: tuple[Program, ...], target: str | None) -> None:
    """Say on stderr which regions take the sizes of an earlier `polycuda tune`."""
    for prog in programs:
        if prog.resolve_target(target) != "cuda":
            continue
        used = prog.effective_options(target)
        if (used.tile_sizes, used.block_sizes, used.scheduler) != (
                prog.options.tile_sizes, prog.options.block_sizes, prog.options.scheduler):
            scheduler = (f"scheduler={used.scheduler} "
                         if used.scheduler != prog.options.scheduler else "")
            registers = (f" register_tiles={used.register_tiles} sequential_tile="
                         f"{used.sequential_tile}" if used.register_tiles else "")
            print(f"polycuda: {prog.name}: tuned sizes {scheduler}tile_sizes={used.tile_sizes} "
                  f"block_sizes={used.block_sizes}{registers} (from `polycuda tune`; "
                  "--no-tuned-sizes ignores them)", file=sys.stderr)


def _check_writable(path: str | None) -> None:
    """Refuse an output path whose directory does not exist before compiling anything."""
    if path is None or path == "-":
        return
    parent = Path(path).parent
    if not parent.is_dir():
        raise UserError(f"cannot write '{path}': directory '{parent}' does not exist")
    if Path(path).is_dir():
        raise UserError(f"cannot write '{path}': it is a directory")


def cmd_show(args: argparse.Namespace) -> int:
    from polycuda.show import show

    programs = load_programs(args, _options(args))
    print(show(args.what, programs, as_json=args.json))
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    programs = load_programs(args, _options(args))
    failed = 0
    for prog in programs:
        results = prog.verify(sizes=dict(args.size or ()), targets=args.targets,
                              raise_on_mismatch=False)
        for r in results:
            worst = max(r.worst.values(), default=0.0)
            status = "ok" if r.ok else "MISMATCH"
            print(f"{prog.name:24s} {r.target:8s} {status:8s} max rel. error {worst:.2e} "
                  f"{r.message}")
            failed += not r.ok
    return 1 if failed else 0


def cmd_run(args: argparse.Namespace) -> int:
    from polycuda.run import run_and_time

    programs = load_programs(args, _options(args))
    _say_tuned(programs, None)
    for prog in programs:
        report = run_and_time(prog, dict(args.size or ()), repeats=args.repeat,
                              verify=not args.no_verify)
        print(report.render())
        if not report.ok:
            return 1
    return 0


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got '{text}'") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be > 0 and finite, got {text}")
    return value


def cmd_tune(args: argparse.Namespace) -> int:
    import logging

    from polycuda.program import require_one
    from polycuda.tune import search

    _check_writable(args.dump_sizes)
    if args.verbose:  # every excluded layout with its reason
        logging.basicConfig(stream=sys.stderr, format="polycuda: tune: %(message)s")
        logging.getLogger("polycuda.tune").setLevel(logging.DEBUG)
    options = _options(args).replace(target="cuda")
    prog = require_one(load_programs(args, options), args.function, args.file)
    result = search.tune(prog, dict(args.size or ()), top_k=args.top_k, budget_s=args.budget,
                         use_cache=not args.no_cache, schedulers=args.schedulers,
                         refit=not args.no_refit,
                         local_rounds=0 if args.no_local_search else search.LOCAL_ROUNDS)
    scheduler = f"scheduler {result.scheduler} " if result.scheduler else ""
    registers = (f" register_tiles {','.join(map(str, result.register_tiles))} sequential_tile "
                 f"{result.sequential_tile}" if result.register_tiles else "")
    sizes = (f"tile_sizes {','.join(map(str, result.tile_sizes))} block_sizes "
             f"{','.join(map(str, result.block_sizes))}" if result.tile_sizes or result.block_sizes
             else "the default sizes")
    print(f"{prog.name}: {scheduler}{sizes}{registers}  ({result.evaluated} layouts ranked by "
          f"the model, calibration {result.calibration}; "
          f"{'top ' + str(len(result.top)) + ' measured' if result.measured else 'not measured: no GPU'})")
    print(f"  {'tiles':>16s} {'block':>10s} {'registers':>10s} {'model ms':>10s} "
          f"{'measured ms':>12s}")
    for r in result.top:
        shown = f"{r.measured_s * 1e3:12.3f}" if r.measured_s is not None else f"{'-':>12s}"
        regs = f"{','.join(map(str, r.registers))}/k{r.sequential}" if r.registers else "-"
        print(f"  {','.join(map(str, r.tiles)):>16s} {','.join(map(str, r.block)):>10s} "
              f"{regs:>10s} {r.model_s * 1e3:10.3f} {shown}")
    if args.dump_sizes:
        try:
            Path(args.dump_sizes).write_text(result.sizes_text() + "\n")
        except OSError as err:
            raise UserError(f"cannot write '{args.dump_sizes}': {err.strerror}") from None
        print(f"wrote {args.dump_sizes}", file=sys.stderr)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from polycuda.demo import demo

    return demo(target=args.target)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a C file with #pragma scop regions, or a Python file")
    p.add_argument("--function", help="only the region of this function")
    p.add_argument("-I", dest="include", action="append", metavar="DIR", help="include dir (C)")
    p.add_argument("-D", dest="define", action="append", metavar="NAME[=VAL]",
                   help="macro definition (C)")
    p.add_argument("--scheduler", choices=SCHEDULERS,
                   help="auto (default: on cuda, whichever of isl, pluto and "
                        "isl-distributed maps with the fewest sequential loops of parametric "
                        "length, then launches; isl on c and openmp), isl (PPCG-like), pluto "
                        "or isl-distributed (isl's, each strongly connected component of the "
                        "dependence graph in its own loop nest) or superposition (Shirako et "
                        "al. 2017: separate block- and thread-level schedules superposed, the "
                        "DL model's coalescing loop on thread x)")
    p.add_argument("--tile-sizes", type=_ints,
                   help="e.g. 8,32 (outermost first; the last entries apply to each kernel's "
                        "innermost mapped loops)")
    p.add_argument("--block-sizes", type=_ints,
                   help="threads per block, e.g. 8,32 (outermost first, as --tile-sizes; at "
                        "most 1024 threads, z <= 64, each at most its tile size)")
    p.add_argument("--register-tiles", type=_ints,
                   help="CUDA: points per thread along each mapped loop of a parallel kernel, "
                        "e.g. 2,2 (outermost first, as --tile-sizes; each divides its tile "
                        "size), unrolled and jammed with their accumulators in registers")
    p.add_argument("--balanced-wavefront", action="store_true",
                   help="pluto: Di et al. Theorem 2 constraint (balanced intra-tile wavefronts)")
    p.add_argument("--eliminate-false-deps", action="store_true",
                   help="copy arrays to remove parallelism-hindering false dependences")
    p.add_argument("--no-wavefront", action="store_true",
                   help="do not tile sequential permutable bands into two-level wavefronts")
    p.add_argument("--allow-reassociation", action=argparse.BooleanOptionalAction,
                   default=None,
                   help="cuda: sum a reduction loop that would run in one thread with a block "
                        "of threads, in another order (default: on; floating-point results "
                        "then differ by rounding)")
    p.add_argument("--reduction-blocks", type=int, metavar="N",
                   help="cuda: blocks of a reduction kernel: 0 (default) fills the GPU, "
                        "min(ceil(L / 1024), 4 x SMs) for L iterations; N: at most N (1: one "
                        f"block); at most {MAX_REDUCTION_BLOCKS}")
    p.add_argument("--reduction-combine", choices=REDUCTION_COMBINES,
                   help="cuda: the blocks of a reduction kernel combine their results by "
                        "atomicAdd for += and -= and a pass over a partial array for *= "
                        "(auto, default), or always by the pass, in a fixed order (pass: the "
                        "same floating-point result on every run)")
    p.add_argument("--no-expand-scalars", action="store_true",
                   help="keep one cell for each region-local scalar or array set and read in "
                        "each iteration of its loops, and no copy for reads of values from "
                        "before their loop nest (by default both are made so that the loops "
                        "can run in parallel)")
    p.add_argument("--wavefront-sync", choices=WAVEFRONT_SYNCS,
                   help="order inter-tile wavefronts by kernel launches (default) or by a "
                        "grid-wide barrier in one cooperative launch")
    p.add_argument("--host-loops", choices=HOST_LOOPS,
                   help="a host loop whose body is kernel launches: the whole loop in one "
                        "cooperative launch, a grid-wide barrier after each kernel's part, when "
                        "its kernels have at most 2 grid dimensions and it runs 128 iterations "
                        "or more (auto, default), always (grid), or one launch per iteration "
                        "(launches)")
    p.add_argument("--intra-wavefront", choices=INTRA_WAVEFRONTS,
                   help="points of a wavefront tile: along the first hyperplane where Theorem 2 "
                        "holds, else the skewed sum (auto, default), or always the skewed sum "
                        "(sum, as PLUTO's CUDA in Di et al. 2012, Figure 5)")
    p.add_argument("--shared-staging", action="store_true",
                   help="stage each wavefront tile's data in shared memory when it fits")
    p.add_argument("--shared-memory", type=int, metavar="KIB",
                   help="shared memory per block for staged tiles (default 48; above 48 the "
                        "kernel opts in to more: H100 allows 227, A100 163)")
    p.add_argument("--shared-promotion", action=argparse.BooleanOptionalAction, default=None,
                   help="CUDA: hold each block's tile of an array that its threads reuse in "
                        "shared memory in DOALL kernels, loaded per tile of the loops inside "
                        "the kernel (gemm's k), when it fits --shared-memory (at most 48 KiB); "
                        "off by default")
    p.add_argument("--sequential-tile", type=int, metavar="N",
                   help="with --shared-promotion: tile size of the loops inside the kernel "
                        "(gemm's k), i.e. the depth of each block's shared tiles (default 0: "
                        "automatic, 16 in the gemm-like default layout, else 32)")
    p.add_argument("--no-private-promotion", action="store_true",
                   help="CUDA: keep every array element in global memory (no registers for "
                        "elements that one thread reuses)")
    p.add_argument("--host-buffers", choices=HOST_BUFFERS,
                   help="cuda host entry: allocate and free the device arrays in every call "
                        "(per-call) or keep them across calls (reuse, default: grown when a "
                        "call needs more, freed by pc_<name>_release() and at exit)")
    p.add_argument("--host-copies", choices=HOST_COPIES,
                   help="cuda host entry: copy the arrays in and out as pageable memory, "
                        "page-locked for the call (register, default: cudaHostRegister), or "
                        "through a reused page-locked buffer in double-buffered chunks (staged)")
    p.add_argument("--host-pin-min", type=int, metavar="KIB", dest="host_pin_min_kib",
                   help="--host-copies register/staged: arrays under KIB KiB are copied as "
                        "pageable memory (default 1024)")
    p.add_argument("--host-chunk", type=int, metavar="KIB", dest="host_chunk_kib",
                   help="--host-copies staged: KiB per chunk of the staging buffer (default "
                        "4096; the buffer holds two)")
    p.add_argument("--host-overlap", action=argparse.BooleanOptionalAction, default=None,
                   help="cuda host entry: copy each array in on a stream of its own, waited "
                        "for by the first part of the driver that uses it, and each written "
                        "array out after the last part that writes it, while later parts run "
                        "(default on; not with --host-copies staged)")
    p.add_argument("--serial-region", choices=SERIAL_REGIONS,
                   help="cuda, a region in which no loop is parallel: pc_<name> runs it on the "
                        "CPU on the host arrays and pc_<name>_dev in one-thread kernels or, "
                        "when predicted faster, on the CPU after copying the arrays out (cpu, "
                        "default); or both entries in one-thread kernels (gpu)")
    p.add_argument("--host-fallback", choices=HOST_FALLBACKS,
                   help="cuda: keep the region's original program beside its kernels and run it "
                        "on the host where a rule on each call's sizes predicts it faster "
                        "(auto, default: copies + launches + work against the host's time per "
                        "statement instance; `show schedule` prints the rule), always (always), "
                        "or never (never: the kernels alone)")
    p.add_argument("--runtime-executor", choices=RUNTIME_EXECUTORS,
                   help="cuda, loops with run-time dependences: one launch per level "
                        "(levels), one launch whose iterations wait on done-counters "
                        "(syncfree), one launch without inspector whose reads wait on their "
                        "writer when the writes are affine and injective (syncfree-affine; "
                        "the levels when a check finds a read of a later iteration's cell), the "
                        "same with one warp per iteration whose lanes split its CSR reductions "
                        "(syncfree-affine-warp), or "
                        "per call (auto, default: syncfree-affine(-warp) where it applies, else "
                        "levels, and syncfree when reused levels are many)")
    p.add_argument("--reuse-levels", action="store_true",
                   help="cuda, loops with run-time dependences: reuse the levels of an earlier "
                        "outer iteration or call when the index arrays are equal (compared on "
                        "the GPU) at the same parameters")
    p.add_argument("--cpu-fallback-per-level", type=_fallback_threshold,
                   metavar="auto|ITERATIONS",
                   help="cuda, loops with run-time dependences: run the rest of the loop in "
                        "order on the host once the inspector has found more than n / "
                        "ITERATIONS levels; 0: never; auto (default): ITERATIONS = the GPU's "
                        "measured cost of one level / the host's cost of one iteration")
    p.add_argument("--aux-fraction", type=int, choices=AUX_FRACTIONS,
                   help="cuda, loops with run-time dependences: the inspector's auxiliary "
                        "array of each monitored array holds 1/N of its cells, indexed by cell "
                        "mod its size (default 1; false conflicts add levels, never lose one)")
    p.add_argument("--chunking", choices=RUNTIME_CHUNKINGS,
                   help="cuda, loops with run-time dependences: none (default); static: N "
                        "chunks of the iterations (N = --aux-fraction), chunk k from level k; "
                        "dynamic: static, and more levels per chunk when a pass sees many "
                        "nearby conflicts")
    p.add_argument("--no-row-reductions", action="store_true",
                   help="CUDA: keep a parallel loop of reductions (y[i] += A[i][j] * x[j]) on "
                        "threads, each thread summing its row, instead of rows on blocks and "
                        "the reduction loop on the threads of each row")
    p.add_argument("--no-column-reductions", action="store_true",
                   help="CUDA: keep a parallel loop of `+=` / `-=` reductions along another loop "
                        "(y[j] += A[i][j] * x[i]) one column per thread, instead of columns on "
                        "threads and chunks of the reduction loop on blocks with atomicAdd")
    p.add_argument("--no-dual-reductions", action="store_true",
                   help="CUDA: run a row and a column reduction of one matrix (bicg's "
                        "q[i] += A[i][j] * p[j] and s[j] += r[i] * A[i][j]) as two kernels, "
                        "each reading the matrix, instead of one kernel that reads it once")
    p.add_argument("--no-chain-reductions", action="store_true",
                   help="CUDA: run a row reduction and a column reduction of one matrix that "
                        "reads its result (atax's tmp[i] += A[i][j] * x[j], then y[j] += "
                        "A[i][j] * tmp[i]) as two kernels, each reading the matrix, instead of "
                        "one kernel that reads it once")
    p.add_argument("--no-runtime-choice", action="store_true",
                   help="CUDA, --scheduler auto: compile the least-cost schedule alone, not "
                        "also the runner-up that differs in kernel launches alone, chosen per "
                        "call by the launch and work bounds at its sizes (1-D Jacobi)")
    p.add_argument("--no-producer-fusion", action="store_true",
                   help="CUDA: run a DOALL statement that writes the elements a column-split "
                        "reduction right after it reads (gemver's A update, then x += A^T y) "
                        "as its own kernel, instead of in the reduction's kernel, each "
                        "instance just before the one that reads its element")
    p.add_argument("--options", help="read options written by --dump-options")
    p.add_argument("--no-tuned-sizes", action="store_true",
                   help="cuda: ignore the sizes of an earlier `polycuda tune` of this region "
                        "(used by default when no --tile-sizes / --block-sizes is given)")
    p.add_argument("--sizes", metavar="FILE",
                   help="read tile_sizes and block_sizes written by `polycuda tune "
                        "--dump-sizes` (they override --tile-sizes and --block-sizes)")


def version() -> str:
    """polycuda's version: the installed distribution's, else (a source checkout run with
    PYTHONPATH) pyproject.toml's beside the package."""
    from importlib import metadata

    try:
        return metadata.version("polycuda")
    except metadata.PackageNotFoundError:
        pass
    pyproject = Path(__file__).resolve().parents[1] / "pyproject.toml"
    try:
        text = pyproject.read_text(encoding="utf-8")
    except OSError:
        return "unknown (not installed, no pyproject.toml)"
    found = re.search(r'^\[project\][^\[]*?^version\s*=\s*"([^"]+)"', text, re.M | re.S)
    return found[1] if found else "unknown (no version in pyproject.toml)"


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="polycuda", description=__doc__)
    top.add_argument("--version", action="version", version=f"polycuda {version()}")
    sub = top.add_subparsers(dest="command", required=True)
    p = sub.add_parser("compile", help="generate CUDA / OpenMP / C source")
    _common(p)
    p.add_argument("--target", choices=("cuda", "openmp", "c"), default="cuda")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="output file (default: stdout, where target cuda of a C file gives "
                        "the .cu alone); target cuda of a C file also writes OUT's stem + "
                        "_host.c. An existing file that polycuda did not write (its first "
                        "line is not polycuda's marker) is not overwritten without --force")
    p.add_argument("--force", action="store_true",
                   help="overwrite OUT (and its _host.c) even where polycuda did not write it")
    p.add_argument("--dump-options", metavar="FILE", help="write the options used, as text")
    p.set_defaults(func=cmd_compile)
    p = sub.add_parser("show", help="dependences, schedule, the compile's named passes (what "
                       "each did, its time) or generated code")
    p.add_argument("what", choices=("deps", "schedule", "passes", "code"))
    _common(p)
    p.add_argument("--target", choices=("cuda", "openmp", "c"), default="cuda")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_show)
    p = sub.add_parser("verify", help="transformed vs sequential on random inputs")
    _common(p)
    p.add_argument("--size", type=_size, action="append", metavar="N=V", help="parameter value")
    p.add_argument("--targets", type=_targets,
                   help="comma-separated: c,openmp,cuda,emulate (default: c, openmp, and cuda "
                        "on a GPU, else emulate)")
    p.set_defaults(func=cmd_verify)
    p = sub.add_parser("run", help="build, run on random data, verify and time")
    _common(p)
    p.add_argument("--target", choices=("auto", "cuda", "openmp", "c"), default="auto")
    p.add_argument("--size", type=_size, action="append", metavar="N=V", help="parameter value")
    p.add_argument("--repeat", type=_positive, default=10,
                   help="timed runs of the target and of the reference (medians reported)")
    p.add_argument("--no-verify", action="store_true", help="skip the comparison")
    p.set_defaults(func=cmd_run)
    p = sub.add_parser("tune", help="choose tile sizes and block shapes: execution-time model "
                                    "(Di & Xue 2011), then the model's top k measured on a GPU")
    _common(p)
    p.add_argument("--size", type=_size, action="append", metavar="N=V", help="parameter value")
    p.add_argument("--top-k", type=_positive, default=5,
                   help="layouts of the model's ranking measured on the GPU (default 5)")
    p.add_argument("--budget", type=_positive_float, default=60.0, metavar="SECONDS",
                   help="seconds for ranking layouts by the model (default 60)")
    p.add_argument("--dump-sizes", metavar="FILE",
                   help="write the chosen sizes, for --sizes FILE of compile, run, verify")
    p.add_argument("--no-cache", action="store_true", help="tune again even if cached")
    p.add_argument("--no-refit", action="store_true",
                   help="do not measure probes (up to 4 layouts where each model term weighs "
                        "most), refit the model on the measured layouts (at least 4) and on "
                        "the top k alone, and measure each refitted model's choice too (the "
                        "default)")
    p.add_argument("--no-local-search", action="store_true",
                   help="do not measure the neighbours of the fastest measured layout (the "
                        "default tables' sizes where those are fastest; each "
                        "tile size halved, doubled or the next size down or up, the next thread "
                        "count down or up; up to 3 rounds while one is 2%% faster, none "
                        "started after 120 s)")
    p.add_argument("--schedulers", action="store_true",
                   help="with --scheduler auto (the default): tune each of auto's candidates "
                        "(isl, pluto, isl-distributed), keep the fastest measured; compile and "
                        "run then use its scheduler too (needs a GPU)")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="log every excluded layout and why")
    p.set_defaults(func=cmd_tune)
    p = sub.add_parser("bench", help="every kernel of the suite against every baseline")
    bench_command.add_arguments(p)
    p = sub.add_parser("demo", help="compile, run and verify the embedded example")
    p.add_argument("--target", choices=("auto", "cuda", "openmp", "c"), default="auto")
    p.set_defaults(func=cmd_demo)
    return top


def _join_negative_values(argv: list[str]) -> list[str]:
    """`--tile-sizes -4,8` -> `--tile-sizes=-4,8`: argparse takes a value that starts with '-'
    for an option, and would say 'expected one argument' instead of what is wrong."""
    out: list[str] = []
    k = 0
    while k < len(argv):
        if argv[k] in _VALUE_OPTIONS and k + 1 < len(argv) and \
                re.match(r"^-\d", argv[k + 1]):
            out.append(f"{argv[k]}={argv[k + 1]}")
            k += 2
        else:
            out.append(argv[k])
            k += 1
    return out


def _quiet_broken_pipe() -> int:
    """stdout's reader went away (`polycuda show deps F | head`): exit quietly, as Unix tools
    do, and keep Python from complaining when it flushes stdout at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout is not a file (captured in tests)
        pass
    return _EXIT_BROKEN_PIPE


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """PolycudaWarnings on stderr as one line, without the Python source location (which
    names polycuda's code, not the user's input); other warnings as Python shows them."""
    if issubclass(category, PolycudaWarning):
        print(f"polycuda: warning: {message}", file=file or sys.stderr)
    else:
        _PYTHON_SHOW_WARNING(message, category, filename, lineno, file, line)


_PYTHON_SHOW_WARNING = warnings.showwarning


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(_join_negative_values(sys.argv[1:] if argv is None else argv))
    start = time.perf_counter()
    shown_by, warnings.showwarning = warnings.showwarning, _show_warning
    try:
        code = args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except PolycudaError as err:
        print(str(err) if isinstance(err, UserError) else f"error: {err}", file=sys.stderr)
        return 1
    finally:  # main() is also called in-process (tests, scripts): leave Python's hook as found
        warnings.showwarning = shown_by
    if getattr(args, "verbose", False):
        print(f"done in {time.perf_counter() - start:.2f} s", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
