"""Measurement around the fastest measured layout (Baskaran et al. 2008's model-driven
empirical search: the model prunes the space, measurement searches the region around its
best): the local search over tile sizes and thread counts, the register search of the gemm-like
layout, and the measurement of a list of layouts within a deadline."""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Callable


from polycuda.errors import InvalidConfigError, PolycudaError
from polycuda.options import Options
from polycuda.tune import occupancy
from polycuda.tune.model import Calibration, Layout
from polycuda.tune.problem import KernelModel
from polycuda.tune.layouts import (LOG, THREAD_CHOICES, TILE_CHOICES, Ranked, estimate,
                                   excluded_by, kernel_layout, primary_block, primary_model)

# Measurement around the fastest measured layout (local_search), after the top k and the
# refit: Baskaran et al.'s model-driven empirical search (the model prunes the space to a few
# points, measurement searches the region around the best of them). A round measures the
# neighbours of the fastest layout: each tile size halved, doubled, or moved to the next
# TILE_CHOICES value down or up (blocks of the same thread count), or the same tiles on the
# next thread count down or up; the next round starts from a neighbour at least LOCAL_GAIN
# faster, else the search stops; at most LOCAL_ROUNDS rounds, and none starts after
# LOCAL_BUDGET_S seconds. Why: on the H100 the quick tune suite kept 2-D SOR 4096^2 x 100 at
# 16x64x8 tiles on 16x8 threads, 39.6 ms, where the sweep's 16x32x8 on 16x8, one tile size
# halved, ran 33.8 ms (...-tune-suite-refit.json). Measured with it (...-tune-local-b.json):
# heat_2d 4096^2 x 100 from 22.5 to 14.3 ms in 3 rounds (the default tables 15.0); 2-D SOR not
# helped: that run's ranking started it from 48-wide tiles, with no faster neighbour.
# When the default tables measure fastest, the search starts from their sizes given
# explicitly (defaults_layout): heat_2d's default tables were fastest in ...-tune-probes.json,
# and the search from a probe (15.6 ms) found nothing faster than 14.93 ms, where the run of
# ...-tune-local-b.json had reached 14.30 ms.
# Since 2026-11-26 a round also steps a tile size together with the thread count, and two tile
# sizes at once (neighbours), and the round's layouts are built in parallel first (Program.
# build_many). Why: on 2-D Jacobi 4096^2 x 1000 float, tune stayed at 24x96x128 tiles on 4x128
# threads (45.65 ms) where the wide sweep found 16x64x64 on 4x64 (41.15 ms), three sizes and
# the thread count away (...-tune-suite-wide-jf.json). Replayed offline on four measured grids
# (bench/tune_grid.py; ...-tune-grid-{jf,sor2d,heat2d,fdtd2d}.json, 47-256 layouts each), from
# every start within 1.25x of the grid's best: the geomean end / best went from 1.067, 1.060,
# 1.045, 1.062 to 1.027, 1.011, 1.008, 1.010, measuring 3-4x as many layouts
# (...-tune-grid-replay-cpu.json).
# Since 54e4f4f two tile sizes are also stepped together with the thread count. Why: on the
# H100's Jacobi float entry the search ended at 12x64x128 on 4x128 threads, 1.056x the wide
# sweep's best (16x64x64 on 4x64: two sizes and the thread count away), where no neighbour of
# the round was 2% faster (...-tune-suite-wide-n.json). Replayed on the same four grids from
# the same starts (geomean end / best, worst, layouts measured): Jacobi float 1.027, 1.059,
# 65 -> 1.015, 1.040, 121; sor_2d 1.011, 1.137, 39 -> 1.000, 1.000, 58; heat_2d 1.008 -> 1.001;
# fdtd_2d 1.010 -> 1.003 (...-tune-grid-replay-pairs-cpu.json). About twice the layouts per
# round: LOCAL_BUDGET_S bounds them.
LOCAL_ROUNDS = 3
LOCAL_GAIN = 0.02
LOCAL_BUDGET_S = 120.0
# The register search (register_search), after the local search, where the default kernels
# are register-tiled (the gemm-like default layout): at most REGISTER_ROUNDS rounds of
# neighbours of the fastest; blocks of REGISTER_THREADS threads, at most REGISTER_POINTS
# points per thread (their accumulators are registers), tiles up to MAX_TILE, sequential
# tiles in REGISTER_SEQUENTIAL. Why: the layout search gives tiles and blocks only, and given
# sizes drop the default's register tiles (gemm 4096^3 on the H100: 14.99 ms with them, 31.05
# ms with the same tiles and block given, ...-tune-suite-probes-c.json), so the tuner could
# only keep or lose them. Measured (...-tune-suite-registers.json, 9ae9b01): symm 1000 x 1200
# from 0.678 ms (the default tables) to 0.562 ms at 32x32 tiles, 4x2 points per thread; gemm
# 4096^3: none of the default's 10 neighbours faster (kept, 14.87 ms). trmm is not searched:
# its other kernel would take the given sizes too (register_start).
REGISTER_ROUNDS = 2
REGISTER_THREADS = (64, 1024)
REGISTER_POINTS = 32
REGISTER_SEQUENTIAL = (8, 64)
MAX_TILE = 256


