"""fused_loops.BLOCK_MAX_BLOCKS on the GPU: the host loops that run in one block (durbin's and
ludcmp's, whose sections meet at a reduction's barrier) with the limit at each given value,
the whole drop-in function from host arrays at each size, with the host version (the region as
written, pc_<name>_force = 2) beside them, interleaved (scripts.host_calls), inputs as the
suite's.

    python bench/one_block_turns.py OUT.json [--limits 8,32] [--kernels durbin,ludcmp]
        [--sizes 2000,4000,8000]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import polycuda  # noqa: E402
from kernels import suite  # noqa: E402
from polycuda import program  # noqa: E402
from polycuda.bench import scripts  # noqa: E402
from polycuda.codegen import fused_loops  # noqa: E402


def _kernel(name: str, limit: int, target: str):
    fused_loops.BLOCK_MAX_BLOCKS = limit
    program._generate.cache_clear()  # the limit is no Option: the same key, other code
    info = suite.by_name(name)
    prog = polycuda.compile(str(info.c_path), function=info.function,
                            options=polycuda.Options(target="cuda", tuned_sizes=False))
    return prog, prog.kernel(target)


def _forced(prog, kernel, version: int):
    """A call of `kernel` that runs `version` (pc_<name>_force: 1 the kernels, 2 the host)."""
    def call(args: list) -> None:
        ctypes.c_int.in_dll(kernel.lib, f"pc_{prog.name}_force").value = version
        kernel(*args)
    return call


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--limits", default="8,32")
    parser.add_argument("--kernels", default="durbin,ludcmp")
    parser.add_argument("--sizes", default="2000,4000,8000")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--target", default="cuda", choices=("cuda", "emulate"))
    args = parser.parse_args(argv)
    report: dict = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": []}
    for name in args.kernels.split(","):
        built = {int(limit): _kernel(name, int(limit), args.target)
                 for limit in args.limits.split(",")}
        prog, first = next(iter(built.values()))
        entries = {f"limit {limit}": _forced(prog, kernel, 1)
                   for limit, (_, kernel) in built.items()}
        entries["host version"] = _forced(prog, first, 2)
        for n in (int(s) for s in args.sizes.split(",")):
            values = suite.random_args(suite.by_name(name), {"n": n}, np.random.default_rng(0))
            times = scripts.host_calls(entries, values, args.repeats)
            row = {"kernel": name, "n": n,
                   "median_ms": {k: statistics.median(v) * 1e3 for k, v in times.items()},
                   "times_ms": {k: [t * 1e3 for t in v] for k, v in times.items()}}
            report["rows"].append(row)
            print(json.dumps({k: row[k] for k in ("kernel", "n", "median_ms")}), flush=True)
            args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
