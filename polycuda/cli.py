"""The `polycuda` command: compile, run, verify, show, tune, bench, cache, demo."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import logging
import os
import re
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

from polycuda.bench import command as bench_command
from polycuda.errors import (InvalidConfigError, PolycudaError, PolycudaWarning, SourceLoc,
                             UserError)
from polycuda.options import Options, flag_of, shown_default
from polycuda.program import Program

VERIFY_TARGETS = ("c", "openmp", "cuda", "emulate")
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


# compile's default --jobs 0 starts processes only for a file of this many regions: below,
# starting them (a new interpreter importing polycuda) costs more than it saves
PARALLEL_REGIONS = 16


def _jobs(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"expected a number of processes (0: one per CPU), "
                                         f"got '{text}'")
    return int(text)


def read_options_file(path: str, what: str = "options file") -> Options:
    """Options written by --dump-options (`what`: the file's role, in errors); a missing,
    unreadable or malformed file is a UserError located at the offending line and column."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        why = err.strerror if isinstance(err, OSError) else "not a UTF-8 text file"
        raise UserError(f"cannot read {what} '{path}': {why}") from None
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
    """The Options of a command: --options FILE's (else the defaults), each Options flag given
    on the command line, then the sizes of --tuned FILE."""
    base = read_options_file(args.options) if args.options else Options()
    changes: dict[str, object] = {f.name: getattr(args, f.name) for f in option_fields()
                                  if getattr(args, f.name, None) is not None}
    if target or getattr(args, "target", None):
        changes["target"] = target or args.target
    if "sizes" in changes:
        changes.update(_size_plan_argument(str(changes.pop("sizes")), args))
    if getattr(args, "tuned_file", None):
        changes.update(read_sizes_file(args.tuned_file))
    return base.replace(**changes)


_NAME_VALUE = re.compile(r"[A-Za-z_]\w*=-?\d+")


def _size_plan_argument(given: str, args: argparse.Namespace) -> dict[str, object]:
    """The Options that --sizes PLAN|FILE gives: a size plan (size_plan.py) written out or
    held in a file, or a file of --dump-sizes (JSON: its sizes and scheduler; as --tuned).
    NAME=VALUE is the problem size --size NAME=VALUE, said so."""
    from polycuda import size_plan

    path = Path(given)
    if path.is_file():
        try:
            text = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as err:
            why = err.strerror if isinstance(err, OSError) else "not a UTF-8 text file"
            raise UserError(f"cannot read size plan '{given}': {why}") from None
        if text.startswith("{") and text.endswith("}") and '"' in text:
            return read_sizes_file(given)  # JSON, as --dump-sizes writes it
        where: SourceLoc | None = SourceLoc(given, 1)
    elif _NAME_VALUE.fullmatch(given):
        size = "" if hasattr(args, "size") else " (of run, verify or tune)"
        raise UserError(f"--sizes takes per-kernel sizes (a plan such as {size_plan.EXAMPLE}, "
                        f"or a file), not a problem size: did you mean --size {given}{size}?")
    elif given.lstrip().startswith("{"):
        text, where = given.strip(), None
    else:
        raise UserError(f"--sizes {given}: no such file, and not a size plan such as "
                        f"{size_plan.EXAMPLE}")
    try:
        size_plan.check(text)
    except InvalidConfigError as err:
        raise UserError(f"--sizes: {err}", where) from None
    return {"sizes": text}


SIZES_FILE_KEYS = ("tile_sizes", "block_sizes", "register_tiles", "sequential_tile",
                   "scheduler", "sizes")


def read_sizes_file(path: str) -> dict[str, object]:
    """tile_sizes, block_sizes (register_tiles and sequential_tile where tune chose them;
    scheduler, from `tune --schedulers`) written by `polycuda tune --dump-sizes`, or the
    size plan and scheduler written by compile's and run's --dump-sizes; anything else in
    the file is a UserError."""
    sizes = read_options_file(path, "tuned sizes file")
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
    for out in (args.output, args.dump_options, args.dump_sizes):
        _check_writable(out)
    paths = output_paths(Path(args.file), options.target, args.output)
    check_overwrite(Path(args.file), paths, args.force)
    programs = load_programs(args, options)
    _say_tuned(programs, options.target)
    jobs = args.jobs or ((os.cpu_count() or 1) if len(programs) >= PARALLEL_REGIONS else 1)
    for path in write_outputs(Path(args.file), programs, options, args.output, jobs):
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
    if args.dump_sizes:
        _dump_sizes(programs, options.target, args.dump_sizes)
    return 0


def _dump_sizes(programs: tuple[Program, ...], target: str | None, path: str) -> None:
    """Write the sizes that the regions' code was generated with, and the scheduler of its
    schedule (JSON, as --sizes FILE and --tuned FILE read it): given back, they give the
    same kernels (a run-time choice between two schedules aside: a plan sizes one)."""
    from polycuda import size_plan

    used: dict[tuple[str, str], list[str]] = {}
    for prog in programs:
        gen = prog.generate(target)
        plan = size_plan.text_of(size_plan.used(gen.kernels))
        used.setdefault((gen.scheduler or gen.options.scheduler, plan), []).append(prog.name)
    if len(used) > 1:
        regions = "; ".join(f"{', '.join(names)}: scheduler {s}, sizes {plan}"
                            for (s, plan), names in used.items())
        raise UserError(f"--dump-sizes writes one plan, and the regions differ ({regions}): "
                        "give --function NAME for one region's")
    (scheduler, plan), = used
    try:
        Path(path).write_text(json.dumps({"scheduler": scheduler, "sizes": plan},
                                         sort_keys=True) + "\n")
    except OSError as err:
        raise UserError(f"cannot write '{path}': {err.strerror}") from None
    print(f"wrote {path}", file=sys.stderr)


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

    _check_writable(args.dump_sizes)
    programs = load_programs(args, _options(args))
    _say_tuned(programs, None)
    for prog in programs:
        report = run_and_time(prog, dict(args.size or ()), repeats=args.repeat,
                              verify=not args.no_verify)
        print(report.render())
        if not report.ok:
            return 1
    if args.dump_sizes:
        _dump_sizes(programs, None, args.dump_sizes)
    return 0


def cmd_tune(args: argparse.Namespace) -> int:
    from polycuda.program import require_one
    from polycuda.tune import search

    _check_writable(args.dump_sizes)
    options = _options(args).replace(target="cuda")
    if options.sizes:
        raise UserError("tune chooses the sizes: --sizes (a size plan) is for compile, run, "
                        "verify and show; tune --dump-sizes FILE writes its choice for them")
    if args.budget is not None:
        raise UserError("tune --budget SECONDS is gone: the model ranks a number of layouts "
                        "(--layouts N), so that tune ranks the same layouts on any machine")
    prog = require_one(load_programs(args, options), args.function, args.file)
    result = search.tune(prog, dict(args.size or ()), top_k=args.top_k,
                         limit=args.layouts or search.RANK_LAYOUTS,
                         use_cache=not args.no_cache, schedulers=args.schedulers,
                         progress=search.log_progress if options.progress else None,
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


def cmd_cache(args: argparse.Namespace) -> int:
    from polycuda.runtime import cache

    if args.clear or args.clear_all:
        files, size = cache.clear(everything=args.clear_all)
        print(f"removed {files} files ({cache.size_text(size)})")
    print(cache.report())
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from polycuda.demo import demo

    return demo(target=args.target, progress=args.progress is not False, source=args.source)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="a C file with #pragma scop regions, or a Python file")
    p.add_argument("--function", help="only the region of this function")
    p.add_argument("-I", dest="include", action="append", metavar="DIR", help="include dir (C)")
    p.add_argument("-D", dest="define", action="append", metavar="NAME[=VAL]",
                   help="macro definition (C)")
    add_option_flags(p)
    p.add_argument("--options", metavar="FILE", help="read options written by --dump-options")
    p.add_argument("--tuned", metavar="FILE", dest="tuned_file",
                   help="read the sizes written by `polycuda tune --dump-sizes` or by "
                        "--dump-sizes of compile and run (they override --tile-sizes, "
                        "--block-sizes and --sizes)")
    _verbosity(p)


def _dump_sizes_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--dump-sizes", metavar="FILE",
                   help="write the per-kernel sizes the code was generated with and its "
                        "scheduler (JSON, for --sizes FILE; `show sizes` prints them)")


