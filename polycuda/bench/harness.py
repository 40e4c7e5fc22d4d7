"""`polycuda bench`: every selected kernel of the suite against every baseline, in one run.

Phases: find the GPU (else CPU configurations only), ceilings, build every library in parallel,
then per kernel: the sequential oracle on random inputs, each candidate checked against it and
timed, GPU memory freed. The result is one JSON-ready dict (see README's bench section).
"""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from polycuda.bench import baselines, builds, ceilings, environment, report
from polycuda.bench.configs import (
    DTYPE_BYTES,
    Variant,
    config_of,
    default_config,
    dtype_defines,
    variants,
)
from polycuda.bench.measure import (
    Candidate,
    GpuSide,
    HostSide,
    KernelCase,
    Limits,
    Measurement,
    measure_candidate,
    measure_oracle,
)
from polycuda.bench.progress import Progress
from polycuda.bench.datasets import DATASETS, PPCG_DATASET
from polycuda.bench.sizes import PAPER_KERNELS, check_sizes_for, ppcg_kernels, sizes_for
from polycuda.bench.suite_access import naive_cupy, suite
from polycuda.runtime import device
from polycuda.verify import NP_DTYPES, TOLERANCES

SCHEMA = "polycuda-bench/1"
_FULL_LIMITS = Limits(sequential_budget_s=4.0, entry_budget_s=3.0, max_run_s=2.0)
MODE_LIMITS = {
    "full": _FULL_LIMITS,
    "paper": _FULL_LIMITS,
    "quick": Limits(sequential_budget_s=1.0, entry_budget_s=1.0, max_run_s=0.25),
    "small": Limits(),
    # PPCG's way (DESIGN.md): nothing skipped for time; an entry whose call takes over ~7 s
    # gets fewer timed calls, said in its notes, as DESIGN's run timed its slowest kernels 1-2
    # times, so that the mode's parts fit in the device's 10 minutes (README's ppcg section).
    "ppcg": Limits(sequential_budget_s=4.0, entry_budget_s=20.0, max_run_s=None),
}
# Timed runs per entry when --repeats is not given: 3 (DESIGN's PPCG times are medians of 5;
# `--repeats 5` times as many), to keep the mode inside the device's time.
MODE_REPEATS = {"ppcg": 3}
DEFAULT_REPEATS = 10


@dataclass(frozen=True)
class Settings:
    """What `polycuda bench` runs. kernels: names (empty: the whole suite); use_gpu False forces
    the CPU-only mode; measure_ceilings: measure them now (GPU only); dtype: the kernels'
    DATA_TYPE, "double" or "float" (arrays, inputs and bytes per element follow it); tiles:
    tile-size candidates, each measured with every configuration besides its default tiles."""

    kernels: tuple[str, ...] = ()
    configs: tuple[str, ...] = ("isl", "pluto")
    mode: str = "full"
    repeats: int = DEFAULT_REPEATS
    use_gpu: bool = True
    measure_ceilings: bool = False
    out_dir: Path = Path("bench/results")
    jobs: int | None = None
    seed: int = 0
    limits: Limits | None = None
    dtype: str = "double"
    tiles: tuple[tuple[int, ...], ...] = ()
    blocks: tuple[tuple[int, ...], ...] = ()  # threads-per-block candidates, with every tiling
    # Orders of the inter-tile wavefronts measured (options.WAVEFRONT_SYNCS), each with
    # every configuration and tile candidate.
    syncs: tuple[str, ...] = ("kernels",)
    # tiles in global memory (0) or staged in shared memory of so many KiB per block
    stagings: tuple[int, ...] = (0,)
    max_run_s: float | None = None  # overrides the mode's Limits.max_run_s
    tag: str = ""  # appended to the results file's name
    sizes: tuple[tuple[str, int], ...] = ()  # parameter overrides (--size T=1000)
    dataset: str = PPCG_DATASET  # ppcg mode's PolyBench dataset (datasets.DATASETS)

    def __post_init__(self) -> None:
        dtype_defines(self.dtype)  # ValueError for an unknown dtype
        if self.dataset not in DATASETS:
            raise ValueError(f"unknown dataset {self.dataset!r}: expected one of "
                             f"{', '.join(DATASETS)}")
        if self.dataset != PPCG_DATASET and self.mode != "ppcg":
            raise ValueError(f"dataset {self.dataset} is a size of ppcg mode only")

    def effective_limits(self) -> Limits:
        base = self.limits or MODE_LIMITS[self.mode]
        return Limits(self.repeats, base.sequential_budget_s, base.entry_budget_s,
                      self.max_run_s or base.max_run_s)


