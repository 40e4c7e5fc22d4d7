"""Offline re-evaluation of the tuning model against times already measured on a GPU: no GPU
needed (nvcc builds the kernels for their registers). For the problems of a tune_accuracy JSON
it recomputes the model's terms of every sampled layout, fits the coefficients on a training
split of the problems (relative least squares, calibrate.fit_relative) and reports, per
problem and over the held-out problems only:

    mean |e|      mean |predicted / measured - 1| over the sampled layouts
    gap           measured time of the model's choice among the sampled layouts / best - 1
    gap_top5      the fastest of the model's top 5 among the sampled layouts / best - 1

for four models: "old" (the calibration file as measured: simplified-nest fit, Section 3.3),
"paper_refit" (Di & Xue's eqs. 3-12 with alpha, beta, gamma refitted on the training split),
"extended" (plus lam * latency_term, our extension: model.scan_trips) and "extended_lok"
(extended, fitted leaving the evaluated kernel out: every other kernel's problems train it);
and two per-kernel fits, as Di & Xue fit alpha, beta, gamma per loop nest (Section 3.3):

    extended_per_kernel   extended, fitted on the train sizes of the evaluated kernel only
    extended_few_K        extended, fitted on K layouts of the evaluated problem itself (K =
                          FEW_K): the model's top K among its sampled layouts by the GLOBAL
                          extended fit (what `polycuda tune` measures anyway), never chosen
                          by their measured times; then every sampled layout is re-ranked.
                          Also gap_measured (the fastest of those K / best - 1: measuring the
                          top K without a refit) and gap_tune (the fastest of the K and the
                          refit's choice: what tune keeps if it measures that one more).
    extended_few_5_probes extended_few_5 with tune's probes (search.probes) among the sampled
                          layouts also measured and fitted on; gap_tune_both: the fastest of
                          the top 5, the probes and the choices of both refits (with and
                          without the probes), what `polycuda tune --top-k 5` measures.

    python bench/tune_reevaluate.py CALIBRATION.json ACCURACY.json OUT.json \\
        [--train-sizes 0,2] [--write-calibration CAL.json]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import polycuda  # noqa: E402
from polycuda.options import Options  # noqa: E402
from polycuda.tune import calibrate, occupancy, problem, search  # noqa: E402
from polycuda.tune.model import Calibration  # noqa: E402

TOP_K = 5
FEW_K = (5, 10)  # layouts of the evaluated problem measured for extended_few_K


@dataclasses.dataclass
class Case:
    """One problem of the accuracy JSON: its sampled layouts' model terms and times."""

    kernel: str
    sizes: dict
    index: int  # the size's position among its kernel's sizes
    keys: list  # (tiles, block) per layout
    rows: list  # (a, b, c, l, d) per layout
    times: list  # measured seconds per layout


def load_cases(cal: Calibration, accuracy: dict, props, kernel_dir: Path) -> list[Case]:
    """The measured sampled layouts of every problem, with their model terms."""
    cases = []
    for kernel in accuracy["kernels"]:
        prog = polycuda.compile(str(kernel_dir / f"{kernel['kernel']}.c"),
                                options=Options(target="cuda", scheduler=kernel["scheduler"]))
        gen = prog.generate("cuda")
        resources = occupancy.kernel_resources(gen.source)
        for index, p in enumerate(kernel["problems"]):
            models = problem.kernel_models(gen, p["sizes"], resources)
            case = Case(kernel["kernel"], p["sizes"], index, [], [], [])
            for x in p["layouts"]:
                if not (x.get("sampled") and x.get("measured_s")):
                    continue
                key = (tuple(x["tiles"]), tuple(x["block"]))
                try:
                    case.rows.append(search.model_terms(models, *key, cal, props))
                except Exception as err:  # noqa: BLE001 (a layout the model now excludes)
                    print(f"  skipped {key}: {err}", file=sys.stderr)
                    continue
                case.keys.append(key)
                case.times.append(x["measured_s"])
            cases.append(case)
            print(f"{case.kernel} {case.sizes}: {len(case.rows)} sampled layouts", flush=True)
    return cases


def predict(row: tuple, coef: tuple) -> float:
    """alpha a + beta b + gamma c + lam l + d (coef shorter than 4: lam = 0)."""
    *terms, d = row
    return sum(c * t for c, t in zip(coef, terms)) + d


