"""The model-driven search (Di & Xue 2011, Fig. 5): constraints before any measurement, the
model's ranking, the measured top k, the cache, and `polycuda tune`."""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import shutil
import time

import numpy as np
import pytest

import polycuda
from polycuda import program as program_module
from polycuda.cli import main
from polycuda.errors import InvalidConfigError, LaunchError, PolycudaWarning
from polycuda.options import Options
from polycuda.tune import calibrate, occupancy, search
from polycuda.tune.model import Layout, Problem
from polycuda.tune.problem import KernelModel

H100 = occupancy.reference_device()
SOR1 = ((1, 0), (1, 1))
WAVE = KernelModel("k", Problem.from_box((64, 2048), SOR1), (16, 64), 32, 0)


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("POLYCUDA_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(occupancy, "kernel_resources", lambda source, arch=None: {
        "kernel0": occupancy.KernelResources("kernel0", 32, 0)})


@pytest.fixture
def no_probes(monkeypatch):
    """tune() without the refit's probes: the tests of the top k, refit and local search
    count their measurements without them."""
    monkeypatch.setattr(search, "PROBES", 0)


@pytest.mark.parametrize("layout, km, reason", [
    (Layout((16, 4096), (1024,)), WAVE, "exceeds the domain's extent"),
    (Layout((16, 64), (16,)), WAVE, "fewer than 32"),
    (Layout((2, 2), (2,)), WAVE, "fewer than 32"),
    (Layout((1, 64), (64,)), WAVE, "data reuse 0.98 below 1.0"),
    (Layout((2, 64), (64,)), WAVE, "more threads than points"),
    (Layout((64, 64), (64,)), KernelModel("k", WAVE.problem, (16, 64), 32, 300_000),
     "shared memory exceed"),
    (Layout((1024, 1024), (1024,)), KernelModel(
        "k", Problem.from_box((2048, 2048), SOR1), (16, 64), 128, 0),
     "no block resident per SM (registers)"),
])
def test_excluded_before_measuring(layout, km, reason):
    assert reason in search.exclusion(layout, km, H100)


def test_over_1024_threads_excluded():
    doall = KernelModel("k", Problem.from_box((4096, 4096), kind="doall"), (8, 32), 32, 0)
    assert "2048 threads per block exceed 1024" in search.exclusion(
        Layout((64, 64), (32, 64)), doall, H100)
    assert search.exclusion(Layout((32, 64), (16, 64)), doall, H100) is None


def test_rank_is_the_model_order_of_every_admissible_layout():
    cal = calibrate.reference_calibration()
    ranked, excluded = search.rank((WAVE,), cal, H100)
    every = search.layouts(WAVE)
    admissible = [lay for lay in every if search.exclusion(lay, WAVE, H100) is None]
    assert len(ranked) == len(admissible) and sum(excluded.values()) == len(every) - len(
        admissible)
    best = min(admissible, key=lambda lay: search.estimate((WAVE,), lay.tiles, lay.block, cal,
                                                          H100))
    assert (ranked[0].tiles, ranked[0].block) == (best.tiles, best.block)
    assert [r.model_s for r in ranked] == sorted(r.model_s for r in ranked)


def test_kernel_layout_fits_sizes_like_options():
    doall = KernelModel("k", Problem.from_box((64, 64), kind="doall"), (8, 32), 32, 0)
    assert search.kernel_layout(doall, (4, 16, 64), (2, 64)) == Layout((16, 64), (2, 64))
    assert search.kernel_layout(WAVE, (8, 32, 128), (32,)) == Layout((32, 128), (32,))


def test_tune_measures_top_k_keeps_the_fastest_and_caches(no_probes, caplog):
    caplog.set_level(logging.INFO, logger="polycuda")  # tune's progress: logging records
    prog = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    calls = []

    def measure(opts: Options) -> float:  # the model's third choice runs fastest
        calls.append(opts.tile_sizes)
        return 1.0 if len(calls) != 3 else 0.5

    result = search.tune(prog, {"T": 64, "n": 2048}, top_k=4, measure=measure,
                         local_rounds=0)
    assert len(calls) == 5 and calls[4] == () and result.measured  # the defaults last
    assert result.tile_sizes == calls[2] and result.top[2].measured_s == 0.5
    assert "excluded before measuring" in caplog.text
    again = search.tune(prog, {"T": 64, "n": 2048}, top_k=4, measure=measure,
                        local_rounds=0)
    assert again == result and len(calls) == 5  # from the cache
    assert search.TuneResult.from_json(result.to_json()) == result
    assert result.apply(Options()).tile_sizes == result.tile_sizes


