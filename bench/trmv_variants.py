"""The generated row reduction kernel of trmv (kernel0 of a .cu written by `polycuda compile
kernels/c/trmv.c --target cuda -o devk.cu`: a warp per row of the triangle, 8 rows per block)
launched alone, as generated and in variants: the lanes' loop unrolled by 4; 4 accumulators
per lane; groups of rows dealt to a capped grid in zigzag order (block b takes groups b and
2G-1-b, 2G+b, ...: long and short rows of a triangle together); n = 8192 double, CUDA events.

    python bench/trmv_variants.py OUT.json   (reads devk.cu from the working directory)
"""
import json
import sys

import cupy as cp
import numpy as np
from cuda_events import helpers, kernel_text, timeit

src = open("devk.cu").read()
start = src.index("__global__ void __launch_bounds__(256) kernel0")
k0 = kernel_text(src, start)
LOOP = "for (int c1 = 0 + (int)threadIdx.x * 1; (c1 <= c0); c1 += (int)blockDim.x * 1) {"
BODY = "{ pc_cell = &y[c0]; pc_acc += (L[(c0) * (n) + (c1)] * x[c1]); }"
ROWS = ("for (int pc_rows = (int)(blockIdx.x * blockDim.y); ; "
        "pc_rows += (int)(gridDim.x * blockDim.y)) {")
assert LOOP in k0 and BODY in k0 and ROWS in k0, "the generated kernel's text changed"


def unrolled(text):
    return text.replace(LOOP, "#pragma unroll 4\n" + LOOP)


def accumulators(text):
    """Four partial sums per lane, joined after the loop."""
    loop = ("{ pc_cell = &y[c0]; double pc_a[4] = {0, 0, 0, 0}; int c1 = (int)threadIdx.x;\n"
            "for (; c1 + 3 * 32 <= c0; c1 += 4 * 32) {\n"
            "#pragma unroll\n for (int u = 0; u < 4; u++) pc_a[u] += L[(c0) * (n) + (c1 + 32 * u)]"
            " * x[c1 + 32 * u]; }\n"
            "for (; c1 <= c0; c1 += 32) pc_a[0] += L[(c0) * (n) + (c1)] * x[c1];\n"
            "pc_acc = (pc_a[0] + pc_a[1]) + (pc_a[2] + pc_a[3]); }\n if (0) {")
    text = text.replace(LOOP, loop)
    return text.replace(BODY, "")


def zigzag(text):
    """Round k of block b takes group k*G + b (k even) or k*G + G-1-b (k odd)."""
    return text.replace(ROWS, "for (int pc_k = 0; ; pc_k++) {\n"
                        "    const int pc_g = pc_k * (int)gridDim.x + ((pc_k % 2) ? "
                        "(int)gridDim.x - 1 - (int)blockIdx.x : (int)blockIdx.x);\n"
                        "    const int pc_rows = pc_g * (int)blockDim.y;")


variants = {"generated": k0, "unroll4": unrolled(k0), "acc4": accumulators(k0),
            "zigzag": zigzag(k0), "zigzag-acc4": zigzag(accumulators(k0))}
HELPERS = helpers(src)
n = 8192
rng = np.random.default_rng(1)
L = cp.asarray(rng.random((n, n)))
x = cp.asarray(rng.random(n))
y_ref = cp.tril(L) @ x
props = cp.cuda.runtime.getDeviceProperties(0)
sms = props["multiProcessorCount"]
out = {"gpu": props["name"].decode(), "n": n, "variants": {}}


bytes_min = n * (n + 1) // 2 * 8 + 2 * n * 8
groups = n // 8
for name, text in variants.items():
    mod = cp.RawModule(code=HELPERS + 'extern "C" ' + text, options=("-std=c++17",))
    k = mod.get_function("kernel0")
    grids = [groups] if "zigzag" not in name else [sms * 2, sms * 4, sms * 8]
    for grid in grids:
        y = cp.zeros(n)

        def run():
            k((grid,), (32, 8), (np.int32(n), L, x, y))
        run(); cp.cuda.Device().synchronize()
        ok = bool(cp.allclose(y, y_ref, rtol=1e-9))
        t = timeit(run, reps=30)
        t["ok"] = ok
        t["fraction_of_copy"] = bytes_min / t["median_s"] / 2.954e12
        out["variants"][f"{name}-g{grid}"] = t
        print(name, grid, f"{t['median_s']*1e3:.3f} ms", f"{t['fraction_of_copy']*100:.1f}%", ok,
              flush=True)
json.dump(out, open(sys.argv[1], "w"), indent=1)
