"""`polycuda bench --ppcg`: our times of the whole drop-in function against PPCG's on the same
PolyBench problems on the same GPU (ppcg_reference: DESIGN's H200 table): per kernel and
configuration PPCG's time over ours (> 1: polycuda is faster), the best configuration per kernel,
geometric means over DESIGN's kernel sets, the printed table.

Example:
    >>> results = harness.run_bench(harness.Settings(mode="ppcg", repeats=3))  # doctest: +SKIP
    >>> print(table(results))                                                  # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from polycuda.bench.configs import default_config
from polycuda.bench.ppcg_reference import (
    COLUMNS,
    DATE,
    DESIGN_COMMIT,
    DESIGN_GEOMEANS,
    GPU,
    NOT_BOTH_RIGHT,
    ROWS,
    SETUP,
    SOURCE,
    STATED,
    UNTIMED,
    design_geomeans,
    geomean,
    ratio,
)
from polycuda.bench.sizes import PPCG, PPCG_CHECK_SIZES, PPCG_LEFT_OUT, SUITE_TO_POLYBENCH

# Where our kernel (written from the math) is not PolyBench's loop nest: same sizes, same math.
DIFFERENCES = {
    "jacobi_1d": "divides by 3.0 where PolyBench multiplies by 0.33333",
    "lu": "right-looking (k outermost) where PolyBench's LU goes row by row (i outermost)",
    "cholesky": "right-looking (k outermost) where PolyBench's goes row by row (i outermost)",
    "ludcmp": "right-looking (k outermost) where PolyBench's goes row by row (i outermost)",
    "adi": "dx = 1/(n-1) and one r = dt/dx^2 for both half steps, borders kept from the input, "
           "p and q indexed [position][line] in the column half step, where PolyBench has "
           "dx = 1/N, B1 = 2, B2 = 1, borders set to 1, p and q indexed [line][position]",
    "deriche": "the recursions read y1 and y2 back from the arrays and the column passes run i "
               "outermost, where PolyBench carries them in scalars (ym1, ym2, ...) with j "
               "outermost; Deriche's coefficients where PolyBench writes b1 = 2^-alpha and "
               "e^(2 alpha) in k",
}


def derive(results: dict[str, Any]) -> dict[str, Any]:
    """Add each kernel's "ppcg" section (needs report.derive_kernel's best_by_config), the
    run's "ppcg_summary" and "ppcg_reference"; returns `results`."""
    default = default_config(tuple(results["configs"]))
    gpu = ((results.get("machine") or {}).get("gpu") or {}).get("name")
    for kernel in results["kernels"]:
        kernel["ppcg"] = kernel_comparison(kernel, default, results.get("dtype", "double"),
                                           results.get("device_mode") == "gpu", gpu)
    results["ppcg_summary"] = summary_figures(results)
    results["ppcg_reference"] = {
        "date": DATE, "gpu": GPU, "source": SOURCE, "setup": SETUP, "columns": list(COLUMNS),
        "polycuda_commit": DESIGN_COMMIT, "rows": [asdict(r) for r in ROWS.values()],
        "untimed": dict(UNTIMED), "stated_geomeans": dict(DESIGN_GEOMEANS)}
    return results


def _best_entry(kernel: dict[str, Any], config: str) -> dict[str, Any] | None:
    name = (kernel.get("best_by_config") or {}).get(config)
    return kernel["entries"][name] if name else None


def _ms(entry: dict[str, Any] | None, key: str = "median_s") -> float | None:
    """The entry's `key` seconds in ms, None unless it is right and timed."""
    if entry is None or entry["status"] != "ok" or entry.get(key) is None:
        return None
    return float(entry[key]) * 1e3


