"""The default threads per block of 1-D kernels whose threads each walk a strided line
(gpu/mapping.py line_threads): the suite programs whose CUDA code the rule changes, timed with
the tree this script runs from. bench/line_threads.sh runs it with the tree before the rule
and with this one, alternated, so that the two compare within one run.

Each case is verified on the GPU at the suite's small sizes, then its device entry
(pc_<name>_dev on CuPy arrays: kernels and launches, no copies) is timed --repeats times.

Usage (from a tree's root, on a GPU):
    python3 bench/line_threads.py --out F [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import polycuda
from kernels import suite
from polycuda.bench import scripts, timing
from polycuda.options import Options

# (kernel, scheduler, sizes): PolyBench's LARGE (and adi's EXTRALARGE n) on the suite's names
CASES = (
    ("adi", "auto", {"T": 500, "n": 1000}),
    ("adi", "auto", {"T": 100, "n": 2000}),
    ("adi", "pluto", {"T": 500, "n": 1000}),
    ("deriche", "auto", {"w": 4096, "h": 2160}),
    ("jacobi_2d_alt", "pluto", {"T": 500, "n": 1300}),
    ("two_mm", "pluto", {"ni": 800, "nj": 900, "nk": 1100, "nl": 1200}),
)


def measure(name: str, scheduler: str, sizes: dict, repeats: int) -> dict:
    import cupy as cp

    kernel = suite.by_name(name)
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(target="cuda", tuned_sizes=False,
                                            scheduler=scheduler))
    bad = [r for r in prog.verify(dict(kernel.small), targets=("cuda",),
                                  raise_on_mismatch=False) if not r.ok]
    if bad:
        raise SystemExit(f"{name}/{scheduler}: wrong result: {bad[0].message}")
    lib = prog.kernel("cuda")
    args = suite.random_args(kernel, sizes, np.random.default_rng(0))
    host = {a.name: v for a, v in zip(suite.c_args(kernel), args)}
    dev = {k: cp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in host.items()}
    samples = []
    for _ in range(repeats + 1):  # the first: module load and first launches
        cp.cuda.Device().synchronize()
        start = time.perf_counter()
        lib(**dev)
        cp.cuda.Device().synchronize()
        samples.append(time.perf_counter() - start)
    launches = sorted({line.split(">>>")[0].split("dim3(")[-1] for line in
                       prog.generate().source.splitlines() if "<<<" in line})
    return {"kernel": name, "scheduler": scheduler, "sizes": sizes, "blocks": launches,
            **timing.spread(samples[1:])}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    result = {"what": "device entry pc_<name>_dev on CuPy arrays (perf_counter around the "
                      "call and a synchronize), after one untimed call", **scripts.header(),
              "cases": []}
    for name, scheduler, sizes in CASES:
        entry = measure(name, scheduler, sizes, args.repeats)
        result["cases"].append(entry)
        print(f"{name} {scheduler} {sizes}: {entry['median_s'] * 1e3:.3f} ms "
              f"(blocks {', '.join(entry['blocks'])})", flush=True)
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