def test_a_layout_that_fails_is_skipped_and_its_reason_shown(no_probes, tmp_path):
    prog = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    calls = []

    def measure(opts: Options) -> float:  # the model's first choice does not launch
        calls.append(opts.tile_sizes)
        if len(calls) == 1:
            raise LaunchError("too many resources requested for launch\n(second line)")
        return 1.0

    shown: list[str] = []
    result = search.tune(prog, {"T": 64, "n": 2048}, top_k=3, measure=measure,
                         cache=tmp_path, progress=shown.append, local_rounds=0)
    assert calls[0] not in [r.tiles for r in result.top] and result.tile_sizes != calls[0]
    assert any(line.startswith("measured 1/") and f"tiles={calls[0]}" in line and
               ": failed (too many resources requested for launch) (model " in line
               for line in shown)


def test_the_default_tables_are_kept_where_they_measure_fastest(tmp_path):
    prog = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    result = search.tune(prog, {"T": 64, "n": 2048}, top_k=3, cache=tmp_path,
                         measure=lambda opts: 0.5 if opts.tile_sizes == () else 1.0)
    assert (result.tile_sizes, result.block_sizes) == ((), ())
    assert result.apply(Options()).tile_sizes == ()


def test_nothing_to_tune():
    with pytest.raises(InvalidConfigError, match="no tiled kernel"):
        search.rank((), calibrate.reference_calibration(), H100)


def test_cli_tune_dump_sizes_round_trip(tmp_path, capsys):
    sizes = tmp_path / "sizes.json"
    assert main(["tune", "kernels/c/sor_1d.c", "--size", "T=64", "--size", "n=2048",
                 "--dump-sizes", str(sizes), "--top-k", "2"]) == 0
    out, err = capsys.readouterr()
    assert "sor_1d: tile_sizes" in out and "reference calibration" in err
    data = json.loads(sizes.read_text())
    assert set(data) == {"tile_sizes", "block_sizes"}
    tiles, block = ",".join(map(str, data["tile_sizes"])), ",".join(map(str, data["block_sizes"]))
    a, b = tmp_path / "a.cu", tmp_path / "b.cu"
    assert main(["compile", "kernels/c/sor_1d.c", "--tuned", str(sizes), "-o", str(a)]) == 0
    assert main(["compile", "kernels/c/sor_1d.c", "--tile-sizes", tiles, "--block-sizes", block,
                 "-o", str(b)]) == 0
    assert a.read_text() == b.read_text()
    assert f"{data['tile_sizes'][-1]}" in a.read_text()


def _fails(capsys, argv, needle, code=1):
    try:
        rc = main(argv)
    except SystemExit as stop:
        rc = stop.code
    err = capsys.readouterr().err
    assert rc == code and needle in err and "Traceback" not in err, err


def test_cli_tune_errors(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"tile_sizes": [8, 8], "target": "c"}')
    _fails(capsys, ["compile", "kernels/c/sor_1d.c", "--tuned", str(bad)],
           "may hold only tile_sizes, block_sizes, register_tiles, sequential_tile, scheduler")
    _fails(capsys, ["tune", "kernels/c/sor_1d.c", "--budget", "5"], "--layouts N")
    _fails(capsys, ["tune", "kernels/c/sor_1d.c", "--layouts", "0"], "must be >= 1", code=2)
    _fails(capsys, ["tune", "kernels/c/sor_1d.c", "--top-k", "0"], "must be >= 1", code=2)
    _fails(capsys, ["tune", "kernels/c/sor_1d.c", "--size", "X=3"], "not integer parameters")
    _fails(capsys, ["tune", "kernels/c/sor_1d.c", "--dump-sizes", str(tmp_path / "no" / "f")],
           "does not exist")
    # at the default sizes (12) no layout of 32 threads or more fits the domain
    _fails(capsys, ["tune", "kernels/c/gesummv.c"], "pass --size N=V")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
def test_registers_come_from_nvcc(monkeypatch):
    monkeypatch.undo()
    from polycuda.tune import problem

    prog = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    (km,) = problem.kernel_models(prog.generate("cuda"), {"T": 8, "n": 64})
    assert 8 <= km.registers <= 255


def _store_fake_result(prog, tiles=(32, 128), block=(32,)):
    result = search.TuneResult(tiles, block, "test", calibrate.ESTIMATED, 1, {},
                               (search.Ranked(tiles, block, 1e-3, 1e-3),), True, 0.1)
    search.store(search.cache_key(prog.scop, prog.options, search.gpu_name(), None), result)
    return result


def test_cached_tune_result_is_used_unless_opted_out(capsys):
    prog = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    plain = prog.generate("cuda").source
    _store_fake_result(prog)
    tuned = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    assert tuned.effective_options("cuda").tile_sizes == (32, 128)
    assert tuned.generate("cuda").source == tuned.generate(
        "cuda", tile_sizes=(32, 128), block_sizes=(32,), tuned_sizes=False).source != plain
    off = polycuda.compile("kernels/c/sor_1d.c",
                           options=Options(target="cuda", tuned_sizes=False))
    assert off.generate("cuda").source == plain
    # explicit sizes win over tuned ones
    assert tuned.effective_options("cuda", tile_sizes=(8, 64)).tile_sizes == (8, 64)
    # CPU targets never take them
    assert tuned.effective_options("openmp").tile_sizes == ()


