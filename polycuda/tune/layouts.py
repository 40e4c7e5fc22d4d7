"""The layouts of a tuning problem and their ranking by the execution-time model (Di & Xue 2011,
Section 4.1's constraints and Fig. 5's ranking): every tile size and block shape of the primary
kernel's band, the ones that break a constraint excluded with the reason, the rest estimated and
sorted (tune/search.py measures the first of them)."""

from __future__ import annotations

import itertools
import logging
import math
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from polycuda.errors import InvalidConfigError
from polycuda.options import Options, fit_sizes
from polycuda.tune import model, occupancy
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
# Layouts that rank() examines, in its fixed shuffled order (a count, not seconds, so that
# the ranking, and so tune's choice without a GPU and the layouts it measures with one, is
# the same on any machine, loaded or not): every layout of a band of up to three tiled
# members (len(TILE_CHOICES) ** 3 tile sizes x len(THREAD_CHOICES) blocks), so the default
# ranks the whole space, as Di & Xue search every size.
RANK_LAYOUTS = 50_000
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
