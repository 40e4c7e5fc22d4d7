"""Offline check of the tuning model on hand-swept layouts already measured on a GPU: no GPU
needed (nvcc builds the kernels for their registers). Issue 16's problem by default: 2-D Jacobi
4096^2 x 1000 float with the `inter` options and tiles staged in 227 KiB of shared memory
(bench/tune_suite.py's JACOBI entry), over the `inter@...+smem227` entries of the H100's
`*-paper-float-t1000-*.json` files.

For every measured entry: its layout (tiles and threads as the generated kernel has them: an
entry without sizes gets the default tables), the bytes the kernel stages per block, the
model's prediction and where the layout lands in the model's ranking of every admissible
layout (search.rank, the space `polycuda tune` ranks). Per file (the code changed between
files: each names its commit) and pooled: Spearman's rank correlation of predicted and
measured times, the measured best's position among the file's entries by the model, and the
model's top N (--top) over the whole space, with the layouts ranked and the seconds.

    python bench/tune_offline.py OUT.json [--calibration CAL.json] [--files GLOB] [--top N]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import numpy as np  # noqa: E402

import polycuda  # noqa: E402
import tune_suite  # noqa: E402 (bench/tune_suite.py)
from kernels import suite  # noqa: E402
from polycuda.bench.configs import dtype_defines  # noqa: E402
from polycuda.errors import InvalidConfigError  # noqa: E402
from polycuda.options import Options  # noqa: E402
from polycuda.tune import calibrate, occupancy, problem, search  # noqa: E402
from polycuda.tune.model import Calibration  # noqa: E402

RESULTS = ROOT / "bench" / "results"
T1000_FILES = "*-nvidia-h100-80gb-hbm3-paper-float-t1000*.json"
SIZES = {"T": 1000, "n": 4096}
# the options of bench/tune_suite.py's JACOBI entry (the `inter` configuration, staged)
OPTIONS = tune_suite.JACOBI["options"]
ENTRY = re.compile(r"^inter@(?:(?P<tiles>\d+(?:x\d+)*)\+)?(?:b(?P<block>\d+(?:x\d+)*)\+)?"
                   r"smem227$")


@dataclass(frozen=True)
class Measured:
    """One measured entry of a results file."""

    file: str
    commit: str
    name: str
    tiles: tuple[int, ...]  # as given in the entry's name (() = the default tables)
    block: tuple[int, ...]
    seconds: float


def measured_entries(paths: list[Path]) -> list[Measured]:
    """The staged `inter` entries of jacobi_2d at T=1000, n=4096 with a median time."""
    found = []
    for path in paths:
        data = json.loads(path.read_text())
        commit = data.get("machine", {}).get("polycuda_commit", "")
        for kernel in data.get("kernels", []):
            if kernel.get("name") != "jacobi_2d" or kernel.get("sizes") != SIZES:
                continue
            for name, entry in kernel["entries"].items():
                match = ENTRY.match(name)
                if not match or entry.get("status") != "ok" or not entry.get("median_s"):
                    continue
                tiles = tuple(int(v) for v in (match["tiles"] or "").split("x") if v)
                block = tuple(int(v) for v in (match["block"] or "").split("x") if v)
                found.append(Measured(path.name, commit, name, tiles, block,
                                      entry["median_s"]))
    return found


def jacobi_program():
    """The Program of bench/tune_suite.py's JACOBI entry (float, inter, staged)."""
    kernel = suite.by_name("jacobi_2d")
    return polycuda.compile(str(kernel.c_path), options=Options(target="cuda", **OPTIONS),
                            defines=dtype_defines("float"))


def actual_layout(prog, tiles: tuple[int, ...], block: tuple[int, ...]
                  ) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(tiles, threads, staged bytes per block) of the kernel generated for the given sizes."""
    from polycuda.gpu.staging import layout

    try:
        gen = prog.generate("cuda", tile_sizes=tiles, block_sizes=block, tuned_sizes=False)
    except InvalidConfigError:  # threads over the tile: the code of the time clipped them
        default = prog.generate("cuda", tile_sizes=tiles, block_sizes=(), tuned_sizes=False)
        inner = next(k for k in default.kernels if k.wavefront).tile_sizes[1:]
        block = tuple(min(b, t) for b, t in zip(block, inner))
        gen = prog.generate("cuda", tile_sizes=tiles, block_sizes=block, tuned_sizes=False)
    (kernel,) = [k for k in gen.kernels if k.wavefront]
    dtypes = {a.array: gen.scop.array(a.array).dtype for a in kernel.staged}
    staged = layout(kernel.staged, dtypes)[1] if kernel.staged else 0
    return tuple(kernel.tile_sizes), tuple(kernel.block_sizes), staged


def spearman(x: list[float], y: list[float]) -> float:
    """Spearman's rank correlation (average ranks for ties)."""
    def ranks(v: list[float]) -> np.ndarray:
        a = np.asarray(v, dtype=float)
        order = a.argsort(kind="stable")
        r = np.empty(len(a))
        r[order] = np.arange(len(a))
        for value in np.unique(a):  # ties share their mean rank
            same = a == value
            r[same] = r[same].mean()
        return r
    if len(x) < 2:
        return float("nan")
    return float(np.corrcoef(ranks(x), ranks(y))[0, 1])