def neighbours(models: tuple[KernelModel, ...], layout: Ranked, cal: Calibration,
               props: occupancy.DeviceProps) -> list[Ranked]:
    """The admissible layouts next to `layout` (LOCAL_ROUNDS' steps), fastest by the model
    first: each tile size, or two tile sizes at once, halved, doubled, or the next of
    TILE_CHOICES down or up (_tile_steps), on the same thread count and on the next counts of
    THREAD_CHOICES below and above it (_thread_steps); the same tiles on the next thread count
    below or above. Each block fills the tiles' inner sizes (primary_block). Layouts that
    some kernel cannot run are left out (exclusion, estimate)."""
    primary = primary_model(models)
    threads = math.prod(layout.block)
    counts = [threads] + _thread_steps(threads)
    tiles_near = [_stepped(layout.tiles, {d: t})
                  for d in range(len(layout.tiles)) for t in _tile_steps(layout.tiles[d])]
    tiles_near += [_stepped(layout.tiles, {d: a, e: b})
                   for d, e in itertools.combinations(range(len(layout.tiles)), 2)
                   for a in _tile_steps(layout.tiles[d]) for b in _tile_steps(layout.tiles[e])]
    steps = [(tiles, k) for tiles in tiles_near for k in counts]
    steps += [(layout.tiles, k) for k in counts[1:]]
    found: dict[tuple, Ranked] = {}
    for tiles, k in steps:
        block = primary_block(primary, tiles, k)
        if (tiles, block) == (layout.tiles, layout.block) or (tiles, block) in found:
            continue
        if excluded_by(models, tiles, block, props):
            continue
        try:
            found[tiles, block] = Ranked(tiles, block, estimate(models, tiles, block, cal,
                                                                props))
        except InvalidConfigError:
            continue
    return sorted(found.values(), key=lambda r: (r.model_s, r.tiles, r.block))


def _thread_steps(threads: int) -> list[int]:
    """The THREAD_CHOICES next below and above the one `threads` fills (a block that
    primary_block filled with fewer threads than asked: 21x24 = 504 of 512 steps to 256 and
    1024)."""
    asked = next((k for k in THREAD_CHOICES if k >= threads), THREAD_CHOICES[-1])
    at = THREAD_CHOICES.index(asked)
    return list(THREAD_CHOICES[max(0, at - 1):at]) + list(THREAD_CHOICES[at + 1:at + 2])


def _stepped(tiles: tuple[int, ...], changes: dict[int, int]) -> tuple[int, ...]:
    """`tiles` with the members of `changes` set to their new sizes."""
    return tuple(changes.get(d, t) for d, t in enumerate(tiles))


