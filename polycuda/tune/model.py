"""The execution-time model of tiled loop nests on a GPU (Di & Xue 2011, Section 3, eqs. 3-12):
time of one tile from its intra-tile wavefronts, time of each inter-tile wavefront from the
tiles in it and the blocks resident per SM, border tiles at half a full tile (Section 3.4);
and its extension to DOALL kernels (one wavefront of all tiles). Pure functions of a Layout,
a Problem and a Calibration.

Coordinates: y = (y_0, ..., y_n-1) are the band's coordinates (after the legality skew S of
Di & Xue's eq. (1)); tile T holds m_k T_k <= y_k < m_k (T_k + 1), as gpu/wavefront.py tiles.
The inter-tile wavefront of T is T_0 + ... + T_n-1 (matrix W of eq. (2)); the threads of a
block take the points of the last n-1 coordinates cyclically (blockDim = layout.block, the
innermost on x), and the first coordinate, or the sum of all (intra "sum"), orders the
intra-tile wavefronts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from polycuda.errors import InvalidConfigError

KINDS = ("wavefront", "doall")
INTRAS = ("sum", "hyperplane")
SECTOR_BYTES = 32  # the unit of L2 and DRAM transfers on sm_70 and later
MAX_WARPS_PER_SM = 64  # sm_70, sm_80, sm_90 (2048 threads); search passes the device's


@dataclass(frozen=True)
class WarpAccess:
    """One access of a statement by the points of a DOALL band, in bytes (the coalescing
    extension): `strides[k]` is the address at point y + e_k minus the address at y, for each
    tiled member k; `offset` the address at a sample point, from the array's start. Accesses
    of one array with equal strides and nearby offsets (a stencil's neighbours) share
    sectors."""

    array: str
    elem_bytes: int
    strides: tuple[int, ...]
    offset: int


@dataclass(frozen=True)
class Layout:
    """A tile layout (Di & Xue 2011, Section 4): tile sizes m (outermost first) and the block
    shape (threads along the last len(block) band members, outermost first)."""

    tiles: tuple[int, ...]
    block: tuple[int, ...]

    @property
    def threads(self) -> int:
        return math.prod(self.block)


@dataclass(frozen=True)
class Problem:
    """One kernel's band at fixed problem sizes.

    constraints: rows (a, c) meaning a . y + c >= 0: the polytope of the band's points.
    lower, upper: inclusive bounds of each y_k over the polytope.
    kind: "wavefront" (DOACROSS band, Section 2) or "doall" (every band member parallel).
    intra: the intra-tile wavefronts: "sum" (of the point coordinates) or "hyperplane" (y_0).
    accesses: loads and stores per point (DOALL memory term).
    launches: how many times the kernel runs (host loops around it; a wavefront kernel's own
        loop over its inter-tile wavefronts is not one of them).
    repeat: points of the band members that are not tiled (they run inside each thread) per
        point of the tiled ones: scales the tile's work.
    statements: for a DOALL band, each statement's accesses as WarpAccess (the coalescing
        extension, warp_transfers); () keeps the rule of blockDim.x alone (tile_terms).
    """

    constraints: tuple[tuple[tuple[int, ...], int], ...]
    lower: tuple[int, ...]
    upper: tuple[int, ...]
    kind: str = "wavefront"
    intra: str = "sum"
    accesses: int = 2
    launches: int = 1
    repeat: int = 1
    statements: tuple[tuple[WarpAccess, ...], ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise InvalidConfigError(f"{self.kind=} is not one of {KINDS}")
        if self.intra not in INTRAS:
            raise InvalidConfigError(f"{self.intra=} is not one of {INTRAS}")
        if any(lo > hi for lo, hi in zip(self.lower, self.upper)):
            raise InvalidConfigError(f"empty band: {self.lower=} {self.upper=}")

    @property
    def n(self) -> int:
        return len(self.lower)

    @property
    def extents(self) -> tuple[int, ...]:
        return tuple(hi - lo + 1 for lo, hi in zip(self.lower, self.upper))

    @staticmethod
    def from_box(extents: tuple[int, ...], skew: tuple[tuple[int, ...], ...] | None = None,
                 **fields: object) -> Problem:
        """The band y = S x of the box 0 <= x_k < extents[k] under a unimodular skew S
        (identity when None), e.g. 1-D SOR (Di & Xue 2011, Fig. 2): y = (t, t + i), S =
        ((1, 0), (1, 1)).

        Raises:
            InvalidConfigError: S is not square of the box's dimension, or not unimodular.
        """
        n = len(extents)
        s = np.array(skew if skew is not None else np.eye(n, dtype=int), dtype=np.int64)
        if s.shape != (n, n) or round(abs(np.linalg.det(s))) != 1:
            raise InvalidConfigError(f"skew {skew} is not a unimodular {n}x{n} matrix")
        inv = np.rint(np.linalg.inv(s)).astype(np.int64)
        rows: list[tuple[tuple[int, ...], int]] = []
        for k, extent in enumerate(extents):  # 0 <= (S^-1 y)_k <= extent - 1
            rows.append((tuple(int(v) for v in inv[k]), 0))
            rows.append((tuple(int(-v) for v in inv[k]), extent - 1))
        corners = np.array(np.meshgrid(*[(0, e - 1) for e in extents], indexing="ij"))
        images = s @ corners.reshape(n, -1)
        return Problem(tuple(rows), tuple(int(v) for v in images.min(axis=1)),
                       tuple(int(v) for v in images.max(axis=1)), **fields)  # type: ignore


@dataclass(frozen=True)
class Calibration:
    """The six parameters of T_total (Di & Xue 2011, Section 3.3), in seconds.

    sigma_thd: (threads per block, seconds of one __syncthreads) pairs;
    sigma_blk: (blocks per SM B, seconds of the barrier between inter-tile wavefronts) pairs;
    alpha: per warp executed; beta: per point; gamma: per load or store of a tile.
    lam (our extension, not in Di & Xue): per trip of a block's thread loops over an
    intra-tile wavefront, on the critical path of each occupancy round of eq. (10) (see
    scan_trips); 0 leaves the paper's model unchanged.
    """

    gpu: str
    sigma_ker: float
    sigma_thd: tuple[tuple[int, float], ...]
    sigma_blk: tuple[tuple[int, float], ...]
    alpha: float
    beta: float
    gamma: float
    measured: bool = False
    note: str = ""
    lam: float = 0.0

    def thd(self, threads: int) -> float:
        """sigma_thd at `threads` (linear between measured counts, clamped at the ends)."""
        return _interpolate(self.sigma_thd, threads)

    def blk(self, blocks_per_sm: int) -> float:
        return _interpolate(self.sigma_blk, blocks_per_sm)


def _interpolate(table: tuple[tuple[int, float], ...], x: int) -> float:
    xs = [p[0] for p in table]
    ys = [p[1] for p in table]
    return float(np.interp(x, xs, ys))


# -- one tile (Section 3.1) ------------------------------------------------------------------------
@lru_cache(maxsize=8192)
def intra_wavefronts(tiles: tuple[int, ...], block: tuple[int, ...], intra: str = "sum",
                     warp: int = 32) -> tuple[np.ndarray, np.ndarray]:
    """(G, H) per intra-tile wavefront e_1 of a full tile (eq. (4)): warps executed and points.

    The points of wavefront e_1 with coordinates (p_1, ..., p_n-1) beyond the first run on
    thread (p_k mod block_k); a thread with r of them runs r rounds, and a warp costs the most
    rounds of its threads, so G_e1 sums that over the warps (Di & Xue: "the number of 32-thread
    warps executed at the wavefront"). sum(H) = m_1 ... m_n (eq. (7)). Cached (read-only
    arrays): it depends on the tile and block only, not on the problem.
    """
    inner = tiles[1:]
    if len(block) != len(inner):
        raise InvalidConfigError(f"{block=} must have one entry per tile size after the "
                                 f"first ({tiles=})")
    threads = math.prod(block)
    if intra == "hyperplane":  # wavefront p_0 = e: all inner points, m_0 times
        rounds = _thread_points(inner, block)[None, :]  # one row, the same for every e
    else:  # wavefront e = p_0 + s, s = p_1 + ... + p_n-1, 0 <= p_0 < m_0
        grids = np.meshgrid(*[np.arange(m) for m in inner], indexing="ij")
        tid = np.zeros(inner, dtype=np.int64)
        for k, g in enumerate(grids):  # row-major thread id, the last member on x
            tid = tid * block[k] + g % block[k]
        s = sum(grids) if grids else np.zeros((), dtype=np.int64)
        smax = int(np.max(s))
        flat = (np.ravel(s) + 1) * threads + tid.ravel()  # row s + 1: csum[k] counts s < k
        hist = np.bincount(flat, minlength=(smax + 2) * threads).reshape(smax + 2, threads)
        csum = np.cumsum(hist, axis=0, out=hist)
        e = np.arange(tiles[0] + smax)
        hi = np.minimum(e, smax) + 1  # s in (e - m_0, e]
        lo = np.clip(e - tiles[0] + 1, 0, smax + 1)
        rounds = csum[hi] - csum[lo]
    pad = (-threads) % warp
    per_warp = np.pad(rounds, ((0, 0), (0, pad))).reshape(rounds.shape[0], -1, warp)
    g, h = per_warp.max(axis=2).sum(axis=1), rounds.sum(axis=1)
    if intra == "hyperplane":
        g, h = np.repeat(g, tiles[0]), np.repeat(h, tiles[0])
    g.flags.writeable = h.flags.writeable = False  # cached: shared by every caller
    return g, h


def _thread_points(inner: tuple[int, ...], block: tuple[int, ...]) -> np.ndarray:
    """Points of a tile's inner box (extents `inner`) that each thread holds, by row-major
    thread id (the last member on x): thread (t_1, ..., t_k) takes the p_j = t_j (mod b_j),
    max(0, ceil((m_j - t_j) / b_j)) of them along member j, so its count is the product over
    the members. Equal to bincount of the points' thread ids, without enumerating the
    m_1 ... m_k points (up to 10^6 per layout in the search)."""
    counts = np.ones(1, dtype=np.int64)
    for m, b in zip(inner, block):
        along = np.maximum(0, -(-(m - np.arange(b, dtype=np.int64)) // b))
        counts = np.outer(counts, along).ravel()
    return counts


@lru_cache(maxsize=8192)
def scan_trips(tiles: tuple[int, ...], block: tuple[int, ...], intra: str = "sum") -> int:
    """Trips of a block's thread loops over the intra-tile wavefronts of a full tile (our
    extension of Section 3.1's T_TILE): sum over e_1 of prod_k ceil(R_k(e_1) / blockDim_k),
    R_k(e_1) the extent of p_k (k >= 1) among wavefront e_1's points.

    Why: the generated code scans each intra-tile wavefront's bounding box on the block's
    lattice (thread k takes p_k = tid_k + j blockDim_k), so every thread runs this many trips,
    each a dependent global load after the previous wavefront's barrier, whether or not it
    holds a point there. eq. (4)'s G_e1 counts only the warps with points: the H100's SOR
    tiles with one thread row along p_1 (blockDim 1 x K) measured up to 6x the paper model's
    time (bench/results/2026-11-25-nvidia-h100-80gb-hbm3-tune-reevaluate.json).
    """
    if len(block) != len(tiles) - 1:
        raise InvalidConfigError(f"{block=} must have one entry per tile size after the "
                                 f"first ({tiles=})")
    if intra == "hyperplane":  # e_1 = p_0: every inner member spans its whole tile
        return tiles[0] * math.prod(-(-m // b) for m, b in zip(tiles[1:], block))
    # e_1 = p_0 + ... + p_n-1 with 0 <= p_0 < m_0: p_k ranges over
    # [max(0, e_1 - m_0 + 1 - (s - (m_k - 1))), min(m_k - 1, e_1)], s = sum_k>=1 (m_k - 1)
    span = sum(m - 1 for m in tiles[1:])
    e = np.arange(tiles[0] + span)
    trips = np.ones_like(e)
    for m, b in zip(tiles[1:], block):
        lo = np.maximum(0, e - tiles[0] + 1 - (span - (m - 1)))
        hi = np.minimum(m - 1, e)
        trips *= -(-(hi - lo + 1) // b)
    return int(trips.sum())


def points_per_wavefront(tiles: tuple[int, ...]) -> np.ndarray:
    """H_e1 of the skewed-sum wavefronts e1 = p_0 + ... + p_n-1 of a full tile: the
    convolution of the tile's extents."""
    h = np.ones(1, dtype=np.int64)
    for m in tiles:
        h = np.convolve(h, np.ones(m, dtype=np.int64))
    return h


