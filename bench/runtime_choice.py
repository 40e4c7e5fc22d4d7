"""The run-time choice between two schedules of one region (Options.runtime_choice; issue 15,
item 5): the default file, holding the chosen schedule and the runner-up (gpu.cost.LAUNCH_NS
decides per call), against each schedule compiled alone, same run, interleaved, on the device
entry pc_<name>_dev (CuPy arrays: kernels and launches, no copies); and the two constants of
the rule: the time of one launch of an empty kernel from a host loop (LAUNCH_NS), and per
statement instance, the fastest time measured here (INSTANCE_NS).

Each program and setting is verified against the sequential program at small sizes on the
GPU first; at each timed size, the three settings' results from the same inputs must agree.

Usage (from the repository root, on a GPU):
    python3 bench/runtime_choice.py [--cases jacobi_1d,fdtd_2d] [--repeats 5] [--out F]
Writes JSON (default bench/results/<date>-<gpu>-runtime-choice.json).
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import polycuda  # noqa: E402
from kernels import suite  # noqa: E402
from polycuda.bench import environment, scripts, timing  # noqa: E402
from polycuda.options import Options  # noqa: E402
from polycuda.pipeline import (choose_schedule, dependence_map, runtime_choice,  # noqa: E402
                               transform_scop)
from polycuda.runtime import build, device  # noqa: E402
from polycuda.schedule import isl_scheduler  # noqa: E402

# kernel -> sizes timed: the suite's bench sizes, PolyBench's LARGE mapped onto ours, and
# sizes on both sides of the rule. The rule's constants (gpu.cost.LAUNCH_NS) were set from
# runs of these; HELD_OUT's sizes were added after, to check the rule where it was not
# fitted (some of them near its boundary).
CASES = {
    "jacobi_1d": ({"T": 100, "n": 1 << 24}, {"T": 20, "n": 1 << 22}, {"T": 500, "n": 2000},
                  {"T": 1000, "n": 1 << 16}, {"T": 10000, "n": 4096}, {"T": 200, "n": 1 << 18},
                  {"T": 2000, "n": 1 << 14}, {"T": 3000, "n": 1 << 17}),
    "fdtd_2d": ({"T": 100, "nx": 4096, "ny": 4096}, {"T": 500, "nx": 1000, "ny": 1200},
                {"T": 64, "nx": 1 << 18, "ny": 64}, {"T": 200, "nx": 1 << 16, "ny": 128},
                {"T": 100, "nx": 1 << 18, "ny": 32}),
    "jacobi_2d": ({"T": 100, "n": 4096}, {"T": 500, "n": 1300}),
    "heat_2d": ({"T": 100, "n": 4096},),
}
HELD_OUT = {
    "jacobi_1d": ({"T": 5000, "n": 1 << 16}, {"T": 400, "n": 1 << 20}, {"T": 1500, "n": 1 << 18},
                  {"T": 4000, "n": 1 << 16}),
    "fdtd_2d": ({"T": 300, "nx": 1 << 15, "ny": 256}, {"T": 100, "nx": 1 << 17, "ny": 128},
                {"T": 50, "nx": 8192, "ny": 8192}),
    "jacobi_2d": ({"T": 256, "n": 256}, {"T": 64, "n": 1024}, {"T": 1000, "n": 256},
                  {"T": 2000, "n": 512}),
    "heat_2d": ({"T": 256, "n": 256}, {"T": 5000, "n": 128}),
}
SMALL = {"jacobi_1d": ({"T": 3, "n": 900}, {"T": 30, "n": 40}),
         "fdtd_2d": ({"T": 3, "nx": 20, "ny": 17}, {"T": 2, "nx": 300, "ny": 5}),
         "jacobi_2d": ({"T": 3, "n": 14}, {"T": 40, "n": 12}),
         "heat_2d": ({"T": 3, "n": 14}, {"T": 40, "n": 12})}
LAUNCH_PROBE = r"""
#include <cuda_runtime.h>
__global__ void pc_empty(int *x) { if (x != 0 && threadIdx.x == 1024) x[0] = 1; }
extern "C" double pc_launch_ns(int count, int blocks, int threads) {
  cudaEvent_t a, b;
  cudaEventCreate(&a); cudaEventCreate(&b);
  pc_empty<<<blocks, threads>>>(0);
  cudaDeviceSynchronize();
  cudaEventRecord(a);
  for (int k = 0; k < count; k++) pc_empty<<<blocks, threads>>>(0);
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a); cudaEventDestroy(b);
  return cudaGetLastError() == cudaSuccess ? ms * 1e6 / count : -1.0;
}
"""


def launch_ns(repeats: int) -> dict:
    """ns per launch of an empty kernel in a host loop of 20,000 (one block of 64 threads,
    and 132 blocks of 256), `repeats` times each."""
    lib = ctypes.CDLL(str(build.build_shared(LAUNCH_PROBE, "cuda")))
    lib.pc_launch_ns.restype = ctypes.c_double
    lib.pc_launch_ns.argtypes = [ctypes.c_int] * 3
    out = {}
    for blocks, threads in ((1, 64), (132, 256)):
        samples = [lib.pc_launch_ns(20000, blocks, threads) for _ in range(repeats)]
        out[f"{blocks}x{threads}"] = {k.replace("_s", "_ns"): v
                                      for k, v in timing.spread(samples).items()}
    return out


def _programs(name: str) -> dict:
    """Setting -> Program: "default" (the runner-up too, where the rule may pick it), and
    each of the two schedulers alone."""
    kernel = suite.by_name(name)
    base = Options(target="cuda", tuned_sizes=False)
    auto = polycuda.compile(str(kernel.c_path), function=kernel.function, options=base)
    gen = auto.generate()
    first = gen.choice.split("auto: ", 1)[1].split(",", 1)[0]
    second = gen.choice.split("at run time: ", 1)[1].split("'s", 1)[0] \
        if "at run time: " in gen.choice else ("isl" if first != "isl" else "pluto")
    progs = {"default": auto}
    for scheduler in (first, second):
        progs[scheduler] = polycuda.compile(str(kernel.c_path), function=kernel.function,
                                            options=base.replace(scheduler=scheduler))
    return progs


def _inputs(prog, sizes: dict, seed: int = 0) -> dict:
    kernel = suite.by_name(prog.name)
    args = suite.random_args(kernel, sizes, np.random.default_rng(seed))
    return {a.name: v for a, v in zip(suite.c_args(kernel), args)}


def _rule(prog):
    """The default compile's run-time choice (pipeline.runtime_choice), or None."""
    opts = prog.effective_options("cuda")
    scop = transform_scop(prog.scop, opts)
    ctx = isl_scheduler.new_context()
    return runtime_choice(scop, opts, ctx, choose_schedule(scop, opts, ctx,
                                                           dependence_map(scop, ctx)))


