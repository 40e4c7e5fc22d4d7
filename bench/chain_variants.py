"""The generated chained reduction kernel of atax (kernel0 of a .cu written by `polycuda compile
kernels/c/atax.c --target cuda -o devk.cu`) launched alone, a block per SM, as generated and in
variants (__restrict__ on the arrays only read, the row's sum broadcast through shared memory
instead of the cell's reload), n = m = 8192 double, CUDA events; with the hand-written
prototype's register kernel (bench/chain_prototype.py, c4) in the same run.

    python bench/chain_variants.py OUT.json   (reads devk.cu from the working directory)
"""
import json
import sys

import cupy as cp
import numpy as np
from cuda_events import helpers, kernel_text, timeit

src = open("devk.cu").read()
start = src.index("__global__ void __launch_bounds__(1024) kernel0")
k0 = kernel_text(src, start)
SIG = "int m, int n, double *A, double *x, double *y, double *tmp"
READ_ONLY = ("int m, int n, const double *__restrict__ A, const double *__restrict__ x, "
             "double *y, double *tmp")
RELOAD = "pc_col[pc_k] += (pc_m0[pc_k] * tmp[c0]);"


def broadcast(text):
    """The cell's new value kept by thread 0 in shared memory; C's terms read it there."""
    text = text.replace("__shared__ double pc_warpsums[32];",
                        "__shared__ double pc_warpsums[32];\n  __shared__ double pc_cell;")
    text = text.replace("if ((c1 < n)) tmp[c0] += pc_term;",
                        "if ((c1 < n)) { tmp[c0] += pc_term; pc_cell = tmp[c0]; }")
    return text.replace(RELOAD, "pc_col[pc_k] += (pc_m0[pc_k] * pc_cell);")


assert SIG in k0 and RELOAD in k0, "the generated kernel's text changed"
variants = {"generated": k0, "read-only-restrict": k0.replace(SIG, READ_ONLY),
            "broadcast": broadcast(k0), "both": broadcast(k0.replace(SIG, READ_ONLY))}
HELPERS = helpers(src)
n = m = 8192
rng = np.random.default_rng(1)
A = cp.asarray(rng.random((m, n)))
x = cp.asarray(rng.random(n))
tmp0 = cp.asarray(rng.random(m))
tmp_ref = tmp0 + A @ x
y_ref = A.T @ tmp_ref
props = cp.cuda.runtime.getDeviceProperties(0)
sms = props["multiProcessorCount"]
out = {"gpu": props["name"].decode(), "n": n, "m": m, "grid": sms, "variants": {}}


bytes_min = A.nbytes + 4 * n * 8
for name, text in variants.items():
    mod = cp.RawModule(code=HELPERS + 'extern "C" ' + text, options=("-std=c++17",))
    k = mod.get_function("kernel0")
    y = cp.zeros(n); tmp = tmp0.copy()

    def reset():
        y.fill(0); tmp[...] = tmp0

    def run():
        k((sms,), (1024,), (np.int32(m), np.int32(n), A, x, y, tmp))
    reset(); run(); cp.cuda.Device().synchronize()
    ok = bool(cp.allclose(y, y_ref, rtol=1e-9) and cp.allclose(tmp, tmp_ref, rtol=1e-9))
    t = timeit(run, reps=30, reset=reset)
    t["ok"] = ok
    t["fraction_of_copy"] = bytes_min / t["median_s"] / 2.954e12
    out["variants"][name] = t
    print(name, f"{t['median_s']*1e3:.3f} ms",
          f"{t['fraction_of_copy']*100:.1f}%", ok, flush=True)
json.dump(out, open(sys.argv[1], "w"), indent=1)