def _verbosity(p: argparse.ArgumentParser, quiet: bool = False) -> None:
    """-v/--verbose, and with `quiet` --quiet (elsewhere it is Options.progress's flag, from
    add_option_flags: the same dest)."""
    if quiet:
        p.add_argument("--quiet", dest="progress", action="store_const", const=False,
                       help="no progress lines on stderr")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="more progress lines: every pass of a compile from the start (else "
                        "only once it has run 2 s), tune's excluded layouts and why, and the "
                        "command's total time")


def option_fields() -> tuple[dataclasses.Field, ...]:
    """The Options fields that every command taking a file has a flag for (Options.target's
    flag is each command's own)."""
    return tuple(f for f in dataclasses.fields(Options)
                 if f.metadata["command"] is None and f.metadata["api_only"] is None)


_PARSERS = {"auto-or-number": _fallback_threshold}


def add_option_flags(parser: argparse.ArgumentParser) -> None:
    """One flag per Options field, derived from its declaration (options.option): a bool gets
    `--name` / `--no-name`, a tuple of sizes comma-separated integers, any other the type of
    its default or its `parse`; the help ends with the field's default. Every flag's dest is
    the field's name; its value None when not given (_options)."""
    p = parser.add_argument_group("options (the fields of polycuda.Options, with dashes)")
    for f in option_fields():
        meta = f.metadata
        shown = f"{meta['help']} (default: {shown_default(f.default)})".replace("%", "%%")
        flags = [flag_of(f)] + ([f"--{f.name.replace('_', '-')}"]
                                if meta["flag"] and not isinstance(f.default, bool) else [])
        if isinstance(f.default, bool):
            p.add_argument(*flags, dest=f.name, action=argparse.BooleanOptionalAction,
                           default=None, help=shown)
            if meta["alias"]:
                p.add_argument(meta["alias"], dest=f.name, action="store_const", const=False,
                               help=f"the same as --no-{f.name.replace('_', '-')}")
            continue
        if meta["parse"]:
            kind = _PARSERS[meta["parse"]]
        elif isinstance(f.default, tuple):
            kind = _ints
        else:
            kind = type(f.default)
        metavar = meta["metavar"] or ("N,N" if isinstance(f.default, tuple) else None)
        p.add_argument(*flags, dest=f.name, type=kind, choices=meta["choices"], metavar=metavar,
                       help=shown)


