"""Calibration of the execution-time model (Di & Xue 2011, Section 3.3): sigma_ker, sigma_thd
and sigma_blk measured by microbenchmarks generated here; alpha, beta, gamma fitted by least
squares on runs of a simplified nest (one inter-tile wavefront of B x P full tiles). Run once
per GPU; the result is cached as JSON under the user's cache dir, keyed by the GPU's name.

    python -m polycuda.tune.calibrate --out DIR     # on a machine with a GPU
"""

from __future__ import annotations

import argparse
import ctypes
import dataclasses
import itertools
import json
import re
import sys
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import numpy as np

from polycuda.errors import InvalidConfigError, PolycudaError, UserError
from polycuda.tune import model, occupancy
from polycuda.tune.model import Calibration, Layout, Problem

REFERENCE_CALIBRATION = "calibration_h100_sm90.json"
# the packaged calibrations, by the GPU's name as the driver reports it: sigmas measured, and
# alpha, beta, gamma, lam fitted on that GPU's measured SOR kernels (bench/tune_accuracy.py,
# then bench/tune_reevaluate.py --write-calibration). The H100's is the reference of a machine
# without a GPU, or of a GPU without a packaged one.
PACKAGED = {"NVIDIA H100 80GB HBM3": REFERENCE_CALIBRATION,
            "NVIDIA H200": "calibration_h200_sm90.json"}
ESTIMATED = "estimated, not measured"
THREAD_COUNTS = tuple(range(32, 1025, 32))
# tile sizes (m1, m2) of the simplified nest, threads = m2: the rows of the fit
FIT_TILES = ((4, 64), (16, 64), (64, 64), (8, 128), (32, 128), (16, 256), (64, 256),
             (8, 512), (32, 512), (16, 1024))
SOR1 = ((1, 0), (1, 1))


# -- the calibration file --------------------------------------------------------------------------
def to_json(cal: Calibration, extra: dict | None = None) -> str:
    data = dataclasses.asdict(cal)
    data["status"] = "measured" if cal.measured else ESTIMATED
    data.update(extra or {})
    return json.dumps(data, indent=2)