def ranking(case: Case, coef: tuple) -> list[int]:
    """The sampled layouts' positions, fastest first by the model `coef` (ties: by layout)."""
    pred = [predict(r, coef) for r in case.rows]
    return sorted(range(len(pred)), key=lambda k: (pred[k], case.keys[k]))


def summary(case: Case, coef: tuple) -> dict:
    """mean and max |e|, the choice among the sampled layouts, its gap and the top-5 gap."""
    pred = [predict(r, coef) for r in case.rows]
    errors = [abs(p / t - 1) for p, t in zip(pred, case.times)]
    order = ranking(case, coef)
    best = min(case.times)
    choice = order[0]
    return {"mean_abs_rel_error": statistics.fmean(errors), "max_abs_rel_error": max(errors),
            "choice": [list(case.keys[choice][0]), list(case.keys[choice][1])],
            "choice_s": case.times[choice], "best_sampled_s": best,
            "gap": case.times[choice] / best - 1,
            "gap_top5": min(case.times[k] for k in order[:TOP_K]) / best - 1}


def fit(cases: list[Case], extended: bool) -> tuple:
    """(alpha, beta, gamma[, lam]) fitted on `cases` (relative least squares)."""
    rows = [r if extended else (*r[:3], r[4]) for c in cases for r in c.rows]
    return calibrate.fit_relative(rows, [t for c in cases for t in c.times])


def few_summary(case: Case, global_coef: tuple, k: int, probes: bool = False) -> dict:
    """extended_few_k of `case`: (alpha, beta, gamma, lam) fitted (calibrate.fit_relative) on
    the measured times of the model's top k among the sampled layouts, the model being the
    global fit `global_coef` (the layouts `polycuda tune` measures: not chosen by time), then
    summary() of the refitted model over every sampled layout, plus the fitted layouts, their
    coefficients, gap_measured (the fastest of the k / best - 1) and gap_tune (the fastest of
    the k and the refit's choice / best - 1). With `probes`, the fit also has tune's probes
    (search.probes: per term, the sampled layout among the model's best where it weighs
    most; at most search.PROBES), and the gaps count them as measured."""
    order = ranking(case, global_coef)
    used = order[:k]
    if probes:
        pool = order[:search.probe_pool(len(order))]
        picks = [pool[j] for j in search.term_probes([case.rows[i] for i in pool],
                                                       global_coef)]
        used += [i for i in dict.fromkeys(picks) if i not in used][:search.PROBES]
    coef = calibrate.fit_relative([case.rows[i] for i in used], [case.times[i] for i in used])
    out = summary(case, coef)
    best = min(case.times)
    choice = ranking(case, coef)[0]
    out.update(coefficients=dict(zip(("alpha", "beta", "gamma", "lam"), coef)),
               fit_layouts=[[list(case.keys[i][0]), list(case.keys[i][1])] for i in used],
               gap_measured=min(case.times[i] for i in used) / best - 1,
               gap_tune=min(case.times[i] for i in (*used, choice)) / best - 1)
    return out


