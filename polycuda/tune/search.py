"""Model-driven empirical search of tile sizes and block shapes (Di & Xue 2011, Section 4 and
Fig. 5; Baskaran et al. 2008, "model-driven empirical search"): enumerate every layout that
meets the constraints (excluded ones are logged with the reason before anything runs),
rank them by the execution-time model, then, on a GPU, measure the model's top k and keep the
fastest. Measured results are cached per (kernel source, options, GPU, sizes); the model's
choice alone (no GPU) is not."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import logging
import math
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from polycuda import pipeline
from polycuda.errors import InvalidConfigError, PolycudaError
from polycuda.options import Options, fit_sizes
from polycuda.tune import calibrate, model, occupancy
from polycuda.tune.model import Calibration, Layout
from polycuda.tune.problem import KernelModel

LOG = logging.getLogger("polycuda.tune")
# tile sizes tried per band member: powers of two and three times powers of two (Di & Xue
# search every size; the steps here keep a 3-D band's space to some 10^4 layouts)
TILE_CHOICES = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768,
                1024)
THREAD_CHOICES = (32, 64, 128, 256, 512, 1024)
MIN_THREADS = 32  # Di & Xue 2011, Section 4.1: too few threads starve the SM
# Section 4.1's tile-size constraint: data reuse D = L_TILE / N_mem of a wavefront tile at
# least this (the paper's thresholds are 300, 6 and 1 for 1-, 2- and 3-D SOR on a C1060; the
# smallest is the default here, the model ranks the rest).
MIN_REUSE = 1.0
# measured layouts needed to refit alpha, beta, gamma, lam (refit_choice): one per coefficient
REFIT_MIN = 4
# Layouts that rank() examines, in its fixed shuffled order (a count, not seconds, so that
# the ranking, and so tune's choice without a GPU and the layouts it measures with one, is
# the same on any machine, loaded or not): every layout of a band of up to three tiled
# members (len(TILE_CHOICES) ** 3 tile sizes x len(THREAD_CHOICES) blocks), so the default
# ranks the whole space, as Di & Xue search every size.
RANK_LAYOUTS = 50_000
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
PROGRESS_S = 2.0


@dataclass(frozen=True)
class Ranked:
    """One layout of the search: the model's estimate and, when measured, the time (s)."""

    tiles: tuple[int, ...]
    block: tuple[int, ...]
    model_s: float
    measured_s: float | None = None
    # register tiles (points per thread) and the sequential tile given with the sizes
    # (register_search; () and 0: none given, the defaults of the sizes)
    registers: tuple[int, ...] = ()
    sequential: int = 0

    def key(self) -> tuple:
        return (self.tiles, self.block, self.registers, self.sequential)

    def options(self, options: Options) -> Options:
        """`options` with this layout's sizes."""
        return options.replace(tile_sizes=self.tiles, block_sizes=self.block,
                               register_tiles=self.registers, sequential_tile=self.sequential,
                               sizes="")


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


# -- enumeration and constraints (Section 4.1) -----------------------------------------------------
def layouts(primary: KernelModel) -> list[Layout]:
    """Every layout of the primary kernel's band: tile sizes from TILE_CHOICES; for each
    thread count K of THREAD_CHOICES, the block that fills the innermost tile dimension first
    (x, for coalescing), then the next, each at most its tile size."""
    found = []
    for tiles in itertools.product(TILE_CHOICES, repeat=len(primary.default_tiles)):
        seen = set()
        for threads in THREAD_CHOICES:
            block = primary_block(primary, tiles, threads)
            if block not in seen:
                seen.add(block)
                found.append(Layout(tiles, block))
    return found


def primary_block(primary: KernelModel, tiles: tuple[int, ...], threads: int
                  ) -> tuple[int, ...]:
    """The block of about `threads` threads over the primary kernel's threaded tile sizes
    (a wavefront band's members after its first; every member of a parallel band)."""
    threaded = len(tiles) - 1 if primary.problem.kind == "wavefront" else len(tiles)
    return fill_inner_first(tiles[len(tiles) - threaded:], threads)


