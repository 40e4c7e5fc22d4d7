"""Offline re-evaluation of the tuning model against measurements already taken on a GPU: refits
alpha, beta, gamma from a calibration file's runs (calibrate.fit), re-ranks the problems of a
tune_accuracy JSON with the old and the refitted calibration, and compares both with the times
measured there (sampled layouts only). No GPU needed; nvcc builds the kernels for their resources.

    python bench/tune_reevaluate.py CALIBRATION.json ACCURACY.json OUT.json
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import sys
from pathlib import Path

import polycuda
from polycuda.options import Options
from polycuda.tune import calibrate, occupancy, problem, search

ROOT = Path(__file__).resolve().parent.parent


def _summary(models, cal, props, measured: dict) -> dict:
    ranked, _ = search.rank(models, cal, props, 60.0)
    predicted = {(r.tiles, r.block): r.model_s for r in ranked}
    keys = [k for k in measured if k in predicted]
    errors = [abs(predicted[k] - measured[k]) / measured[k] for k in keys]
    choice = min(keys, key=lambda k: predicted[k])
    return {"mean_abs_rel_error": statistics.fmean(errors), "max_abs_rel_error": max(errors),
            "choice": [list(choice[0]), list(choice[1])],
            "gap_within_sample": measured[choice] / min(measured.values()) - 1}


def main(argv: list[str]) -> int:
    cal_path, acc_path, out_path = map(Path, argv)
    data = json.loads(cal_path.read_text())
    old = calibrate.from_json(json.dumps({k: v for k, v in data.items()
                                          if k not in ("fit_runs", "device")}))
    props = occupancy.reference_device()
    rows = [calibrate.simplified_terms(old, tuple(r["tiles"]), r["threads"], r["blocks_per_sm"],
                                       props.sm_count) for r in data["fit_runs"]]
    alpha, beta, gamma = calibrate.fit(rows, [r["seconds"] for r in data["fit_runs"]])
    new = dataclasses.replace(old, alpha=alpha, beta=beta, gamma=gamma)
    accuracy = json.loads(acc_path.read_text())
    problems = []
    for kernel in accuracy["kernels"]:
        prog = polycuda.compile(str(ROOT / "kernels" / "c" / f"{kernel['kernel']}.c"),
                                options=Options(target="cuda", scheduler=kernel["scheduler"]))
        gen = prog.generate("cuda")
        resources = occupancy.kernel_resources(gen.source)
        for p in kernel["problems"]:
            measured = {(tuple(x["tiles"]), tuple(x["block"])): x["measured_s"]
                        for x in p["layouts"] if x.get("sampled") and x.get("measured_s")}
            models = problem.kernel_models(gen, p["sizes"], resources)
            problems.append({"kernel": kernel["kernel"], "sizes": p["sizes"],
                             "samples": len(measured),
                             "old": _summary(models, old, props, measured),
                             "refit": _summary(models, new, props, measured)})
            print(problems[-1]["kernel"], p["sizes"], problems[-1]["old"]["gap_within_sample"],
                  problems[-1]["refit"]["gap_within_sample"], flush=True)
    out = {"gpu": accuracy["gpu"], "measured_in": acc_path.name, "calibration": cal_path.name,
           "note": "offline: model predictions recomputed on the CPU, times as measured on the GPU",
           "old": {"alpha": old.alpha, "beta": old.beta, "gamma": old.gamma},
           "refit": {"alpha": alpha, "beta": beta, "gamma": gamma}, "problems": problems}
    out_path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {out_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
