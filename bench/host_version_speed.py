"""The cliff kernels of issue 41 (sequential codes that run slower on the GPU than on the CPU):
each one's whole drop-in function on the GPU (pc_<name>_force = 1), its host version (the region
as written, in the same library: force 2), what the rule picks (force 0), the same library built
with the host compiler's -march=native too, and the sequential oracle (gcc -O3 -march=native of
the kernel's C), interleaved in one process (scripts.host_calls), inputs as the suite's (uniform [0.5, 1.5), the
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
from polycuda.bench import builds, scripts  # noqa: E402
from polycuda.run import ran_version  # noqa: E402
from polycuda.runtime import build, launch  # noqa: E402

NATIVE = ("-Xcompiler", "-march=native")


def _entries(name: str) -> tuple[dict, dict[str, str]]:
    """The entries timed for kernel `name`, and where the rule's records what it ran."""
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

    ran: dict[str, str] = {}

    def rule(args):  # what the rule picked, read right after its call
        forced(plain, 0)(args)
        ran["rule"] = ran_version(prog, plain)

    entries = {"gpu": forced(plain, 1), "host version": forced(plain, 2),
               "rule": rule, "host version, -march=native": forced(native, 2),
               "sequential gcc -O3 -march=native": lambda args: oracle(*args)}
    return entries, ran


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--kernels", default="trisolv,durbin")
    parser.add_argument("--sizes", default="2000,4000", help="values of n")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    report: dict = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rows": []}
    for name in args.kernels.split(","):
        entries, ran = _entries(name)
        info = suite.by_name(name)
        for n in (int(s) for s in args.sizes.split(",")):
            values = suite.random_args(info, {"n": n}, np.random.default_rng(0))
            times = scripts.host_calls(entries, values, args.repeats)
            row = {"kernel": name, "n": n, "rule_ran": ran["rule"],
                   "median_ms": {k: statistics.median(v) * 1e3 for k, v in times.items()},
                   "times_ms": {k: [t * 1e3 for t in v] for k, v in times.items()}}
            report["rows"].append(row)
            print(json.dumps({k: row[k] for k in ("kernel", "n", "rule_ran", "median_ms")}),
                  flush=True)
            args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