def measure(name: str, repeats: int) -> dict:
    progs = _programs(name)
    for setting, prog in progs.items():
        for sizes in SMALL[name]:
            bad = [r for r in prog.verify(dict(sizes), targets=("cuda",),
                                          raise_on_mismatch=False) if not r.ok]
            if bad:
                raise SystemExit(f"{name}/{setting} at {sizes}: wrong result: {bad[0].message}")
    libs = {s: p.kernel("cuda") for s, p in progs.items()}
    both = _rule(progs["default"])
    section = {"settings": list(progs), "choice": progs["default"].generate().choice,
               "joined": "polycuda_variant_1" in progs["default"].generate().source,
               "sizes": []}
    for sizes in CASES[name] + HELD_OUT.get(name, ()):
        host = _inputs(progs["default"], sizes)
        times = scripts.device_settings(libs, host, repeats, f"{name} at {sizes}")
        picks = both.picks(sizes) if both else None
        entry = {"sizes": sizes, "held_out": sizes in HELD_OUT.get(name, ()),
                 "rule_picks": both and both.schedulers[int(bool(picks))],
                 **{s: timing.spread(t) for s, t in times.items()}}
        best = min((s for s in progs if s != "default"), key=lambda s: entry[s]["median_s"])
        entry["fastest_alone"] = best
        entry["default_over_fastest"] = entry["default"]["median_s"] / entry[best]["median_s"]
        section["sizes"].append(entry)
        print(f"  {sizes}: " + ", ".join(f"{s} {entry[s]['median_s'] * 1e3:.3f} ms"
                                         for s in progs)
              + f"; rule: {entry['rule_picks']}; default/fastest "
              f"{entry['default_over_fastest']:.3f}{' (held out)' if entry['held_out'] else ''}",
              flush=True)
    return section


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--out", help="JSON file (default bench/results/<date>-<gpu>-runtime-choice"
                                 ".json)")
    args = p.parse_args(argv)
    names = scripts.chosen_names(p, args.cases, CASES)
    gpu = device.gpu_info()
    if gpu is None:
        p.error("no GPU found")
    date = datetime.date.today().isoformat()
    result = {"what": "device entry pc_<name>_dev on CuPy arrays (perf_counter around the "
                      "call and a device synchronize; interleaved, shuffled): the default file "
                      "(runner-up joined where the rule may pick it) against each scheduler "
                      "alone; ns per launch of an empty kernel in a host loop (CUDA events)",
              "date": date, "gpu": gpu.name, "repeats": args.repeats,
              "commit": environment.git_commit(), "launch_ns": launch_ns(args.repeats),
              "cases": {}}
    print(f"launch: {result['launch_ns']}", flush=True)
    for name in names:
        print(f"{name} ...", flush=True)
        result["cases"][name] = measure(name, args.repeats)
    out = Path(args.out) if args.out else (Path(__file__).parent / "results" /
                                           f"{date}-{environment.slug(gpu.name)}-runtime-choice"
                                           ".json")
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