def _value_options() -> tuple[str, ...]:
    """Options whose value may start with '-' ("--tile-sizes -4,8" is a value, not an
    option): every non-bool Options flag, and the commands' own numeric ones."""
    flags = [flag_of(f) for f in option_fields() if not isinstance(f.default, bool)]
    return (*flags, "--size", "--repeat", "--top-k", "--layouts")


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
    for add in (_compile_command, _show_command, _verify_command, _run_command, _tune_command,
                _bench_command, _cache_command, _demo_command):
        add(sub)
    return top


def _size_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--size", type=_size, action="append", metavar="N=V", help="parameter value")


def _compile_command(sub: argparse._SubParsersAction) -> None:
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
    _dump_sizes_flag(p)
    p.add_argument("--jobs", type=_jobs, default=0, metavar="N",
                   help="processes compiling a file's regions in parallel (0: one per CPU for a "
                        f"file of {PARALLEL_REGIONS} regions or more; 1: all in this "
                        "process); the output is the same with any number")
    p.set_defaults(func=cmd_compile)


def _show_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("show", help="dependences, schedule, the compile's named passes (what "
                       "each did, its time), each kernel's sizes or generated code")
    p.add_argument("what", choices=("deps", "schedule", "passes", "sizes", "code"))
    _common(p)
    p.add_argument("--target", choices=("cuda", "openmp", "c"), default="cuda")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_show)