def evaluate(cases: list[Case], cal: Calibration, train_sizes: set[int]) -> dict:
    """Per-problem summaries of the models and their means over the held-out problems."""
    train = [c for c in cases if c.index in train_sizes]
    fits = {"old": (cal.alpha, cal.beta, cal.gamma, cal.lam),
            "paper_refit": fit(train, False), "extended": fit(train, True)}
    kernels = sorted({c.kernel for c in cases})
    loks = {k: fit([c for c in train if c.kernel != k], True) for k in kernels}
    # Di & Xue fit per loop nest (Section 3.3): here on the kernel's own train sizes
    per_kernel = {k: fit([c for c in train if c.kernel == k], True) for k in kernels}
    problems = []
    for case in cases:
        entry = {"kernel": case.kernel, "sizes": case.sizes, "samples": len(case.rows),
                 "split": "train" if case.index in train_sizes else "held-out"}
        for name, coef in fits.items():
            entry[name] = summary(case, coef)
        entry["extended_lok"] = summary(case, loks[case.kernel])
        entry["extended_per_kernel"] = summary(case, per_kernel[case.kernel])
        for k in FEW_K:
            entry[f"extended_few_{k}"] = few_summary(case, fits["extended"], k)
        probed = few_summary(case, fits["extended"], TOP_K, probes=True)
        # tune measures the choices of both refits: on the top k and probes, on the top k
        probed["gap_tune_both"] = min(probed["gap_tune"], entry[f"extended_few_{TOP_K}"]["gap"])
        entry[f"extended_few_{TOP_K}_probes"] = probed
        # per layout: tiles, block, measured s, extended model s (for bench/tune_plot.py)
        entry["layouts"] = [[list(k[0]), list(k[1]), t, predict(r, fits["extended"])]
                            for k, t, r in zip(case.keys, case.times, case.rows)]
        problems.append(entry)
    held = [p for p in problems if p["split"] == "held-out"]
    overall = {}
    for name in (*fits, "extended_lok", "extended_per_kernel",
                 *(f"extended_few_{k}" for k in FEW_K), f"extended_few_{TOP_K}_probes"):
        overall[name] = {
            "mean_abs_rel_error": statistics.fmean(p[name]["mean_abs_rel_error"] for p in held),
            "mean_gap": statistics.fmean(p[name]["gap"] for p in held),
            "max_gap": max(p[name]["gap"] for p in held),
            "max_gap_top5": max(p[name]["gap_top5"] for p in held)}
        for extra in ("gap_measured", "gap_tune", "gap_tune_both"):
            if extra in held[0][name]:
                overall[name][f"mean_{extra}"] = statistics.fmean(p[name][extra] for p in held)
                overall[name][f"max_{extra}"] = max(p[name][extra] for p in held)
    names = ("alpha", "beta", "gamma", "lam")
    coefficients = {name: dict(zip(names, coef)) for name, coef in fits.items()}
    coefficients["extended_lok"] = {k: dict(zip(names, v)) for k, v in sorted(loks.items())}
    coefficients["extended_per_kernel"] = {k: dict(zip(names, v))
                                           for k, v in sorted(per_kernel.items())}
    return {"coefficients": coefficients, "held_out": overall, "problems": problems}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("calibration", type=Path)
    parser.add_argument("accuracy", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--train-sizes", default="0,2",
                        help="positions of each kernel's sizes to fit on (the rest are held out)")
    parser.add_argument("--kernel-dir", type=Path, default=ROOT / "kernels" / "c")
    parser.add_argument("--write-calibration", type=Path,
                        help="also write the calibration with the extended fit's coefficients")
    args = parser.parse_args(argv)
    data = json.loads(args.calibration.read_text())
    cal = calibrate.from_json(json.dumps({k: v for k, v in data.items()
                                          if k not in ("fit_runs", "device")}))
    accuracy = json.loads(args.accuracy.read_text())
    train_sizes = {int(v) for v in args.train_sizes.split(",")}
    cases = load_cases(cal, accuracy, occupancy.reference_device(), args.kernel_dir)
    result = evaluate(cases, cal, train_sizes)
    for name, row in result["held_out"].items():
        tune = (f"  mean/max gap_tune {row['mean_gap_tune']:.3f}/{row['max_gap_tune']:.3f}"
                if "mean_gap_tune" in row else "")
        if "mean_gap_tune_both" in row:
            tune += (f"  both refits {row['mean_gap_tune_both']:.3f}/"
                     f"{row['max_gap_tune_both']:.3f}")
        print(f"held-out {name:13s} mean |e| {row['mean_abs_rel_error']:.3f}  mean gap "
              f"{row['mean_gap']:.3f}  max gap {row['max_gap']:.3f}  max top-{TOP_K} gap "
              f"{row['max_gap_top5']:.3f}{tune}")
    out = {"gpu": accuracy["gpu"], "measured_in": args.accuracy.name,
           "calibration": args.calibration.name, "train_sizes": sorted(train_sizes),
           "note": "derived offline from times measured on the GPU named here (the accuracy "
                   "file); model terms recomputed on the CPU; coefficients fitted on the "
                   "train split only, errors and gaps over the sampled layouts of each problem",
           **result}
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {args.out}")
    if args.write_calibration:
        alpha, beta, gamma, lam = result["coefficients"]["extended"].values()
        new = dataclasses.replace(cal, alpha=alpha, beta=beta, gamma=gamma, lam=lam, note=(
            f"sigmas measured by polycuda.tune.calibrate; alpha, beta, gamma, lam fitted by "
            f"bench/tune_reevaluate.py on {args.accuracy.name} (sizes {sorted(train_sizes)})"))
        args.write_calibration.write_text(calibrate.to_json(new) + "\n")
        print(f"wrote {args.write_calibration}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
