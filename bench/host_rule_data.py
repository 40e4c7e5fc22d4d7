"""The host rule's data (issue 41 item 2): for each kernel at each of PolyBench's datasets, the
whole drop-in function (default options) with its kernels forced (pc_<name>_force = 1), with its
host version forced (2), as the rule picks (0), and the sequential oracle (gcc -O3 -march=native
of the kernel's C), timed interleaved in one process (timing.interleaved, each entry's arguments
checked once and reused, as bench times them) on the bench's random inputs, each result checked
against the oracle's; beside them what the rule reads at those sizes
(gpu.cost.HostChoice.terms) and its two estimates, so that its constants can be fitted offline.

    python bench/host_rule_data.py OUT.json [--kernels gemm,lu] [--datasets MINI,SMALL]
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

from polycuda.bench import builds, harness, scripts, timing  # noqa: E402
from polycuda.bench.configs import CONFIG_OPTIONS  # noqa: E402
from polycuda.bench.datasets import DATASETS  # noqa: E402
from polycuda.bench.sizes import ppcg_kernels, sizes_for  # noqa: E402
from polycuda.codegen.host_choice import RAN_GPU, RAN_HOST  # noqa: E402
from polycuda.options import Options  # noqa: E402
from polycuda.pipeline import region_host_choice  # noqa: E402
from polycuda.runtime import launch  # noqa: E402
from polycuda.verify import TOLERANCES  # noqa: E402

FORCED = {"gpu": 1, "host version": 2, "rule": 0}


def _agree(got: list, want: list) -> bool:
    rtol, atol = TOLERANCES["double"]
    return all(np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
               for g, w in zip(got, want) if isinstance(w, np.ndarray))


def kernel_rows(name: str, built: dict, datasets: list[str], repeats: int) -> list[dict]:
    """One row per dataset of kernel `name` (its libraries in `built`)."""
    kernel = harness.select_kernels((name,))[0]
    cuda = built[(name, "cuda", "default")]
    reference = built[(name, builds.REFERENCE, None)]
    if cuda.path is None or reference.path is None:
        return [{"kernel": name, "error": cuda.error or reference.error}]
    case = harness.make_case(kernel, kernel.small, 0)
    lib = launch.load(cuda.path, case.scop, "cuda")
    oracle = launch.load(reference.path, case.scop, "reference")
    force = ctypes.c_int.in_dll(lib.lib, f"pc_{case.scop.name}_force")
    ran = ctypes.c_int.in_dll(lib.lib, f"pc_{case.scop.name}_ran")
    choice = region_host_choice(case.scop, Options(**CONFIG_OPTIONS["default"]))
    rows = []
    for dataset in datasets:
        sizes = sizes_for(kernel, "ppcg", dataset=dataset)
        inputs = case.inputs(sizes)
        values = [inputs[a.name] for a in case.scop.args]
        want = [v.copy() if isinstance(v, np.ndarray) else v for v in values]
        oracle(*want)

        right = {}
        for label, value in FORCED.items():
            got = [v.copy() if isinstance(v, np.ndarray) else v for v in values]
            force.value = value
            lib(*got)
            right[label] = _agree(got, want)
        rule_ran = {RAN_GPU: "gpu", RAN_HOST: "host"}.get(ran.value, str(ran.value))
        # each entry on its own copy, its arguments checked once (as bench times them), so
        # that the times hold no Python-side checks
        prepared = {label: lib.prepare(*[v.copy() if isinstance(v, np.ndarray) else v
                                         for v in values]) for label in FORCED}
        prepared["sequential"] = oracle.prepare(*[v.copy() if isinstance(v, np.ndarray)
                                                  else v for v in values])

        def run(label: str) -> float:
            force.value = FORCED.get(label, 0)
            start = time.perf_counter()
            prepared[label]()
            return time.perf_counter() - start

        timing.interleaved(list(prepared), run, 1)
        times = timing.interleaved(list(prepared), run, repeats)
        terms = choice.terms(sizes) if choice else None
        estimates = choice.estimates(sizes) if choice else None
        row = {"kernel": name, "dataset": dataset, "sizes": sizes, "rule_ran": rule_ran,
               "right": right, "terms": terms,
               "estimates_ns": {"host": estimates[0], "gpu": estimates[1]} if estimates else None,
               "median_us": {k: statistics.median(v) * 1e6 for k, v in times.items()},
               "times_us": {k: [t * 1e6 for t in v] for k, v in times.items()}}
        print(json.dumps({k: row[k] for k in ("kernel", "dataset", "rule_ran", "median_us")}),
              flush=True)
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--kernels", default=",".join(ppcg_kernels("double")))
    parser.add_argument("--datasets", default="MINI,SMALL,MEDIUM")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--jobs", type=int)
    args = parser.parse_args(argv)
    names = args.kernels.split(",")
    datasets = scripts.chosen_names(parser, args.datasets, DATASETS)
    jobs = [builds.BuildJob(n, t, c) for n in names
            for t, c in ((builds.REFERENCE, None), ("cuda", "default"))]
    built = builds.build_all(jobs, args.jobs)
    report = {**scripts.header(), "options": "default", "datasets": datasets, "rows": []}
    for name in names:
        report["rows"] += kernel_rows(name, built, datasets, args.repeats)
        args.out.write_text(json.dumps(report, indent=1) + "\n")
    all_right = all(all(r.get("right", {}).values()) and "error" not in r
                    for r in report["rows"])
    return scripts.write_report(str(args.out), report, all_right)


if __name__ == "__main__":
    raise SystemExit(main())
