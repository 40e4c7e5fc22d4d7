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
RESTRICT = ("double *__restrict__ A, double *__restrict__ s, double *__restrict__ q, "
            "double *__restrict__ p, double *__restrict__ r")
LOOP = "for (int pc_k = 0; pc_k < 32; pc_k++) {"
UNROLLED = "#pragma unroll 4" in k0  # the kernel of 1029238; later ones have no pragma


def unroll(text, k):
    """The batch's row loop unrolled by k (0: not at all)."""
    text = text.replace("#pragma unroll 4\n", "")
    return text.replace(LOOP, f"#pragma unroll {k}\n{LOOP}") if k else text


def hoisted(text):
    """p[c1] read once per column, before the rows (the row statement's read that no row
    changes), as the prototype reads it."""
    text = text.replace("const bool pc_in = (c1 < m);",
                        "const bool pc_in = (c1 < m);\n"
                        "    const double pc_p = pc_in ? p[c1] : 0.0;")
    return text.replace("* p[c1])", "* pc_p)")


def wide(text):
    """The matrix index in 64 bits."""
    return text.replace("A[(c0) * (m) + (c1)]", "A[(long long)(c0) * (m) + (c1)]")


if UNROLLED:  # the call of 2026-11-25's dual-kernel-variants.json
    variants = {
        "generated": k0,
        "restrict-all": k0.replace(sig_plain, RESTRICT),
        "const-restrict-read": k0.replace(sig_plain, "const double *__restrict__ A, double *s, "
                                          "double *q, const double *__restrict__ p, "
                                          "const double *__restrict__ r"),
        "no-unroll": unroll(k0, 0),
        "unroll-8": unroll(k0, 8),
        "restrict-unroll-8": unroll(k0, 8).replace(sig_plain, RESTRICT),
    }
else:
    variants = {
        "generated": k0,
        "hoisted": hoisted(k0),
        "hoisted-unroll-4": unroll(hoisted(k0), 4),
        "restrict-all": k0.replace(sig_plain, RESTRICT),
        "restrict-hoisted": hoisted(k0).replace(sig_plain, RESTRICT),
        "wide-index": wide(k0),
        "hoisted-wide": wide(hoisted(k0)),
        "unroll-2": unroll(k0, 2),
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
