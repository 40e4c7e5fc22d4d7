"""Per-kernel GPU times of bench/thin_blocks.py's kernels at each of its settings: one call of
the device entry (CuPy arrays) under torch.profiler, whose CUPTI trace holds every kernel the
process launches, ours included; times summed per kernel name. Tells which kernels of a
program gain from smaller blocks and which lose.

Usage (from the repository root, on a GPU with PyTorch):
    python3 bench/thin_kernels_profile.py [--cases adi,deriche] [--out F]
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import thin_blocks

from polycuda.bench import scripts

# fewer time steps than thin_blocks' sizes: the trace holds every launch
CASES = {"adi": {"T": 20, "n": 1000}, "deriche": {"w": 4096, "h": 2160}}


def profile(name: str) -> dict:
    import cupy as cp
    import torch
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    progs = thin_blocks.programs(name)
    host = thin_blocks.inputs(name, CASES[name])
    out = {}
    for setting, prog in progs.items():
        lib = prog.kernel("cuda")
        dev = {k: cp.asarray(v) if isinstance(v, np.ndarray) else v for k, v in host.items()}
        lib(**dev)  # warm: module load, first launches
        cp.cuda.Device().synchronize()
        torch.cuda.synchronize()
        with torch_profile(activities=[ProfilerActivity.CUDA]) as trace:
            lib(**dev)
            cp.cuda.Device().synchronize()
        per = collections.defaultdict(lambda: [0, 0.0])
        for event in trace.events():
            if event.device_type == torch.autograd.DeviceType.CUDA:
                per[event.name][0] += 1
                per[event.name][1] += event.device_time_total / 1e3  # us -> ms
        out[setting] = {k: {"launches": n, "ms": round(ms, 4)} for k, (n, ms) in
                        sorted(per.items(), key=lambda kv: -kv[1][1])}
        print(f"{name} {setting}: " + ", ".join(f"{k} {v['ms']:.2f} ms x{v['launches']}"
                                                 for k, v in list(out[setting].items())[:8]),
              flush=True)
    return {"sizes": CASES[name], "kernels": out}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--out", required=True)
    args = p.parse_args(argv)
    result = {"what": "GPU time per kernel name (torch.profiler, CUPTI) of one call of the "
                      "device entry, per setting of bench/thin_blocks.py",
              **scripts.header(), "settings": {s: list(t) for s, t in
                                               thin_blocks.SETTINGS.items()}, "cases": {}}
    for name in scripts.chosen_names(p, args.cases, CASES):
        result["cases"][name] = profile(name)
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
