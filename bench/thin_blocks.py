"""Threads per block of the 1-D DOALL kernels whose threads each run a long sequential loop
(adi's and deriche's sweeps: one thread per line of a grid, the recurrence along the line in
the thread). Such a kernel has as many threads as the grid has lines, n ~ 1000-4000, so a
1-D tile of 256 threads launches n / 256 blocks: a few SMs of the GPU's 132 run the whole
sweep. This times each kernel's device entry (pc_<name>_dev, CuPy arrays: kernels and
launches, no copies) at the compiler's default sizes and at --tile-sizes 128, 64 and 32, same
run, interleaved, after verifying each setting on the GPU at the suite's small sizes.
(bench/results/2026-12-03-nvidia-h200-thin-blocks.json was measured before gpu/mapping.py's
line_threads rule, when the default was 256 threads for every 1-D kernel.)

Usage (from the repository root, on a GPU):
    python3 bench/thin_blocks.py --out F [--cases adi,deriche] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import polycuda
from kernels import suite
from polycuda.bench import scripts, timing
from polycuda.options import Options

# kernel -> sizes timed: PolyBench's LARGE and EXTRALARGE mapped onto the suite's parameters
CASES = {
    "adi": ({"T": 500, "n": 1000}, {"T": 100, "n": 2000}),
    "deriche": ({"w": 4096, "h": 2160}, {"w": 7680, "h": 4320}),
}
SETTINGS = {"default": (), "tile128": (128,), "tile64": (64,), "tile32": (32,)}


def programs(name: str) -> dict:
    """Setting -> the suite kernel compiled for cuda with that setting's tile sizes."""
    kernel = suite.by_name(name)
    base = Options(target="cuda", tuned_sizes=False)
    return {setting: polycuda.compile(str(kernel.c_path), function=kernel.function,
                                      options=base.replace(tile_sizes=tiles))
            for setting, tiles in SETTINGS.items()}


def inputs(name: str, sizes: dict, seed: int = 0) -> dict:
    """The kernel's host arguments by name: the suite's random inputs at `sizes`."""
    kernel = suite.by_name(name)
    args = suite.random_args(kernel, sizes, np.random.default_rng(seed))
    return {a.name: v for a, v in zip(suite.c_args(kernel), args)}


def measure(name: str, repeats: int) -> dict:
    progs = programs(name)
    kernel = suite.by_name(name)
    for setting, prog in progs.items():
        bad = [r for r in prog.verify(dict(kernel.small), targets=("cuda",),
                                      raise_on_mismatch=False) if not r.ok]
        if bad:
            raise SystemExit(f"{name}/{setting}: wrong result: {bad[0].message}")
    libs = {s: p.kernel("cuda") for s, p in progs.items()}
    section = {"settings": {s: list(t) for s, t in SETTINGS.items()},
               "launches": {s: [line.strip() for line in p.generate().source.splitlines()
                                if "<<<" in line] for s, p in progs.items()},
               "sizes": []}
    for sizes in CASES[name]:
        host = inputs(name, sizes)
        times = scripts.device_settings(libs, host, repeats, f"{name} at {sizes}")
        entry = {"sizes": sizes, **{s: timing.spread(t) for s, t in times.items()}}
        entry["default_over"] = {s: entry["default"]["median_s"] / entry[s]["median_s"]
                                 for s in progs}
        section["sizes"].append(entry)
        print(f"  {name} {sizes}: " + ", ".join(f"{s} {entry[s]['median_s'] * 1e3:.3f} ms"
                                                for s in progs), flush=True)
    return section


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--out", required=True, help="JSON file")
    args = p.parse_args(argv)
    result = {"what": "device entry pc_<name>_dev on CuPy arrays (perf_counter around the "
                      "call and a synchronize), settings interleaved, medians of --repeats",
              **scripts.header(), "kernels": {}}
    for name in scripts.chosen_names(p, args.cases, CASES):
        result["kernels"][name] = measure(name, args.repeats)
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
