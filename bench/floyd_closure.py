"""Floyd-Warshall's whole drop-in function on the GPU against its own host version (the region
as written, sequential, in the same library: pc_<name>_force = 2), at PolyBench LARGE (n = 2800)
and EXTRALARGE (5600) sizes, inputs uniform in [0.5, 1.5) as the suite's. Run once per tree
(the polycuda on PYTHONPATH); each run writes one JSON with the medians, every time, and a
hash of the result so that two trees' answers can be compared.

    python bench/floyd_closure.py OUT.json [--sizes 2800,5600] [--host-sizes 2800] [--repeats 3]
"""

from __future__ import annotations

import argparse
import ctypes
import hashlib
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import polycuda  # noqa: E402
from kernels import suite  # noqa: E402


def _timed(kernel, n: int, path: np.ndarray, repeats: int) -> tuple[list[float], str]:
    """Seconds of each call on a fresh copy of `path` (the first call, untimed, loads and
    warms), and the sha256 of the last result."""
    kernel(n, path.copy())
    times, out = [], path
    for _ in range(repeats):
        out = path.copy()
        start = time.perf_counter()
        kernel(n, out)
        times.append(time.perf_counter() - start)
    return times, hashlib.sha256(out.tobytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--sizes", default="2800,5600")
    parser.add_argument("--host-sizes", default="2800", help="sizes the host version runs at")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--target", default="cuda", choices=("cuda", "emulate"),
                        help="emulate: the plumbing without a GPU, at small sizes")
    args = parser.parse_args(argv)
    info = suite.by_name("floyd_warshall")
    prog = polycuda.compile(str(info.c_path), function=info.function,
                            options=polycuda.Options(target="cuda", tuned_sizes=False))
    kernel = prog.kernel(args.target)
    force = ctypes.c_int.in_dll(kernel.lib, f"pc_{prog.name}_force")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    report: dict = {"kernel": "floyd_warshall", "inputs": "uniform [0.5, 1.5), seed 0",
                    "polycuda": str(Path(polycuda.__file__).parent), "commit": commit,
                    "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "entries": []}
    host_sizes = {int(s) for s in args.host_sizes.split(",") if s}
    for n in (int(s) for s in args.sizes.split(",")):
        path = np.random.default_rng(0).uniform(0.5, 1.5, (n, n))
        for version, forced in (("gpu", 1), ("host", 2)):
            if version == "host" and n not in host_sizes:
                continue
            force.value = forced
            repeats = args.repeats if version == "gpu" else 1
            times, digest = _timed(kernel, n, path, repeats)
            entry = {"n": n, "version": version, "median_s": statistics.median(times),
                     "times_s": times, "result_sha256": digest}
            report["entries"].append(entry)
            print(json.dumps(entry), flush=True)
            args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