def test_cli_uses_tuned_sizes_and_no_tuned_sizes(tmp_path, capsys):
    prog = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    _store_fake_result(prog)
    a, b = tmp_path / "a.cu", tmp_path / "b.cu"
    assert main(["compile", "kernels/c/sor_1d.c", "-o", str(a)]) == 0
    assert "tuned sizes tile_sizes=(32, 128)" in capsys.readouterr().err
    assert main(["compile", "kernels/c/sor_1d.c", "--no-tuned-sizes", "-o", str(b)]) == 0
    assert "tuned sizes" not in capsys.readouterr().err
    assert a.read_text() != b.read_text()


def test_layouts_unequal_on_tied_rows_are_excluded():
    tied = KernelModel("k", Problem.from_box((64, 512, 512), ((1, 0, 0), (1, 1, 0), (1, 0, 1))),
                       (8, 8, 8), 32, 0, tied_rows=((0, 2),))
    assert "differ on tied members [0, 2]" in search.exclusion(
        Layout((8, 32, 16), (8, 16)), tied, H100)
    assert search.exclusion(Layout((8, 32, 8), (8, 8)), tied, H100) is None


def test_fdtd_2d_tune_keeps_its_tied_rows_equal_and_builds(tmp_path):
    # fdtd-2d's ey[0][j] ties two of its band's rows (gpu/wavefront.tied_rows): the model's
    # choice once had 32 and 48 on them, which compiled with 32 on both and a block of 48
    # over a tile of 32 -- an error in every later compile
    # (Pluto's code alone: the model's sizes for it are what this checks)
    prog = polycuda.compile("kernels/c/fdtd_2d.c", options=Options(target="cuda",
                                                                   runtime_choice=False))
    gen = prog.generate("cuda")
    (kernel,) = [k for k in gen.kernels if k.wavefront]
    assert kernel.tied_rows and all(len(g) == 2 for g in kernel.tied_rows)
    result = search.tune(prog, {"T": 64, "nx": 512, "ny": 512}, top_k=2, limit=4000,
                         cache=tmp_path)
    for row in result.top:
        for group in kernel.tied_rows:
            assert len({row.tiles[k] for k in group}) == 1, row
    gen = prog.generate("cuda", tile_sizes=result.tile_sizes, block_sizes=result.block_sizes)
    assert [k.tile_sizes for k in gen.kernels if k.wavefront] == [result.tile_sizes]


def test_a_cached_result_that_does_not_build_falls_back_with_a_warning():
    prog = polycuda.compile("kernels/c/fdtd_2d.c", options=Options(target="cuda"))
    plain = prog.generate("cuda").source
    # 64 over the tied 32 of pluto's wavefront, and over the 48 of isl's kernels
    _store_fake_result(prog, tiles=(32, 48, 48), block=(64, 16))
    again = polycuda.compile("kernels/c/fdtd_2d.c", options=Options(target="cuda"))
    with pytest.warns(PolycudaWarning, match="do not build .*block size 64 exceeds tile size"):
        assert again.effective_options("cuda").tile_sizes == ()
    assert again.generate("cuda").source == plain


def test_exclusion_kinds_are_counted_apart():
    _, excluded = search.rank((WAVE,), calibrate.reference_calibration(), H100)
    assert set(excluded) <= {kind for _, kind in search._REASON_KINDS}
    assert excluded["tile over the domain"] > 0 and excluded["threads without work"] > 0


def test_tune_chooses_the_scheduler_by_measuring_each_candidate(caplog, tmp_path):
    caplog.set_level(logging.INFO, logger="polycuda")
    from polycuda import pipeline

    prog = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    seen = []

    def measure(opts: Options) -> float:  # isl-distributed's layouts run fastest
        seen.append(opts.scheduler)
        return 0.5 if opts.scheduler == "isl-distributed" else 1.0

    result = search.tune(prog, {"T": 64, "n": 2048}, top_k=2, measure=measure,
                         schedulers=True)
    # superposition finds no forall loop in SOR and falls back to isl's schedule: not
    # measured again under its name
    assert set(seen) == set(pipeline.AUTO_SCHEDULERS["cuda"]) - {"superposition"}
    assert result.scheduler == "isl-distributed" and result.measured_s_of_choice() == 0.5
    assert result.candidates == {"isl": 1.0, "pluto": 1.0, "isl-distributed": 0.5}
    err = caplog.text
    assert "keeping isl-distributed" in err and "scheduler superposition left out" in err
    assert search.TuneResult.from_json(result.to_json()) == result
    # compile and run of the auto program then take the scheduler and its sizes
    again = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    used = again.effective_options("cuda")
    assert (used.scheduler, used.tile_sizes) == ("isl-distributed", result.tile_sizes)
    # an explicitly requested scheduler is kept
    assert result.apply(Options(scheduler="pluto")).scheduler == "pluto"
    out = tmp_path / "sizes.json"
    out.write_text(result.sizes_text())
    assert main(["compile", "kernels/c/sor_1d.c", "--tuned", str(out), "-o",
                 str(tmp_path / "a.cu")]) == 0
    # without a way to measure, the candidates cannot be compared
    with pytest.raises(InvalidConfigError, match="no GPU"):
        search.tune(prog, {"T": 64, "n": 1024}, schedulers=True, progress=None)


