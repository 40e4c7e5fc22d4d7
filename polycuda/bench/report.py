"""Derived figures of a results dict (rates, fractions of the ceilings, speedups), the terminal
table and the one-paragraph summary for the README."""

from __future__ import annotations

import math
from typing import Any

SUMMARY_BASELINES = (("sequential", "sequential gcc -O3"), ("openmp", "OpenMP"),
                     ("cupy_naive", "naive CuPy"))
SHORT = {"sequential": "seq", "openmp": "omp", "cupy_naive": "naive", "cublas": "cuBLAS"}
# The arithmetic ceiling of compute-bound kernels follows the element type.
FLOP_CEILING = {"double": "dgemm_flops_per_s", "float": "sgemm_flops_per_s"}
CEILING_SHORT = {"copy_bytes_per_s": "bw", "dgemm_flops_per_s": "dgemm",
                 "sgemm_flops_per_s": "sgemm"}


def _ok(entry: dict[str, Any] | None) -> bool:
    return entry is not None and entry["status"] == "ok" and entry.get("median_s") is not None


def derive_entry(entry: dict[str, Any], kernel: dict[str, Any],
                 ceilings: dict[str, Any] | None, dtype: str = "double") -> None:
    """Add GFLOP/s, GB/s and the fraction of the relevant ceiling to one measured entry (copy
    bandwidth, or the dgemm / sgemm rate of the run's `dtype`)."""
    if not _ok(entry):
        return
    seconds = entry["median_s"]
    entry["gflops_per_s"] = kernel["flops_per_run"] / seconds / 1e9
    entry["gbytes_per_s"] = kernel["bytes_per_run"] / seconds / 1e9
    if not ceilings:  # CPU-only run: the GPU's ceilings do not apply
        return
    if kernel["memory_bound"]:
        entry["ceiling"] = "copy_bytes_per_s"
        entry["fraction_of_ceiling"] = entry["gbytes_per_s"] * 1e9 / ceilings["copy_bytes_per_s"]
    else:
        entry["ceiling"] = FLOP_CEILING[dtype]
        entry["fraction_of_ceiling"] = entry["gflops_per_s"] * 1e9 / ceilings[entry["ceiling"]]


def derive_kernel(kernel: dict[str, Any], ceilings: dict[str, Any] | None,
                  dtype: str = "double") -> None:
    """Rates of every entry; `best` (fastest polycuda configuration that is right), speedups
    of each configuration over each baseline (baseline time / configuration time)."""
    entries = kernel["entries"]
    for entry in entries.values():
        derive_entry(entry, kernel, ceilings, dtype)
    configs = {n: e for n, e in entries.items() if e["role"] == "config" and _ok(e)}
    baselines = {n: e for n, e in entries.items() if e["role"] == "baseline" and _ok(e)}
    kernel["speedups"] = {c: {b: be["median_s"] / ce["median_s"] for b, be in baselines.items()}
                          for c, ce in configs.items()}
    best = min(configs, key=lambda c: configs[c]["median_s"]) if configs else None
    kernel["best"] = best
    kernel["best_speedups"] = dict(kernel["speedups"][best]) if best else {}


def derive(results: dict[str, Any]) -> dict[str, Any]:
    """Fill in the derived figures of every kernel and the summary; returns `results`."""
    for kernel in results["kernels"]:
        derive_kernel(kernel, results["ceilings"], results.get("dtype", "double"))
    results["summary"] = summary_figures(results)
    results["summary_text"] = summary(results)
    return results


