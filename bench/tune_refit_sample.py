"""Whether the tuning model's form can rank a kernel right when its coefficients are refitted
on varied layouts: for one entry of a tune_suite JSON, refit alpha, beta, gamma and lam
(calibrate.fit_relative) on every layout that run measured (the sweep's sample, tune's top k,
probes and local search), re-rank the model's admissible layouts with them, and report where
the sweep's best layout lands, against the reference coefficients. Offline (no GPU): the times
are the JSON's; the registers come from nvcc here. Writes JSON beside the source's GPU name.

    python bench/tune_refit_sample.py SUITE.json sor_2d OUT.json [--rank-layouts N]
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import polycuda  # noqa: E402
from polycuda.errors import InvalidConfigError  # noqa: E402
from polycuda.options import Options  # noqa: E402
from polycuda.tune import calibrate, occupancy, problem, search  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("entry")
    parser.add_argument("out", type=Path)
    parser.add_argument("--rank-layouts", type=int, default=search.RANK_LAYOUTS)
    args = parser.parse_args(argv)
    data = json.loads(args.suite.read_text())
    entry = next(e for e in data["entries"] if e["name"] == args.entry)
    prog = polycuda.compile(str(ROOT / "kernels" / "c" / f"{entry['kernel']}.c"),
                            options=Options(target="cuda"))
    props, _ = occupancy.current_device()
    cal = calibrate.load_calibration(None, warn=False)
    gen = prog.generate("cuda", tile_sizes=(), block_sizes=(), tuned_sizes=False)
    models = problem.kernel_models(gen, entry["sizes"])
    runs = entry["sweep"]["measured"] + [m for m in entry["tuned"]["top"] if m["tiles"]]
    rows, times, keys = [], [], []
    for m in runs:
        key = (tuple(m["tiles"]), tuple(m["block"]))
        try:
            rows.append(search.model_terms(models, *key, cal, props))
        except InvalidConfigError:
            continue
        times.append(m["ms"] * 1e-3)
        keys.append(key)
    coef = calibrate.fit_relative(rows, times)
    best = min(zip(times, keys))[1]
    ranked, _ = search.rank(models, cal, props, args.rank_layouts, None)

    def order(c: tuple) -> list[tuple]:
        scored = []
        for r in ranked:
            *terms, d = search.model_terms(models, r.tiles, r.block, cal, props)
            scored.append((sum(a * t for a, t in zip(c, terms)) + d, r.tiles, r.block))
        return [(t, b) for _, t, b in sorted(scored)]

    reference = (cal.alpha, cal.beta, cal.gamma, cal.lam)
    result = {
        "gpu": data["gpu"], "date": datetime.date.today().isoformat(),
        "source": args.suite.name, "entry": args.entry, "measured_layouts": len(keys),
        "ranked": len(ranked), "sweep_best": [list(best[0]), list(best[1])],
        "sweep_best_ms": min(times) * 1e3,
        "reference": dict(zip(("alpha", "beta", "gamma", "lam"), reference)),
        "refitted": dict(zip(("alpha", "beta", "gamma", "lam"), coef)),
    }
    for name, c in (("reference", reference), ("refitted", coef)):
        keyed = order(c)
        result[f"{name}_rank_of_sweep_best"] = (keyed.index(best) + 1 if best in keyed
                                                else None)
        result[f"{name}_top"] = [[list(t), list(b)] for t, b in keyed[:5]]
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps({k: v for k, v in result.items() if "top" not in k}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
