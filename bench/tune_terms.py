"""Why the tuning model mis-ranks a problem: for one problem of a tune_accuracy JSON, the
fastest measured sampled layouts next to the model's top ones, each with the "extended" fit's
terms (alpha a, beta b, gamma c, lam l of search.model_terms, and d) and the quantities the
model is built from: blocks per SM B (Table 1), its limit, inter-tile wavefronts, tiles,
eq. (10)-(12)'s slowest-SM tile count summed over the wavefronts (wavefronts_work), the mean
tiles on the slowest SM per round (k), scan trips, intra-tile wavefronts and sum G.
Offline (no GPU): the times are the ones in the accuracy JSON.

    python bench/tune_terms.py CALIBRATION.json ACCURACY.json sor_2d:2048 [--show 8]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import polycuda  # noqa: E402
import tune_reevaluate  # noqa: E402
from polycuda.options import Options  # noqa: E402
from polycuda.tune import calibrate, model, occupancy, problem, search  # noqa: E402


def describe(models, key, cal, props, coef, measured: float, best: float) -> str:
    """One line: the layout, its measured time, the model's terms and quantities."""
    row = search.model_terms(models, *key, cal, props)
    km = models[0]  # the SOR kernels have one tiled kernel
    lay = search.kernel_layout(km, *key)
    occ = search.resident(km, lay, props)
    tiles, _ = model._count_arrays(km.problem, lay.tiles)
    rounds = int((-(-tiles // (occ.blocks * props.sm_count))).sum())
    work = model.wavefronts_work(km.problem, lay.tiles, occ.blocks, props.sm_count)
    g, _ = model.intra_wavefronts(lay.tiles, lay.block, km.problem.intra)
    terms = " ".join(f"{c * t * 1e3:6.2f}" for c, t in zip(coef, row[:4]))
    return (f"{str(key):28s} {measured * 1e3:8.3f} ms ({measured / best - 1:+.2f}) model "
            f"{tune_reevaluate.predict(row, coef) * 1e3:8.3f} [a b c l] {terms} d "
            f"{row[4] * 1e3:5.2f} | B {occ.blocks} ({occ.limited_by[:4]}) wavefronts "
            f"{len(tiles)} tiles {int(tiles.sum())} slowest {work:.0f} k {work / rounds:.2f} "
            f"trips {model.scan_trips(lay.tiles, lay.block, km.problem.intra)} intra {len(g)} "
            f"G {int(g.sum())}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("calibration", type=Path)
    parser.add_argument("accuracy", type=Path)
    parser.add_argument("problem", help="KERNEL:N, e.g. sor_2d:2048")
    parser.add_argument("--show", type=int, default=8)
    parser.add_argument("--train-sizes", default="0,2")
    args = parser.parse_args(argv)
    data = json.loads(args.calibration.read_text())
    cal = calibrate.from_json(json.dumps({k: v for k, v in data.items()
                                          if k not in ("fit_runs", "device")}))
    accuracy = json.loads(args.accuracy.read_text())
    props = occupancy.reference_device()
    cases = tune_reevaluate.load_cases(cal, accuracy, props, ROOT / "kernels" / "c")
    train = {int(v) for v in args.train_sizes.split(",")}
    coef = tune_reevaluate.fit([c for c in cases if c.index in train], True)
    kernel, n = args.problem.split(":")
    case = next((c for c in cases if c.kernel == kernel and c.sizes.get("n") == int(n)), None)
    if case is None:
        parser.error(f"no problem {args.problem} in {args.accuracy}")
    entry = next(k for k in accuracy["kernels"] if k["kernel"] == kernel)
    prog = polycuda.compile(str(ROOT / "kernels" / "c" / f"{kernel}.c"),
                            options=Options(target="cuda", scheduler=entry["scheduler"]))
    gen = prog.generate("cuda")
    models = problem.kernel_models(gen, case.sizes, occupancy.kernel_resources(gen.source))
    pred = [tune_reevaluate.predict(r, coef) for r in case.rows]
    best = min(case.times)
    print(f"{args.problem}: extended fit (sizes {sorted(train)}) alpha, beta, gamma, lam = "
          f"{', '.join(f'{c:.3g}' for c in coef)}")
    for title, order in (("fastest measured", np.argsort(case.times)),
                         ("model's top", np.argsort(pred, kind="stable"))):
        print(f"-- {title}")
        for k in order[:args.show]:
            print(describe(models, case.keys[k], cal, props, coef, case.times[k], best))
    return 0


if __name__ == "__main__":
    sys.exit(main())