@dataclass
class Platform:
    """The device side of a run: the GPU and CuPy, or why the run is CPU-only."""

    gpu: device.GpuInfo | None = None
    cupy: ModuleType | None = None
    cpu_only_reason: str = ""
    sides: dict[str, HostSide] = field(default_factory=lambda: {"cpu": HostSide()})


def find_platform(use_gpu: bool) -> Platform:
    """The GPU with CuPy and nvcc, or a CPU-only platform that says why."""
    if not use_gpu:
        return Platform(cpu_only_reason="the GPU was not asked for (--cpu)")
    gpu = device.gpu_info()
    if gpu is None:
        return Platform(cpu_only_reason="no NVIDIA GPU found (nvidia-smi)")
    try:
        cupy = device.require_cupy()
        device.find_nvcc()
    except Exception as exc:  # noqa: BLE001 (ToolNotFoundError or a broken CuPy install)
        return Platform(cpu_only_reason=f"GPU {gpu.name} found but unusable: {exc}")
    return Platform(gpu, cupy, "", {"cpu": HostSide(), "gpu": GpuSide(cupy),
                                    "gpu-host": HostSide()})


def build_jobs(names: list[str], entries: tuple[Variant, ...], gpu: bool,
               dtype: str = "double", openmp_baseline: bool = True) -> list[builds.BuildJob]:
    """The reference, the OpenMP baseline (GPU runs, unless `openmp_baseline` is False) and
    every polycuda entry of each kernel."""
    jobs = []
    for name in names:
        jobs.append(builds.BuildJob(name, builds.REFERENCE, dtype=dtype))
        if gpu and openmp_baseline:
            jobs.append(builds.BuildJob(name, "openmp", "isl", dtype))
        jobs += [builds.BuildJob(name, "cuda" if gpu else "openmp", v.config, dtype, v.tiles,
                                   v.sync, v.staging, v.blocks)
                 for v in entries]
    return jobs


def run_bench(settings: Settings, progress: Progress | None = None,
              on_kernel: Callable[[dict[str, Any]], object] | None = None) -> dict[str, Any]:
    """Run the benchmark; returns the results dict with derived figures and summary.

    on_kernel: called after each kernel with the results so far (derived, as returned).
    """
    start = time.perf_counter()
    kernels = select_kernels(settings.kernels, settings.mode, settings.dtype)
    platform = find_platform(settings.use_gpu)
    create_context(platform)
    progress = progress or Progress(0, enabled=False)
    if platform.cpu_only_reason:
        progress.message(f"CPU configurations only ({platform.cpu_only_reason}): sequential "
                         f"gcc -O3 and polycuda's code on OpenMP ({os.cpu_count()} cores)")
    results = _header(settings, platform)
    results["ceilings"] = _ceilings(settings, platform, progress)
    jobs = build_jobs([k.name for k in kernels], run_entries(settings),
                      platform.gpu is not None, settings.dtype, settings.mode != "ppcg")
    progress.add(len(jobs) + len(kernels))
    built = builds.build_all(jobs, settings.jobs, lambda r: progress.advance(
        f"built {r.job.kernel} {r.job.target} {r.job.entry or ''}".rstrip()))
    results["build_wall_s"] = time.perf_counter() - start
    progress.message(f"built {len(jobs)} libraries in {results['build_wall_s']:.1f} s")
    for kernel in kernels:
        results["kernels"].append(bench_kernel(kernel, settings, platform, built, progress))
        progress.advance(f"measured {kernel.name}")
        if on_kernel is not None:
            results["wall_s"] = time.perf_counter() - start
            on_kernel(report.derive(copy.deepcopy(results)))
    results["wall_s"] = time.perf_counter() - start
    return report.derive(results)


def select_kernels(names: tuple[str, ...], mode: str = "full", dtype: str = "double"
                   ) -> list[Any]:
    """The suite's kernels named; when none are named, the whole suite in suite order (paper
    mode: the stencils of Di et al.'s Table II, sizes.PAPER_KERNELS; ppcg mode: the kernels of
    DESIGN's PPCG table whose PPCG time is of element type `dtype`, sizes.ppcg_kernels).

    Raises:
        KeyError: an unknown name (the message lists the known ones).
    """
    st = suite()
    if not names and mode in ("paper", "ppcg"):
        names = PAPER_KERNELS if mode == "paper" else ppcg_kernels(dtype)
    return [st.by_name(n) for n in names] if names else list(st.KERNELS)


def measured_configs(settings: Settings) -> tuple[str, ...]:
    """The configurations a run measures: settings.configs, and in ppcg mode "default" too
    when none of them is polycuda's default Options() (so the default is always reported)."""
    if settings.mode == "ppcg" and default_config(settings.configs) is None:
        return (*settings.configs, "default")
    return settings.configs


