"""The host side of the CUDA drop-in function (issue 15, item 6): the whole-function time of a few
suite kernels at PolyBench LARGE sizes (device allocation, copies in and out, kernels, free, as
PPCG was timed: polycuda/bench/ppcg.py, baselines.whole_function) under each host-side option
(Options.host_buffers / host_copies / host_pin_min_kib / host_chunk_kib / host_overlap), all in
the same run.

Calls are interleaved (each repetition runs every configuration once, in a shuffled order) so
that a drift of the machine shows in every configuration alike. Before timing, every
configuration is verified against the sequential program at the kernel's small sizes, and at
the timed sizes its results are compared with those of the default host side.

Usage (from the repository root, on a GPU):
    python3 bench/host_side.py [--kernels gemver,mvt] [--configs baseline,reuse+staged]
                               [--repeats 15] [--out FILE.json]
On the CPU (checks the script and the generated code, times mean nothing):
    python3 bench/host_side.py --target emulate --small --repeats 2
Writes JSON (default bench/results/<date>-<gpu>-host-side.json) with the GPU's name, the date,
per kernel and configuration every time, the median, min, max and the median over baseline's.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from kernels import suite  # noqa: E402
from polycuda.api import compile as compile_c  # noqa: E402
from polycuda.bench import environment, scripts, timing  # noqa: E402
from polycuda.bench.sizes import PPCG  # noqa: E402
from polycuda.options import Options  # noqa: E402
from polycuda.runtime import build, device, emulate  # noqa: E402

KERNELS = ("gemver", "mvt", "atax", "bicg", "gesummv", "jacobi_2d")
# configuration -> Options changes; "baseline" is the host side before 2026-11-25 (allocate and free
# per call, pageable copies); the default is now reuse+register+overlap
_BEFORE = {"host_buffers": "per-call", "host_copies": "pageable", "host_overlap": False}
CONFIGS = {
    "baseline": dict(_BEFORE),
    "reuse": {**_BEFORE, "host_buffers": "reuse"},
    "register": {**_BEFORE, "host_copies": "register"},
    "staged": {**_BEFORE, "host_copies": "staged"},
    "reuse+register": {"host_buffers": "reuse", "host_copies": "register",
                       "host_overlap": False},
    "reuse+staged": {"host_buffers": "reuse", "host_copies": "staged"},
    "reuse+staged-1M": {"host_buffers": "reuse", "host_copies": "staged",
                        "host_chunk_kib": 1024},
    "reuse+staged-16M": {"host_buffers": "reuse", "host_copies": "staged",
                         "host_chunk_kib": 16384},
    "reuse+register+overlap": {"host_buffers": "reuse", "host_copies": "register",
                               "host_overlap": True},
}


def _program(kernel: suite.Kernel, changes: dict):
    return compile_c(str(kernel.c_path), function=kernel.function,
                     options=Options(tuned_sizes=False, **changes))


def _build(source: str, target: str) -> None:
    """Builds into the build cache (Program.kernel then loads the cached library)."""
    if target == "emulate":
        emulate.build_emulated(source)
    else:
        build.build_shared(source, "cuda")


def _inputs(kernel: suite.Kernel, scop, sizes: dict, seed: int = 0) -> dict:
    values = suite.random_args(kernel, sizes, np.random.default_rng(seed))
    named = dict(zip([a.name for a in suite.c_args(kernel)], values))
    return {a.name: named[a.name] for a in scop.args}


def _call(lib, scop, args: dict) -> float:
    """Seconds of one call of the drop-in entry on host arrays (returns after the copies out)."""
    start = time.perf_counter()
    lib(*[args[a.name] for a in scop.args])
    return time.perf_counter() - start


def _fresh(args: dict) -> dict:
    return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}


def measure_kernel(name: str, configs: list[str], target: str, small: bool, repeats: int
                   ) -> dict:
    kernel = suite.by_name(name)
    progs = {c: _program(kernel, CONFIGS[c]) for c in configs}
    sources = [progs[c].generate(target).source for c in configs]
    with ThreadPoolExecutor(max_workers=8) as pool:  # nvcc runs in parallel
        list(pool.map(lambda src: _build(src, target), sources))
    for config, prog in progs.items():  # correctness first: small sizes, the sequential C
        bad = [r for r in prog.verify(dict(kernel.small), targets=(target,),
                                      raise_on_mismatch=False) if not r.ok]
        if bad:
            raise SystemExit(f"{name}/{config}: wrong result: {bad[0].message}")
    libs = {c: progs[c].kernel(target) for c in configs}
    scop = progs[configs[0]].scop
    sizes = dict(kernel.small) if small else dict(PPCG[name])
    args = _inputs(kernel, scop, sizes)
    written = set(scop.written_arrays())
    outputs = {}
    for config in configs:  # a warm-up call each, its results compared with the first's
        out = _fresh(args)
        _call(libs[config], scop, out)
        outputs[config] = {k: out[k] for k in written if k in out}
    for config in configs[1:]:
        for k, v in outputs[config].items():
            if not np.allclose(v, outputs[configs[0]][k], rtol=1e-10, atol=1e-12):
                raise SystemExit(f"{name}/{config}: {k} differs from {configs[0]}'s")
    times = timing.interleaved(configs, lambda c: _call(libs[c], scop, _fresh(args)), repeats)
    for config in configs:  # the reused buffers go back before the next kernel's
        release = getattr(libs[config].lib, f"pc_{scop.name}_release", None)
        if release is not None and release() != 0:
            raise SystemExit(f"{name}/{config}: pc_{scop.name}_release failed")
    base = statistics.median(times[configs[0]])
    return {"sizes": sizes, "configs": {
        c: {"options": CONFIGS[c], "times_s": t, "median_s": statistics.median(t),
            "min_s": min(t), "max_s": max(t),
            "median_over_first": statistics.median(t) / base} for c, t in times.items()}}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernels", default=",".join(KERNELS))
    p.add_argument("--configs", default=",".join(CONFIGS),
                   help=f"comma-separated, the first is the reference: {', '.join(CONFIGS)}")
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--target", choices=("cuda", "emulate"), default="cuda")
    p.add_argument("--small", action="store_true", help="the kernels' small sizes")
    p.add_argument("--out", help="JSON file (default bench/results/<date>-<gpu>-host-side.json)")
    args = p.parse_args(argv)
    configs = scripts.chosen_names(p, args.configs, CONFIGS)
    gpu = device.gpu_info()
    if args.target == "cuda" and gpu is None:
        p.error("no GPU found: use --target emulate --small to check the script on the CPU")
    date = datetime.date.today().isoformat()
    result = {"what": "whole drop-in function from host arrays (allocation, copies in and out, "
                      "kernels, free) per host-side configuration, perf_counter, interleaved",
              "date": date, "gpu": gpu.name if gpu else None,
              "target": args.target, "repeats": args.repeats,
              "commit": environment.git_commit(), "kernels": {}}
    for name in args.kernels.split(","):
        print(f"{name} ...", flush=True)
        section = measure_kernel(name, configs, args.target, args.small, args.repeats)
        result["kernels"][name] = section
        for c, r in section["configs"].items():
            print(f"  {c:18s} median {r['median_s'] * 1e3:9.3f} ms  "
                  f"[{r['min_s'] * 1e3:.3f}, {r['max_s'] * 1e3:.3f}]  "
                  f"x{r['median_over_first']:.3f} of {configs[0]}", flush=True)
    slug = environment.slug(gpu.name) if gpu else "cpu-emulate"
    out = Path(args.out) if args.out else (Path(__file__).parent / "results"
                                           / f"{date}-{slug}-host-side.json")
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