def evaluate(cal: Calibration, paths: list[Path], limit: int = search.RANK_LAYOUTS,
             top: int = 5) -> dict:
    """The report described in the module docstring."""
    prog = jacobi_program()
    gen = prog.generate("cuda", tile_sizes=(), block_sizes=(), tuned_sizes=False)
    models = problem.kernel_models(gen, SIZES)
    props = occupancy.reference_device()
    start = time.perf_counter()
    ranked, excluded = search.rank(models, cal, props, limit=limit)
    rank_s = time.perf_counter() - start
    ranked_s = np.array([r.model_s for r in ranked])
    layouts: dict[tuple, tuple] = {}
    rows = []
    for m in measured_entries(paths):
        key = (m.tiles, m.block)
        if key not in layouts:
            layouts[key] = actual_layout(prog, *key)
        tiles, block, staged = layouts[key]
        why = next((w for km in models if (w := search.exclusion(
            search.kernel_layout(km, tiles, block), km, props))), None)
        model_s = None if why else search.estimate(models, tiles, block, cal, props)
        rows.append({"file": m.file, "commit": m.commit, "entry": m.name, "tiles": list(tiles),
                     "block": list(block), "staged_bytes": staged, "ms": m.seconds * 1e3,
                     "model_ms": None if model_s is None else model_s * 1e3,
                     "excluded": why,
                     # 1 + the ranked layouts the model puts before it
                     "rank": None if model_s is None else 1 + int((ranked_s < model_s).sum())})
    return {"sizes": SIZES, "options": OPTIONS, "calibration": cal.note[:200],
            "ranked": len(ranked), "rank_layouts": limit, "rank_s": rank_s,
            "space": len(search.layouts(max(models, key=lambda km: len(km.default_tiles)))),
            "excluded": dict(excluded),
            "top": [{"tiles": list(r.tiles), "block": list(r.block), "model_ms": r.model_s * 1e3}
                    for r in ranked[:top]],
            "per_file": per_file(rows), "entries": rows}


def per_file(rows: list[dict]) -> dict:
    """Per file: entries, Spearman rho of model against measured, the measured best and its
    position among the file's entries by the model (1 = the model's first)."""
    out = {}
    for name in sorted({r["file"] for r in rows}):
        mine = [r for r in rows if r["file"] == name and r["model_ms"] is not None]
        if not mine:
            continue
        best = min(mine, key=lambda r: r["ms"])
        by_model = sorted(mine, key=lambda r: r["model_ms"])
        out[name] = {"commit": mine[0]["commit"], "entries": len(mine),
                     "spearman": spearman([r["model_ms"] for r in mine],
                                          [r["ms"] for r in mine]),
                     "best": best["entry"], "best_ms": best["ms"],
                     "best_by_model": by_model.index(best) + 1,
                     "model_first": by_model[0]["entry"], "model_first_ms": by_model[0]["ms"],
                     "best_rank_overall": best["rank"]}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--calibration", type=Path,
                        help="calibration JSON (default: the packaged H100 one)")
    parser.add_argument("--files", default=T1000_FILES, help="glob under bench/results")
    parser.add_argument("--rank-layouts", type=int, default=search.RANK_LAYOUTS,
                        help="layouts the model ranks (search.rank's limit; `polycuda "
                             "tune`'s default: the whole space)")
    parser.add_argument("--top", type=int, default=5, help="the model's first N to report")
    args = parser.parse_args(argv)
    if args.calibration:
        data = json.loads(args.calibration.read_text())
        cal = calibrate.from_json(json.dumps({k: v for k, v in data.items()
                                              if k not in ("fit_runs", "device")}))
    else:
        cal = calibrate.reference_calibration()
    paths = sorted(RESULTS.glob(args.files))
    report = evaluate(cal, paths, args.rank_layouts, args.top)
    report["files"] = [p.name for p in paths]
    for name, row in report["per_file"].items():
        print(f"{name[33:]:34s} {row['commit']:8s} n={row['entries']:2d} rho={row['spearman']:+.2f}"
              f"  best {row['best'][6:]} {row['best_ms']:.1f} ms: model's #{row['best_by_model']}"
              f" in file, #{row['best_rank_overall']} of {report['ranked']}; model's first "
              f"{row['model_first'][6:]} {row['model_first_ms']:.1f} ms")
    rho = [r["spearman"] for r in report["per_file"].values()]
    report["mean_spearman"] = float(np.mean(rho)) if rho else None
    print(f"ranked {report['ranked']} of {report['space']} layouts in {report['rank_s']:.1f} s "
          f"(excluded {sum(report['excluded'].values())})")
    print(f"mean rho {report['mean_spearman']:+.3f}; top {len(report['top'])}: " + "; ".join(
        f"{t['tiles']} b{t['block']} {t['model_ms']:.1f} ms" for t in report["top"]))
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