def test_old_cached_results_without_a_scheduler_still_load():
    text = json.dumps({"tile_sizes": [32, 128], "block_sizes": [32], "gpu": "g",
                       "calibration": "measured", "evaluated": 3, "excluded": {}, "top": [],
                       "measured": True, "seconds": 1.0})
    old = search.TuneResult.from_json(text)
    assert old.scheduler == "" and old.apply(Options()).scheduler == "auto"


def _law_measurer(prog, sizes, law, slow=frozenset()):
    """A fake GPU: seconds of a layout by the model's terms with coefficients `law` (the
    default tables 1 s, layouts in `slow` 10 s), and the calls made."""
    from polycuda.tune import problem

    props, _ = occupancy.current_device()
    cal = calibrate.load_calibration(None, say=None)
    gen = prog.generate("cuda", tile_sizes=(), block_sizes=(), tuned_sizes=False)
    models = problem.kernel_models(gen, sizes)
    calls = []

    def seconds(tiles, block):
        *terms, d = search.model_terms(models, tiles, block, cal, props)
        return sum(c * t for c, t in zip(law, terms)) + d

    def measure(opts: Options) -> float:
        key = (opts.tile_sizes, opts.block_sizes)
        calls.append(key)
        return 1.0 if key == ((), ()) else 10.0 if key in slow else seconds(*key)

    ranked, _ = search.rank(models, cal, props)
    return measure, calls, ranked, seconds


SOR1_SIZES = {"T": 64, "n": 2048}
MEMORY_LAW = (0.0, 0.0, 1e-7, 0.0)  # times by gamma alone: not the reference model's order


def test_refit_on_the_measured_top_k_measures_its_choice_too(no_probes, ):
    prog = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    measure, calls, ranked, seconds = _law_measurer(prog, SOR1_SIZES, MEMORY_LAW)
    law_best = min(ranked, key=lambda r: (seconds(r.tiles, r.block), r.tiles, r.block))
    top5 = [(r.tiles, r.block) for r in ranked[:5]]
    assert (law_best.tiles, law_best.block) not in top5  # the model alone would miss it
    result = search.tune(prog, SOR1_SIZES, top_k=5, measure=measure, local_rounds=0)
    # the top 5, the default tables, then the refit's choice: one measurement more
    assert calls == top5 + [((), ()), (law_best.tiles, law_best.block)]
    assert (result.tile_sizes, result.block_sizes) == (law_best.tiles, law_best.block)
    fitted = result.refit["coefficients"]
    assert [fitted[k] for k in ("alpha", "beta", "gamma", "lam")] == pytest.approx(
        MEMORY_LAW, abs=1e-12)
    assert result.refit["measured"] and len(result.top) == 7
    assert search.TuneResult.from_json(result.to_json()) == result


def test_refit_never_measures_less_and_never_keeps_a_slower_layout(no_probes, tmp_path):
    prog = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    # off: the top k and the default tables only, as before
    measure, calls, ranked, _ = _law_measurer(prog, SOR1_SIZES, MEMORY_LAW)
    off = search.tune(prog, SOR1_SIZES, top_k=5, measure=measure, refit=False,
                      cache=tmp_path / "off", local_rounds=0)
    assert len(calls) == 6 and off.refit == {}
    # fewer measured layouts than coefficients: no refit, said
    calls.clear()
    few = search.tune(prog, SOR1_SIZES, top_k=3, measure=measure, cache=tmp_path / "few",
                      local_rounds=0)
    assert len(calls) == 4 and few.refit == {}
    # the refit's choice measures slower than the top k: the fastest measured is kept
    on = search.tune(prog, SOR1_SIZES, top_k=5, measure=measure, cache=tmp_path / "on",
                     local_rounds=0)
    choice = tuple(map(tuple, on.refit["choice"]))
    slow, calls, _, _ = _law_measurer(prog, SOR1_SIZES, MEMORY_LAW, slow={choice})
    kept = search.tune(prog, SOR1_SIZES, top_k=5, measure=slow, cache=tmp_path / "slow",
                       local_rounds=0)
    assert calls[-1] == choice and kept.top[-1].measured_s == 10.0
    assert (kept.tile_sizes, kept.block_sizes) == (off.tile_sizes, off.block_sizes)


def test_refit_that_agrees_with_the_model_measures_nothing_more(no_probes, tmp_path):
    prog = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    cal = calibrate.load_calibration(None, say=None)
    same = (cal.alpha, cal.beta, cal.gamma, cal.lam)
    measure, calls, ranked, _ = _law_measurer(prog, SOR1_SIZES, same)
    result = search.tune(prog, SOR1_SIZES, top_k=5, measure=measure, cache=tmp_path,
                         local_rounds=0)
    assert len(calls) == 6 and result.refit["measured"] is False
    assert result.refit["choice"] == [list(ranked[0].tiles), list(ranked[0].block)]