def run_entries(settings: Settings) -> tuple[Variant, ...]:
    """Every polycuda entry of each kernel: the measured configurations, crossed with the
    tile, thread, wavefront-order and staging candidates."""
    return variants(measured_configs(settings), settings.tiles, settings.syncs,
                    settings.stagings, settings.blocks)


def create_context(platform: Platform) -> None:
    """Create the CUDA context (GPU runs) before anything is timed, as PPCG's times were taken:
    a first call of a library then pays only for its own module and allocations."""
    if platform.cupy is not None:
        gpu = platform.sides["gpu"]
        gpu.upload({"x": np.zeros(1)})
        gpu.sync()


def _header(settings: Settings, platform: Platform) -> dict[str, Any]:
    limits = settings.effective_limits()
    rtol, atol = TOLERANCES[settings.dtype]
    return {"schema": SCHEMA, "mode": settings.mode, "dtype": settings.dtype,
            **({"dataset": settings.dataset} if settings.mode == "ppcg" else {}),
            "tolerance": {"rtol": rtol, "atol": atol},
            "device_mode": "gpu" if platform.gpu else "cpu",
            "cpu_only_reason": platform.cpu_only_reason or None,
            "configs": list(measured_configs(settings)),
            "tiles": [list(t) for t in settings.tiles],
            "blocks": [list(b) for b in settings.blocks],
            "wavefront_syncs": list(settings.syncs),
            "stagings": [f"smem{st}" if st else "global" for st in settings.stagings],
            "tag": settings.tag, "size_overrides": dict(settings.sizes),
            "repeats": settings.repeats,
            "limits": asdict(limits), "seed": settings.seed,
            "machine": environment.describe(platform.gpu, platform.cupy),
            "ceilings": None, "kernels": []}


def _ceilings(settings: Settings, platform: Platform, progress: Progress
              ) -> dict[str, Any] | None:
    if platform.gpu is None:
        return None
    slug = environment.gpu_slug(platform.gpu)
    if not settings.measure_ceilings:
        return ceilings.load_or_assume(settings.out_dir, slug)
    progress.message("measuring the ceilings (copy bandwidth, dgemm, sgemm)")
    measured = ceilings.measure(platform.cupy)
    path = ceilings.save(settings.out_dir, slug, measured)
    progress.message(f"ceilings: {measured['copy_bytes_per_s'] / 1e12:.3g} TB/s copy, "
                     f"dgemm {measured['dgemm_flops_per_s'] / 1e12:.3g} TFLOP/s, sgemm "
                     f"{measured['sgemm_flops_per_s'] / 1e12:.3g} TFLOP/s -> {path}")
    return measured


def make_case(kernel: Any, sizes: Mapping[str, int], seed: int, dtype: str = "double",
              check_sizes: Mapping[str, int] | None = None) -> KernelCase:
    """The kernel's region (parsed from its C file with DATA_TYPE `dtype`, so that results are
    compared with that type's tolerance) with its random inputs of that type and its work;
    checked at `check_sizes` when given (KernelCase.check_sizes)."""
    from polycuda.api import compile as compile_c

    st = suite()
    scop = compile_c(str(kernel.c_path), function=kernel.function,
                     defines=dtype_defines(dtype)).scop
    c_names = [a.name for a in st.c_args(kernel)]

    def inputs(at: Mapping[str, int]) -> dict[str, object]:
        values = st.random_args(kernel, at, np.random.default_rng(seed), dtype=NP_DTYPES[dtype])
        named = dict(zip(c_names, values))
        return {a.name: named[a.name] for a in scop.args}

    return KernelCase(kernel.name, scop, dict(sizes), dict(kernel.small), inputs,
                      lambda at: float(kernel.flops_per_run(at)), check_sizes)


def candidates(kernel: Any, case: KernelCase, entries: tuple[Variant, ...], platform: Platform,
               built: Mapping[tuple[str, str, str | None], builds.BuildResult],
               mode: str = "full") -> tuple[Candidate, list[Candidate]]:
    """The oracle and the other candidates of one kernel, baselines first, then the polycuda
    `entries` (configurations with default or swept tiles). In ppcg mode on a GPU: the oracle,
    then each entry's whole drop-in function from host arrays (baselines.whole_function)."""
    scop, name = case.scop, kernel.name
    oracle = baselines.sequential(scop, built[(name, builds.REFERENCE, None)])
    if platform.gpu is not None and mode == "ppcg":
        return oracle, [baselines.whole_function(v.name, "config", v.label, scop,
                                                 built[(name, "cuda", v.name)])
                        for v in entries]
    if platform.gpu is None:
        return oracle, [baselines.host_library(v.name, "config", f"{v.label}, OpenMP", scop,
                                               built[(name, "openmp", v.name)], "openmp")
                        for v in entries]
    others = [baselines.host_library("openmp", "baseline", "polycuda's isl code on OpenMP, "
                                     f"{os.cpu_count()} threads", scop,
                                     built[(name, "openmp", "isl")], "openmp")]
    arg_names = [a.name for a in suite().c_args(kernel)]
    for attr, label in (("cupy_naive", "naive CuPy (whole-array expressions)"),
                        ("cupy_blas", "cuBLAS through CuPy")):
        fn_name = getattr(kernel, attr)
        if fn_name:
            entry = "cublas" if attr == "cupy_blas" else attr
            fn = getattr(naive_cupy(), fn_name)
            others.append(baselines.cupy_function(entry, label, fn, arg_names, platform.cupy))
    others += [baselines.gpu_library(v.name, "config", v.label, scop,
                                     built[(name, "cuda", v.name)]) for v in entries]
    return oracle, others


