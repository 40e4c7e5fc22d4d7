"""The generated dual reduction kernel of bicg (kernel0 of a .cu written by `polycuda compile
kernels/c/bicg.c --target cuda -o devk.cu`) launched alone on a fixed grid, as generated and in
variants (unrolling, __restrict__), n = m = 8192 double, CUDA events.

    python bench/dual_variants.py OUT.json   (reads devk.cu from the working directory)
"""
import json
import sys

import cupy as cp
import numpy as np
src = open("devk.cu").read()
k0 = src[src.index("__global__ void __launch_bounds__(256) kernel0"):src.index("#define PC_HOST_MAX_BUFFERS")]
sig_plain = "double *A, double *s, double *q, double *p, double *r"
variants = {
    "generated": k0,
    "restrict-all": k0.replace(sig_plain, "double *__restrict__ A, double *__restrict__ s, double *__restrict__ q, double *__restrict__ p, double *__restrict__ r"),
    "const-restrict-read": k0.replace(sig_plain, "const double *__restrict__ A, double *s, double *q, const double *__restrict__ p, const double *__restrict__ r"),
    "no-unroll": k0.replace("#pragma unroll 4", ""),
    "unroll-8": k0.replace("#pragma unroll 4", "#pragma unroll 8"),
    "restrict-unroll-8": k0.replace(sig_plain, "double *__restrict__ A, double *__restrict__ s, double *__restrict__ q, double *__restrict__ p, double *__restrict__ r").replace("#pragma unroll 4", "#pragma unroll 8"),
}
n = m = 8192
rng = np.random.default_rng(1)
A = cp.asarray(rng.random((n, m))); p = cp.asarray(rng.random(m)); r = cp.asarray(rng.random(n))
q_ref = A @ p; s_ref = A.T @ r
out = {"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "n": n, "m": m, "variants": {}}
for name, text in variants.items():
    mod = cp.RawModule(code="#ifndef NULL\n#define NULL 0\n#endif\nextern \"C\" {\n" + text + "\n}", options=("-std=c++17",))
    k = mod.get_function("kernel0")
    s = cp.zeros(m); q = cp.zeros(n)
    def run():
        s.fill(0); q.fill(0)
        k((32, 33), (256,), (np.int32(n), np.int32(m), A, s, q, p, r))
    run(); cp.cuda.Device().synchronize()
    err = max(float(cp.max(cp.abs(q - q_ref) / cp.abs(q_ref))), float(cp.max(cp.abs(s - s_ref) / cp.abs(s_ref))))
    ts = []
    for _ in range(20):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record(); run(); b.record(); b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b) * 1e-3)
    out["variants"][name] = {"median_s": float(np.median(ts)), "min_s": min(ts), "max_s": max(ts), "max_rel_error": err}
    print(name, out["variants"][name], flush=True)
json.dump(out, open(sys.argv[1], "w"), indent=1)
