"""Helpers of the hand-run GPU scripts in bench/ (the prototypes and kernel variants): times by
CUDA events, and the pieces of a generated .cu file a CuPy RawModule needs to build one of its
kernels alone.

    from cuda_events import helpers, kernel_text, timeit   (scripts run as python bench/X.py)
"""
import cupy as cp
import numpy as np


def timeit(fn, reps=20, reset=None):
    """Median, least and most seconds of `fn` over `reps` runs (CUDA events around `fn` only;
    `reset`, when given, runs before each, outside the events), after one untimed run."""
    if reset:
        reset()
    fn(); cp.cuda.Device().synchronize()
    ts = []
    for _ in range(reps):
        if reset:
            reset()
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record(); fn(); b.record(); b.synchronize()
        ts.append(cp.cuda.get_elapsed_time(a, b) * 1e-3)
    return {"median_s": float(np.median(ts)), "min_s": float(min(ts)), "max_s": float(max(ts))}


def helpers(source):
    """The pc_floord / pc_min / ... helpers of a generated .cu file."""
    return source[source.index("#ifdef __cplusplus"):source.index("#define PC_CHECK")]


def kernel_text(source, start):
    """The text of the kernel whose definition begins at offset `start`, to its closing brace."""
    return source[start:source.index("\n}\n", start) + 3]