def comparable(kernel: dict[str, Any], dtype: str, on_gpu: bool = True,
               gpu: str | None = None) -> str:
    """"" when `kernel` ran as PPCG's problem (on PPCG's GPU where the run names its `gpu`,
    PolyBench LARGE sizes, the element type of PPCG's time), else why not."""
    name = kernel["name"]
    if not on_gpu:
        return "a CPU-only run: our entries are OpenMP code, PPCG's times are GPU times"
    if gpu and gpu != GPU:
        return f"run on the {gpu}: PPCG's times are the {GPU}'s"
    if name not in PPCG:
        return "no PolyBench LARGE sizes for this kernel"
    if kernel["sizes"] != PPCG[name]:
        return f"sizes {kernel['sizes']} are not PolyBench LARGE {PPCG[name]} (--size)"
    row = ROWS.get(SUITE_TO_POLYBENCH.get(name, ""))
    want = row.dtype if row else "double"
    return "" if dtype == want else f"{dtype=}: PPCG's time is {want} (--dtype {want})"


def kernel_comparison(kernel: dict[str, Any], default: str | None, dtype: str = "double",
                      on_gpu: bool = True, gpu: str | None = None) -> dict[str, Any]:
    """One kernel against PPCG: per configuration our median ms, its spread, PPCG's time over
    ours and sequential gcc -O3's (this run) over ours; the default configuration's and the
    best configuration's ratio; polycuda's time in DESIGN's run. Ratios are None where PPCG
    has no time (a kernel outside DESIGN's table), where the kernel did not run as PPCG's
    problem (other GPU, sizes or dtype: `not_comparable` says why) or the configuration has no
    right entry."""
    polybench = SUITE_TO_POLYBENCH.get(kernel["name"])
    unlike = comparable(kernel, dtype, on_gpu, gpu)
    row = ROWS.get(polybench) if polybench and not unlike else None
    configs = list(kernel.get("best_by_config") or {})
    best_entries = {c: _best_entry(kernel, c) for c in configs}
    medians = {c: _ms(e) for c, e in best_entries.items()}
    ratios = {c: ratio(row.ppcg_ms, ms / 1e3) if row and ms else None
              for c, ms in medians.items()}
    sequential = _ms(kernel["entries"].get("sequential"))
    measured = {c: ms for c, ms in medians.items() if ms is not None}
    best = min(measured, key=measured.__getitem__) if measured else None
    return {"polybench": polybench, "ppcg_ms": row.ppcg_ms if row else None,
            "design_polycuda_ms": row.polycuda_ms if row else None,
            "both_right": bool(row and row.both_right), "in_first": bool(row and row.in_first),
            "reference": asdict(row) if row else None,
            "median_ms": medians,
            "spread_ms": {c: [_ms(e, "min_s"), _ms(e, "max_s")] for c, e in best_entries.items()},
            "ratio": ratios, "default_config": default,
            "ratio_default": ratios.get(default) if default else None,
            "best_config": best, "ratio_best": ratios.get(best) if best else None,
            "sequential_ms": sequential,
            "speedup_over_sequential": {c: sequential / ms if sequential and ms else None
                                        for c, ms in medians.items()},
            "difference": DIFFERENCES.get(kernel["name"]),
            "check_note": _check_note(kernel), "not_comparable": unlike or None}


def _check_note(kernel: dict[str, Any]) -> str | None:
    """Where the kernel was checked when not at its timed sizes, and why."""
    at = kernel.get("check_sizes")
    if not at:
        return None
    why = PPCG_CHECK_SIZES[kernel["name"]][1] if kernel["name"] in PPCG_CHECK_SIZES else ""
    shown = ", ".join(f"{k}={v}" for k, v in at.items())
    return f"checked against the sequential run at {shown}, timed at PolyBench's sizes: {why}"


def _speedup(section: dict[str, Any], config: str | None) -> float | None:
    """Sequential gcc -O3 (this run) over `config`'s median."""
    return section["speedup_over_sequential"].get(config) if config else None