def _tile_steps(size: int) -> list[int]:
    """Halved, doubled, and the next TILE_CHOICES value down and up, each at least 1."""
    lower = [t for t in TILE_CHOICES if t < size]
    higher = [t for t in TILE_CHOICES if t > size]
    found = {size // 2, size * 2} | set(lower[-1:]) | set(higher[:1])
    return sorted(t for t in found if t >= 1)


def local_search(models: tuple[KernelModel, ...], measured: list[Ranked], options: Options,
                 measure: Callable[[Options], float], cal: Calibration,
                 props: occupancy.DeviceProps, rounds: int = LOCAL_ROUNDS,
                 budget_s: float = LOCAL_BUDGET_S,
                 progress: Callable[[str], None] | None = None,
                 near: Callable[..., list[Ranked]] | None = None
                 ) -> tuple[list[Ranked], dict]:
    """The layouts measured around the fastest of `measured`, and a summary for
    TuneResult.local: rounds of neighbours (LOCAL_ROUNDS), each from the fastest so far,
    while a round finds one LOCAL_GAIN faster, at most `rounds`, and no round starts after
    `budget_s` seconds. A layout is measured once. When the default tables (tiles ()) measure
    fastest, the search starts from their sizes given explicitly (defaults_layout, measured
    first) when they can be given so, else from the fastest layout with tiles; nothing
    when there is none."""
    seen = {r.key() for r in measured}
    found: list[Ranked] = []
    fastest = min((r for r in measured if r.measured_s is not None),
                  key=lambda r: r.measured_s, default=None)
    explicit = defaults_layout(models, cal, props) if fastest and not fastest.tiles else None
    if explicit is not None and explicit.key() not in seen:
        seen.add(explicit.key())
        found = [r for r in _measured([explicit], options, measure, progress)
                 if r.measured_s is not None]
    pool = [r for r in measured + found if r.measured_s is not None and r.tiles
            and (explicit is None or (r.tiles, r.block) == (explicit.tiles, explicit.block))]
    if not pool:
        pool = [r for r in measured if r.measured_s is not None and r.tiles]
    if not pool:
        return found, {}
    start = min(pool, key=lambda r: r.measured_s)
    ran, best, done = _rounds(start, seen,
                              lambda r: (near or neighbours)(models, r, cal, props), options,
                              measure, rounds, budget_s, progress, "", "local search")
    found += ran
    return found, {"rounds": done, "measured": len(found),
                   "started": [list(start.tiles), list(start.block)],
                   "ended": [list(best.tiles), list(best.block)]}


def _rounds(best: Ranked, seen: set[tuple], near_of: Callable[[Ranked], list[Ranked]],
            options: Options, measure: Callable[[Options], float], rounds: int,
            budget_s: float, progress: Callable[[str], None] | None, label: str, name: str
            ) -> tuple[list[Ranked], Ranked, int]:
    """Rounds of measurement from the measured layout `best` (local_search, register_search):
    each measures the layouts near_of(best) not in `seen` (Ranked.key; updated); the next
    starts from the fastest of a round when it is LOCAL_GAIN faster, else the search stops; at
    most `rounds`, and no round starts, nor layout is measured, after `budget_s` seconds.
    Returns the layouts measured, the fastest and the rounds run."""
    found: list[Ranked] = []
    began = time.perf_counter()
    done = 0
    while done < rounds:
        near = [r for r in near_of(best) if r.key() not in seen]
        if not near:
            break
        done += 1
        seen |= {r.key() for r in near}
        extra = (f" registers={best.registers} sequential tile={best.sequential}"
                 if best.registers else f" block={best.block}")
        progress and progress(f"{label}round {done} around tiles={best.tiles}{extra} "
                              f"{best.measured_s * 1e3:.3f} ms: {len(near)} neighbours")
        ran = [r for r in _measured(near, options, measure, progress, began + budget_s)
               if r.measured_s is not None]
        found += ran
        faster = min(ran, key=lambda r: r.measured_s, default=None)
        if faster is None or faster.measured_s > best.measured_s * (1 - LOCAL_GAIN):
            break
        best = faster
        if time.perf_counter() - began > budget_s:
            progress and progress(f"{name}: budget of {budget_s:.0f} s spent after {done} "
                                  "rounds")
            break
    return found, best, done


def register_start(prog, gen, options: Options) -> Ranked | None:
    """The default tables of `gen` (the default compile of `prog`) as one layout given
    explicitly with its register tiles and sequential tile, when its kernels are register-
    tiled (the gemm-like default layout, gpu/shared_promotion.gemm_like) and the explicit sizes
    rebuild exactly the default code; else None."""
    tiled = [k for k in gen.kernels if k.register_tiles]
    if not tiled:
        return None
    first = tiled[0]
    start = Ranked(first.tile_sizes, first.block_sizes, math.inf, None, first.register_tiles,
                   first.sequential_tiles[0] if first.sequential_tiles else 0)
    try:
        again = prog.generate("cuda", **_sizes(start.options(options)))
    except PolycudaError:
        return None
    return start if again.source == gen.source else None


def _sizes(options: Options) -> dict[str, object]:
    """The option changes that build `options`' layout alone (tuned_sizes off: no sizes given
    are the default tables, not an earlier tune's)."""
    return {"tile_sizes": options.tile_sizes, "block_sizes": options.block_sizes,
            "register_tiles": options.register_tiles,
            "sequential_tile": options.sequential_tile, "sizes": options.sizes,
            "tuned_sizes": False}


def kernel_changes(options: Options) -> dict[str, object]:
    """The changes with which Program.kernel builds the layout that tune measures with
    `options`: its scheduler and sizes (_sizes)."""
    return {"scheduler": options.scheduler, **_sizes(options)}


def register_neighbours(layout: Ranked) -> list[Ranked]:
    """The layouts next to a register-tiled `layout` (register_search): each register tile
    halved or doubled (the tiles kept), each tile size halved or doubled (the register tiles
    kept), the sequential tile halved or doubled; the block is the tiles over the register
    tiles. Left out: a register tile that does not divide its tile, blocks outside
    REGISTER_THREADS, more than REGISTER_POINTS points per thread, tiles over MAX_TILE, a
    sequential tile outside REGISTER_SEQUENTIAL."""
    out: dict[tuple, Ranked] = {}
    n = len(layout.tiles)

    def add(tiles: tuple[int, ...], regs: tuple[int, ...], seq: int) -> None:
        if any(r < 1 or t % r or t > MAX_TILE for t, r in zip(tiles, regs)):
            return
        block = tuple(t // r for t, r in zip(tiles, regs))
        if not (REGISTER_THREADS[0] <= math.prod(block) <= REGISTER_THREADS[1]):
            return
        if math.prod(regs) > REGISTER_POINTS or not (
                REGISTER_SEQUENTIAL[0] <= seq <= REGISTER_SEQUENTIAL[1]):
            return
        r = Ranked(tiles, block, math.inf, None, regs, seq)
        if r.key() != layout.key():
            out.setdefault(r.key(), r)

    for d in range(n):
        for f in (2, 0.5):
            regs = layout.registers[:d] + (int(layout.registers[d] * f),) + layout.registers[d + 1:]
            add(layout.tiles, regs, layout.sequential)
            tiles = layout.tiles[:d] + (int(layout.tiles[d] * f),) + layout.tiles[d + 1:]
            add(tiles, layout.registers, layout.sequential)
    for f in (2, 0.5):
        add(layout.tiles, layout.registers, int(layout.sequential * f))
    return list(out.values())


def register_search(prog, gen, measured: list[Ranked], options: Options,
                    measure: Callable[[Options], float], rounds: int = REGISTER_ROUNDS,
                    budget_s: float = LOCAL_BUDGET_S,
                    progress: Callable[[str], None] | None = None
                    ) -> tuple[list[Ranked], dict]:
    """Measured search over register tiles, tile sizes and the sequential tile of a region
    whose default kernels are register-tiled (Baskaran et al. 2008: register tiling and unroll
    factors searched empirically; the model of this package does not see registers), from the
    default layout given explicitly (register_start; its time is the default tables' measured
    time, same code), in rounds of register_neighbours while a round finds one LOCAL_GAIN
    faster. Returns the layouts measured and a summary for TuneResult.registers; nothing when
    the region has no register-tiled kernel, the default tables were not measured, or the
    explicit start does not rebuild them."""
    default = next((r for r in measured if not r.tiles and r.measured_s is not None), None)
    start = register_start(prog, gen, options) if default is not None else None
    if start is None:
        return [], {}
    first = dataclasses.replace(start, measured_s=default.measured_s)
    found, best, done = _rounds(first, {first.key()}, register_neighbours, options, measure,
                                rounds, budget_s, progress, "registers: ", "registers")

    def shown(r: Ranked) -> list:
        return [list(r.tiles), list(r.block), list(r.registers), r.sequential]

    return found, {"rounds": done, "measured": len(found), "started": shown(first),
                   "ended": shown(best)}


def defaults_layout(models: tuple[KernelModel, ...], cal: Calibration,
                    props: occupancy.DeviceProps) -> Ranked | None:
    """The default tables as one layout of the search (the primary kernel's default tiles
    and block), when given explicitly it gives every kernel its own defaults (kernel_layout)
    and no kernel excludes it; else None."""
    primary = primary_model(models)
    tiles, block = primary.default_tiles, primary.default_block
    if not block or any(kernel_layout(km, tiles, block) != Layout(km.default_tiles,
                                                                   km.default_block)
                        for km in models):
        return None
    if excluded_by(models, tiles, block, props):
        return None
    try:
        return Ranked(tiles, block, estimate(models, tiles, block, cal, props))
    except InvalidConfigError:
        return None


def _measured(top: list[Ranked], options: Options, measure: Callable[[Options], float],
              progress: Callable[[str], None] | None, deadline: float | None = None
              ) -> list[Ranked]:
    """`top` measured in order (a layout that fails: measured_s None), none started after
    `deadline` (time.perf_counter()). Where `measure` has a `prepare` (measure_on_gpu's),
    it is given the batch's options first: it builds them in parallel."""
    prepare = getattr(measure, "prepare", None)
    if prepare is not None and len(top) > 1:
        prepare([r.options(options) for r in top])
    out = []
    for k, r in enumerate(top, 1):
        if deadline is not None and time.perf_counter() > deadline:
            progress and progress(f"budget spent: {len(top) - k + 1} of {len(top)} layouts "
                                  "not measured")
            break
        why = ""
        try:
            seconds: float | None = measure(r.options(options))
        except PolycudaError as err:  # InvalidConfigError, LaunchError: skip the layout
            LOG.info("tune: layout %s %s failed: %s", r.tiles, r.block, err)
            seconds = None
            why = (str(err).splitlines() or [type(err).__name__])[0][:160]
        out.append(dataclasses.replace(r, measured_s=seconds))
        if progress:
            shown = f"{seconds * 1e3:.3f} ms" if seconds is not None else f"failed ({why})"
            extra = (f" registers={r.registers} sequential tile={r.sequential}"
                     if r.registers else "")
            model_ms = f"model {r.model_s * 1e3:.3f} ms" if math.isfinite(r.model_s) else "no model"
            progress(f"measured {k}/{len(top)} tiles={r.tiles} block={r.block}{extra}: {shown} "
                     f"({model_ms})")
    ok = [r for r in out if r.measured_s is not None]
    return ok or out