def test_probes_are_where_each_term_weighs_most_and_the_refit_sees_them(tmp_path):
    prog = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    models, cal, props = _models(prog, SOR1_SIZES)
    ranked, _ = search.rank(models, cal, props)
    top = ranked[:5]
    found = search.probes(models, ranked, top, cal, props)
    pool = ranked[:max(search.PROBE_MIN, int(len(ranked) * search.PROBE_SHARE))]
    coef = (cal.alpha, cal.beta, cal.gamma, cal.lam)

    def share(r, j):
        *terms, d = search.model_terms(models, r.tiles, r.block, cal, props)
        parts = [c * t for c, t in zip(coef, terms)]
        return parts[j] / (sum(parts) + d)

    keys = {(r.tiles, r.block) for r in top}
    assert found and len(found) <= search.PROBES and not keys & {(r.tiles, r.block)
                                                                 for r in found}
    weighed = [j for j, c in enumerate(coef) if c > 0]
    for r in found:  # each probe is the pool's layout of largest share for some term
        assert r in pool and any(share(r, j) == max(share(q, j) for q in pool)
                                 for j in weighed)
    # tune measures them after the top k, before the default tables, and refits on them
    measure, calls, _, _ = _law_measurer(prog, SOR1_SIZES, MEMORY_LAW)
    result = search.tune(prog, SOR1_SIZES, top_k=5, measure=measure, cache=tmp_path,
                         local_rounds=0)
    assert calls[:5 + len(found) + 1] == (list(_keys(top)) + list(_keys(found))
                                          + [((), ())])
    assert result.refit["coefficients"]["gamma"] == pytest.approx(1e-7, rel=1e-6)
    none = search.tune(prog, SOR1_SIZES, top_k=5, measure=measure, cache=tmp_path / "n",
                       local_rounds=0, probe_count=0, use_cache=False)
    assert len(none.top) == len(result.top) - len(found)
    # with a top 3, too few to refit alone, the refit runs on the probes too
    three = search.probes(models, ranked, ranked[:3], cal, props)
    assert 3 + len(three) >= search.REFIT_MIN
    with_probes = search.tune(prog, SOR1_SIZES, top_k=3, measure=measure, cache=tmp_path / "3",
                              local_rounds=0)
    without = search.tune(prog, SOR1_SIZES, top_k=3, measure=measure, cache=tmp_path / "3n",
                          local_rounds=0, probe_count=0)
    assert with_probes.refit["coefficients"]["gamma"] == pytest.approx(1e-7, rel=1e-6)
    assert without.refit == {}


def test_with_probes_both_refits_choices_are_measured(tmp_path, monkeypatch):
    prog = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    models, cal, props = _models(prog, SOR1_SIZES)
    ranked, _ = search.rank(models, cal, props)
    found = search.probes(models, ranked, ranked[:5], cal, props)
    assert found
    seen, picks = [], iter(ranked[40:42])  # two choices, neither measured before

    def refit_choice(models_, ranked_, measured, *args):
        seen.append(_keys(r for r in measured if r.tiles))
        return next(picks), (1e-9, 0.0, 1e-7, 0.0)

    monkeypatch.setattr(search, "refit_choice", refit_choice)
    calls = []

    def measure(opts: Options) -> float:
        calls.append((opts.tile_sizes, opts.block_sizes))
        return 0.1 if calls[-1] == _keys(ranked[41:42])[0] else 1.0

    result = search.tune(prog, SOR1_SIZES, top_k=5, measure=measure, cache=tmp_path,
                         local_rounds=0)
    # on the top 5 and the probes, then on the top 5 alone (each fit's choice measured)
    assert seen == [_keys(ranked[:5]) + _keys(found), _keys(ranked[:5])]
    assert calls[-2:] == _keys(ranked[40:42]) and len(calls) == len(set(calls))
    assert result.refit["choice"] == [list(ranked[40].tiles), list(ranked[40].block)]
    assert result.refit["top_k"]["choice"] == [list(ranked[41].tiles), list(ranked[41].block)]
    assert result.refit["top_k"]["measured"] is True
    assert (result.tile_sizes, result.block_sizes) == (ranked[41].tiles, ranked[41].block)
    assert search.TuneResult.from_json(result.to_json()) == result
    seen.clear()
    picks = iter(ranked[40:42])
    search.tune(prog, SOR1_SIZES, top_k=5, measure=measure, cache=tmp_path / "none",
                local_rounds=0, probe_count=0)
    assert seen == [_keys(ranked[:5])]  # no probes: one refit


def _keys(layouts):
    return [(r.tiles, r.block) for r in layouts]


def _models(prog, sizes):
    from polycuda.tune import problem

    props, _ = occupancy.current_device()
    cal = calibrate.load_calibration(None, say=None)
    gen = prog.generate("cuda", tile_sizes=(), block_sizes=(), tuned_sizes=False)
    return problem.kernel_models(gen, sizes), cal, props