def _verify_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="transformed vs sequential on random inputs")
    _common(p)
    _size_flag(p)
    p.add_argument("--targets", type=_targets,
                   help="comma-separated: c,openmp,cuda,emulate (default: c, openmp, and cuda "
                        "on a GPU, else emulate)")
    p.set_defaults(func=cmd_verify)


def _run_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="build, run on random data, verify and time")
    _common(p)
    p.add_argument("--target", choices=("auto", "cuda", "openmp", "c"), default="auto")
    _size_flag(p)
    p.add_argument("--repeat", type=_positive, default=10,
                   help="timed runs of the target and of the reference (medians reported)")
    p.add_argument("--no-verify", action="store_true", help="skip the comparison")
    _dump_sizes_flag(p)
    p.set_defaults(func=cmd_run)


def _tune_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tune", help="choose tile sizes and block shapes: execution-time model "
                                    "(Di & Xue 2011), then the model's top k measured on a GPU")
    _common(p)
    _size_flag(p)
    p.add_argument("--top-k", type=_positive, default=5,
                   help="layouts of the model's ranking measured on the GPU (default 5)")
    p.add_argument("--layouts", type=_positive, metavar="N",
                   help="layouts ranked by the model at most, in a fixed order (a count, so "
                        "that the ranking is the same on any machine; default: every layout "
                        "of a band of up to 3 tiled members)")
    p.add_argument("--budget", metavar="SECONDS", help=argparse.SUPPRESS)
    p.add_argument("--dump-sizes", metavar="FILE",
                   help="write the chosen sizes, for --tuned FILE of compile, run, verify")
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
    p.set_defaults(func=cmd_tune)


def _bench_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="every kernel of the suite against every baseline")
    bench_command.add_arguments(p)


def _cache_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("cache", help="the build cache: its folder, files and size; clear it")
    p.add_argument("--clear", action="store_true",
                   help="remove the built libraries and their sources (rebuilt when needed)")
    p.add_argument("--clear-all", action="store_true",
                   help="also remove tune's results (later compiles use the default sizes "
                        "again) and GPU calibrations")
    p.set_defaults(func=cmd_cache)


def _demo_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="compile, run and verify the embedded example")
    p.add_argument("--target", choices=("auto", "cuda", "openmp", "c"), default="auto")
    p.add_argument("--source", action="store_true",
                   help="print the example's C source (to try the other commands on)")
    _verbosity(p, quiet=True)
    p.set_defaults(func=cmd_demo)


def _join_negative_values(argv: list[str]) -> list[str]:
    """`--tile-sizes -4,8` -> `--tile-sizes=-4,8`: argparse takes a value that starts with '-'
    for an option, and would say 'expected one argument' instead of what is wrong."""
    value_options = _value_options()
    out: list[str] = []
    k = 0
    while k < len(argv):
        if argv[k] in value_options and k + 1 < len(argv) and \
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


@contextlib.contextmanager
def _progress_on_stderr(args: argparse.Namespace) -> Iterator[None]:
    """The command's progress (the "polycuda" loggers' records, progress.py) on stderr: INFO,
    DEBUG too with --verbose, only WARNING and worse with --quiet. main() is also called
    in-process (tests, scripts): the logger is left as found."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("polycuda: %(message)s"))
    logger = logging.getLogger("polycuda")
    level = logger.level
    if getattr(args, "progress", None) is False:
        logger.setLevel(logging.WARNING)
    else:
        logger.setLevel(logging.DEBUG if getattr(args, "verbose", False) else logging.INFO)
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(_join_negative_values(sys.argv[1:] if argv is None else argv))
    start = time.perf_counter()
    shown_by, warnings.showwarning = warnings.showwarning, _show_warning
    try:
        with _progress_on_stderr(args):
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
