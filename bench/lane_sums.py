"""Row reduction kernels (codegen/row_reduction_code.py) with 1, 2, 4 and 8 sums per lane
(LANE_SUMS), each kernel launched alone as generated (trmv, gesummv, gemver's row kernel, and
atax's rows with chains off; n = 8192 double), CUDA events, in one run; the outputs of every
variant compared with the one-sum kernel's.

    python bench/lane_sums.py OUT.json
"""
import json
import re
import sys

import cupy as cp
import numpy as np
from cuda_events import helpers, kernel_text, timeit

import polycuda
from polycuda import program
from polycuda.codegen import row_reduction_code
from polycuda.options import Options

N = 8192
KERNELS = {"trmv": {}, "gesummv": {}, "gemver": {}, "atax": {"chain_reductions": False}}
SUMS = (1, 2, 4, 8)


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


out = {"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "n": N, "runs": {}}
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

        def run():
            k(((N + 7) // 8,), (32, 8), tuple(args))
        for a, v in arrays.items():
            v[...] = first[a]
        run(); cp.cuda.Device().synchronize()
        result = {a: cp.asnumpy(v) for a, v in arrays.items()}
        t = timeit(run, reps=30)
        if reference is None:
            reference = result
        t["max_rel_diff_vs_one_sum"] = max(
            float(np.max(np.abs(result[a] - reference[a]) / (np.abs(reference[a]) + 1e-300)))
            for a in result)
        out["runs"][f"{kernel}-sums{sums}"] = t
        print(kernel, sums, f"{t['median_s']*1e3:.4f} ms [{t['min_s']*1e3:.4f}-"
              f"{t['max_s']*1e3:.4f}]", f"diff {t['max_rel_diff_vs_one_sum']:.1e}", flush=True)
json.dump(out, open(sys.argv[1], "w"), indent=1)
