"""Model-driven empirical search of tile sizes and block shapes (Di & Xue 2011, Section 4 and
Fig. 5; Baskaran et al. 2008, "model-driven empirical search"): enumerate every layout that
meets the constraints (excluded ones are logged with the reason before anything runs),
rank them by the execution-time model, then, on a GPU, measure the model's top k and keep the
fastest. Measured results are cached per (kernel source, options, GPU, sizes); the model's
choice alone (no GPU) is not. The layouts and their ranking are tune/layouts.py's, the
measurement around the fastest (local and register search) tune/local_search.py's; this
module composes them: probes, refits, the cache and `polycuda tune`'s entry."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from polycuda import pipeline
from polycuda.errors import InvalidConfigError, PolycudaError
from polycuda.options import Options
from polycuda.tune import calibrate, occupancy
from polycuda.tune.model import Calibration
from polycuda.tune.problem import KernelModel
from polycuda.tune.layouts import (  # noqa: F401 (the names as before they moved)
    LOG, MIN_REUSE, MIN_THREADS, PROGRESS_S, RANK_LAYOUTS, THREAD_CHOICES, TILE_CHOICES, Ranked,
    _REASON_KINDS, estimate, exclusion, excluded_by, fill_inner_first, kernel_layout, layouts,
    model_terms, primary_block, primary_model, rank, resident)
from polycuda.tune.local_search import (  # noqa: F401 (the names as before they moved)
    LOCAL_BUDGET_S, LOCAL_GAIN, LOCAL_ROUNDS, MAX_TILE, REGISTER_POINTS, REGISTER_ROUNDS,
    REGISTER_SEQUENTIAL, REGISTER_THREADS, _measured, _sizes, _thread_steps, _tile_steps,
    defaults_layout, kernel_changes, local_search, neighbours, register_neighbours,
    register_search, register_start)

# measured layouts needed to refit alpha, beta, gamma, lam (refit_choice): one per coefficient
REFIT_MIN = 4
# Share of RANK_LAYOUTS that the refit's re-ranking may take (it goes in the model's
# order, so the model's best are re-ranked first). With the whole budget, 2-D SOR T=64
# n=2048 on the H100 tuned in 136 s against 76 s without the refit: the re-ranking ran the
# full 60 s, and its choice (16x64x16 tiles on 16x16 threads) was the first ranking's 10th
# of 11,205 (2026-11-25-nvidia-h100-80gb-hbm3-tune-refit-sor2d.json). Each layout's terms
# then cost five model evaluations; model.total_terms makes them one (on this 2-core machine,
# 27 s to re-rank those 11,205 layouts against 30 s for the first ranking).
REFIT_SHARE = 0.25
REFIT_LAYOUTS = int(RANK_LAYOUTS * REFIT_SHARE)
# Layouts measured besides the model's top k so that the refit sees the model's terms vary
# (probes): for each term, the layout among the model's best PROBE_SHARE (at least PROBE_MIN)
# where it weighs most, at most PROBES. Why: the top k of 2-D SOR 4096^2 x 100 on the H100
# were all large blocks, one per SM; fitted on them, gamma (the per-tile cost) stayed at
# 2.2e-8 and modelled the sweep's best (16x32x8 on 16x8, 8 blocks per SM, 33.7 ms) at 89.5
# ms, 1,403rd of 12,839 ranked; refitted on the 29 layouts that run measured, gamma went to 0
# and that layout came 2nd (bench/tune_refit_sample.py, ...-tune-refit-sample-sor2d.json; the
# run: ...-tune-diagonal-sor2d.json, whose local search, with tiles also halved or doubled
# all at once, found nothing below 57 ms from the top k). With the probes
# (...-tune-probes.json, one run): 2-D SOR tuned to 32.87 ms (the sweep's best 33.57 ms, the
# default tables 63.5; 57.6 before), heat_2d kept the default tables (14.93 ms; sweep 17.22).
PROBES = 4
PROBE_SHARE = 0.25
PROBE_MIN = 50
# Refits when probes were measured: on every measured layout (the probes' spread of the terms)
# and on the top k alone (the region of the model's best); both choices are measured. Why:
# offline on the H100 accuracy run (bench/tune_reevaluate.py, ...-tune-reevaluate-probes.json,
# held-out problems), the fit with probes chose 24% off the best sampled layout for 2-D SOR
# n = 2048, where the top-5 fit chose the best (mean gap of the choice 0.062 against 0.009);
# measuring both choices: 0 on every held-out problem. The probes' fit is what found 2-D SOR
# 4096^2 x 100's region (above).
REFITS = 2


@dataclass(frozen=True)
class TuneResult:
    """The chosen layout and how it was found."""

    tile_sizes: tuple[int, ...]
    block_sizes: tuple[int, ...]
    gpu: str
    calibration: str  # "measured" or calibrate.ESTIMATED
    evaluated: int
    excluded: dict[str, int]
    top: tuple[Ranked, ...]
    measured: bool
    seconds: float
    # "" unless tune(schedulers=True) chose among pipeline.AUTO_SCHEDULERS by measuring them;
    # then the chosen one, and the best measured seconds of each candidate
    scheduler: str = ""
    candidates: dict[str, float | None] = dataclasses.field(default_factory=dict)
    # empty unless the model was refitted on the measured top k and probes (refit_choice):
    # then its "coefficients" (alpha, beta, gamma, lam), the layout it "chose" ([tiles,
    # block]) and whether that one was measured anew ("measured": false when already among
    # those measured); with probes, "top_k" holds the same for the refit on the top k alone
    refit: dict = dataclasses.field(default_factory=dict)
    # empty unless the local search ran (local_search): its "rounds", the layouts it
    # "measured", and the layout it "started" from and "ended" at ([tiles, block])
    local: dict = dataclasses.field(default_factory=dict)
    # the register tiles and sequential tile chosen with the sizes (register_search; () and
    # 0: none), and that search's summary ("rounds", "measured", "started", "ended": [tiles,
    # block, register tiles, sequential tile]; empty when it did not run)
    register_tiles: tuple[int, ...] = ()
    sequential_tile: int = 0
    registers: dict = dataclasses.field(default_factory=dict)

    def choice(self) -> tuple:
        return (self.tile_sizes, self.block_sizes, self.register_tiles, self.sequential_tile)

    def measured_s_of_choice(self) -> float | None:
        """The measured time of the chosen layout (None when nothing was measured)."""
        return next((r.measured_s for r in self.top if r.key() == self.choice()), None)

    def apply(self, options: Options) -> Options:
        """`options` with the tuned sizes, and the tuned scheduler where it is "auto"."""
        changes: dict[str, object] = {"tile_sizes": self.tile_sizes,
                                      "block_sizes": self.block_sizes}
        if self.register_tiles:
            changes["register_tiles"] = self.register_tiles
        if self.sequential_tile:
            changes["sequential_tile"] = self.sequential_tile
        if self.scheduler and options.scheduler == "auto":
            changes["scheduler"] = self.scheduler
        return options.replace(**changes)

    def sizes_text(self) -> str:
        """The --dump-sizes text: the options that carry the sizes (Options.to_text's form),
        and the scheduler when tune chose it."""
        data: dict[str, object] = {"block_sizes": list(self.block_sizes),
                                   "tile_sizes": list(self.tile_sizes)}
        if self.register_tiles:
            data["register_tiles"] = list(self.register_tiles)
        if self.sequential_tile:
            data["sequential_tile"] = self.sequential_tile
        if self.scheduler:
            data["scheduler"] = self.scheduler
        return json.dumps(data, sort_keys=True)

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        data["top"] = [dataclasses.asdict(r) for r in self.top]
        return json.dumps(data, indent=2)

    @staticmethod
    def from_json(text: str) -> TuneResult:
        data = json.loads(text)
        data["top"] = tuple(Ranked(tuple(r["tiles"]), tuple(r["block"]), r["model_s"],
                                   r["measured_s"], tuple(r.get("registers", ())),
                                   r.get("sequential", 0)) for r in data["top"])
        data["tile_sizes"] = tuple(data["tile_sizes"])
        data["block_sizes"] = tuple(data["block_sizes"])
        data["register_tiles"] = tuple(data.get("register_tiles", ()))
        return TuneResult(**data)


def cache_key(scop, options: Options, gpu: str, sizes: dict[str, int] | None) -> str:
    """sha256 of the region (its Scop, whose text is stable across runs), the options tuned
    from (sizes, the target and the host entry's options normalised away), the GPU's name and
    the sizes (None: the key of the region's latest result, whatever its sizes)."""
    base = options.plain_host_side().replace(target="cuda", tile_sizes=(), block_sizes=(),
                                               tuned_sizes=True)
    blob = json.dumps([repr(scop), base.to_text(), gpu,
                       sorted(sizes.items()) if sizes is not None else "latest"])
    return hashlib.sha256(blob.encode()).hexdigest()


NO_GPU = "no GPU"


def gpu_name() -> str:
    """The name tune results are filed under: the GPU's (nvidia-smi), or NO_GPU."""
    from polycuda.runtime import device

    info = device.gpu_info()
    return info.name if info else NO_GPU


def lookup(scop, options: Options, cache: Path | None = None) -> TuneResult | None:
    """The latest tune result of this region and options measured on this GPU, whatever its
    sizes (results are filed by GPU name: cache_key). None for a result whose choice was
    not measured (the model's choice without a GPU, filed by polycuda before tune stopped
    storing those): a compile takes sizes that ran, never a model's guess for another GPU.
    Without a GPU, only results of a `measure` given to tune are filed (under NO_GPU)."""
    found = cached_result(cache_key(scop, options, gpu_name(), None), cache)
    return found if found is not None and was_measured(found) else None


def was_measured(result: TuneResult) -> bool:
    """Whether `result`'s choice was measured (on the GPU, or by tune's `measure`)."""
    return result.measured and result.measured_s_of_choice() is not None


def cached_result(key: str, root: Path | None = None) -> TuneResult | None:
    path = result_path(key, root)
    if not path.is_file():
        return None
    try:
        return TuneResult.from_json(path.read_text())
    except (ValueError, KeyError, TypeError):
        return None  # an old or damaged entry: tune again


def result_path(key: str, root: Path | None = None) -> Path:
    from polycuda.runtime import build

    return (root or build.cache_dir() / "tune") / "results" / f"{key[:40]}.json"


def store(key: str, result: TuneResult, root: Path | None = None) -> Path:
    path = result_path(key, root)
    path.parent.mkdir(parents=True, exist_ok=True)
    from polycuda.runtime import build

    build.atomic_write(path, result.to_json() + "\n")
    return path


def log_progress(message: str) -> None:
    """tune's progress as an INFO record of LOG (the command line shows it unless --quiet)."""
    LOG.info("tune: %s", message)


def tune(prog, sizes: dict[str, int], *, top_k: int = 5, limit: int = RANK_LAYOUTS,
         measure: Callable[[Options], float] | None = None, cache: Path | None = None,
         use_cache: bool = True, progress: Callable[[str], None] | None = log_progress,
         schedulers: bool = False, refit: bool = True, local_rounds: int = LOCAL_ROUNDS,
         probe_count: int | None = None) -> TuneResult:
    """Tune the tile and block sizes of Program `prog` at parameter values `sizes`.

    limit: layouts ranked by the model at most (rank()).
    measure: seconds of one run at the given options (default: on the GPU when there is
    one, see measure_on_gpu; without a GPU the model's choice is kept unmeasured).
    schedulers: with Options.scheduler "auto", tune each of pipeline.AUTO_SCHEDULERS' cuda
    candidates and keep the fastest measured (scheduler and sizes); needs measuring.
    refit: measure up to `probe_count` more layouts (probes: where each of the model's terms
    weighs most; None: PROBES); once at least REFIT_MIN layouts are measured (the top k and
    the probes), refit the model's coefficients on them, re-rank and measure the refit's
    choice too (refit_choice); with probes, also the choice of a refit on the top k alone
    (REFITS); the fastest measured is kept either way.
    local_rounds: then at most this many rounds of measurement around the fastest measured
    layout (local_search; 0: none), none started after LOCAL_BUDGET_S seconds.

    Raises:
        InvalidConfigError: nothing to tune, or schedulers without a way to measure;
        BuildError / ToolNotFoundError: nvcc failed.
    """
    from polycuda.sizes import resolve_sizes

    start = time.perf_counter()
    values = resolve_sizes(prog.scop, sizes)
    options = prog.options.replace(target="cuda")
    key = cache_key(prog.scop, options, gpu_name(), values)
    if use_cache and (hit := cached_result(key, cache)) and was_measured(hit):
        progress and progress(f"cached result {result_path(key, cache)}")
        return hit
    probe_count = PROBES if probe_count is None else probe_count
    if schedulers and options.scheduler == "auto":
        result = _tune_schedulers(prog, values, sizes, top_k, limit, measure, progress,
                                  refit, local_rounds, probe_count)
    else:
        result = _tune_layouts(prog, values, sizes, top_k, limit, measure, progress, refit,
                               local_rounds, probe_count)
    result = dataclasses.replace(result, seconds=time.perf_counter() - start)
    if not was_measured(result):
        # the model's choice for the calibration's GPU, not this machine's: filed, it would
        # become every later compile's sizes without having run anywhere (issue 40)
        progress and progress("not cached: the choice was not measured (no GPU), so compiles "
                              "keep their default sizes; --dump-sizes FILE writes these "
                              "sizes for --sizes FILE")
        return result
    store(key, result, cache)
    store(cache_key(prog.scop, options, gpu_name(), None), result, cache)  # lookup()'s
    return result


def _tune_layouts(prog, values: dict[str, int], sizes: dict[str, int], top_k: int,
                  limit: int, measure: Callable[[Options], float] | None,
                  progress: Callable[[str], None] | None, refit: bool = True,
                  local_rounds: int = LOCAL_ROUNDS, probe_count: int = PROBES) -> TuneResult:
    """Rank the layouts of `prog`'s own schedule by the model, measure the top k, (with
    `refit`) up to `probe_count` probes, and the default tables (and, with `refit`, the
    choice of the model refitted on them), then up to `local_rounds` rounds around the
    fastest (local_search); the fastest measured (the model's first when nothing is
    measured)."""
    from polycuda.tune import problem

    options = prog.options.replace(target="cuda")
    props, on_gpu = occupancy.current_device()
    gen = prog.generate("cuda", tile_sizes=(), block_sizes=(), tuned_sizes=False)
    models = problem.kernel_models(gen, values)
    cal = calibrate.load_calibration(props.name if on_gpu else None, say=progress)
    try:
        ranked, excluded = rank(models, cal, props, limit, progress)
    except InvalidConfigError as err:
        given = "" if sizes else " (the default sizes: pass --size N=V as the program runs)"
        raise InvalidConfigError(f"{prog.name} at {values}{given}: {err}") from None
    if progress:
        progress(f"{len(ranked)} layouts ranked by the model; excluded before measuring: "
                 + (", ".join(f"{why}: {n}" for why, n in sorted(excluded.items())) or "none"))
    if measure is None and on_gpu:
        measure = measure_on_gpu(prog, values)
    top = ranked[:top_k]
    probed: list[Ranked] = []
    if measure is not None and refit:
        probed = probes(models, ranked, top, cal, props, probe_count)
        top = top + probed
    if measure is not None:
        # the default tables are measured too and kept where they are faster: the model's
        # top k may miss a layout as good as the defaults (H100, held out: the model's choice
        # up to 41% off the best sampled layout, bench/results/...-tune-reevaluate.json)
        top = _measured(top + [Ranked((), (), math.inf)], options, measure, progress)
    refitted: dict = {}
    if measure is not None and refit:
        top, refitted = _refitted(models, ranked, top, probed, cal, props, limit, options,
                                  measure, progress)
    local: dict = {}
    if measure is not None and local_rounds > 0:
        found, local = local_search(models, top, options, measure, cal, props, local_rounds,
                                    progress=progress)
        top = top + found
    registers: dict = {}
    if measure is not None and local_rounds > 0:
        found, registers = register_search(prog, gen, top, options, measure, progress=progress)
        top = top + found
    best = min(top, key=lambda r: r.measured_s if r.measured_s is not None else r.model_s)
    if measure is None and pipeline.runs_two_schedules(gen):
        # given sizes compile one schedule (pipeline.runtime_choice): unmeasured, the model's
        # sizes for it could lose the other one's sizes where it is much faster (1-D Jacobi
        # at 2^24: Pluto's wavefronts 95x slower than isl's steps)
        progress and progress(f"{prog.name}: its default code holds two schedules chosen at "
                              "run time, which given sizes would reduce to one: the defaults "
                              "kept (on a GPU, tune measures them against the model's choice)")
        best = Ranked((), (), math.inf)
    return TuneResult(best.tiles, best.block, cal.gpu,
                      "measured" if cal.measured else calibrate.ESTIMATED, len(ranked),
                      dict(excluded), tuple(top), measure is not None, 0.0, refit=refitted,
                      local=local, register_tiles=best.registers,
                      sequential_tile=best.sequential, registers=registers)


def _refitted(models: tuple[KernelModel, ...], ranked: list[Ranked], top: list[Ranked],
              probed: list[Ranked], cal: Calibration, props: occupancy.DeviceProps, limit: int,
              options: Options, measure: Callable[[Options], float],
              progress: Callable[[str], None] | None) -> tuple[list[Ranked], dict]:
    """`top` with the refits' choices measured, and the refits' summary (TuneResult.refit):
    two refits when probes were measured, on every measured layout and on the top k alone
    (REFITS says why); each choice is measured once."""
    refitted: dict = {}
    probe_keys = {(r.tiles, r.block) for r in probed}
    fits = {"": top, "top_k": [r for r in top if (r.tiles, r.block) not in probe_keys]}
    for name, on in list(fits.items())[:REFITS if probed else 1]:
        found = refit_choice(models, ranked, on, cal, props, max(1, int(limit * REFIT_SHARE)),
                             progress)
        if found is None:
            continue
        choice, coef = found
        again = next((r for r in top if (r.tiles, r.block) == (choice.tiles, choice.block)),
                     None)
        if again is None:
            top = top + _measured([choice], options, measure, progress)
        fitted = {"coefficients": dict(zip(("alpha", "beta", "gamma", "lam"), coef)),
                  "choice": [list(choice.tiles), list(choice.block)], "measured": again is None}
        if name:
            refitted[name] = fitted
        else:
            refitted.update(fitted)
    return top, refitted


def probes(models: tuple[KernelModel, ...], ranked: list[Ranked], top: list[Ranked],
           cal: Calibration, props: occupancy.DeviceProps, count: int = PROBES
           ) -> list[Ranked]:
    """For each of the model's terms (alpha a, beta b, gamma c, lam l of model_terms), the
    layout among the model's best PROBE_SHARE of `ranked` where that term is the largest share
    of the estimate, unless `top` has it; at most `count` (PROBES says why)."""
    if count <= 0:
        return []
    pool, rows = [], []
    for r in ranked[:probe_pool(len(ranked))]:
        try:
            rows.append(model_terms(models, r.tiles, r.block, cal, props))
        except InvalidConfigError:
            continue
        pool.append(r)
    chosen = {(r.tiles, r.block) for r in top}
    found = []
    for k in term_probes(rows, (cal.alpha, cal.beta, cal.gamma, cal.lam)):
        if (pool[k].tiles, pool[k].block) not in chosen:
            chosen.add((pool[k].tiles, pool[k].block))
            found.append(pool[k])
    return found[:count]


def probe_pool(ranked: int) -> int:
    """How many of `ranked` layouts, the model's best first, the probes are taken from."""
    return max(PROBE_MIN, int(ranked * PROBE_SHARE))


def term_probes(rows: list[tuple[float, ...]], coef: tuple[float, ...]) -> list[int]:
    """Per term of `coef` (alpha, beta, gamma, lam), in that order, the position in `rows`
    ((a, b, c, l, d) per layout, model_terms) of the first layout where that term is the
    largest share of the estimate alpha a + beta b + gamma c + lam l + d; a term that is no
    share of any positive estimate has none."""
    best: list[tuple[float, int] | None] = [None] * len(coef)
    for k, (*terms, d) in enumerate(rows):
        parts = [c * t for c, t in zip(coef, terms)]
        total = sum(parts) + d
        for j, part in enumerate(parts):
            if total > 0 and (best[j] is None or part / total > best[j][0]):
                best[j] = (part / total, k)
    return [entry[1] for entry in best if entry is not None]


def refit_choice(models: tuple[KernelModel, ...], ranked: list[Ranked], measured: list[Ranked],
                 cal: Calibration, props: occupancy.DeviceProps, limit: int = REFIT_LAYOUTS,
                 progress: Callable[[str], None] | None = None
                 ) -> tuple[Ranked, tuple[float, ...]] | None:
    """The fastest of `ranked` by the model refitted on the measured layouts of `measured`
    (the model's top k; the default tables, tiles (), are left out), and its coefficients;
    None (said through `progress`) when fewer than REFIT_MIN were measured or no
    non-negative fit predicts anything.

    Di & Xue fit alpha, beta, gamma per loop nest (Section 3.3), on a simplified nest; here
    alpha, beta, gamma and lam are refitted (calibrate.fit_relative) on the nest's own top k
    as measured at the tuned sizes, then every ranked layout is re-ranked. Why: one set of
    coefficients for every kernel ranks 2-D SOR n = 2048 on the H100 41% off the best sampled
    layout (its top 5: 24%); refitted on the global model's top 5 of each held-out problem,
    the refit's choice was at most 5.3% off (mean 0.9%), and the fastest of the top 5 and
    that choice 0% on all six (bench/tune_reevaluate.py, extended_few_5:
    bench/results/2026-11-25-nvidia-h100-80gb-hbm3-tune-reevaluate-perkernel.json).

    Re-ranking costs about one more ranking; it goes in the model's order and stops after
    `limit` layouts (said), so an early stop leaves the model's best candidates covered.
    """
    ok = [r for r in measured if r.measured_s is not None and r.tiles]
    if len(ok) < REFIT_MIN:
        progress and progress(f"no refit: {len(ok)} layouts measured, {REFIT_MIN} needed")
        return None
    rows = [model_terms(models, r.tiles, r.block, cal, props) for r in ok]
    coef = calibrate.fit_relative(rows, [r.measured_s for r in ok])
    if not any(coef):
        progress and progress("no refit: no non-negative fit of the measured layouts")
        return None
    best: tuple[float, tuple, tuple] | None = None
    choice = ranked[0]
    for k, r in enumerate(ranked):
        try:
            *terms, d = model_terms(models, r.tiles, r.block, cal, props)
        except InvalidConfigError:  # ranked layouts are admissible; kept safe anyway
            continue
        key = (sum(c * t for c, t in zip(coef, terms)) + d, r.tiles, r.block)
        if best is None or key < best:
            best, choice = key, r
        if k + 1 >= limit and k + 1 < len(ranked):
            progress and progress(f"refit: limit of {limit} layouts reached after re-ranking "
                                  f"{k + 1} of {len(ranked)} (the model's first)")
            break
    if progress and best is not None:
        progress(f"refit on {len(ok)} measured layouts: alpha {coef[0]:.3g} beta {coef[1]:.3g} "
                 f"gamma {coef[2]:.3g} lam {coef[3]:.3g}; its choice tiles={choice.tiles} "
                 f"block={choice.block} {best[0] * 1e3:.3f} ms (refitted model)")
    return choice, coef


def _tune_schedulers(prog, values: dict[str, int], sizes: dict[str, int], top_k: int,
                     limit: int, measure: Callable[[Options], float] | None,
                     progress: Callable[[str], None] | None, refit: bool = True,
                     local_rounds: int = LOCAL_ROUNDS, probe_count: int = PROBES
                     ) -> TuneResult:
    """_tune_layouts for each cuda candidate of the auto scheduler; the fastest measured.

    Why: auto picks its scheduler by a static cost (gpu.cost) at the default sizes; on the
    H100 fdtd-2d's isl-distributed schedule measured 0.61x the time of the Pluto wavefront
    that auto picks. A candidate that fails (no layout, no schedule), or after the first one
    falls back to another scheduler's schedule (superposition on SOR), is skipped and said."""
    from polycuda import pipeline

    _, on_gpu = occupancy.current_device()
    if measure is None and not on_gpu:
        raise InvalidConfigError("choosing the scheduler measures each candidate: no GPU")
    found: dict[str, TuneResult] = {}
    for order, name in enumerate(pipeline.AUTO_SCHEDULERS["cuda"]):
        sub = prog.with_options(scheduler=name)
        progress and progress(f"scheduler {name}")
        try:
            if order and pipeline.fell_back(sub.generate("cuda")):
                # auto never uses a later candidate's fallback (pipeline._later_candidate):
                # its code is an earlier candidate's, measured already
                progress and progress(f"scheduler {name} left out: it falls back "
                                      f"({sub.generate('cuda').choice[:160]})")
                continue
            found[name] = _tune_layouts(sub, values, sizes, top_k, limit,
                                        measure or measure_on_gpu(sub, values), progress,
                                        refit, local_rounds, probe_count)
        except PolycudaError as err:
            progress and progress(f"scheduler {name} left out: {err}")
    timed = {n: r.measured_s_of_choice() for n, r in found.items()}
    usable = {n: t for n, t in timed.items() if t is not None}
    if not usable:
        raise InvalidConfigError(f"{prog.name}: no scheduler candidate could be measured "
                                 f"({sorted(found) or 'none tuned'})")
    name = min(usable, key=lambda n: (usable[n], n))
    progress and progress("schedulers measured: " + ", ".join(
        f"{n} {t * 1e3:.3f} ms" if t is not None else f"{n} failed"
        for n, t in timed.items()) + f"; keeping {name}")
    return dataclasses.replace(found[name], scheduler=name, candidates=timed)


def measure_on_gpu(prog, values: dict[str, int], repeats: int = 3
                   ) -> Callable[[Options], float]:
    """Median seconds of `repeats` runs on device arrays after one warm-up (CUDA events,
    runtime.launch.time_calls); random inputs (verify.random_arguments) copied to the GPU
    once, updated in place by every run."""

    from polycuda.runtime import device, launch
    from polycuda.verify import random_arguments

    cupy = device.require_cupy()
    host = random_arguments(prog.scop, values, 0)
    args = [cupy.asarray(v) if isinstance(v, np.ndarray) else v
            for v in (host[a.name] for a in prog.scop.args)]

    def run(options: Options) -> float:
        kernel = prog.kernel("cuda", **kernel_changes(options))
        times = launch.time_calls(kernel, args, repeats=repeats, warmup=1)
        return sorted(times)[len(times) // 2]

    def prepare(batch: list[Options]) -> None:
        prog.build_many([kernel_changes(o) for o in batch])

    run.prepare = prepare  # type: ignore[attr-defined]  (_measured builds a batch at once)
    return run