def geomean(values: list[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def summary_figures(results: dict[str, Any]) -> dict[str, Any]:
    """Geometric-mean speedups of the best configuration over each baseline, and its fraction
    of cuBLAS (cuBLAS time / polycuda time) on gemm and over the kernels with cuBLAS."""
    figures: dict[str, Any] = {}
    kernels = results["kernels"]
    for name, _ in SUMMARY_BASELINES:
        values = [k["best_speedups"][name] for k in kernels if name in k.get("best_speedups", {})]
        figures[f"geomean_speedup_over_{name}"] = geomean(values)
        figures[f"kernels_over_{name}"] = len(values)
    blas = {k["name"]: k["best_speedups"]["cublas"] for k in kernels
            if "cublas" in k.get("best_speedups", {})}
    figures["fraction_of_cublas_gemm"] = blas.get("gemm")
    figures["geomean_fraction_of_cublas"] = geomean(list(blas.values()))
    figures["kernels_with_cublas"] = len(blas)
    statuses = [e["status"] for k in kernels for e in k["entries"].values()]
    figures["failed"] = statuses.count("FAILED")
    figures["skipped"] = statuses.count("skipped")
    return figures


def _times(value: float | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.3g}x" if value < 100 else f"{value:.0f}x"


def summary(results: dict[str, Any]) -> str:
    """The README summary: geometric-mean speedups of the best polycuda configuration over
    sequential gcc -O3, OpenMP and naive CuPy, and its fraction of cuBLAS on gemm."""
    fig = results.get("summary") or summary_figures(results)
    gpu = (results.get("machine") or {}).get("gpu")
    where = gpu["name"] if gpu else "the CPU (no GPU)"
    configs = ", ".join(results.get("configs", ()))
    parts = [f"{label} {_times(fig[f'geomean_speedup_over_{name}'])} "
             f"({fig[f'kernels_over_{name}']} kernels)"
             for name, label in SUMMARY_BASELINES if fig[f"kernels_over_{name}"]]
    text = (f"polycuda (best of {configs} per kernel) on {where}, {results.get('mode')} sizes, "
            f"{results.get('dtype', 'double')}: "
            f"geometric-mean speedup over {', over '.join(parts) or 'no baseline'}")
    if fig["kernels_with_cublas"]:
        gemm = fig["fraction_of_cublas_gemm"]
        text += (f"; gemm at {_pct(gemm)} of cuBLAS (geometric mean {_pct(fig['geomean_fraction_of_cublas'])}"
                 f" over {fig['kernels_with_cublas']} kernels with a cuBLAS form)")
    text += f". Entries FAILED: {fig['failed']}, skipped: {fig['skipped']}."
    return text


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.3g}%"


def _ms(entry: dict[str, Any] | None) -> str:
    if entry is None:
        return "-"
    if entry["status"] != "ok":
        return entry["status"]
    ms = entry["median_s"] * 1e3
    return f"{ms:.0f}" if ms >= 1000 else f"{ms:.4g}"


def table(results: dict[str, Any]) -> str:
    """The terminal table: median milliseconds per entry, the best configuration, its speedup
    over each baseline and its fraction of the ceiling; footnotes give each failure's reason."""
    kernels = results["kernels"]
    names: list[str] = []
    for kernel in kernels:
        names += [n for n in kernel["entries"] if n not in names]
    baselines = [n for n in names if any(k["entries"].get(n, {}).get("role") == "baseline"
                                         for k in kernels)]
    head = (["kernel"] + [SHORT.get(n, n) + " ms" for n in names] + ["best"]
            + [f"x{SHORT.get(b, b)}" for b in baselines] + ["ceiling"])
    rows = [head]
    for k in kernels:
        best = k.get("best")
        entry = k["entries"].get(best) if best else None
        frac = entry.get("fraction_of_ceiling") if entry else None
        rows.append([k["name"]] + [_ms(k["entries"].get(n)) for n in names] + [best or "-"]
                    + [_times(k["best_speedups"].get(b)) if b in k["best_speedups"] else "-"
                       for b in baselines]
                    + [f"{_pct(frac)} {CEILING_SHORT[entry['ceiling']]}" if entry and frac
                       else "-"])
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in
                       enumerate(zip(row, widths))) for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    notes = [f"  {k['name']}/{n}: {e['status']}: {e['reason'].splitlines()[0] if e['reason'] else ''}"
             for k in kernels for n, e in k["entries"].items() if e["status"] != "ok"]
    notes += [f"  {k['name']}/{n}: {note}" for k in kernels for n, e in k["entries"].items()
              for note in e.get("notes", ())]
    return "\n".join(lines + (["", "notes:"] + notes if notes else []))