def group_figures(sections: list[dict[str, Any]], configs: list[str]) -> dict[str, Any]:
    """Geometric means of PPCG's time over ours across `sections` (kernel comparisons with a
    PPCG time): per configuration, for the default and for the best configuration per kernel,
    each with its number of kernels; also the speedups over this run's sequential gcc -O3, and
    those of PPCG and of polycuda in DESIGN's run over its sequential gcc on the same kernels."""
    per_config = {c: [s["ratio"][c] for s in sections if s["ratio"].get(c)] for c in configs}
    default = [s["ratio_default"] for s in sections if s["ratio_default"]]
    best = [s["ratio_best"] for s in sections if s["ratio_best"]]
    return {
        "kernels": len(sections),
        "geomean_ratio": {c: geomean(v) for c, v in per_config.items()},
        "kernels_by_config": {c: len(v) for c, v in per_config.items()},
        "geomean_ratio_default": geomean(default), "kernels_default": len(default),
        "geomean_ratio_best": geomean(best), "kernels_best": len(best),
        "geomean_speedup_over_sequential_default": geomean(
            v for s in sections if (v := _speedup(s, s["default_config"]))),
        "geomean_speedup_over_sequential_best": geomean(
            v for s in sections if (v := _speedup(s, s["best_config"]))),
        "ppcg_geomean_speedup_over_its_gcc": geomean(
            s["reference"]["gcc_ms"] / s["ppcg_ms"] for s in sections),
        "design_polycuda_geomean_speedup_over_its_gcc": geomean(
            s["reference"]["gcc_ms"] / s["design_polycuda_ms"] for s in sections),
    }


# Issue 41's floor: a region's default code at no PolyBench size below this fraction of the
# sequential program's speed, whole function.
SEQUENTIAL_FLOOR = 0.9


def sequential_figures(results: dict[str, Any]) -> dict[str, Any]:
    """The default configuration against this run's sequential gcc -O3 over every kernel
    measured (PPCG time or not): the geometric mean of the speedups, their number, and the
    kernels below SEQUENTIAL_FLOOR with theirs."""
    speedups = {k["ppcg"]["polybench"] or k["name"]: v for k in results["kernels"]
                if "ppcg" in k and (v := _speedup(k["ppcg"], k["ppcg"]["default_config"]))}
    return {"floor": SEQUENTIAL_FLOOR, "kernels": len(speedups),
            "geomean_speedup_default": geomean(speedups.values()),
            "below_floor": {name: v for name, v in speedups.items() if v < SEQUENTIAL_FLOOR}}


def summary_figures(results: dict[str, Any]) -> dict[str, Any]:
    """The geometric means over every kernel measured that PPCG has a time for, over those of
    DESIGN's kernels both compilers get right and over those of its first 22 (the sets of its
    stated geometric means), with the kernels of those sets not measured, DESIGN's own figures
    and the kernels of its table left out of the run."""
    configs = list(results["configs"])
    sections = [k["ppcg"] for k in results["kernels"] if k.get("ppcg", {}).get("ppcg_ms")]
    measured = {s["polybench"] for s in sections}
    return {"default_config": default_config(tuple(configs)),
            "over_measured": group_figures(sections, configs),
            "over_design_both_right": group_figures([s for s in sections if s["both_right"]],
                                                    configs),
            "over_design_first": group_figures([s for s in sections if s["in_first"]], configs),
            "design_both_right_not_measured": [r.polybench for r in ROWS.values()
                                               if r.both_right and r.polybench not in measured],
            "design_first_not_measured": [r.polybench for r in ROWS.values()
                                          if r.in_first and r.polybench not in measured],
            "design_geomeans": design_geomeans(), "stated_geomeans": dict(DESIGN_GEOMEANS),
            "over_sequential": sequential_figures(results),
            "left_out": left_out(results)}


def left_out(results: dict[str, Any]) -> dict[str, str]:
    """The kernels of DESIGN's table that no run of this dtype measures, and why: no suite
    kernel or no times (sizes.PPCG_LEFT_OUT), or PPCG's time of another element type (those
    not measured, under their names joined)."""
    dtype = results.get("dtype", "double")
    ran = {SUITE_TO_POLYBENCH.get(k["name"]) for k in results["kernels"]}
    out = dict(PPCG_LEFT_OUT)
    for other in sorted({r.dtype for r in ROWS.values()} - {dtype}):
        names = [r.polybench for r in ROWS.values()
                 if r.dtype == other and r.polybench not in ran and r.polybench not in out]
        if names:
            out[", ".join(names)] = (f"PPCG's time is {other}: `bench --ppcg --dtype {other}` "
                                     "measures it")
    return out


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.3g}x"