def from_json(text: str, where: str = "calibration") -> Calibration:
    """Calibration from its JSON text.

    Raises:
        InvalidConfigError: not a calibration file (names the missing fields).
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise InvalidConfigError(f"{where}: not JSON ({err.msg})") from None
    names = [f.name for f in dataclasses.fields(Calibration)]
    missing = [n for n in names if n not in data and n not in ("measured", "note", "lam")]
    if missing:
        raise InvalidConfigError(f"{where}: missing fields {missing}")
    fields = {n: data[n] for n in names if n in data}
    for key in ("sigma_thd", "sigma_blk"):
        fields[key] = tuple((int(x), float(y)) for x, y in fields[key])
    fields["measured"] = bool(data.get("measured")) and data.get("status") != ESTIMATED
    return Calibration(**fields)


def reference_calibration() -> Calibration:
    """The packaged calibration of the reference H100 (see its "status" field)."""
    return _packaged_file(REFERENCE_CALIBRATION)


def packaged_calibration(gpu: str | None) -> Calibration | None:
    """The calibration packaged for `gpu` (PACKAGED), else None."""
    name = PACKAGED.get(gpu or "")
    return _packaged_file(name) if name else None


def _packaged_file(name: str) -> Calibration:
    return from_json(resources.files("polycuda.tune").joinpath("data", name).read_text(), name)


def cache_path(gpu: str, root: Path | None = None, kind: str = "calibration") -> Path:
    """The cached measurement `kind` of `gpu`: this model's calibration, or another
    per-GPU measurement kept beside it (tune/level_cost.py: "runtime-levels")."""
    from polycuda.runtime import build

    slug = re.sub(r"[^A-Za-z0-9]+", "-", gpu).strip("-").lower() or "unknown"
    return (root or build.cache_dir() / "tune") / f"{kind}-{slug}.json"


def _say_on_stderr(message: str) -> None:
    print(f"polycuda: tune: {message}", file=sys.stderr)


def load_calibration(gpu: str | None, root: Path | None = None,
                     say: Callable[[str], None] | None = _say_on_stderr) -> Calibration:
    """The cached calibration of `gpu`, else the one packaged for it, else the reference one
    (the last two said through `say`, unless it is None; `tune` passes its progress)."""
    if gpu:
        path = cache_path(gpu, root)
        if path.is_file():
            return from_json(path.read_text(), str(path))
    own = packaged_calibration(gpu)
    if own is not None:
        if say:
            say(f"no calibration of '{gpu}' cached: using the one packaged for it (fitted on "
                "its measured kernels)")
        return own
    cal = reference_calibration()
    if say:
        why = f"no calibration of '{gpu}' cached" if gpu else "no GPU"
        status = "measured" if cal.measured else ESTIMATED
        say(f"{why}: using the reference calibration of {cal.gpu} ({status}; run "
            "`python -m polycuda.tune.calibrate --out DIR` on the GPU)")
    return cal


# -- least squares (Section 3.3) -------------------------------------------------------------------
def fit(rows: list[tuple[float, float, float, float]], times: list[float]
        ) -> tuple[float, float, float]:
    """alpha, beta, gamma >= 0 minimising sum_i (alpha a_i + beta b_i + gamma c_i + d_i -
    T_i)^2, rows (a, b, c, d) from model.linear_terms / simplified_terms.

    Non-negative least squares, exactly, by trying every subset of the three coefficients
    (numpy.linalg.lstsq on each) and keeping the best fit whose coefficients are all >= 0: a
    time per warp, point or access cannot be negative, and the unconstrained fit of the H100's
    runs gave beta, gamma < 0 and negative predicted times.

    Raises:
        InvalidConfigError: fewer than three rows.
    """
    if len(rows) < 3 or len(rows) != len(times):
        raise InvalidConfigError(f"need >= 3 runs with times to fit, got {len(rows)}")
    matrix = np.array([r[:3] for r in rows], dtype=float)
    target = np.array(times, dtype=float) - np.array([r[3] for r in rows], dtype=float)
    alpha, beta, gamma = nonneg_lstsq(matrix, target).tolist()
    return alpha, beta, gamma


def nonneg_lstsq(matrix: np.ndarray, target: np.ndarray) -> np.ndarray:
    """x >= 0 minimising |matrix x - target|^2, exactly: numpy.linalg.lstsq on every subset
    of the columns (2^k - 1 of them, k <= 8 here), keeping the best fit whose coefficients are
    all >= 0 (zero where no subset fits). Columns are scaled to 1 first."""
    k = matrix.shape[1]
    if k > 8:
        raise InvalidConfigError(f"{k} coefficients: at most 8 are fitted by subsets")
    scale = np.abs(matrix).max(axis=0)
    scale[scale == 0] = 1.0
    scaled = matrix / scale
    best, best_residual = np.zeros(k), float(np.sum(target ** 2))
    for used in itertools.chain.from_iterable(itertools.combinations(range(k), n)
                                              for n in range(1, k + 1)):
        columns = list(used)
        part, *_ = np.linalg.lstsq(scaled[:, columns], target, rcond=None)
        if (part < 0).any():
            continue
        solution = np.zeros(k)
        solution[columns] = part
        residual = float(np.sum((scaled @ solution - target) ** 2))
        if residual < best_residual:
            best, best_residual = solution, residual
    return best / scale


def fit_relative(rows: list[tuple[float, ...]], times: list[float]) -> tuple[float, ...]:
    """alpha, beta, gamma, lam >= 0 minimising the squared relative errors
    sum_i ((alpha a_i + beta b_i + gamma c_i + lam l_i + d_i) / T_i - 1)^2 over rows
    (a, b, c, l, d) of search.model_terms: measured kernels, not the simplified nest.

    Relative, not absolute as Section 3.3: the times of a tuning run span 1000x, and the
    search compares layouts by ratio; an absolute fit is decided by the slowest layouts.

    Raises:
        InvalidConfigError: fewer runs than coefficients, or a time <= 0.
    """
    k = len(rows[0]) - 1 if rows else 0
    if len(rows) < max(k, 1) or len(rows) != len(times):
        raise InvalidConfigError(f"need >= {k} runs with times to fit, got {len(rows)}")
    t = np.array(times, dtype=float)
    if (t <= 0).any():
        raise InvalidConfigError("every fitted time must be > 0")
    data = np.array(rows, dtype=float)
    return tuple(nonneg_lstsq(data[:, :k] / t[:, None], 1.0 - data[:, k] / t).tolist())


def simplified_terms(cal: Calibration, tiles: tuple[int, int], threads: int,
                     blocks_per_sm: int, sms: int) -> tuple[float, float, float, float]:
    """(a, b, c, d) of the simplified nest: one inter-tile wavefront of B x P full tiles of
    1-D SOR (Di & Xue 2011, Section 3.3): T = sigma_ker + sigma_blk + B T_TILE."""
    prob = Problem.from_box((tiles[0], tiles[1]), SOR1)
    a, b, c, d = model.tile_terms(cal, prob, Layout(tiles, (threads,)))
    rounds = model.wavefront_rounds(blocks_per_sm * sms, blocks_per_sm * sms, blocks_per_sm,
                                    sms)
    return (rounds * a, rounds * b, rounds * c,
            rounds * d + cal.sigma_ker + cal.blk(blocks_per_sm))


# -- microbenchmarks -------------------------------------------------------------------------------
def microbench_source() -> str:
    """CUDA source of the microbenchmarks; each host entry returns milliseconds (CUDA events),
    or a negative CUDA error code."""
    return MICROBENCH_CU


MICROBENCH_CU = r'''#include <cuda_runtime.h>
#define PC_TRY(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) return -(float)e_; } while (0)

__global__ void pc_cal_empty(int *sink) { if (sink && threadIdx.x == 1 << 30) sink[0] = 1; }

__global__ void pc_cal_sync(int iters, int *sink) {
  int acc = threadIdx.x;
  for (int k = 0; k < iters; k++) { acc += k ^ threadIdx.x; __syncthreads(); }
  if (acc == -1) sink[0] = acc;
}

/* The simplified nest of Di & Xue 2011, Section 3.3: every block runs one full m1 x m2 tile of
   1-D SOR as in their Fig. 3: loads into shared memory (1), intra-tile wavefronts
   e = p1 + p2 with a barrier each (2), stores (3). */
__global__ void pc_cal_tile(float *A, int m1, int m2) {
  extern __shared__ float s[];
  int width = m1 + m2 + 1;
  float *a = A + (size_t)blockIdx.x * width;
  for (int k = threadIdx.x; k < width; k += blockDim.x) s[k] = a[k];
  __syncthreads();
  for (int e = 0; e < m1 + m2 - 1; e++) {
    for (int p2 = threadIdx.x; p2 < m2; p2 += blockDim.x) {
      int p1 = e - p2;
      if (p1 >= 0 && p1 < m1) {
        int i = 2 * p2 - e + m1;
        s[i] = (s[i - 1] + s[i] + s[i + 1]) * (1.0f / 3.0f);
      }
    }
    __syncthreads();
  }
  for (int k = threadIdx.x; k < width; k += blockDim.x) a[k] = s[k];
}

static float pc_elapsed(cudaEvent_t a, cudaEvent_t b) {
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, a, b);
  return ms;
}

/* reps back-to-back launches of an empty kernel (sync == 0), or reps launches each waited
   for by the host (sync == 1: the whole start-up cost of one kernel) */
extern "C" float pc_cal_launches(int reps, int blocks, int threads, int sync) {
  cudaEvent_t a, b;
  PC_TRY(cudaEventCreate(&a)); PC_TRY(cudaEventCreate(&b));
  pc_cal_empty<<<blocks, threads>>>(nullptr);
  PC_TRY(cudaDeviceSynchronize());
  PC_TRY(cudaEventRecord(a));
  for (int r = 0; r < reps; r++) {
    pc_cal_empty<<<blocks, threads>>>(nullptr);
    if (sync) PC_TRY(cudaStreamSynchronize(0));
  }
  PC_TRY(cudaEventRecord(b)); PC_TRY(cudaEventSynchronize(b));
  PC_TRY(cudaGetLastError());
  float ms = pc_elapsed(a, b);
  cudaEventDestroy(a); cudaEventDestroy(b);
  return ms;
}

extern "C" float pc_cal_syncs(int iters, int blocks, int threads) {
  int *sink; cudaEvent_t a, b;
  PC_TRY(cudaMalloc(&sink, sizeof(int)));
  PC_TRY(cudaEventCreate(&a)); PC_TRY(cudaEventCreate(&b));
  pc_cal_sync<<<blocks, threads>>>(iters, sink);
  PC_TRY(cudaDeviceSynchronize());
  PC_TRY(cudaEventRecord(a));
  pc_cal_sync<<<blocks, threads>>>(iters, sink);
  PC_TRY(cudaEventRecord(b)); PC_TRY(cudaEventSynchronize(b));
  PC_TRY(cudaGetLastError());
  float ms = pc_elapsed(a, b);
  cudaFree(sink); cudaEventDestroy(a); cudaEventDestroy(b);
  return ms;
}

extern "C" float pc_cal_tiles(int blocks, int threads, int m1, int m2, int reps) {
  float *A; cudaEvent_t a, b;
  size_t width = (size_t)(m1 + m2 + 1);
  PC_TRY(cudaMalloc(&A, sizeof(float) * width * blocks));
  PC_TRY(cudaMemset(A, 0, sizeof(float) * width * blocks));
  PC_TRY(cudaEventCreate(&a)); PC_TRY(cudaEventCreate(&b));
  pc_cal_tile<<<blocks, threads, sizeof(float) * width>>>(A, m1, m2);
  PC_TRY(cudaDeviceSynchronize());
  PC_TRY(cudaEventRecord(a));
  for (int r = 0; r < reps; r++) pc_cal_tile<<<blocks, threads, sizeof(float) * width>>>(A, m1, m2);
  PC_TRY(cudaEventRecord(b)); PC_TRY(cudaEventSynchronize(b));
  PC_TRY(cudaGetLastError());
  float ms = pc_elapsed(a, b) / reps;
  cudaFree(A); cudaEventDestroy(a); cudaEventDestroy(b);
  return ms;
}
'''


class _Bench:
    """The built microbenchmarks, called through ctypes; times in seconds."""

    def __init__(self, arch: str | None = None):
        from polycuda.runtime import build

        source = microbench_source()
        self.resources = occupancy.kernel_resources(source, arch)
        self.lib = ctypes.CDLL(str(build.build_shared(source, "cuda", arch=arch)))
        for name in ("pc_cal_launches", "pc_cal_syncs", "pc_cal_tiles"):
            getattr(self.lib, name).restype = ctypes.c_float

    def _call(self, name: str, *args: int) -> float:
        ms = getattr(self.lib, name)(*[ctypes.c_int(a) for a in args])
        if ms < 0:
            raise PolycudaError(f"{name}{args}: CUDA error {int(-ms)}")
        return ms * 1e-3

    def launches(self, reps: int, blocks: int, threads: int, sync: bool) -> float:
        return self._call("pc_cal_launches", reps, blocks, threads, int(sync)) / reps

    def syncs(self, iters: int, blocks: int, threads: int) -> float:
        return self._call("pc_cal_syncs", iters, blocks, threads)

    def tiles(self, blocks: int, threads: int, m1: int, m2: int, reps: int = 20) -> float:
        return self._call("pc_cal_tiles", blocks, threads, m1, m2, reps)


def measure(props: occupancy.DeviceProps, log=print) -> tuple[Calibration, dict]:
    """Measure the six parameters on the current GPU; returns them and the raw runs."""
    bench = _Bench(props.arch)
    sms = props.sm_count
    # sigma_ker: start-up of an empty kernel, waited for (Section 3.3)
    sigma_ker = min(bench.launches(200, sms, 256, True) for _ in range(3))
    log(f"sigma_ker {sigma_ker * 1e6:.2f} us")
    # sigma_thd(K): one __syncthreads of K threads, one block per SM, as in Wong et al.
    thd = []
    for k in THREAD_COUNTS:
        base = min(bench.syncs(0, sms, k) for _ in range(3))
        many = min(bench.syncs(4096, sms, k) for _ in range(3))
        thd.append((k, max(0.0, (many - base) / 4096)))
    log("sigma_thd " + ", ".join(f"{k}: {s * 1e9:.1f} ns" for k, s in thd[::8]))
    # sigma_blk(B): the barrier between inter-tile wavefronts; polycuda's default
    # (wavefront_sync "kernels") ends a kernel there: back-to-back launches of B x P blocks
    blk = []
    for b in (1, 2, 4, 8, 16, 32):
        blk.append((b, min(bench.launches(500, b * sms, 128, False) for _ in range(3))))
    log("sigma_blk " + ", ".join(f"B={b}: {s * 1e6:.2f} us" for b, s in blk))
    partial = Calibration(props.name, sigma_ker, tuple(thd), tuple(blk), 0.0, 0.0, 0.0, True)
    alpha, beta, gamma, runs = _fit_simplified(bench, partial, props, log)
    note = "measured by polycuda.tune.calibrate"
    if min(alpha, beta, gamma) < 0:  # plain least squares, as the paper: kept, but flagged
        note += "; a fitted coefficient is negative (noise or a term the nest barely varies)"
        log(f"warning: {note}")
    cal = dataclasses.replace(partial, alpha=alpha, beta=beta, gamma=gamma, note=note)
    simplified = {"alpha": alpha, "beta": beta, "gamma": gamma}
    return adopt_reference_fit(cal), {"fit_runs": runs, "simplified_fit": simplified,
                                      "device": dataclasses.asdict(props)}


def adopt_reference_fit(cal: Calibration) -> Calibration:
    """`cal` with alpha, beta, gamma and lam of the calibration packaged for its GPU when there
    is one fitted on measured kernels (lam > 0); else `cal` unchanged.

    Why: on the H100 the simplified nest's fit (Section 3.3) predicted about a tenth of the
    measured SOR kernels' times, the fit on the kernels themselves (bench/tune_reevaluate.py)
    a fifth of the error (bench/results/2026-11-25-nvidia-h100-80gb-hbm3-tune-reevaluate.json);
    the sigmas stay as measured now. A GPU without one in PACKAGED keeps the simplified fit
    until its kernels are measured (bench/tune_accuracy.py, then tune_reevaluate.py
    --write-calibration) and the fit is packaged."""
    ref = packaged_calibration(cal.gpu)
    if ref is None or ref.lam <= 0:
        return cal
    return dataclasses.replace(cal, alpha=ref.alpha, beta=ref.beta, gamma=ref.gamma,
                               lam=ref.lam, note=cal.note + "; alpha, beta, gamma, lam from "
                               "the calibration packaged for this GPU (fitted on "
                               "measured kernels); the simplified nest's fit is in "
                               "simplified_fit")


def _fit_simplified(bench: _Bench, cal: Calibration, props: occupancy.DeviceProps, log
                    ) -> tuple[float, float, float, list[dict]]:
    """alpha, beta, gamma by least squares over the simplified nest at FIT_TILES."""
    regs = bench.resources["pc_cal_tile"].registers
    rows, times, runs = [], [], []
    for m1, m2 in FIT_TILES:
        threads = min(m2, props.max_threads_per_block)
        smem = 4 * (m1 + m2 + 1)
        b = occupancy.occupancy(props, threads, regs, smem).blocks
        seconds = min(bench.tiles(b * props.sm_count, threads, m1, m2) for _ in range(3))
        rows.append(simplified_terms(cal, (m1, m2), threads, b, props.sm_count))
        times.append(seconds)
        runs.append({"tiles": [m1, m2], "threads": threads, "blocks_per_sm": b,
                     "seconds": seconds})
        log(f"simplified nest {m1}x{m2} on {threads} threads, B={b}: {seconds * 1e6:.1f} us")
    alpha, beta, gamma = fit(rows, times)
    log(f"alpha {alpha:.3e} s/warp, beta {beta:.3e} s/point, gamma {gamma:.3e} s/access")
    for run, row in zip(runs, rows):
        run["model_seconds"] = alpha * row[0] + beta * row[1] + gamma * row[2] + row[3]
    return alpha, beta, gamma, runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m polycuda.tune.calibrate",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="directory for calibration-<gpu>.json (also cached for tune)")
    args = parser.parse_args(argv)
    try:
        props, on_gpu = occupancy.current_device()
        if not on_gpu:
            raise UserError("calibration measures the GPU: no GPU (or no CuPy) was found")
        cal, raw = measure(props, log=lambda s: print(f"calibrate: {s}", file=sys.stderr))
        text = to_json(cal, raw)
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        for path in (cache_path(props.name, out), cache_path(props.name)):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text + "\n")
            print(f"wrote {path}", file=sys.stderr)
    except PolycudaError as err:
        print(str(err) if isinstance(err, UserError) else f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
