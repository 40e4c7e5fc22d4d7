"""What the GPU evidence scripts under bench/ share (indirect_gpu, sptrsv_gpu, anantpur_tables,
reductions_gpu, runtime_choice, thin_blocks, host_version_speed, one_block_turns): copies of the
host arguments, their order in a call, the sequential C run that is both their oracle and their
baseline, settings of one region compared on the GPU, whole-function entries timed interleaved,
the GPU's name, and the JSON report written last."""

from __future__ import annotations

import datetime
import json
import statistics
import subprocess
import time

import numpy as np

from polycuda.bench import environment, timing


def copy_args(args: dict) -> dict:
    """A fresh copy of every array argument (scalars as they are)."""
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}


def ordered(prog, args: dict) -> list:
    """The arguments in the order of the region's signature."""
    return [args[a.name] for a in prog.scop.args]


def sequential(prog, args: dict, repeats: int, calls: int = 1) -> tuple[dict, float]:
    """The C target's result (the region in order, gcc) from the given inputs, `calls` calls
    in a row, and the median seconds of `repeats` such runs on fresh copies."""
    return timed_runs(prog, prog.kernel("c"), args, repeats, calls)


def timed_runs(prog, kernel, args: dict, repeats: int, calls: int = 1) -> tuple[dict, float]:
    """`kernel`'s result on host arrays from the given inputs, `calls` calls in a row, and
    the median seconds of `repeats` such runs on fresh copies (perf_counter)."""
    result, times = timed_samples(prog, kernel, args, repeats, calls)
    return result, statistics.median(times)


def timed_samples(prog, kernel, args: dict, repeats: int, calls: int = 1
                  ) -> tuple[dict, list[float]]:
    """As timed_runs, with the seconds of every run (for timing.spread) instead of their
    median; the copies are made outside the timed interval."""
    result = copy_args(args)
    for _ in range(calls):
        kernel(*ordered(prog, result))
    times = []
    for _ in range(repeats):
        fresh = copy_args(args)
        start = time.perf_counter()
        for _ in range(calls):
            kernel(*ordered(prog, fresh))
        times.append(time.perf_counter() - start)
    return result, times


def device_settings(entries: dict, host: dict, repeats: int, what: str) -> dict[str, list[float]]:
    """Device entries of one region (setting -> pc_<name>_dev, the first the reference) run
    once each on CuPy copies of the host arguments `host`: every array must agree with the
    first setting's (else SystemExit naming `what`, the array and the settings); then all
    timed on one set of device arrays, `repeats` times each, interleaved (perf_counter around
    the call and a device synchronize): setting -> seconds of each run."""
    import cupy as cp

    def on_device() -> dict:
        return {k: cp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in host.items()}

    first = next(iter(entries))
    results = {}
    for setting, entry in entries.items():
        dev = on_device()
        entry(**dev)
        cp.cuda.Device().synchronize()
        results[setting] = {k: cp.asnumpy(v) for k, v in dev.items() if isinstance(v, cp.ndarray)}
    for setting, arrays in results.items():
        for k, v in arrays.items():
            if not np.allclose(v, results[first][k], rtol=1e-9, atol=1e-12, equal_nan=True):
                raise SystemExit(f"{what}: {k} differs between {setting} and {first}")
    dev = on_device()

    def run(setting: str) -> float:
        cp.cuda.Device().synchronize()
        start = time.perf_counter()
        entries[setting](**dev)
        cp.cuda.Device().synchronize()
        return time.perf_counter() - start

    return timing.interleaved(list(entries), run, repeats)


def host_calls(calls: dict, values: list, repeats: int) -> dict[str, list[float]]:
    """Whole-function entries on host arrays (label -> a call taking the argument list), each
    called on fresh copies of `values`, perf_counter around the call: one untimed round that
    warms every entry, then `repeats` rounds interleaved (timing.interleaved): label -> the
    seconds of each timed call."""

    def run(label: str) -> float:
        fresh = [v.copy() if isinstance(v, np.ndarray) else v for v in values]
        start = time.perf_counter()
        calls[label](fresh)
        return time.perf_counter() - start

    timing.interleaved(list(calls), run, 1)
    return timing.interleaved(list(calls), run, repeats)


def timing_phases(prog, source: str, args: dict, target: str) -> tuple[float, float]:
    """(inspection, execution) seconds of `source` (the CUDA of `prog`'s region, built here
    with -DPC_TIMING) called on `args`: on the emulator, or on the GPU from device arrays
    (the second call, after the one that loads the module)."""
    import ctypes

    from polycuda.runtime import build, emulate, launch

    if target == "emulate":
        lib = emulate.build_emulated(source, flags=("-DPC_TIMING",))
        kernel = launch.load(lib, prog.scop, "emulate")
        kernel(*ordered(prog, copy_args(args)))
    else:
        import cupy as cp

        lib = build.build_shared(source, "cuda", flags=("-DPC_TIMING",))
        kernel = launch.load(lib, prog.scop, "cuda")
        for _ in range(2):  # the first call loads the module
            dev = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v)
                   for k, v in args.items()}
            kernel(*ordered(prog, dev))

    def get(what: str) -> float:
        return ctypes.c_double.in_dll(kernel.lib, f"pc_{prog.name}_{what}_s").value

    return get("inspect"), get("execute")


def gpu_name() -> str:
    """nvidia-smi's name of the GPU; "" where there is no NVIDIA driver (the emulator)."""
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True, check=False).stdout.strip()
    except FileNotFoundError:
        return ""


def header() -> dict:
    """The report's first fields: the GPU, the commit (POLYCUDA_COMMIT on the device, which
    has no .git) and today's date."""
    return {"gpu": gpu_name(), "commit": environment.git_commit(),
            "date": datetime.date.today().isoformat()}


def write_report(path: str, report: dict, all_ok: bool) -> int:
    """Writes `report` as JSON to `path`; the exit status: 1 when a result was wrong."""
    with open(path, "w") as f:
        json.dump(report, f, indent=2)
    print(f"wrote {path}; all correct: {all_ok}")
    return 0 if all_ok else 1


def chosen_names(parser, text: str, known) -> list[str]:
    """The comma-separated names of `text`, each one of `known` (else parser.error)."""
    names = text.split(",")
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error(f"unknown names {unknown}: choose from {list(known)}")
    return names