def _num(ms: float | None) -> str:
    if ms is None:
        return "-"
    return f"{ms:.0f}" if ms >= 1000 else f"{ms:.3g}"


def _cell(section: dict[str, Any], kernel: dict[str, Any], config: str) -> str:
    ms = section["median_ms"].get(config)
    if ms is None:
        entry = kernel["entries"].get(config)
        return entry["status"] if entry else "-"
    low, high = section["spread_ms"][config]
    return f"{_num(ms)} ({_num(low)}-{_num(high)})"


def _row(kernel: dict[str, Any], configs: list[str]) -> list[str]:
    s = kernel["ppcg"]
    cells = [s["polybench"] or kernel["name"], _num(s["sequential_ms"]), _num(s["ppcg_ms"]),
             _num(s["design_polycuda_ms"])]
    for config in configs:
        cells += [_cell(s, kernel, config), _x(s["ratio"].get(config))]
    return cells + [s["best_config"] or "-", _x(s["ratio_best"]),
                    _x(_speedup(s, s["best_config"]))]


def _group_line(label: str, fig: dict[str, Any], configs: list[str], default: str | None
                ) -> str:
    parts = [f"{c} {_x(fig['geomean_ratio'][c])} ({fig['kernels_by_config'][c]})"
             for c in configs]
    parts.append(f"default ({default or 'not measured'}) {_x(fig['geomean_ratio_default'])}")
    parts.append(f"best per kernel {_x(fig['geomean_ratio_best'])} ({fig['kernels_best']})")
    return f"{label}: " + ", ".join(parts)


def _set_label(name: str, fig: dict[str, Any], missing: list[str]) -> str:
    return f"DESIGN's {name} ({fig['kernels']} measured; not: {', '.join(missing) or 'none'})"


def summary_lines(results: dict[str, Any]) -> list[str]:
    """The geometric means in words: over the kernels measured, over DESIGN's kernels both
    compilers get right and over its first 22, and DESIGN's own figures for comparison."""
    fig, configs = results["ppcg_summary"], list(results["configs"])
    default, right = fig["default_config"], fig["over_design_both_right"]
    first = fig["over_design_first"]
    stated = fig["stated_geomeans"]
    right_name = f"{STATED.both_right_kernels} both get right"
    first_name = f"first {STATED.first_kernels}"
    return [
        "PPCG's time over ours (> 1: polycuda faster), geometric means (kernels):",
        "  " + _group_line(f"{fig['over_measured']['kernels']} kernels run as PPCG's problems",
                           fig["over_measured"], configs, default),
        "  " + _group_line(_set_label(right_name, right, fig["design_both_right_not_measured"]),
                           right, configs, default),
        "  " + _group_line(_set_label(first_name, first, fig["design_first_not_measured"]),
                           first, configs, default),
        (f"  DESIGN's run ({DATE}, {GPU}, polycuda at {DESIGN_COMMIT}, default options): "
         f"{_x(stated['ratio_both_right'])} over its {right_name}, "
         f"{_x(stated['ratio_first'])} over its {first_name}"),
        (f"Speedup over sequential gcc -O3 (this run), DESIGN's {right_name}: default "
         f"{_x(right['geomean_speedup_over_sequential_default'])}, best per kernel "
         f"{_x(right['geomean_speedup_over_sequential_best'])}; in DESIGN's run on the same "
         f"kernels (gcc -O3 -march=native): polycuda "
         f"{_x(right['design_polycuda_geomean_speedup_over_its_gcc'])}, PPCG "
         f"{_x(right['ppcg_geomean_speedup_over_its_gcc'])}"),
        _floor_line(fig["over_sequential"], results.get("dataset")),
    ]