def memory_accesses(problem: Problem, tiles: tuple[int, ...]) -> int:
    """N_mem of eq. (6): loads and stores of one tile.

    Wavefront tiles: the values that cross the tile's faces, sum_k prod_{j != k} m_j, so that
    the data reuse rate D = L_TILE / N_mem tends to the bounds of Section 5 (m_2,
    m_2 m_3 / (m_2 + m_3), ... as m_1 grows). DOALL tiles (extension): every access of every
    point, no reuse assumed (tile_terms counts them per warp and memory segment).
    """
    volume = math.prod(tiles)
    if problem.kind == "doall":
        return problem.accesses * volume
    return sum(volume // m for m in tiles)


def tile_time(cal: Calibration, problem: Problem, layout: Layout, warp: int = 32,
              n_mem: int | None = None) -> float:
    """T_TILE of a full tile, eq. (8): alpha sum G + (U - L + 3) sigma_thd + beta L_TILE +
    gamma N_mem. DOALL tiles (extension): one wavefront of all points, no barriers."""
    a, b, c, d = tile_terms(cal, problem, layout, warp, n_mem)
    return cal.alpha * a + cal.beta * b + cal.gamma * c + d


def tile_terms(cal: Calibration, problem: Problem, layout: Layout, warp: int = 32,
               n_mem: int | None = None) -> tuple[float, float, float, float]:
    """T_TILE = alpha a + beta b + gamma c + d: (a, b, c, d) of eq. (8).

    n_mem: a wavefront tile's N_mem when the caller knows it better than eq. (6)'s faces
    (a tile staged in shared memory: problem.KernelModel.tile_accesses); None: eq. (6).

    DOALL (extension): a = warps executed (rounds of the block over the tile), b = points,
    c = the warps' memory transfers (the coalescing that the wavefront model leaves out,
    Section 3.1): with problem.statements, warp_transfers of the block; without, the accesses
    times the memory segments each spans (ceil(32 / blockDim.x) rows, as if the last member
    were the contiguous one). d = 0 (no barrier)."""
    volume = math.prod(layout.tiles)
    r = problem.repeat
    if n_mem is None or problem.kind == "doall":
        n_mem = memory_accesses(problem, layout.tiles)
    if problem.kind == "doall":
        rounds = math.prod(-(-m // b) for m, b in zip(layout.tiles, layout.block))
        warps = r * rounds * math.ceil(layout.threads / warp)
        if problem.statements:
            per_warp = warp_transfers(problem.statements, layout.block, warp)
        else:  # a warp's access spans ceil(warp / blockDim.x) rows: as many segments
            per_warp = problem.accesses * -(-warp // min(warp, layout.block[-1]))
        return (warps, r * volume, warps * per_warp, 0.0)
    g, h = intra_wavefronts(layout.tiles, layout.block, problem.intra, warp)
    assert int(h.sum()) == volume  # eq. (7)
    syncs = len(g) + 2  # U - L + 1 at (2), one at (1) and one at (3)
    return r * float(g.sum()), r * volume, r * n_mem, syncs * cal.thd(layout.threads)


@lru_cache(maxsize=4096)
def warp_transfers(statements: tuple[tuple[WarpAccess, ...], ...], block: tuple[int, ...],
                   warp: int = 32) -> float:
    """Memory transfers of one round of a warp over a DOALL tile (our coalescing extension of
    tile_terms' c): per statement, the distinct SECTOR_BYTES sectors that the block's first
    warp touches with all the statement's accesses, counted per array in units of one
    coalesced warp access of its elements (warp x elem_bytes bytes); the mean over the
    statements, as Problem.accesses is a mean. Averaged over the alignments of the first
    thread's element within a sector.

    Thread (t_0, ..., t_n-1) (row-major id, the last member on x) holds point y + t in its
    first round, so access a touches a.offset + sum_k a.strides[k] t_k. The stride decides,
    not the member's position: the tile's contiguous member may be any of them (3-D SOR under
    isl's schedule: y = (t, i, j) at a fixed 2t + i + j + k, A[i][j][k] moves -16 bytes along
    t and 2040 along j at n = 256). A stencil's neighbours land in the sectors of the
    neighbouring threads and are counted once.

    Example (doubles, one access, contiguous along the last member; 4 alignments): 32
    threads on x read 256 bytes, 8 sectors aligned and 9 not (1.09375); 4 x 8 threads read 4
    rows of 64 bytes, 8 or 12 sectors (1.375); 8 x 4 threads 8 rows of 32 bytes, 8 or 16
    (1.75). The rule of blockDim.x alone (tile_terms) says 1, 4 and 8.
        >>> a = WarpAccess("A", 8, (8 * 4096, 8), 0)
        >>> [warp_transfers(((a,),), b) for b in ((1, 32), (4, 8), (8, 4))]
        [1.09375, 1.375, 1.75]
    """
    ids = np.arange(min(warp, math.prod(block)))
    coords = []
    for b in reversed(block):  # the last member on x
        coords.append(ids % b)
        ids = ids // b
    coords.reverse()
    means = []
    for accesses in statements:
        shifts = max(1, SECTOR_BYTES // min(a.elem_bytes for a in accesses))
        total = 0.0
        for shift in range(shifts):
            by_array: dict[tuple[str, int], list[np.ndarray]] = {}
            for a in accesses:
                where = a.offset + shift * a.elem_bytes + sum(
                    (s * c for s, c in zip(a.strides, coords)), np.zeros_like(coords[0]))
                by_array.setdefault((a.array, a.elem_bytes), []).append(where // SECTOR_BYTES)
            total += sum(np.unique(np.concatenate(parts)).size * SECTOR_BYTES / (warp * size)
                         for (_, size), parts in by_array.items())
        means.append(total / shifts)
    return float(np.mean(means))


# -- tiles of each inter-tile wavefront (Section 3.2) ----------------------------------------------
@dataclass(frozen=True)
class TileCounts:
    """Tiles meeting the band's polytope, and full tiles, per inter-tile wavefront."""

    tiles: tuple[int, ...]
    full: tuple[int, ...]


@lru_cache(maxsize=1024)
def tile_counts(problem: Problem, tiles: tuple[int, ...]) -> TileCounts:
    """Per inter-tile wavefront w = T_0 + ... + T_n-1: the tiles that meet the polytope and
    the full ones (inside it). A tile "meets" the polytope when it meets each half-space:
    exact for the boxes and parallelograms of skewed nests, an over-approximation at corners
    otherwise. DOALL: one wavefront of all tiles.

    Each half-space test is linear in the tile's coordinates T, so along any one coordinate
    the admissible T_k of the other coordinates' tiles form an interval: only n-1 coordinates
    are enumerated, all but the one with the most tiles (the counts are the same whichever is
    left out, _tile_counts; leaving out the longest enumerates, for 2-D Jacobi 4096^2 x 1000
    at tiles 768 x 4 x 8, 3 x 10^3 intervals instead of 10^6).
    """
    m = np.array(tiles, dtype=np.int64)
    extents = np.array(problem.upper) // m - np.array(problem.lower) // m
    return _tile_counts(problem, tiles, int(np.argmax(extents)))


def _tile_counts(problem: Problem, tiles: tuple[int, ...], axis: int) -> TileCounts:
    """tile_counts with the tiles along coordinate `axis` counted as intervals and the other
    coordinates enumerated."""
    order = [axis] + [k for k in range(problem.n) if k != axis]
    m = np.array(tiles, dtype=np.int64)[order]
    lo_t = np.array(problem.lower)[order] // m
    hi_t = np.array(problem.upper)[order] // m
    rest = np.meshgrid(*[np.arange(lo_t[k], hi_t[k] + 1) for k in range(1, problem.n)],
                       indexing="ij")
    rest = np.stack([r.ravel() for r in rest]) if rest else np.zeros((0, 1), dtype=np.int64)
    width = rest.shape[1]
    meet_lo = np.full(width, lo_t[0]); meet_hi = np.full(width, hi_t[0])  # noqa: E702
    full_lo = meet_lo.copy(); full_hi = meet_hi.copy()  # noqa: E702
    for a, c in problem.constraints:
        a = np.array(a, dtype=np.int64)[order]
        # a . y over the box of tile T: a_k m_k T_k + [min, max] of a_k * (0 .. m_k - 1)
        base = (a[1:, None] * m[1:, None] * rest).sum(axis=0) + c
        slack_max = int(np.sum(np.maximum(a, 0) * (m - 1)))
        slack_min = int(np.sum(np.minimum(a, 0) * (m - 1)))
        coef = int(a[0] * m[0])
        # meets: coef T_0 + base + slack_max >= 0; full: coef T_0 + base + slack_min >= 0
        meet_lo, meet_hi = _restrict(meet_lo, meet_hi, coef, base + slack_max)
        full_lo, full_hi = _restrict(full_lo, full_hi, coef, base + slack_min)
    offset = rest.sum(axis=0) if problem.n > 1 else np.zeros(width, dtype=np.int64)
    w_lo, w_hi = int(lo_t.sum()), int(hi_t.sum())
    meet = _per_wavefront(meet_lo, meet_hi, offset, w_lo, w_hi)
    full = _per_wavefront(full_lo, full_hi, offset, w_lo, w_hi)
    if problem.kind == "doall":
        return TileCounts((int(meet.sum()),), (int(full.sum()),))
    keep = meet > 0
    return TileCounts(tuple(int(v) for v in meet[keep]), tuple(int(v) for v in full[keep]))


def _restrict(lo: np.ndarray, hi: np.ndarray, coef: int, rhs: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """Intersect [lo, hi] with {T : coef T + rhs >= 0}."""
    if coef > 0:
        return np.maximum(lo, -(rhs // coef)), hi  # T >= ceil(-rhs / coef)
    if coef < 0:
        return lo, np.minimum(hi, rhs // -coef)  # T <= floor(rhs / -coef)
    empty = rhs < 0
    return np.where(empty, 1, lo), np.where(empty, 0, hi)


def _per_wavefront(lo: np.ndarray, hi: np.ndarray, offset: np.ndarray, w_lo: int, w_hi: int
                   ) -> np.ndarray:
    """Counts per w in [w_lo, w_hi] of the tiles T_0 in [lo, hi] at wavefront T_0 + offset."""
    size = w_hi - w_lo + 2
    ok = lo <= hi
    diff = (np.bincount(lo[ok] + offset[ok] - w_lo, minlength=size)
            - np.bincount(hi[ok] + offset[ok] - w_lo + 1, minlength=size))
    return np.cumsum(diff)[:-1]


# -- the kernel (eqs. 9-12) ------------------------------------------------------------------------
def wavefront_rounds(tiles, full, blocks_per_sm: int, sms: int):
    """sum_i T^i_t1 / T_TILE of eqs. (10)-(12) for one inter-tile wavefront: I - 1 rounds of B
    tiles on the slowest SM and a last round of ceil(rest / P); border tiles weigh 0.5 T_TILE
    (Section 3.4), applied as the wavefront's mean tile cost. tiles, full: ints (one
    wavefront: a float) or int64 arrays (every wavefront at once: an array)."""
    per_round = blocks_per_sm * sms  # gridDim.x = B x P
    rounds = -(-tiles // per_round)  # eq. (10)
    rest = tiles - (rounds - 1) * per_round  # in (0, B P]; eq. (12) writes it as a modulo
    slowest = (rounds - 1) * blocks_per_sm + -(-rest // sms)
    return slowest * (full + 0.5 * (tiles - full)) / tiles


@lru_cache(maxsize=1024)
def _count_arrays(problem: Problem, tiles: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """tile_counts as read-only int64 arrays (tiles, full), for the vectorized sums."""
    counts = tile_counts(problem, tiles)
    arrays = (np.array(counts.tiles, dtype=np.int64), np.array(counts.full, dtype=np.int64))
    for a in arrays:
        a.flags.writeable = False  # cached: shared by every caller
    return arrays


def wavefronts_work(problem: Problem, tiles: tuple[int, ...], blocks_per_sm: int, sms: int
                    ) -> float:
    """sum over the inter-tile wavefronts of wavefront_rounds (eqs. (10)-(12)), the same
    integer rounds and border weights computed over every wavefront at once (numpy): the
    search evaluates ~10^3 wavefronts for each of ~10^4 layouts."""
    t, full = _count_arrays(problem, tiles)
    return float(wavefront_rounds(t, full, blocks_per_sm, sms).sum())


@dataclass(frozen=True)
class Estimate:
    """T_total (eq. (9)) and its parts, in seconds."""

    total: float
    tile: float
    wavefronts: int
    tiles: int
    blocks_per_sm: int


def total_time(problem: Problem, layout: Layout, cal: Calibration, blocks_per_sm: int,
               sms: int, warp: int = 32, n_mem: int | None = None,
               max_warps: int = MAX_WARPS_PER_SM) -> Estimate:
    """T_total = sum_t1 T_t1 + sigma_ker (eq. (9)), T_t1 = sum_i T^i_t1 + sigma_blk (eq. (11)).

    DOALL kernels (extension): one wavefront of every tile, no sigma_blk, the whole run
    `problem.launches` times (a host loop around the kernel).
    Wavefront kernels add lam * latency_term (our extension; 0 when cal.lam is 0). The sum
    of total_terms() weighed by the calibration: one formula for the estimate and the fit.

    Raises:
        InvalidConfigError: blocks_per_sm < 1 (the block cannot be resident: Table 1's B = 0).
    """
    a, b, c, lat, d = total_terms(problem, layout, cal, blocks_per_sm, sms, warp, n_mem,
                                  max_warps)
    total = cal.alpha * a + cal.beta * b + cal.gamma * c + cal.lam * lat + d
    counts = tile_counts(problem, layout.tiles)
    return Estimate(total, tile_time(cal, problem, layout, warp, n_mem), len(counts.tiles),
                    sum(counts.tiles), blocks_per_sm)


def latency_term(problem: Problem, layout: Layout, blocks_per_sm: int, sms: int) -> float:
    """The coefficient of lam in T_total (our extension): sum over the inter-tile wavefronts
    of I_t1 (eq. (10): the rounds of B resident tiles per SM, run one after the other) times
    the scan trips of a tile (scan_trips) times problem.repeat, times problem.launches.

    A round's tiles run concurrently, so its time is at least one tile's chain of dependent
    trips; the paper's throughput terms (eq. (11)) miss this when a wavefront has few tiles
    or a tile few threads. Added to, not maxed with, eq. (11) so that the fit stays linear.
    0 for DOALL kernels (not measured there yet)."""
    if problem.kind == "doall":
        return 0.0
    tiles, _ = _count_arrays(problem, layout.tiles)
    rounds = int((-(-tiles // (blocks_per_sm * sms))).sum())  # eq. (10) per wavefront
    trips = scan_trips(layout.tiles, layout.block, problem.intra)
    return float(problem.launches * rounds * trips * problem.repeat)


def linear_terms(problem: Problem, layout: Layout, cal: Calibration, blocks_per_sm: int,
                 sms: int, warp: int = 32, n_mem: int | None = None,
                 max_warps: int = MAX_WARPS_PER_SM) -> tuple[float, float, float, float]:
    """T_total = alpha a + beta b + gamma c + d with the sigmas of `cal` (alpha, beta, gamma
    ignored; d includes cal.lam's term): the rows of the least-squares fit of Section 3.3."""
    a, b, c, lat, d = total_terms(problem, layout, cal, blocks_per_sm, sms, warp, n_mem,
                                  max_warps)
    if problem.kind != "doall":
        d += cal.lam * lat
    return a, b, c, d


def total_terms(problem: Problem, layout: Layout, cal: Calibration, blocks_per_sm: int,
                sms: int, warp: int = 32, n_mem: int | None = None,
                max_warps: int = MAX_WARPS_PER_SM) -> tuple[float, float, float, float, float]:
    """T_total = alpha a + beta b + gamma c + lam l + d (eq. (9) with our latency term): (a,
    b, c, l, d), d with the sigmas of `cal`, from one tile_terms() (total_time() weighs them
    by alpha, beta, gamma and lam; the refit's re-ranking, tune/search.py, costs one
    evaluation per layout, not five).

    DOALL kernels (our extension, memory-level parallelism): c is scaled by max_warps over
    the warps resident per SM in the fullest round (at least 1): by Little's law an SM keeps
    in flight as many requests as it holds warps, so a grid of few tiles, or of small
    blocks, moves its bytes at that fraction of the bandwidth. (3-D Jacobi 256^3 on the
    H100, tiles 64 x 128 x 16: 228 ms on 1 x 4 x 16 threads, 1 block of 2 warps per SM;
    37.5 ms on 1 x 32 x 16, 16 warps; ...-tune-suite-wide-c.json.) max_warps 0: not scaled
    (the model before this extension, for comparison: bench/tune_rerank.py).

    Raises:
        InvalidConfigError: blocks_per_sm < 1 (as total_time).
    """
    if blocks_per_sm < 1:
        raise InvalidConfigError(f"{layout} has no resident block per SM ({blocks_per_sm=})")
    ta, tb, tc, td = tile_terms(cal, problem, layout, warp, n_mem)
    counts = tile_counts(problem, layout.tiles)
    work = wavefronts_work(problem, layout.tiles, blocks_per_sm, sms)
    launches = problem.launches
    if problem.kind == "doall":
        d, lat = launches * (work * td + cal.sigma_ker), 0.0
        if max_warps:
            resident = min(blocks_per_sm, -(-sum(counts.tiles) // sms))
            tc *= max(1.0, max_warps / (resident * math.ceil(layout.threads / warp)))
    else:
        d = launches * (work * td + len(counts.tiles) * cal.blk(blocks_per_sm) + cal.sigma_ker)
        lat = latency_term(problem, layout, blocks_per_sm, sms)
    return launches * (work * ta), launches * (work * tb), launches * (work * tc), lat, d


def _with(cal: Calibration, alpha: float, beta: float, gamma: float) -> Calibration:
    from dataclasses import replace

    return replace(cal, alpha=alpha, beta=beta, gamma=gamma)