def fill_inner_first(inner: tuple[int, ...], threads: int) -> tuple[int, ...]:
    """The block of about `threads` threads over tile sizes `inner` (outermost first): the
    innermost member first, each at most its tile size."""
    block = []
    left = threads
    for t in reversed(inner):
        b = min(t, left)
        block.append(b)
        left = max(1, left // b)
    return tuple(reversed(block))


def exclusion(layout: Layout, km: KernelModel, props: occupancy.DeviceProps) -> str | None:
    """Why `layout` cannot or should not run for kernel `km` (None when it may)."""
    prob = km.problem
    extents = prob.extents
    for group in km.tied_rows:
        if len({layout.tiles[k] for k in group}) > 1:
            return (f"tile sizes {[layout.tiles[k] for k in group]} differ on tied members "
                    f"{list(group)} (one statement gives them one linear part: "
                    "gpu/wavefront.tied_rows)")
    for k, (m, e) in enumerate(zip(layout.tiles, extents)):
        if m > e:
            return f"tile {m} along member {k} exceeds the domain's extent {e}"
    if layout.threads > props.max_threads_per_block:
        return f"{layout.threads} threads per block exceed {props.max_threads_per_block}"
    if layout.threads < MIN_THREADS:
        return f"{layout.threads} threads per block, fewer than {MIN_THREADS}"
    if km.smem_bytes > props.max_smem_per_block:
        return f"{km.smem_bytes} B of shared memory exceed {props.max_smem_per_block}"
    if prob.kind == "wavefront":
        reuse = math.prod(layout.tiles) / model.memory_accesses(prob, layout.tiles)
        if reuse < MIN_REUSE:
            return f"data reuse {reuse:.2f} below {MIN_REUSE} (Section 4.1)"
        # Section 4.1's blockDim constraint, read as its reason says ("every thread has some
        # work to do"): no more threads than points in the widest intra-tile wavefront
        if layout.threads > _widest_wavefront(layout.tiles, prob.intra):
            return "more threads than points in the widest intra-tile wavefront"
    occ = resident(km, layout, props)
    if occ.blocks == 0:
        return f"no block resident per SM ({occ.limited_by})"
    return None


@lru_cache(maxsize=4096)
def excluded_by(models: tuple[KernelModel, ...], tiles: tuple[int, ...],
                block: tuple[int, ...], props: occupancy.DeviceProps) -> str | None:
    """Why some kernel of `models` cannot or should not run the program's layout (tiles,
    block) (exclusion, of the first such kernel), or None."""
    return next((why for km in models
                 if (why := exclusion(kernel_layout(km, tiles, block), km, props))), None)


def _widest_wavefront(tiles: tuple[int, ...], intra: str) -> int:
    """max_e1 H_e1 of a full tile."""
    if intra == "hyperplane":
        return math.prod(tiles[1:])
    return int(model.points_per_wavefront(tiles).max())


def resident(km: KernelModel, layout: Layout, props: occupancy.DeviceProps
             ) -> occupancy.Occupancy:
    """Blocks of kernel `km` resident per SM at `layout` (Di & Xue 2011, Table 1).

    S_TB is the static shared memory ptxas reports plus, for a staged wavefront kernel, the
    dynamic shared memory of this layout's staged tile boxes (KernelModel.staged_bytes), which
    ptxas does not see. A staged kernel asks nvcc for the registers that let as many blocks
    be resident as its shared memory and warps allow (`__launch_bounds__(threads, B)`,
    staging.resident_blocks), so registers do not bound it: R_T counts as 0 there. Without
    this, every staged layout was modelled at the default tiles' occupancy (H100, 2-D Jacobi
    4096^2 x 1000 float: 16 x 64 x 64 tiles on 4 x 64 threads stage 72 KiB, 3 blocks per SM,
    not 8; bench/tune_offline.py).
    """
    staged = km.staged_bytes(layout.tiles)
    if staged:
        return occupancy.occupancy(props, layout.threads, 0, km.smem_bytes + staged)
    return occupancy.occupancy(props, layout.threads, km.registers, km.smem_bytes)


def kernel_layout(km: KernelModel, tiles: tuple[int, ...], block: tuple[int, ...]) -> Layout:
    """The layout a kernel gets from the program's tile_sizes and block_sizes (the last
    entries apply to its innermost members: options.fit_sizes), blocks capped by tiles."""
    mine = fit_sizes(tiles, km.default_tiles)
    inner = mine[1:] if km.problem.kind == "wavefront" else mine
    blocks = tuple(min(b, t) for b, t in zip(fit_sizes(block, inner), inner))
    return Layout(mine, blocks)


def estimate(models: tuple[KernelModel, ...], tiles: tuple[int, ...], block: tuple[int, ...],
             cal: Calibration, props: occupancy.DeviceProps, max_warps: int | None = None
             ) -> float:
    """Sum of the kernels' T_total (eq. (9)) at the program's sizes.

    max_warps: model.total_terms' (None: the device's warps per SM; 0: the DOALL memory term
    not scaled by resident warps, bench/tune_rerank.py's comparison).

    Raises:
        InvalidConfigError: some kernel cannot run this layout.
    """
    total = 0.0
    for km in models:
        lay = kernel_layout(km, tiles, block)
        occ = resident(km, lay, props)
        total += model.total_time(km.problem, lay, cal, occ.blocks, props.sm_count,
                                  n_mem=km.tile_accesses(lay.tiles),
                                  max_warps=props.max_warps_per_sm if max_warps is None
                                  else max_warps).total
    return total


def model_terms(models: tuple[KernelModel, ...], tiles: tuple[int, ...],
                block: tuple[int, ...], cal: Calibration, props: occupancy.DeviceProps
                ) -> tuple[float, float, float, float, float]:
    """estimate() = alpha a + beta b + gamma c + lam l + d: (a, b, c, l, d) summed over the
    kernels, d with the sigmas of `cal` (the rows of calibrate.fit_relative).

    Raises:
        InvalidConfigError: some kernel cannot run this layout.
    """
    total = np.zeros(5)
    for km in models:
        lay = kernel_layout(km, tiles, block)
        occ = resident(km, lay, props)
        if occ.blocks < 1:
            raise InvalidConfigError(f"{lay} has no resident block per SM")
        total += model.total_terms(km.problem, lay, cal, occ.blocks, props.sm_count,
                                   n_mem=km.tile_accesses(lay.tiles),
                                   max_warps=props.max_warps_per_sm)
    return tuple(float(v) for v in total)  # type: ignore[return-value]


# -- the search (Fig. 5) ---------------------------------------------------------------------------
def rank(models: tuple[KernelModel, ...], cal: Calibration, props: occupancy.DeviceProps,
         limit: int = RANK_LAYOUTS, progress: Callable[[str], None] | None = None
         ) -> tuple[list[Ranked], Counter]:
    """The admissible layouts among the first `limit` (RANK_LAYOUTS) of the fixed shuffled
    order ranked by the model (fastest first), and the exclusion counts: the same on any
    machine (a count of layouts, not a time).

    Raises:
        InvalidConfigError: no kernel to tune, or no layout left.
    """
    if not models:
        raise InvalidConfigError("no tiled kernel to tune (only one-thread or reduction "
                                 "kernels)")
    candidates = _shuffled_by_tiles(layouts(primary_model(models)))
    excluded: Counter = Counter()
    ranked: list[Ranked] = []
    last = time.perf_counter()
    for k, lay in enumerate(candidates):
        if k == limit:
            progress and progress(f"limit of {limit} layouts reached: {k} of "
                                  f"{len(candidates)} examined (a uniform sample of the tile "
                                  "sizes)")
            break
        why = excluded_by(models, lay.tiles, lay.block, props)
        if why:
            LOG.debug("tune: excluded tiles=%s block=%s: %s", lay.tiles, lay.block, why)
            excluded[_reason_kind(why)] += 1
            continue
        ranked.append(Ranked(lay.tiles, lay.block, estimate(models, lay.tiles, lay.block,
                                                            cal, props)))
        now = time.perf_counter()  # when to say progress, never what is ranked
        if progress and now - last > PROGRESS_S:
            best = min(ranked, key=lambda r: r.model_s)
            progress(f"{k + 1}/{len(candidates)} layouts, best so far tiles={best.tiles} "
                     f"block={best.block} {best.model_s * 1e3:.3f} ms (model)")
            last = now
    if not ranked:
        raise InvalidConfigError(f"every layout was excluded: {dict(excluded)}")
    ranked.sort(key=lambda r: (r.model_s, r.tiles, r.block))
    return ranked, excluded


def primary_model(models: tuple[KernelModel, ...]) -> KernelModel:
    """The kernel whose band has the most members: its layouts are the program's."""
    return max(models, key=lambda km: len(km.default_tiles))


def _shuffled_by_tiles(candidates: list[Layout]) -> list[Layout]:
    """`candidates` with their tile sizes in a fixed shuffled order, each tile size's blocks
    together in their order: a budget that runs out leaves a uniform sample of the tile sizes,
    not the small ones, and the blocks of one tile size share its block-independent terms
    (model.tile_counts, KernelModel.staged_bytes, ...), computed once while they are cached."""
    by_tiles: dict[tuple[int, ...], list[Layout]] = {}
    for lay in candidates:
        by_tiles.setdefault(lay.tiles, []).append(lay)
    order = list(by_tiles)
    random.Random(0).shuffle(order)
    return [lay for tiles in order for lay in by_tiles[tiles]]


_REASON_KINDS = (("more threads than points", "threads without work"),
                 ("differ on tied members", "unequal tied rows"),
                 ("threads per block exceed", "block over the thread limit"),
                 ("fewer than", "too few threads"), ("exceeds the domain", "tile over the domain"),
                 ("shared memory exceed", "shared memory over the limit"),
                 ("data reuse", "data reuse below the threshold"),
                 ("no block resident", "no resident block"))


def _reason_kind(why: str) -> str:
    """The kind of an exclusion reason, for the per-kind counts."""
    return next((kind for key, kind in _REASON_KINDS if key in why), why)


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
        # two refits when probes were measured: on every measured layout, and on the top k
        # alone (REFITS says why); each choice is measured once
        probe_keys = {(r.tiles, r.block) for r in probed}
        fits = {"": top, "top_k": [r for r in top if (r.tiles, r.block) not in probe_keys]}
        for name, on in list(fits.items())[:REFITS if probed else 1]:
            found = refit_choice(models, ranked, on, cal, props,
                                 max(1, int(limit * REFIT_SHARE)), progress)
            if found is None:
                continue
            choice, coef = found
            again = next((r for r in top if (r.tiles, r.block) == (choice.tiles, choice.block)),
                         None)
            if again is None:
                top = top + _measured([choice], options, measure, progress)
            fitted = {"coefficients": dict(zip(("alpha", "beta", "gamma", "lam"), coef)),
                      "choice": [list(choice.tiles), list(choice.block)],
                      "measured": again is None}
            if name:
                refitted[name] = fitted
            else:
                refitted.update(fitted)
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


def measure_on_gpu(prog, values: dict[str, int], repeats: int = 3
                   ) -> Callable[[Options], float]:
    """Median seconds of `repeats` runs on device arrays after one warm-up (CUDA events,
    runtime.launch.time_calls); random inputs (verify.random_arguments) copied to the GPU
    once, updated in place by every run."""
    import numpy as np

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
