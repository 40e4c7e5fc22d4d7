"""Where a CUDA region with no parallel loop should run (issue 15, item 1; Options.serial_region):
the whole drop-in function pc_<name> on host arrays with the region on the CPU ("cpu", the
default) against the region in one-thread kernels after the copies in ("gpu"), same run,
interleaved; and pc_<name>_dev on device arrays under both (the one-thread kernels against
the generated rule's choice: the kernels, or the CPU on copies of the arrays).

Every program is verified against the sequential program at small sizes under both settings
first, and at the timed sizes the two settings' results must agree.

Usage (from the repository root, on a GPU):
    python3 bench/serial_region.py [--programs recurrence,chain_2d] [--repeats 5] [--out F]
On the CPU (checks the script and the generated code; times mean nothing):
    python3 bench/serial_region.py --target emulate --small --repeats 2
Writes JSON (default bench/results/<date>-<gpu>-serial-region.json).
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from polycuda.api import compile as compile_c  # noqa: E402
from polycuda.bench import environment, scripts, timing  # noqa: E402
from polycuda.codegen import cuda_host  # noqa: E402
from polycuda.options import Options  # noqa: E402
from polycuda.runtime import arrays, device  # noqa: E402

# name -> (C source, small sizes, timed sizes); each has no parallel loop (checked below)
PROGRAMS = {
    # two first-order recurrences, one through a scalar of the region
    "recurrence": ("""
void recurrence(int n, double x[n], double b[n]) {
#pragma scop
  double s = 0.5;
  for (int i = 1; i < n; i++) {
    s = s * 0.5 + b[i];
    x[i] = x[i - 1] * 0.25 + s;
  }
#pragma endscop
}
""", {"n": 41}, {"n": 1 << 22}),
    # a 2-D sweep in which each element reads its left neighbour and the previous row's last
    # element: one chain through every instance
    "chain_2d": ("""
void chain_2d(int n, int m, double x[n], double A[n][m]) {
#pragma scop
  for (int i = 1; i < n; i++)
    for (int j = 1; j < m; j++)
      A[i][j] = 0.5 * A[i][j - 1] + 0.4 * A[i - 1][m - 1] + 0.1 * x[i];
#pragma endscop
}
""", {"n": 13, "m": 17}, {"n": 2048, "m": 2048}),
    # a recurrence with math functions (more arithmetic per load)
    "math_chain": ("""
#include <math.h>
void math_chain(int n, double x[n], double b[n]) {
#pragma scop
  for (int i = 1; i < n; i++)
    x[i] = sqrt(x[i - 1] + b[i]) * 0.5 + exp(-b[i]);
#pragma endscop
}
""", {"n": 29}, {"n": 1 << 21}),
    # a short chain over large arrays: the host entry's copies dominate the kernels
    "short_chain": ("""