def test_thread_steps():
    assert search._thread_steps(512) == [256, 1024]
    assert search._thread_steps(504) == [256, 1024]
    assert search._thread_steps(32) == [64] and search._thread_steps(1024) == [512]


def test_tile_steps():
    assert search._tile_steps(24) == [12, 16, 32, 48]
    assert search._tile_steps(1) == [2]
    assert search._tile_steps(1024) == [512, 768, 2048]


def _one_step(size: int, start: int) -> bool:
    """`size` is `start` halved, doubled, or the next TILE_CHOICES value down or up."""
    choices = search.TILE_CHOICES
    return (size * 2 in (start, start * 4)
            or abs(choices.index(size) - choices.index(start)) == 1)


def test_neighbours_are_one_step_away_and_admissible():
    prog = polycuda.compile("kernels/c/sor_2d.c", options=Options(target="cuda"))
    models, cal, props = _models(prog, {"T": 64, "n": 2048})
    primary = search.primary_model(models)
    block = search.primary_block(primary, (24, 64, 24), 512)
    start = search.Ranked((24, 64, 24), block, search.estimate(models, (24, 64, 24), block,
                                                               cal, props))
    near = search.neighbours(models, start, cal, props)
    assert near and [r.model_s for r in near] == sorted(r.model_s for r in near)
    threads = math.prod(start.block)
    below, above = search._thread_steps(threads)
    assert (threads, below, above) == (504, 256, 1024)  # 21x24: 512 asked, then filled
    kinds = set()
    for r in near:
        changed = [d for d, (a, b) in enumerate(zip(r.tiles, start.tiles)) if a != b]
        assert len(changed) <= 2 and all(_one_step(r.tiles[d], start.tiles[d]) for d in changed)
        counts = (below, threads, above) if changed else (below, above)
        assert r.block in {search.primary_block(primary, r.tiles, k) for k in counts}
        mine = math.prod(r.block)
        kinds.add((len(changed), mine > threads, mine < threads))
        assert not any(search.exclusion(search.kernel_layout(km, r.tiles, r.block), km, props)
                       for km in models)
    # every kind of move is there: one or two sizes on fewer, as many and more threads, the
    # same tiles on fewer threads (on 1024 they are excluded here)
    assert {(1, False, True), (1, False, False), (1, True, False), (2, False, True),
            (2, False, False), (2, True, False), (0, False, True)} <= kinds


def test_local_search_walks_to_a_faster_layout_two_steps_away(no_probes, tmp_path):
    prog = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    models, cal, props = _models(prog, SOR1_SIZES)
    ranked, _ = search.rank(models, cal, props)
    top = {(r.tiles, r.block) for r in ranked[:3]}
    first = ranked[0]
    # a path first -> one -> two of layouts the model's top 3 do not hold, two not next to first
    near = search.neighbours(models, first, cal, props)
    nearby = top | {(r.tiles, r.block) for r in near} | {(first.tiles, first.block)}
    one, two = next((a, b) for a in near if (a.tiles, a.block) not in top
                    for b in search.neighbours(models, a, cal, props)
                    if (b.tiles, b.block) not in nearby)
    times = {(first.tiles, first.block): 0.9, (one.tiles, one.block): 0.8,
             (two.tiles, two.block): 0.5, ((), ()): 2.0}
    calls = []

    def measure(opts: Options) -> float:
        calls.append((opts.tile_sizes, opts.block_sizes))
        return times.get(calls[-1], 1.0)

    result = search.tune(prog, SOR1_SIZES, top_k=3, measure=measure, cache=tmp_path / "on",
                         progress=None)
    assert (result.tile_sizes, result.block_sizes) == (two.tiles, two.block)
    assert result.local["rounds"] == 3  # the third finds nothing 2% faster and stops
    assert result.local["started"] == [list(first.tiles), list(first.block)]
    assert result.local["ended"] == [list(two.tiles), list(two.block)]
    assert len(calls) == len(set(calls)) == 4 + result.local["measured"]  # each once
    assert search.TuneResult.from_json(result.to_json()) == result
    calls.clear()
    short = search.tune(prog, SOR1_SIZES, top_k=3, measure=measure, cache=tmp_path / "one",
                        progress=None, local_rounds=1)
    assert (short.tile_sizes, short.block_sizes) == (one.tiles, one.block)
    off = search.tune(prog, SOR1_SIZES, top_k=3, measure=measure, cache=tmp_path / "off",
                      progress=None, local_rounds=0)
    assert (off.tile_sizes, off.block_sizes) == (first.tiles, first.block) and off.local == {}


