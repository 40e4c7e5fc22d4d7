"""bench/tune_suite.py with its measurement step mocked (no GPU): the quick mode runs end to
end, writes the JSON, and compares the tuned layout with the defaults and the sweep's best."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from polycuda.tune import search

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tune_suite():
    spec = importlib.util.spec_from_file_location("tune_suite", ROOT / "bench" / "tune_suite.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["tune_suite"] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules["tune_suite"]


def fake_seconds(self, prog, args, tiles, block, best, scheduler=None, registers=(),
                 sequential=0):
    """A made-up time: the defaults 5 ms, else fastest at a first tile size of 32."""
    if not tiles:
        return 5e-3
    return 1e-3 * (1 + abs(tiles[0] - 32) / 32 + tiles[-1] / 1000)


def test_quick_mode_with_mocked_measurements(tune_suite, monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(tune_suite.Timer, "seconds", fake_seconds)
    monkeypatch.setattr(tune_suite.Timer, "arguments", lambda self, k, s, d: [])
    out = tmp_path / "suite.json"
    assert tune_suite.main([str(out), "--quick", "--dry-run", "--kernels", "sor_1d",
                            "--size", "n=300", "--size", "T=40", "--no-verify"]) == 0
    data = json.loads(out.read_text())
    assert data["mode"] == "dry-run" and data["top_k"] == 3 and data["sweep"]["sampled"] == 12
    jacobi, sor = data["entries"]
    assert jacobi["name"] == "jacobi_2d_t1000_float" and jacobi["target_ms"] == 45.8
    assert sor["sizes"] == {"T": 40, "n": 300} and sor["default"]["ms"] == pytest.approx(5.0)
    tuned, sweep = sor["tuned"], sor["sweep"]
    assert tuned["ms"] == pytest.approx(fake_seconds(None, None, None, tuned["tiles"], (), 0)
                                        * 1e3)
    # the top 3 and the default tables, up to PROBES probes, the refits' choices (with the
    # probes and, when there are some, on the top 3 alone), the local search
    probed = (len(tuned["top"]) - 4 - tuned["local"]["measured"]
              - bool(tuned["refit"].get("measured"))
              - bool(tuned["refit"].get("top_k", {}).get("measured")))
    assert 0 <= probed <= search.PROBES and tuned["local"]["rounds"] >= 1
    times = [m["ms"] for m in sweep["measured"]] + [tuned["ms"], sor["default"]["ms"]]
    assert sor["best_ms"] == pytest.approx(min(times))
    assert sor["tuned_over_best"] == pytest.approx(tuned["ms"] / min(times))
    assert sweep["best"]["ms"] == min(m["ms"] for m in sweep["measured"])
    assert sor["sweep_grid"]["sampled"] == len(sweep["measured"]) > 0
    assert data["summary"]["tuned"] >= 1
    assert "[2/2] sor_1d" in capsys.readouterr().err  # progress


def test_sweep_layouts_are_admissible(tune_suite):
    from polycuda.tune import occupancy, search
    from polycuda.tune.model import Problem
    from polycuda.tune.problem import KernelModel

    km = KernelModel("k", Problem.from_box((64, 512), ((1, 0), (1, 1))), (16, 64), 32, 0)
    props = occupancy.reference_device()
    picked, grid, excluded = tune_suite.sweep_layouts((km,), props, 10)
    # one threaded member (a 2-D wavefront band): blockDim = min(m_1, threads), deduplicated
    tiles_grid = tune_suite.SWEEP_TILES
    assert grid == len({(a, b, min(b, k)) for a in tiles_grid for b in tiles_grid
                        for k in tune_suite.SWEEP_THREADS})
    assert 0 < len(picked) <= 10 and 0 < excluded < grid
    for tiles, block in picked:
        assert search.exclusion(search.kernel_layout(km, tiles, block), km, props) is None
    assert tune_suite.sweep_layouts((km,), props, 10) == (picked, grid, excluded)  # fixed seed


def test_merge_joins_parts_a_later_entry_replacing_an_earlier(tune_suite, tmp_path):
    def entry(name, tuned, default, best, sweep=True):
        return {"name": name, "tuned_over_best": tuned / best, "tuned_over_default":
                tuned / default, "sweep": {"measured": [{"ms": best}] if sweep else []}}

    def report(path, commit, entries, gpu="GPU"):
        path.write_text(json.dumps({"gpu": gpu, "date": "2026-11-25", "commit": commit,
                                    "mode": "quick", "timing": "t", "sweep": {}, "top_k": 5,
                                    "entries": entries}))
        return path

    a = report(tmp_path / "a.json", "c1", [entry("x", 2.0, 4.0, 2.0, sweep=False),
                                           entry("y", 3.0, 3.0, 2.0)])
    b = report(tmp_path / "b.json", "c2", [entry("x", 1.0, 4.0, 1.0)])
    out = tmp_path / "all.json"
    assert tune_suite.main([str(out), "--merge", str(a), str(b)]) == 0
    merged = json.loads(out.read_text())
    assert [(e["name"], e["part"], e["commit"]) for e in merged["entries"]] == [
        ("y", "a.json", "c1"), ("x", "b.json", "c2")]
    summary = merged["summary"]
    assert summary["entries"] == 2 and summary["within_5pct"] == 1
    assert summary["geomean_tuned_over_best"] == pytest.approx((1.5 * 1.0) ** 0.5)
    assert summary["geomean_tuned_over_default"] == pytest.approx((1.0 * 0.25) ** 0.5)
    assert summary["without_sweep"] == [] and merged["commit"] == ["c1", "c2"]
    assert tune_suite.summarize([entry("x", 2.0, 4.0, 2.0, sweep=False)])["without_sweep"] == ["x"]
    other = report(tmp_path / "o.json", "c3", [], gpu="another GPU")
    with pytest.raises(SystemExit, match="several GPUs"):
        tune_suite.main([str(tmp_path / "bad.json"), "--merge", str(a), str(other)])
