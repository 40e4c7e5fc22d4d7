"""Plots of a results file (matplotlib, imported lazily: `pip install polycuda[plot]`):
speedup bars per kernel and a roofline chart, as PNG files beside the JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from polycuda.bench.configs import TILE_SEPARATOR
from polycuda.errors import ToolNotFoundError

BASELINE_ORDER = ("sequential", "openmp", "cupy_naive", "cublas")
LABELS = {"sequential": "sequential gcc -O3", "openmp": "OpenMP", "cupy_naive": "naive CuPy",
          "cublas": "cuBLAS"}


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise ToolNotFoundError("plots need matplotlib: pip install 'polycuda[plot]' "
                                "(or pip install matplotlib)") from exc
    return plt


def plot_file(path: Path) -> list[Path]:
    """Draw both plots of the results file `path`; returns the PNG paths."""
    results = json.loads(Path(path).read_text())
    stem = Path(path).with_suffix("")
    paths = [speedup_bars(results, Path(f"{stem}-speedup.png")),
             roofline(results, Path(f"{stem}-roofline.png"))]
    if len(results.get("configs", ())) > 1:
        paths.append(config_bars(results, Path(f"{stem}-configs.png")))
    return paths


def _title(results: dict[str, Any]) -> str:
    gpu = results["machine"].get("gpu")
    return (f"{gpu['name'] if gpu else 'CPU only'}, {results['mode']} sizes, "
            f"{results['machine']['date'][:10]}")


def speedup_bars(results: dict[str, Any], out: Path) -> Path:
    """Grouped bars: the best polycuda configuration's speedup over each baseline, per kernel
    (log scale; kernels without a right polycuda result are left out)."""
    plt = _pyplot()
    kernels = [k for k in results["kernels"] if k.get("best_speedups")]
    present = [b for b in BASELINE_ORDER if any(b in k["best_speedups"] for k in kernels)]
    fig, ax = plt.subplots(figsize=(max(8, 0.55 * len(kernels) + 2), 5))
    width = 0.8 / max(len(present), 1)
    for i, base in enumerate(present):
        xs = [j + (i - (len(present) - 1) / 2) * width for j, k in enumerate(kernels)
              if base in k["best_speedups"]]
        ys = [k["best_speedups"][base] for k in kernels if base in k["best_speedups"]]
        ax.bar(xs, ys, width, label=f"over {LABELS.get(base, base)}")
    ax.set_title(f"polycuda speedups: {_title(results)}")
    return _save_kernel_bars(plt, fig, ax, kernels, "speedup of the best polycuda "
                             "configuration (x)", bool(present), out)


def config_bars(results: dict[str, Any], out: Path) -> Path:
    """Grouped bars in the manner of Di et al. 2012, Figures 12-13: per kernel, each polycuda
    configuration's speedup over sequential gcc -O3 at its best swept tile size (log scale; a
    configuration without a right entry has no bar), the tile sizes written above the bar."""
    plt = _pyplot()
    configs = list(results["configs"])
    kernels = [k for k in results["kernels"] if k.get("speedups")]
    fig, ax = plt.subplots(figsize=(max(8, 0.9 * len(kernels) + 2), 5))
    width = 0.8 / len(configs)
    for i, config in enumerate(configs):
        xs, ys, tiles = [], [], []
        for j, kernel in enumerate(kernels):
            best = (kernel.get("best_by_config") or {}).get(config)
            speedup = kernel["speedups"].get(best, {}).get("sequential") if best else None
            if speedup:
                xs.append(j + (i - (len(configs) - 1) / 2) * width)
                ys.append(speedup)
                tiles.append(best.partition(TILE_SEPARATOR)[2] or "default")
        bars = ax.bar(xs, ys, width, label=config)
        for bar, label in zip(bars, tiles):
            ax.annotate(label, (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                        fontsize=5, rotation=90, ha="center", va="bottom",
                        xytext=(0, 2), textcoords="offset points")
    ax.set_title(f"configurations ({results.get('dtype', 'double')}): {_title(results)}",
                 fontsize="medium")
    return _save_kernel_bars(plt, fig, ax, kernels, "speedup over sequential gcc -O3 (x)",
                             True, out)


def _save_kernel_bars(plt: Any, fig: Any, ax: Any, kernels: list[dict[str, Any]],
                      ylabel: str, legend: bool, out: Path) -> Path:
    """The common finish of the per-kernel bar charts: the 1x line, log scale, kernel names
    under their groups, the legend; written to `out` as PNG."""
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(kernels)))
    ax.set_xticklabels([k["name"] for k in kernels], rotation=60, ha="right")
    ax.set_ylabel(ylabel)
    if legend:
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def roofline(results: dict[str, Any], out: Path) -> Path:
    """Arithmetic intensity (flops per byte of the traffic floor) against achieved GFLOP/s of
    the best polycuda configuration and the GPU baselines, under the bandwidth and FLOP roofs."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(8, 6))
    kernels = results["kernels"]
    markers = {"best": ("o", "polycuda (best configuration)"),
               "cupy_naive": ("s", "naive CuPy"), "cublas": ("^", "cuBLAS")}
    for key, (marker, label) in markers.items():
        entries = [(k, _entry(k, key)) for k in kernels]
        pts = [(k["arithmetic_intensity"], e["gflops_per_s"], k["name"])
               for k, e in entries if e and "gflops_per_s" in e]
        if pts:
            ax.scatter([p[0] for p in pts], [p[1] for p in pts], marker=marker, label=label)
        if key == "best":
            for x, y, name in pts:
                ax.annotate(name, (x, y), fontsize=6, xytext=(3, 3), textcoords="offset points")
    _roofs(ax, results.get("ceilings"), kernels)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("arithmetic intensity (flop / byte of compulsory traffic)")
    ax.set_ylabel("achieved GFLOP/s")
    ax.set_title(f"roofline: {_title(results)}")
    ax.legend(fontsize="small", loc="lower right")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out


def _entry(kernel: dict[str, Any], key: str) -> dict[str, Any] | None:
    name = kernel.get("best") if key == "best" else key
    entry = kernel["entries"].get(name) if name else None
    return entry if entry and entry.get("status") == "ok" else None


def _roofs(ax: Any, ceilings: dict[str, Any] | None, kernels: list[dict[str, Any]]) -> None:
    if not ceilings:
        return
    intensities = [k["arithmetic_intensity"] for k in kernels] or [1.0]
    lo, hi = min(intensities) / 4, max(max(intensities) * 4, 100.0)
    xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    bw = ceilings["copy_bytes_per_s"]
    source = ceilings.get("source", "")
    for key, style in (("dgemm_flops_per_s", "-"), ("sgemm_flops_per_s", ":")):
        peak = ceilings[key]
        ax.plot(xs, [min(bw * x, peak) / 1e9 for x in xs], style, color="gray",
                label=f"roof: {bw / 1e12:.3g} TB/s, {key[:5]} {peak / 1e12:.3g} TFLOP/s "
                      f"({source})")