def test_local_search_starts_from_no_default_table_and_keeps_the_fastest(tmp_path):
    prog = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    calls = []

    def measure(opts: Options) -> float:  # the default tables fastest: nothing to walk from
        calls.append(opts.tile_sizes)
        return 0.1 if opts.tile_sizes == () else 1.0

    models, cal, props = _models(prog, SOR1_SIZES)
    found, summary = search.local_search(models, [search.Ranked((), (), 1.0, 0.1)],
                                         Options(target="cuda"), measure, cal, props)
    assert found == [] and summary == {} and calls == []
    result = search.tune(prog, SOR1_SIZES, top_k=3, measure=measure, cache=tmp_path,
                         progress=None)
    assert result.tile_sizes == () and result.local["rounds"] == 1  # no neighbour faster


def test_local_search_starts_from_the_default_tables_given_explicitly(no_probes, tmp_path,
                                                                     monkeypatch):
    prog = polycuda.compile("kernels/c/heat_2d.c", options=Options(target="cuda"))
    sizes = {"T": 32, "n": 512}
    models, cal, props = _models(prog, sizes)
    explicit = search.defaults_layout(models, cal, props)
    default = (models[0].default_tiles, models[0].default_block)
    assert (explicit.tiles, explicit.block) == default
    ranked, excluded = search.rank(models, cal, props)
    real_rank = search.rank

    def rank(*args, **kwargs):  # tune's own ranking of these kernels: this one (2.5 s each)
        if args[:3] == (models, cal, props):
            return list(ranked), excluded.copy()
        return real_rank(*args, **kwargs)

    monkeypatch.setattr(search, "rank", rank)
    top = {(r.tiles, r.block) for r in ranked[:3]}
    target = next(r for r in search.neighbours(models, explicit, cal, props)
                  if (r.tiles, r.block) not in top)
    # the default tables fastest of the top 3 and the refit's choice; a neighbour of their
    # sizes faster still: only a search from the default tables finds it
    times = {((), ()): 0.5, default: 0.51, (target.tiles, target.block): 0.3}
    calls = []

    def measure(opts: Options) -> float:
        calls.append((opts.tile_sizes, opts.block_sizes))
        return times.get(calls[-1], 1.0)

    result = search.tune(prog, sizes, top_k=3, measure=measure, cache=tmp_path, progress=None)
    assert result.local["started"] == [list(default[0]), list(default[1])]
    assert (result.tile_sizes, result.block_sizes) == (target.tiles, target.block)
    assert calls.count(default) == 1 and len(calls) == len(set(calls))
    # kernels whose defaults one explicit layout cannot give: no such start
    other = dataclasses.replace(models[0], name="k1", default_tiles=(32, 32))
    assert search.defaults_layout(models + (other,), cal, props) is None
    assert search.defaults_layout((dataclasses.replace(models[0], default_block=()),), cal,
                                  props) is None
    # gemm's default kernel has register and k tiles that given sizes do not rebuild
    gemm = polycuda.compile("kernels/c/gemm.c", options=Options(target="cuda"))
    models, cal, props = _models(gemm, {"ni": 256, "nj": 256, "nk": 256})
    assert models[0].default_block == () and search.defaults_layout(models, cal, props) is None


@pytest.mark.parametrize("flag,key,on,off", [("--no-refit", "refit", True, False),
                                             ("--no-local-search", "local_rounds",
                                              search.LOCAL_ROUNDS, 0)])
