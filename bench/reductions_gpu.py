"""Reduction loops on a real GPU (issue 15, item 3): a long dot product and a long product,
float and double, as one block of 256 threads (--reduction-blocks 1, the kernel before many-
block reductions), on many blocks with atomics (the default) and on many blocks with the
partial-array pass (--reduction-combine pass); checked against the sequential C target with
verify's tolerance (2 eps L) and timed on device arrays (CUDA events, median), against CuPy's
dot product (cuBLAS) as the reference point.

    python bench/reductions_gpu.py OUT.json [--quick] [--repeats 10]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys

import numpy as np

import polycuda
from polycuda.bench import scripts, timing
from polycuda.options import Options
from polycuda.runtime import launch
from polycuda.verify import compare, copy_arguments

DOT = """
void dot(int n, {t} x[n], {t} y[n], {t} s[1])
{{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    s[0] += x[i] * y[i];
#pragma endscop
}}
"""
PRODUCT = """
void product(int n, {t} x[n], {t} y[n], {t} s[1])
{{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    s[0] *= 1 + (x[i] - y[i]) / n;
#pragma endscop
}}
"""
CONFIGS = {"one-block": {"reduction_blocks": 1}, "atomics": {},
           "pass": {"reduction_combine": "pass"}}


def _arguments(n: int, dtype: str) -> dict:
    rng = np.random.default_rng(0)
    np_type = np.float32 if dtype == "float" else np.float64
    return {"n": n, "x": rng.uniform(0.5, 1.5, n).astype(np_type),
            "y": rng.uniform(0.5, 1.5, n).astype(np_type), "s": np.ones(1, np_type)}


def _on_gpu(prog: polycuda.Program, args: dict, repeats: int) -> tuple[dict, float]:
    import cupy as cp

    kernel = prog.kernel("cuda")
    dev = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    ordered = [dev[a.name] for a in prog.scop.args]
    kernel(*ordered)
    cp.cuda.Device().synchronize()
    result = {k: (cp.asnumpy(v) if isinstance(v, cp.ndarray) else v) for k, v in dev.items()}
    # s changes on every call: the time does not depend on its value
    return result, statistics.median(launch.time_calls(kernel, ordered, repeats=repeats))


def _cupy_dot(args: dict, repeats: int) -> float:
    import cupy as cp

    x, y = cp.asarray(args["x"]), cp.asarray(args["y"])
    cp.dot(x, y)
    times = timing.time_events(lambda: cp.dot(x, y), repeats, cp)
    return statistics.median(times)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--quick", action="store_true", help="2^20 iterations (a smoke test)")
    parser.add_argument("--repeats", type=int, default=10)
    opts = parser.parse_args(argv)
    rows, all_ok = [], True
    for n in ([1 << 20] if opts.quick else [1 << 20, 1 << 24, 1 << 26]):
        for dtype in ("float", "double"):
            for label, template in (("dot", DOT), ("product", PRODUCT)):
                args = _arguments(n, dtype)
                base = polycuda.compile(template.format(t=dtype), filename=f"{label}.c")
                expected = copy_arguments(args)
                base.kernel("c")(*[expected[a.name] for a in base.scop.args])
                for config, changes in CONFIGS.items():
                    prog = polycuda.compile(template.format(t=dtype), filename=f"{label}.c",
                                            options=Options(target="cuda", **changes))
                    actual, seconds = _on_gpu(prog, copy_arguments(args), opts.repeats)
                    check = compare(prog.scop, "cuda", expected, actual)
                    row = {"case": label, "dtype": dtype, "n": n, "config": config,
                           "correct": check.ok, "worst_relative_error": check.worst,
                           "gpu_s": seconds, "bandwidth_GBps":
                               2 * n * args["x"].itemsize / seconds / 1e9}
                    if label == "dot" and config == "atomics":
                        row["cupy_dot_s"] = _cupy_dot(args, opts.repeats)
                    all_ok &= check.ok
                    rows.append(row)
                    print(json.dumps(row), flush=True)
    report = {**scripts.header(),
              "quick": opts.quick, "all_correct": all_ok, "cases": rows}
    return scripts.write_report(opts.out, report, all_ok)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