def _floor_line(seq: dict[str, Any], dataset: str | None) -> str:
    below = ", ".join(f"{name} {_x(v)}" for name, v in seq["below_floor"].items()) or "none"
    at = f" at {dataset}" if dataset else ""
    return (f"Default options over sequential gcc -O3 (this run){at}, every kernel measured "
            f"({seq['kernels']}): geometric mean {_x(seq['geomean_speedup_default'])}; below "
            f"{seq['floor']:g}x: {below}")


def summary_line(results: dict[str, Any]) -> str:
    """One sentence for the results' summary_text."""
    fig = results["ppcg_summary"]
    right, first = fig["over_design_both_right"], fig["over_design_first"]
    default = fig["default_config"]
    return (f"Against PPCG on the {GPU} (PPCG's time over ours), DESIGN's "
            f"{STATED.both_right_kernels} both get right ({right['kernels']} measured): "
            f"default ({default or 'not measured'}) {_x(right['geomean_ratio_default'])}, "
            f"best per kernel {_x(right['geomean_ratio_best'])}; its first "
            f"{STATED.first_kernels} ({first['kernels']} measured): default "
            f"{_x(first['geomean_ratio_default'])}, best per kernel "
            f"{_x(first['geomean_ratio_best'])}. "
            + _floor_line(fig["over_sequential"], results.get("dataset")) + ".")


def _notes(results: dict[str, Any]) -> list[str]:
    notes = [f"  {name}: left out: {why}" for name, why in
             results["ppcg_summary"]["left_out"].items()]
    notes += [f"  {k['name']}: not PolyBench's loop nest: {k['ppcg']['difference']}"
              for k in results["kernels"] if k["ppcg"]["difference"]]
    notes += [f"  {k['name']}: not among DESIGN's kernels both get right: "
              f"{NOT_BOTH_RIGHT[k['ppcg']['polybench']]}"
              for k in results["kernels"]
              if k["ppcg"]["ppcg_ms"] and not k["ppcg"]["both_right"]]
    notes += [f"  {k['name']}: {k['ppcg']['check_note']}"
              for k in results["kernels"] if k["ppcg"].get("check_note")]
    notes += [f"  {k['name']}: no ratio: "
              + (k["ppcg"]["not_comparable"] or "no PPCG time (not in DESIGN's table)")
              for k in results["kernels"] if k["ppcg"]["ppcg_ms"] is None]
    for k in results["kernels"]:
        for name, entry in k["entries"].items():
            if entry["status"] != "ok":
                reason = entry["reason"].splitlines()[0] if entry["reason"] else ""
                notes.append(f"  {k['name']}/{name}: {entry['status']}: {reason}"[:300])
            notes += [f"  {k['name']}/{name}: {note}" for note in entry.get("notes", ())]
    return notes + [f"  {k['name']}: {k['error']}" for k in results["kernels"] if "error" in k]


def table(results: dict[str, Any]) -> str:
    """The comparison table (ms: median (min-max) of the whole function from host arrays;
    `x`: PPCG's time over ours; `x seq`: this run's sequential gcc -O3 over the best
    configuration; `ours@<commit> ms`: polycuda's time in DESIGN's run), the geometric means and
    the notes."""
    configs = list(results["configs"])
    default = results["ppcg_summary"]["default_config"]
    head = ["kernel", "seq ms", "PPCG ms", f"ours@{DESIGN_COMMIT} ms"]
    for config in configs:
        head += [f"{config}{'=default' if config == default != 'default' else ''} ms", "x"]
    head += ["best", "x best", "x seq"]
    kernels = [k for k in results["kernels"] if "ppcg" in k]
    rows = [head] + [_row(k, configs) for k in kernels]
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in
                       enumerate(zip(row, widths))) for row in rows]
    lines.insert(1, "-" * len(lines[0]))
    notes = _notes(results)
    return "\n".join(lines + [""] + summary_lines(results) + (["notes:"] + notes if notes else []))