void short_chain(int n, int k, double x[n], double b[n]) {
#pragma scop
  for (int i = 1; i < k; i++)
    x[i] = x[i - 1] * 0.5 + b[i];
#pragma endscop
}
""", {"n": 64, "k": 19}, {"n": 1 << 24, "k": 4096}),
}
SETTINGS = ("gpu", "cpu")


def _program(name: str, setting: str, host_buffers: str = "reuse"):
    source = PROGRAMS[name][0]
    return compile_c(source, filename=f"{name}.c",
                     options=Options(serial_region=setting, tuned_sizes=False,
                                     host_buffers=host_buffers))


def _inputs(scop, sizes: dict, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    out: dict = {}
    for a in scop.args:
        if a.kind == "param":
            out[a.name] = sizes[a.name]
        else:
            shape = arrays.expected_shape(scop.array(a.name), sizes)
            out[a.name] = rng.uniform(0.5, 1.5, shape)
    return out


def _fresh(args: dict) -> dict:
    return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(name: str, target: str, small: bool, repeats: int, host_buffers: str = "reuse"
            ) -> dict:
    progs = {s: _program(name, s, host_buffers) for s in SETTINGS}
    for setting, prog in progs.items():
        kernels = prog.generate("cuda").kernels
        if not cuda_host.serial_region(kernels):
            raise SystemExit(f"{name}: a loop is parallel ({[k.name for k in kernels]})")
        bad = [r for r in prog.verify(dict(PROGRAMS[name][1]), targets=(target,),
                                      raise_on_mismatch=False) if not r.ok]
        if bad:
            raise SystemExit(f"{name}/{setting}: wrong result: {bad[0].message}")
    libs = {s: progs[s].kernel(target) for s in SETTINGS}
    scop = progs["cpu"].scop
    sizes = dict(PROGRAMS[name][1] if small else PROGRAMS[name][2])
    args = _inputs(scop, sizes)
    stats = _interleaved(libs, lambda: _fresh(args), lambda out: out, repeats, 0,
                         f"{name}: pc_{name}")
    section = {"sizes": sizes, "host_entry": stats}
    section["host_entry_gpu_over_cpu"] = (section["host_entry"]["gpu"]["median_s"]
                                          / section["host_entry"]["cpu"]["median_s"])
    if target == "cuda":
        section["device_entry"] = _device_entry(libs, args, repeats)
    return section


def _device_entry(libs: dict, args: dict, repeats: int) -> dict:
    """pc_<name>_dev on CuPy arrays under each setting, interleaved: "gpu" runs the one-thread
    kernels; "cpu" applies the generated rule (kernels, or the CPU on copies of the arrays).
    The results of both must agree."""
    import cupy as cp

    def fresh() -> dict:
        return {k: cp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in args.items()}

    out = _interleaved(libs, fresh, lambda dev: {k: cp.asnumpy(v) for k, v in dev.items()
                                               if isinstance(v, cp.ndarray)},
                       repeats, 1, "device entry", cp.cuda.Device().synchronize)
    out["gpu_over_cpu"] = out["gpu"]["median_s"] / out["cpu"]["median_s"]
    return out


def _interleaved(libs: dict, fresh, arrays, repeats: int, seed: int, what: str,
                 before=lambda: None) -> dict:
    """Each setting's entry (libs) on fresh(): a warm-up call each, whose arrays (arrays(out))
    must agree between the settings; then `repeats` calls each, interleaved in a shuffled
    order (`before` runs outside the timed call). Per setting: the times, median, min, max."""
    outs = {}
    for setting in SETTINGS:
        out = fresh()
        libs[setting](**out)
        outs[setting] = arrays(out)
    for k, v in outs["gpu"].items():
        if isinstance(v, np.ndarray) and not np.allclose(v, outs["cpu"][k], rtol=1e-9,
                                                         atol=1e-12):
            raise SystemExit(f"{what}: {k} differs between the settings")
    def run(setting: str) -> float:
        out = fresh()
        before()
        return _timed(lambda: libs[setting](**out))

    times = timing.interleaved(SETTINGS, run, repeats, seed)
    return {s: {"times_s": t, "median_s": statistics.median(t), "min_s": min(t),
                "max_s": max(t)} for s, t in times.items()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--programs", default=",".join(PROGRAMS))
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--target", choices=("cuda", "emulate"), default="cuda")
    p.add_argument("--small", action="store_true", help="the programs' small sizes")
    p.add_argument("--host-buffers", choices=("reuse", "per-call"), default="reuse",
                   help="Options.host_buffers: per-call makes the device entry's CPU path copy "
                        "through fresh malloc'ed buffers (as before bd330cc), reuse through kept "
                        "page-locked ones")
    p.add_argument("--out", help="JSON file (default bench/results/<date>-<gpu>-serial-region"
                                 ".json)")
    args = p.parse_args(argv)
    names = scripts.chosen_names(p, args.programs, PROGRAMS)
    gpu = device.gpu_info()
    if args.target == "cuda" and gpu is None:
        p.error("no GPU found: use --target emulate --small to check the script on the CPU")
    date = datetime.date.today().isoformat()
    result = {"what": "serial regions: whole drop-in function from host arrays with the region "
                      "on the CPU or in one-thread kernels (perf_counter, interleaved); the "
                      "device entry on CuPy arrays: the kernels (gpu) against the rule (cpu)",
              "date": date, "gpu": gpu.name if gpu else None, "target": args.target,
              "repeats": args.repeats, "host_buffers": args.host_buffers,
              "commit": environment.git_commit(), "programs": {}}
    for name in names:
        print(f"{name} ...", flush=True)
        section = measure(name, args.target, args.small, args.repeats, args.host_buffers)
        result["programs"][name] = section
        host = section["host_entry"]
        print(f"  pc_{name}: cpu {host['cpu']['median_s'] * 1e3:.3f} ms "
              f"[{host['cpu']['min_s'] * 1e3:.3f}, {host['cpu']['max_s'] * 1e3:.3f}], "
              f"gpu {host['gpu']['median_s'] * 1e3:.3f} ms "
              f"[{host['gpu']['min_s'] * 1e3:.3f}, {host['gpu']['max_s'] * 1e3:.3f}]: "
              f"gpu/cpu {section['host_entry_gpu_over_cpu']:.2f}", flush=True)
        if "device_entry" in section:
            d = section["device_entry"]
            print(f"  pc_{name}_dev: rule (cpu) {d['cpu']['median_s'] * 1e3:.3f} ms "
                  f"[{d['cpu']['min_s'] * 1e3:.3f}, {d['cpu']['max_s'] * 1e3:.3f}], kernels "
                  f"(gpu) {d['gpu']['median_s'] * 1e3:.3f} ms "
                  f"[{d['gpu']['min_s'] * 1e3:.3f}, {d['gpu']['max_s'] * 1e3:.3f}]: "
                  f"gpu/cpu {d['gpu_over_cpu']:.2f}", flush=True)
    slug = environment.slug(gpu.name) if gpu else "cpu-emulate"
    out = Path(args.out) if args.out else (Path(__file__).parent / "results"
                                           / f"{date}-{slug}-serial-region.json")
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
