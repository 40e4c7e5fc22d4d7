"""Offline re-ranking of layouts already measured on a GPU by the wide sweeps of
bench/tune_suite.py: how well each variant of the DOALL model orders them. No GPU needed (nvcc
builds the kernels for their registers).

For every entry of the given results files whose kernels include a DOALL kernel and whose
sweep measured at least --min-layouts layouts: the model's time of every measured layout (the
sweep's and tune's, register-tiled ones left out: the model has no term for them) under four
variants of the DOALL memory term (model.tile_terms' c and model.total_terms):

    before        the rule of blockDim.x alone, not scaled by resident warps (the model
                  before the coalescing and memory-parallelism extensions)
    coalescing    model.warp_transfers from the accesses' byte strides, not scaled
    parallelism   the rule of blockDim.x alone, scaled by max warps / resident warps
    both          warp_transfers, scaled (what `polycuda tune` uses)

and per variant: Spearman's rho of predicted and measured times, gap1 (the measured time of
the model's first among the measured layouts / the best measured - 1) and gap5 (the fastest
of the model's first five / best - 1); geometric means of 1 + gap over the entries.

    python bench/tune_rerank.py OUT.json FILE.json [FILE.json ...] [--min-layouts 10]
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402

import polycuda  # noqa: E402
from kernels import suite  # noqa: E402
from polycuda.bench import environment  # noqa: E402
from polycuda.bench.configs import dtype_defines  # noqa: E402
from polycuda.errors import PolycudaError  # noqa: E402
from polycuda.options import Options  # noqa: E402
from polycuda.tune import calibrate, occupancy, problem, search  # noqa: E402
from tune_offline import spearman  # noqa: E402 (bench/tune_offline.py)

VARIANTS = {"before": (False, False), "coalescing": (True, False),
            "parallelism": (False, True), "both": (True, True)}


def measured_layouts(entry: dict) -> list[tuple[tuple, tuple, float]]:
    """(tiles, block, ms) of every layout the entry measured, each once (the sweep's first)."""
    found: dict[tuple, float] = {}
    rows = list((entry.get("sweep") or {}).get("measured", []))
    rows += [r for r in (entry.get("tuned") or {}).get("top", [])
             if r.get("tiles") and not r.get("register_tiles")]
    for row in rows:
        key = (tuple(row["tiles"]), tuple(row["block"]))
        if row.get("ms") and key not in found:
            found[key] = row["ms"]
    return [(tiles, block, ms) for (tiles, block), ms in found.items()]


def predicted(models, tiles: tuple, block: tuple, cal, props, coalescing: bool,
              parallelism: bool) -> float:
    """search.estimate under one variant of the DOALL memory term: without the strides
    (Problem.statements dropped) and/or without the resident-warps scaling (max_warps 0)."""
    if not coalescing:
        models = tuple(dataclasses.replace(km, problem=dataclasses.replace(km.problem,
                                                                           statements=()))
                       for km in models)
    return search.estimate(models, tiles, block, cal, props, None if parallelism else 0)


def scores(times: list[float], preds: list[float]) -> dict:
    ms, pred = np.array(times), np.array(preds)
    order, best = np.argsort(pred, kind="stable"), ms.min()
    return {"rho": spearman(list(pred), list(ms)), "gap1": float(ms[order[0]] / best - 1),
            "gap5": float(ms[order[:5]].min() / best - 1)}


def rerank(entry: dict, cal, props) -> dict | None:
    """The entry's scores per variant; None when it has no DOALL kernel."""
    kernel = suite.by_name(entry["kernel"])
    prog = polycuda.compile(str(kernel.c_path), options=Options(target="cuda"),
                            defines=dtype_defines(entry["dtype"]))
    gen = prog.generate("cuda", tile_sizes=(), block_sizes=(), tuned_sizes=False)
    models = problem.kernel_models(gen, entry["sizes"])
    if not any(km.problem.kind == "doall" for km in models):
        return None
    rows = []
    for tiles, block, ms in measured_layouts(entry):
        if search.excluded_by(models, tiles, block, props):
            continue
        rows.append((tiles, block, ms, {name: predicted(models, tiles, block, cal, props, *flags)
                                        for name, flags in VARIANTS.items()}))
    out = {"kernel": entry["kernel"], "sizes": entry["sizes"], "layouts": len(rows),
           "kinds": [km.problem.kind for km in models],
           "with_strides": sum(1 for km in models if km.problem.statements)}
    for name in VARIANTS:
        out[name] = scores([r[2] for r in rows], [r[3][name] for r in rows])
        first = min(rows, key=lambda r: r[3][name])
        out[name]["first"] = {"tiles": list(first[0]), "block": list(first[1]), "ms": first[2]}
    best = min(rows, key=lambda r: r[2])
    out["best"] = {"tiles": list(best[0]), "block": list(best[1]), "ms": best[2]}
    return out


def _geomean(values: list[float]) -> float:
    return float(math.exp(np.mean([math.log(1 + v) for v in values]))) if values else math.nan


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--min-layouts", type=int, default=10)
    args = parser.parse_args(argv)
    props, cal = occupancy.reference_device(), calibrate.reference_calibration()
    entries = []
    for path in args.files:
        data = json.loads(path.read_text())
        for entry in data.get("entries", []):
            if len((entry.get("sweep") or {}).get("measured", [])) < args.min_layouts:
                continue
            try:
                found = rerank(entry, cal, props)
            except PolycudaError as err:
                print(f"{entry['name']}: {err}", file=sys.stderr)
                continue
            if found:
                found.update(file=path.name, commit=data.get("commit"), gpu=data.get("gpu"))
                entries.append(found)
                print(f"{found['kernel']:15s} n={found['layouts']:3d} " + "  ".join(
                    f"{v}: rho {found[v]['rho']:+.2f} gap1 {found[v]['gap1']:.3f} "
                    f"gap5 {found[v]['gap5']:.3f}" for v in VARIANTS), file=sys.stderr)
    summary = {v: {"geomean_gap1": _geomean([e[v]["gap1"] for e in entries]),
                   "geomean_gap5": _geomean([e[v]["gap5"] for e in entries]),
                   "max_gap5": max((e[v]["gap5"] for e in entries), default=math.nan),
                   "mean_rho": float(np.mean([e[v]["rho"] for e in entries]))}
               for v in VARIANTS}
    for v, row in summary.items():
        print(f"{v:12s} " + " ".join(f"{k} {x:.3f}" for k, x in row.items()), file=sys.stderr)
    report = {"date": datetime.date.today().isoformat(), "commit": environment.git_commit(),
              "machine": "CPU only: the times are the files' GPU measurements, re-ranked",
              "calibration": cal.gpu, "variants": list(VARIANTS), "entries": entries,
              "summary": summary}
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
