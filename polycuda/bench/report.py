"""Derived figures of a results dict (rates, fractions of the ceilings, speedups), the terminal
table and the one-paragraph summary for the README."""

from __future__ import annotations

import copy
import math
from typing import Any

from polycuda.bench import ppcg
from polycuda.bench.configs import TILE_SEPARATOR, config_of

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
    """Rates of every entry; `best` (fastest polycuda entry that is right), `best_by_config`
    (per configuration, its fastest right entry among its tile sizes, or None), speedups of
    each polycuda entry over each baseline (baseline time / entry time)."""
    entries = kernel["entries"]
    for entry in entries.values():
        derive_entry(entry, kernel, ceilings, dtype)
    configs = {n: e for n, e in entries.items() if e["role"] == "config" and _ok(e)}
    baselines = {n: e for n, e in entries.items() if e["role"] == "baseline" and _ok(e)}
    kernel["speedups"] = {c: {b: be["median_s"] / ce["median_s"] for b, be in baselines.items()}
                          for c, ce in configs.items()}
    best = _fastest(configs)
    kernel["best"] = best
    kernel["best_by_config"] = best_by_config(entries)
    kernel["best_speedups"] = dict(kernel["speedups"][best]) if best else {}


def _fastest(entries: dict[str, dict[str, Any]]) -> str | None:
    return min(entries, key=lambda n: entries[n]["median_s"]) if entries else None


def best_by_config(entries: dict[str, dict[str, Any]]) -> dict[str, str | None]:
    """Per polycuda configuration (in entry order), its right entry of the lowest median
    ("pluto" or a swept "pluto@16x64"), None when none of its entries is right."""
    groups: dict[str, dict[str, dict[str, Any]]] = {}
    for name, entry in entries.items():
        if entry["role"] == "config":
            group = groups.setdefault(entry.get("config") or config_of(name), {})
            if _ok(entry):
                group[name] = entry
    return {config: _fastest(group) for config, group in groups.items()}


def derive(results: dict[str, Any]) -> dict[str, Any]:
    """Fill in the derived figures of every kernel and the summary (ppcg mode: the comparison
    with PPCG's times too, ppcg.derive); returns `results`."""
    for kernel in results["kernels"]:
        derive_kernel(kernel, results["ceilings"], results.get("dtype", "double"))
    results["summary"] = summary_figures(results)
    results["summary_text"] = summary(results)
    if results.get("mode") == "ppcg":
        ppcg.derive(results)
        results["summary_text"] += " " + ppcg.summary_line(results)
    return results


MERGE_KEYS = ("mode", "dataset", "dtype", "configs", "tiles", "blocks", "wavefront_syncs", "stagings")


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One results dict of several runs of one mode, dtype and set of entries (a mode run in
    parts, `bench --report A.json B.json`): the first run's header, every run's kernels (a kernel
    measured twice: the later run's, at the earlier place), the derived figures computed again,
    and under "parts" each run's date, commit, tag and kernels.

    Raises:
        ValueError: no run, or runs that differ in one of MERGE_KEYS.
    """
    if not parts:
        raise ValueError("no results to merge")
    first = parts[0]
    for part in parts[1:]:
        differ = [k for k in MERGE_KEYS if part.get(k) != first.get(k)]
        if differ:
            raise ValueError(f"results differ in {', '.join(differ)}: "
                             + "; ".join(f"{k} {first.get(k)} vs {part.get(k)}" for k in differ))
    kernels = {k["name"]: k for part in parts for k in part["kernels"]}
    merged = copy.deepcopy({**first, "kernels": list(kernels.values())})
    merged["wall_s"] = sum(part.get("wall_s") or 0.0 for part in parts)
    merged["parts"] = [{"date": (part.get("machine") or {}).get("date"),
                        "commit": (part.get("machine") or {}).get("polycuda_commit"),
                        "tag": part.get("tag"), "kernels": [k["name"] for k in part["kernels"]]}
                       for part in parts]
    return derive(merged)


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
    if results.get("tiles"):
        configs += f" with default tiles and {len(results['tiles'])} tile-size candidates"
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


def _columns(kernels: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """The table's baseline entries and polycuda configurations, in entry order."""
    baselines: list[str] = []
    configs: list[str] = []
    for kernel in kernels:
        for name, entry in kernel["entries"].items():
            column = config_of(name) if entry["role"] == "config" else name
            group = configs if entry["role"] == "config" else baselines
            if column not in group:
                group.append(column)
    return baselines, configs


def _config_cell(kernel: dict[str, Any], config: str) -> str:
    """The configuration's best median ms, with `@tiles` when a swept entry won; else the
    status of its default entry."""
    best = (kernel.get("best_by_config") or best_by_config(kernel["entries"])).get(config)
    if best is None:
        return _ms(kernel["entries"].get(config))
    tiles = best.partition(TILE_SEPARATOR)[2]
    return _ms(kernel["entries"][best]) + (f"{TILE_SEPARATOR}{tiles}" if tiles else "")


def _row(k: dict[str, Any], baselines: list[str], configs: list[str]) -> list[str]:
    best = k.get("best")
    entry = k["entries"].get(best) if best else None
    frac = entry.get("fraction_of_ceiling") if entry else None
    return ([k["name"]] + [_ms(k["entries"].get(n)) for n in baselines]
            + [_config_cell(k, c) for c in configs] + [best or "-"]
            + [_times(k["best_speedups"].get(b)) if b in k["best_speedups"] else "-"
               for b in baselines]
            + [f"{_pct(frac)} {CEILING_SHORT[entry['ceiling']]}" if entry and frac else "-"])


def table(results: dict[str, Any]) -> str:
    """The terminal table: median milliseconds per baseline and per polycuda configuration
    (its best tile size, `ms@16x64`, when tiles were swept), the best entry, its speedup over
    each baseline and its fraction of the ceiling; footnotes give each failure's reason."""
    kernels = results["kernels"]
    baselines, configs = _columns(kernels)
    head = (["kernel"] + [SHORT.get(n, n) + " ms" for n in baselines]
            + [c + " ms" for c in configs] + ["best"]
            + [f"x{SHORT.get(b, b)}" for b in baselines] + ["ceiling"])
    rows = [head] + [_row(k, baselines, configs) for k in kernels]
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in
                       enumerate(zip(row, widths))) for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    notes = [f"  {k['name']}/{n}: {e['status']}: {e['reason'].splitlines()[0] if e['reason'] else ''}"
             for k in kernels for n, e in k["entries"].items() if e["status"] != "ok"]
    notes += [f"  {k['name']}/{n}: {note}" for k in kernels for n, e in k["entries"].items()
              for note in e.get("notes", ())]
    return "\n".join(lines + (["", "notes:"] + notes if notes else []))
