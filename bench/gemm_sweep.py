"""Kernel-only sweep of the PPCG-like BLAS-3 kernels (issue 15, item 4: gemm >= 40% of cuBLAS):
gemm, 2mm, syrk and syr2k compiled with each configuration of tile sizes, block sizes,
register tiles, k tile (--sequential-tile) and shared promotion on/off, run in place on CuPy
arrays (`pc_<name>_dev`, CUDA events, median: no host copies), checked against the sequential
C target with verify's tolerance, and compared with the kernel's cuBLAS form through CuPy
(kernels/naive_cupy.py, as `polycuda bench` times it; syrk as A @ A.T).

    python bench/gemm_sweep.py OUT.json [--n 1024] [--repeats 10] [--kernels gemm,syrk]
    python bench/gemm_sweep.py OUT.json --emulate   # no GPU: each config on the emulator, small

Configs are "label: tiles / blocks / register tiles / k tile / shared" (CONFIGS); `--config
'64,64/16,16/4,4/16/1'` adds one. JSON: GPU name, date, commit, per kernel and config the
median seconds, the fraction of cuBLAS's time, correctness; the best config per kernel.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import subprocess
import sys
import time

import numpy as np

import polycuda
from kernels import naive_cupy, suite
from polycuda.errors import PolycudaError
from polycuda.options import Options
from polycuda.runtime import launch
from polycuda.verify import compare, copy_arguments, random_arguments

# label -> (tile sizes, block sizes, register tiles, k tile, shared promotion); () and k tile 0:
# the defaults
CONFIGS = {
    "default": ((), (), (), 0, False),
    # --shared-promotion alone: the gemm-like default layout (gpu/shared_promotion.py)
    "shared": ((), (), (), 0, True),
    # the earlier shared layout (8x32 tiles, one point per thread), C now carried across k
    "sh8x32-k32": ((8, 32), (), (), 32, True),
    "regs4x4": ((64, 64), (16, 16), (4, 4), 32, False),
    "sh64-r4x4-k16": ((64, 64), (16, 16), (4, 4), 16, True),
    "sh64-r4x4-k32": ((64, 64), (16, 16), (4, 4), 32, True),
    "sh64-r4x4-k8": ((64, 64), (16, 16), (4, 4), 8, True),
    "sh64-r2x4-k16": ((64, 64), (32, 16), (2, 4), 16, True),
    "sh32x64-r2x4-k16": ((32, 64), (16, 16), (2, 4), 16, True),
    "sh128x64-r8x4-k8": ((128, 64), (16, 16), (8, 4), 8, True),
    "sh64-r4x2-k16": ((64, 64), (16, 32), (4, 2), 16, True),
    "sh32-r2x2-k32": ((32, 32), (16, 16), (2, 2), 32, True),
}
KERNELS = ("gemm", "two_mm", "syrk", "syr2k")


def _syrk(n, m, alpha, beta, C, A, xp=None):
    C[...] = xp.tril(alpha * (A @ A.T) + beta * C) + xp.triu(C, 1)


def _reference(name: str):
    """The cuBLAS (CuPy) form of the kernel: fn(*args in C order, xp=cupy)."""
    if name == "syrk":
        return _syrk
    return getattr(naive_cupy, suite.by_name(name).cupy_blas)


def _options(config: tuple, target: str) -> Options:
    tiles, blocks, regs, k_tile, shared = config
    return Options(target=target, tile_sizes=tiles, block_sizes=blocks, register_tiles=regs,
                   sequential_tile=k_tile, shared_promotion=shared, tuned_sizes=False)


def _parse_config(text: str) -> tuple:
    parts = text.split("/")
    if len(parts) != 5:
        raise SystemExit(f"--config {text!r}: tiles/blocks/regs/k/shared, "
                         "e.g. 64,64/16,16/4,4/16/1")

    def ints(part: str) -> tuple[int, ...]:
        return tuple(int(x) for x in part.split(",") if x)

    return ints(parts[0]), ints(parts[1]), ints(parts[2]), int(parts[3]), parts[4] == "1"


def _sizes(name: str, n: int) -> dict[str, int]:
    return {p: n for p in suite.by_name(name).small}


def _arguments(name: str, prog: polycuda.Program, sizes: dict[str, int]) -> dict:
    args = random_arguments(prog.scop, sizes, seed=1)
    for scalar, value in suite.by_name(name).scalars.items():
        args[scalar] = value
    return args


def _on_gpu(prog: polycuda.Program, args: dict, repeats: int) -> tuple[dict, float]:
    import cupy as cp

    kernel = prog.kernel("cuda")
    dev = {k: (cp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    ordered = [dev[a.name] for a in prog.scop.args]
    kernel(*ordered)  # the checked run
    cp.cuda.Device().synchronize()
    result = {k: (cp.asnumpy(v) if isinstance(v, cp.ndarray) else v) for k, v in dev.items()}
    return result, statistics.median(launch.time_calls(kernel, ordered, repeats=repeats))


def _cublas_seconds(name: str, prog: polycuda.Program, args: dict, repeats: int) -> float:
    import cupy as cp

    fn = _reference(name)
    values = [cp.asarray(args[a.name]) if isinstance(args[a.name], np.ndarray)
              else args[a.name] for a in prog.scop.args]
    fn(*values, xp=cp)
    times = []
    for _ in range(repeats):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn(*values, xp=cp)
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return statistics.median(times)


def _run(name: str, configs: dict[str, tuple], n: int, repeats: int, emulate: bool) -> dict:
    kernel = suite.by_name(name)
    sizes = _sizes(name, n)
    base = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(target="c"))
    args = _arguments(name, base, sizes)
    expected = copy_arguments(args)
    base.kernel("c")(*[expected[a.name] for a in base.scop.args])
    rows = {}
    for label, config in configs.items():
        row: dict = {"config": {"tile_sizes": config[0], "block_sizes": config[1],
                                "register_tiles": config[2], "sequential_tile": config[3],
                                "shared_promotion": config[4]}}
        try:
            prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                                    options=_options(config, "cuda"))
            generated = prog.generate("cuda")
            row["shared"] = {k.name: [a.array for a in k.shared.arrays]
                             for k in generated.kernels if k.shared is not None}
            row["carried"] = {k.name: [e.array for e in k.carried]
                              for k in generated.kernels if k.carried}
            if emulate:
                result = prog.verify(sizes, targets=("emulate",), raise_on_mismatch=False)
                row["correct"] = all(r.ok for r in result)
            else:
                actual, seconds = _on_gpu(prog, copy_arguments(args), repeats)
                check = compare(prog.scop, "cuda", expected, actual)
                row.update(correct=check.ok, worst_relative_error=check.worst, gpu_s=seconds)
        except PolycudaError as err:
            row.update(correct=False, error=str(err)[:300])
        rows[label] = row
        print(name, label, json.dumps({k: v for k, v in row.items() if k != "config"}),
              flush=True)
    out = {"sizes": sizes, "configs": rows}
    if not emulate:
        out["cublas_s"] = _cublas_seconds(name, base, args, repeats)
        for row in rows.values():
            if "gpu_s" in row:
                row["fraction_of_cublas"] = out["cublas_s"] / row["gpu_s"]
        timed = {k: r for k, r in rows.items() if r.get("correct") and "gpu_s" in r}
        if timed:
            out["best"] = min(timed, key=lambda k: timed[k]["gpu_s"])
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--n", type=int, default=1024, help="every size parameter (1024)")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--kernels", default=",".join(KERNELS))
    parser.add_argument("--config", action="append", default=[],
                        help="an extra config tiles/blocks/regs/k/shared, e.g. "
                             "64,64/16,16/4,4/16/1")
    parser.add_argument("--only", help="comma-separated labels of CONFIGS to run")
    parser.add_argument("--emulate", action="store_true",
                        help="no GPU: check each config on the emulator at --n (use ~65)")
    opts = parser.parse_args(argv)
    configs = dict(CONFIGS)
    if opts.only:
        configs = {k: v for k, v in configs.items() if k in opts.only.split(",")}
    for text in opts.config:
        configs[text] = _parse_config(text)
    gpu = "emulator" if opts.emulate else subprocess.run(
        ["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
        text=True, check=False).stdout.strip()
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=False).stdout.strip()
    start = time.perf_counter()
    results = {name: _run(name, configs, opts.n, opts.repeats, opts.emulate)
               for name in opts.kernels.split(",")}
    all_ok = all(r.get("correct") for k in results.values() for r in k["configs"].values())
    report = {"gpu": gpu, "commit": commit, "date": datetime.date.today().isoformat(),
              "n": opts.n, "repeats": opts.repeats, "all_correct": all_ok,
              "seconds": time.perf_counter() - start, "kernels": results}
    with open(opts.out, "w") as f:
        json.dump(report, f, indent=2)
    for name, res in results.items():
        if "best" in res:
            best = res["configs"][res["best"]]
            print(f"{name}: best {res['best']} {best['gpu_s'] * 1e3:.3f} ms, cuBLAS "
                  f"{res['cublas_s'] * 1e3:.3f} ms ({100 * best['fraction_of_cublas']:.0f}%)")
    print(f"wrote {opts.out}; all correct: {all_ok}")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