def bench_kernel(kernel: Any, settings: Settings, platform: Platform,
                 built: Mapping[tuple[str, str, str | None], builds.BuildResult],
                 progress: Progress) -> dict[str, Any]:
    """Measure every candidate of one kernel; the kernel's section of the results."""
    start = time.perf_counter()
    sizes = sizes_for(kernel, settings.mode, dict(settings.sizes), settings.dataset)
    check_sizes = check_sizes_for(kernel, settings.mode, sizes, settings.dataset)
    out = {"name": kernel.name, "category": kernel.category,
           "memory_bound": kernel.memory_bound, "sizes": sizes, "check_sizes": check_sizes,
           "bytes_per_run": kernel.bytes_per_run(sizes, w=DTYPE_BYTES[settings.dtype]),
           "flops_per_run": kernel.flops_per_run(sizes), "entries": {}}
    out["arithmetic_intensity"] = out["flops_per_run"] / out["bytes_per_run"]
    try:
        case = make_case(kernel, sizes, settings.seed, settings.dtype, check_sizes)
        oracle, others = candidates(kernel, case, run_entries(settings), platform, built,
                                    settings.mode)
    except Exception as exc:  # noqa: BLE001 (a kernel that cannot be parsed is reported)
        out["error"] = f"{type(exc).__name__}: {exc}"
        return out
    limits = settings.effective_limits()
    inputs = case.inputs(case.sizes)
    check_inputs = case.inputs(case.check_sizes) if case.check_sizes else None
    seq, expected = measure_oracle(case, oracle, inputs, limits, check_inputs)
    measurements = [seq]
    for cand in others:
        if expected is None:
            meas = measure_candidate(case, Candidate(cand.name, cand.role, cand.device,
                                                     cand.label, cand.timer,
                                                     failure="no oracle: " + seq.reason),
                                     inputs, {}, platform.sides["cpu"], limits)
        else:
            meas = measure_candidate(case, cand, inputs, expected,
                                     platform.sides[cand.device], limits, check_inputs)
        measurements.append(meas)
        _free_gpu(platform)
    for meas in measurements:
        out["entries"][meas.name] = _entry(kernel.name, meas, built)
        if meas.status != "ok":
            progress.message(f"{kernel.name}/{meas.name}: {meas.status}: "
                             f"{meas.reason.splitlines()[0] if meas.reason else ''}"[:300])
    out["wall_s"] = time.perf_counter() - start
    return out


def _entry(kernel: str, meas: Measurement,
           built: Mapping[tuple[str, str, str | None], builds.BuildResult]) -> dict[str, Any]:
    """One entry of the results: the measurement, its build, and for polycuda entries the
    configuration and tile sizes ([] for the defaults)."""
    entry = meas.to_json()
    key = _build_key(kernel, meas.name, meas.device)
    if meas.role == "config":
        entry["config"] = config_of(meas.name)
        entry["tile_sizes"] = list(built[key].job.tiles) if key in built else []
        entry["block_sizes"] = list(built[key].job.blocks) if key in built else []
        entry["wavefront_sync"] = built[key].job.sync if key in built else "kernels"
        staging = built[key].job.staging if key in built else 0
        entry["shared_staging"] = bool(staging)
        entry["shared_memory_kib"] = staging
    if key in built:
        entry["build"] = _build_info(built[key])
    return entry


def _build_key(kernel: str, entry: str, where: str) -> tuple[str, str, str | None]:
    if entry == "sequential":
        return (kernel, builds.REFERENCE, None)
    if entry == "openmp":
        return (kernel, "openmp", "isl")
    return (kernel, "cuda" if where.startswith("gpu") else "openmp", entry)


def _build_info(result: builds.BuildResult) -> dict[str, Any]:
    return {"seconds": result.seconds, "generate_s": result.generate_s,
            "serial_kernels": list(result.serial), "error": result.error or None}


def _free_gpu(platform: Platform) -> None:
    if platform.cupy is not None:
        platform.cupy.get_default_memory_pool().free_all_blocks()
