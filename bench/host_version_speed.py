"""The cliff kernels of issue 41 (sequential codes that run slower on the GPU than on the CPU):
each one's whole drop-in function on the GPU (pc_<name>_force = 1), its host version (the region
as written, in the same library: force 2), what the rule picks (force 0), the same library built
with the host compiler's -march=native too, and the sequential oracle (gcc -O3 -march=native of
the kernel's C), interleaved in one process, inputs as the suite's (uniform [0.5, 1.5), the
kernel's own preparation).

    python bench/host_version_speed.py OUT.json [--kernels trisolv,durbin] [--sizes 2000,4000]
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
from polycuda.bench import builds  # noqa: E402
from polycuda.run import ran_version  # noqa: E402
from polycuda.runtime import build, launch  # noqa: E402

NATIVE = ("-Xcompiler", "-march=native")


def _entries(name: str) -> tuple[object, dict]:
    info = suite.by_name(name)
    prog = polycuda.compile(str(info.c_path), function=info.function,
                            options=polycuda.Options(target="cuda", tuned_sizes=False))
    gen = prog.generate("cuda")
    plain = prog.kernel("cuda")
    native = launch.load(str(build.build_shared(gen.source, "cuda", flags=NATIVE)), prog.scop,
                         "cuda", transformed=gen.scop)
    reference = builds.build_one(builds.BuildJob(name, builds.REFERENCE))
    oracle = launch.load(reference.path, prog.scop, "reference")
    force = {k: ctypes.c_int.in_dll(k.lib, f"pc_{prog.name}_force") for k in (plain, native)}

    def forced(kernel, value):
        def call(args):
            force[kernel].value = value
            kernel(*args)
        return call

    entries = {"gpu": forced(plain, 1), "host version": forced(plain, 2),
               "rule": forced(plain, 0), "host version, -march=native": forced(native, 2),
               "sequential gcc -O3 -march=native": lambda args: oracle(*args)}
    return prog, entries, plain


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--kernels", default="trisolv,durbin")
    parser.add_argument("--sizes", default="2000,4000", help="values of n")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    report: dict = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": []}
    for name in args.kernels.split(","):
        prog, entries, plain = _entries(name)
        info = suite.by_name(name)
        for n in (int(s) for s in args.sizes.split(",")):
            values = suite.random_args(info, {"n": n}, np.random.default_rng(0))
            times: dict[str, list[float]] = {label: [] for label in entries}
            ran = ""
            for _ in range(args.repeats + 1):  # the first round warms each entry
                for label, call in entries.items():
                    fresh = [v.copy() if isinstance(v, np.ndarray) else v for v in values]
                    start = time.perf_counter()
                    call(fresh)
                    times[label].append(time.perf_counter() - start)
                    if label == "rule":
                        ran = ran_version(prog, plain)
            row = {"kernel": name, "n": n, "rule_ran": ran,
                   "median_ms": {k: statistics.median(v[1:]) * 1e3 for k, v in times.items()},
                   "times_ms": {k: [t * 1e3 for t in v[1:]] for k, v in times.items()}}
            report["rows"].append(row)
            print(json.dumps({k: row[k] for k in ("kernel", "n", "rule_ran", "median_ms")}),
                  flush=True)
            args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