def test_cli_tune_flags_reach_tune(flag, key, on, off, monkeypatch, capsys):
    seen = {}
    real = search.tune

    def spy(*args, **kwargs):
        seen.update(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(search, "tune", spy)
    argv = ["tune", "kernels/c/sor_1d.c", "--size", "T=64", "--size", "n=2048", "--no-cache"]
    assert main(argv) == 0 and seen[key] == on and type(seen[key]) is type(on)
    assert main(argv + [flag]) == 0 and seen[key] == off and type(seen[key]) is type(off)
    capsys.readouterr()


def test_register_neighbours_keep_the_constraints():
    start = search.Ranked((64, 64), (16, 32), math.inf, None, (4, 2), 32)
    near = search.register_neighbours(start)
    keys = {r.key() for r in near}
    assert ((64, 64), (16, 16), (4, 4), 32) in keys  # a register tile doubled
    assert ((64, 64), (32, 32), (2, 2), 32) in keys  # halved
    assert ((128, 64), (32, 32), (4, 2), 32) in keys  # a tile doubled, same registers
    assert ((64, 64), (16, 32), (4, 2), 16) in keys  # the sequential tile halved
    for r in near:
        assert all(t % g == 0 for t, g in zip(r.tiles, r.registers))
        assert r.block == tuple(t // g for t, g in zip(r.tiles, r.registers))
        assert 64 <= math.prod(r.block) <= 1024 and math.prod(r.registers) <= 32
        assert 8 <= r.sequential <= 64 and max(r.tiles) <= 256
    # 64 x 64 tiles at 4 x 2 points: 512 threads; doubling both tiles would need 2048
    assert ((128, 128), (32, 64), (4, 2), 32) not in keys


def test_tune_searches_register_tiles_of_a_gemm_like_kernel(no_probes, tmp_path, capsys):
    prog = polycuda.compile("kernels/c/gemm.c", options=Options(target="cuda"))
    sizes = {"ni": 256, "nj": 256, "nk": 256}
    calls = []

    def measure(opts: Options) -> float:  # 4 x 4 points per thread, k tiles of 16: fastest
        calls.append((opts.tile_sizes, opts.block_sizes, opts.register_tiles,
                      opts.sequential_tile))
        if opts.register_tiles == (4, 4):
            return 0.4 if opts.sequential_tile == 16 else 0.6
        return 0.7 if opts.tile_sizes == () else 1.0

    result = search.tune(prog, sizes, top_k=2, limit=2000, measure=measure, cache=tmp_path,
                         progress=None)
    assert (result.register_tiles, result.sequential_tile) == ((4, 4), 16)
    assert result.tile_sizes == (64, 64) and result.block_sizes == (16, 16)
    assert result.registers["started"] == [[64, 64], [16, 32], [4, 2], 32]
    assert result.registers["ended"] == [[64, 64], [16, 16], [4, 4], 16]
    assert len(calls) == len(set(calls))  # nothing measured twice (the start is the default's)
    assert search.TuneResult.from_json(result.to_json()) == result
    tuned = result.apply(Options(target="cuda"))
    (kernel,) = prog.generate("cuda", **{k: getattr(tuned, k) for k in (
        "tile_sizes", "block_sizes", "register_tiles", "sequential_tile")}).kernels
    assert kernel.register_tiles == (4, 4) and kernel.sequential_tiles == (16,)
    assert json.loads(result.sizes_text())["register_tiles"] == [4, 4]
    # the tuned layout computes what the program computes
    one = prog.with_options(tuned_sizes=False, tile_sizes=tuned.tile_sizes,
                            block_sizes=tuned.block_sizes, register_tiles=tuned.register_tiles,
                            sequential_tile=tuned.sequential_tile)
    assert all(r.ok for r in one.verify({"ni": 70, "nj": 67, "nk": 19}, targets=("emulate",)))


def test_no_register_search_without_register_tiled_kernels(no_probes, tmp_path):
    prog = polycuda.compile("kernels/c/sor_1d.c", options=Options(target="cuda"))
    calls = []

    def measure(opts: Options) -> float:
        calls.append(opts.register_tiles)
        return 1.0

    result = search.tune(prog, {"T": 64, "n": 2048}, top_k=2, measure=measure, cache=tmp_path,
                         progress=None)
    assert result.registers == {} and result.register_tiles == () and not any(calls)


def test_build_many_builds_in_parallel_what_kernel_then_runs(monkeypatch):
    prog = polycuda.compile("kernels/c/jacobi_2d.c", options=Options(target="cuda"))
    good = [{"tile_sizes": (2, 8, 8), "block_sizes": (2, 8), "tuned_sizes": False},
            {"tile_sizes": (4, 8, 16), "block_sizes": (4, 16), "tuned_sizes": False}]
    too_many = {"tile_sizes": (2, 8, 8), "block_sizes": (64, 64), "tuned_sizes": False}
    bad = {"tile_sizes": (2, 8, 8), "block_sizes": (16, 8), "tuned_sizes": False}  # > tile
    with pytest.raises(InvalidConfigError):
        prog.kernel("emulate", **bad)
    assert prog.build_many(good + [too_many, bad], "emulate", workers=2) == 2
    assert prog.build_many(good, "emulate", workers=2) == 0  # loaded already
    rng = np.random.default_rng(3)
    start = [rng.random((20, 20)), rng.random((20, 20))]
    expected = [a.copy() for a in start]
    prog.kernel("c")(3, 20, *expected)
    monkeypatch.setattr(program_module, "_generate", None)  # kernel() must not generate again
    for changes in good:
        got = [a.copy() for a in start]
        prog.kernel("emulate", **changes)(3, 20, *got)
        assert all(np.allclose(g, e) for g, e in zip(got, expected))
    with pytest.raises(TypeError):  # the bad one was not built: kernel() generates it
        prog.kernel("emulate", **bad)
    with pytest.raises(InvalidConfigError):
        prog.kernel("emulate", **too_many)
    assert prog.build_many(good, "emulate", workers=1) == 0  # one worker: nothing here


def test_measured_builds_each_batch_first_and_stops_at_the_deadline():
    calls, batches = [], []

    def measure(opts: Options) -> float:
        calls.append(opts.tile_sizes)
        return 1.0

    measure.prepare = lambda batch: batches.append([o.tile_sizes for o in batch])
    top = [search.Ranked((8, 8), (8, 8), 1.0), search.Ranked((16, 16), (16, 16), 2.0)]
    out = search._measured(top, Options(target="cuda"), measure, None)
    assert batches == [[(8, 8), (16, 16)]] and calls == [(8, 8), (16, 16)]
    assert [r.measured_s for r in out] == [1.0, 1.0]
    assert search._measured(top, Options(target="cuda"), measure, None,
                            deadline=time.perf_counter() - 1.0) == []
    assert calls == [(8, 8), (16, 16)]  # nothing measured past the deadline
