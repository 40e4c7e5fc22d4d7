"""Row reduction kernels (codegen/row_reduction_code.py) with 1, 2, 4 and 8 sums per lane
(LANE_SUMS), each kernel launched alone as generated (trmv, gesummv, gemver's row kernel, and
atax's rows with chains off; n = 8192 double), CUDA events, in one run; the outputs of every
variant compared with the first's. `--grids`: each also on grids of that many blocks per SM
(the groups of rows dealt in rounds), 0 for a block per group of rows.

    python bench/lane_sums.py OUT.json [--sums 1,2,4,8] [--grids 0]
"""
import argparse
import json
import re

import cupy as cp
import numpy as np
from cuda_events import helpers, kernel_text, timeit

import polycuda
from polycuda import program
from polycuda.codegen import row_reduction_code
from polycuda.options import Options

N = 8192
KERNELS = {"trmv": {}, "gesummv": {}, "gemver": {}, "atax": {"chain_reductions": False}}
parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("--sums", default="1,2,4,8")
parser.add_argument("--grids", default="0")
args_ = parser.parse_args()
SUMS = tuple(int(s) for s in args_.sums.split(","))
GRIDS = tuple(int(g) for g in args_.grids.split(","))


def row_kernel(source):
    """(name, parameter list, text) of the kernel with a row tree (pc_tree0)."""
    for start in (m.start() for m in re.finditer("__global__ ", source)):
        text = kernel_text(source, start)
        if "pc_tree0" in text:
            head = re.match(r"__global__ void __launch_bounds__\(\d+\) (\w+)\(([^)]*)\)", text)
            name, params = head.groups()
            return name, params, text
    raise AssertionError("no row reduction kernel")


def arguments(prog, params, rng):
    args, arrays = [], {}
    for param in params.split(", "):
        ctype, name = param.rsplit(" ", 1)
        if name.startswith("*"):
            name = name.lstrip("*")
            shape = tuple(N for _ in prog.scop.array(name).shape)
            arrays[name] = cp.asarray(rng.random(shape))
            args.append(arrays[name])
        elif ctype == "int":
            args.append(np.int32(N if name in ("n", "m") else 1))
        else:
            args.append(np.float64(1.5))
    return args, arrays


props = cp.cuda.runtime.getDeviceProperties(0)
out = {"gpu": props["name"].decode(), "n": N, "runs": {}}
for kernel, options in KERNELS.items():
    reference = None
    for sums in SUMS:
        row_reduction_code.LANE_SUMS = sums
        program._generate.cache_clear()
        prog = polycuda.compile(f"kernels/c/{kernel}.c", options=Options(target="cuda", **options))
        source = prog.generate("cuda").source
        name, params, text = row_kernel(source)
        k = cp.RawModule(code=helpers(source) + 'extern "C" ' + text,
                         options=("-std=c++17",)).get_function(name)
        args, arrays = arguments(prog, params, np.random.default_rng(7))
        first = {a: v.copy() for a, v in arrays.items()}

        for per_sm in GRIDS:
            grid = per_sm * props["multiProcessorCount"] or (N + 7) // 8

            def run():
                k((grid,), (32, 8), tuple(args))
            for a, v in arrays.items():
                v[...] = first[a]
            run(); cp.cuda.Device().synchronize()
            result = {a: cp.asnumpy(v) for a, v in arrays.items()}
            t = timeit(run, reps=30)
            if reference is None:
                reference = result
            t["max_rel_diff_vs_first"] = max(
                float(np.max(np.abs(result[a] - reference[a]) / (np.abs(reference[a]) + 1e-300)))
                for a in result)
            t["grid"] = grid
            out["runs"][f"{kernel}-sums{sums}-grid{per_sm}"] = t
            print(kernel, sums, per_sm, f"{t['median_s']*1e3:.4f} ms [{t['min_s']*1e3:.4f}-"
                  f"{t['max_s']*1e3:.4f}]", f"diff {t['max_rel_diff_vs_first']:.1e}", flush=True)
json.dump(out, open(args_.out, "w"), indent=1)
