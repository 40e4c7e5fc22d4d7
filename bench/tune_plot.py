"""Predicted against measured time of every sampled layout (Di & Xue 2011, Fig. 6 in spirit):
one panel per kernel of a tune_accuracy JSON, log-log, one colour per problem size, the line
predicted = measured. With --reevaluate (bench/tune_reevaluate.py's output) a second row shows
the refitted, extended model, held-out sizes as filled marks and train sizes as hollow ones.

    python bench/tune_plot.py ACCURACY.json OUT.png [--reevaluate REEVALUATE.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from polycuda.errors import ToolNotFoundError  # noqa: E402


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ToolNotFoundError("tune_plot needs matplotlib: pip install polycuda[plot]") from None
    return plt


def _points(accuracy: dict) -> dict[str, list[tuple[str, list, list, bool]]]:
    """Per kernel: (size label, measured s, model s, held_out) of the sampled layouts."""
    out: dict[str, list] = {}
    for kernel in accuracy["kernels"]:
        for p in kernel["problems"]:
            pairs = [(x["measured_s"], x["model_s"]) for x in p["layouts"]
                     if x.get("sampled") and x.get("measured_s")]
            label = ", ".join(f"{k}={v}" for k, v in p["sizes"].items())
            out.setdefault(kernel["kernel"], []).append(
                (label, [a for a, _ in pairs], [b for _, b in pairs], True))
    return out


def _refit_points(reevaluate: dict) -> dict[str, list[tuple[str, list, list, bool]]]:
    out: dict[str, list] = {}
    for p in reevaluate["problems"]:
        label = ", ".join(f"{k}={v}" for k, v in p["sizes"].items())
        out.setdefault(p["kernel"], []).append(
            (label, [x[2] for x in p["layouts"]], [x[3] for x in p["layouts"]],
             p["split"] == "held-out"))
    return out


def _panel(ax, title: str, series: list) -> None:
    low, high = float("inf"), 0.0
    hidden = 0
    for k, (label, measured, model, held) in enumerate(series):
        # a log axis cannot show the negative predictions of a fit with negative coefficients
        shown = [(m * 1e3, p * 1e3) for m, p in zip(measured, model) if p > 0]
        hidden += len(measured) - len(shown)
        if not shown:
            continue
        xs, ys = zip(*shown)
        color = f"C{k}"
        ax.scatter(xs, ys, s=10, label=label + ("" if held else " (train)"),
                   facecolors=color if held else "none", edgecolors=color, linewidths=0.7)
        low, high = min(low, *xs, *ys), max(high, *xs, *ys)
    if high > 0:
        ax.plot([low, high], [low, high], color="black", linewidth=0.8)
        ax.legend(fontsize=6)
    else:
        ax.text(0.5, 0.5, "no positive prediction", ha="center", transform=ax.transAxes)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("measured (ms)")
    ax.set_ylabel("predicted (ms)")
    ax.set_title(title + (f"\n{hidden} predictions <= 0 not shown" if hidden else ""),
                 fontsize=8)


def plot(accuracy: dict, out: Path, reevaluate: dict | None = None) -> Path:
    """Write the PNG; returns its path.

    Raises:
        ToolNotFoundError: matplotlib is not installed.
        ValueError: the accuracy file holds no measured sampled layout.
    """
    plt = _pyplot()
    old = _points(accuracy)
    if not any(m for series in old.values() for _, m, _, _ in series):
        raise ValueError("no measured sampled layout in the accuracy file")
    rows = 2 if reevaluate else 1
    kernels = list(old)
    fig, axes = plt.subplots(rows, len(kernels), figsize=(4.2 * len(kernels), 3.8 * rows),
                             squeeze=False)
    for col, name in enumerate(kernels):
        _panel(axes[0][col], f"{name}: model as measured ({accuracy['gpu']})", old[name])
    if reevaluate:
        refit = _refit_points(reevaluate)
        held = reevaluate["held_out"]["extended"]["mean_abs_rel_error"]
        for col, name in enumerate(kernels):
            _panel(axes[1][col], f"{name}: extended, refitted (held-out mean |e| {held:.2f})",
                   refit.get(name, []))
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("accuracy", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--reevaluate", type=Path)
    args = parser.parse_args(argv)
    reevaluate = json.loads(args.reevaluate.read_text()) if args.reevaluate else None
    try:
        path = plot(json.loads(args.accuracy.read_text()), args.out, reevaluate)
    except (ToolNotFoundError, ValueError) as err:
        print(f"tune_plot: {err}", file=sys.stderr)
        return 1
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
