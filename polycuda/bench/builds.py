"""The build phase of the benchmark: code generation and compilation of every library the run
needs, in parallel processes (islpy and the compilers are CPU-bound), before any timing."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_context

from polycuda.bench.configs import Variant, dtype_defines
from polycuda.options import Options

REFERENCE = "reference"
# The sequential baseline: the user's C as written, at -O3 for this CPU (after build's own -O3).
REFERENCE_FLAGS = ("-O3", "-march=native")


@dataclass(frozen=True)
class BuildJob:
    """One library: a kernel's reference build (config None) or the generated code of
    polycuda configuration `config` (a key of configs.CONFIG_OPTIONS) with tile sizes `tiles`
    (() for the defaults), with the kernel's DATA_TYPE `dtype` ("double" or "float"; one per
    run: the key leaves it out)."""

    kernel: str
    target: str  # "reference", "openmp", "cuda", "c"
    config: str | None = None
    dtype: str = "double"
    tiles: tuple[int, ...] = ()
    sync: str = "kernels"  # Options.wavefront_sync
    staging: int = 0  # KiB of shared memory for staged tiles (Options.shared_memory_kib); 0: none
    blocks: tuple[int, ...] = ()  # Options.block_sizes

    @property
    def entry(self) -> str | None:
        """The bench entry this library is built for ("pluto", "pluto@16x64"); None for the
        reference."""
        return self.variant().name if self.config else None

    @property
    def key(self) -> tuple[str, str, str | None]:
        return (self.kernel, self.target, self.entry)

    def options(self) -> Options:
        """The configuration's Options with the tiles (the defaults for the reference)."""
        return self.variant().options() if self.config else Options()

    def variant(self) -> Variant:
        """The bench entry of a polycuda build (config must be set)."""
        assert self.config is not None, "the reference build has no entry"
        return Variant(self.config, self.tiles, self.sync, self.staging, self.blocks)


@dataclass(frozen=True)
class BuildResult:
    """path: the shared library, or None with `error`; serial: kernels run by one GPU thread."""

    job: BuildJob
    path: str | None
    error: str = ""
    seconds: float = 0.0
    generate_s: float = 0.0
    serial: tuple[str, ...] = ()


def build_one(job: BuildJob) -> BuildResult:
    """Generate and build one library; every failure becomes BuildResult.error (one line or a
    few: the cause, not the traceback)."""
    start = time.perf_counter()
    try:
        path, gen_s, serial = _build(job)
    except Exception as exc:  # noqa: BLE001 (a configuration that fails is reported)
        return BuildResult(job, None, _short(exc), time.perf_counter() - start)
    return BuildResult(job, str(path), "", time.perf_counter() - start, gen_s, serial)


def _build(job: BuildJob) -> tuple[str, float, tuple[str, ...]]:
    from polycuda.api import compile as compile_c
    from polycuda.bench.suite_access import suite
    from polycuda.frontend import c as cfront
    from polycuda.runtime import build

    kernel = suite().by_name(job.kernel)
    prog = compile_c(str(kernel.c_path), function=kernel.function, options=job.options(),
                     defines=dtype_defines(job.dtype))
    if job.target == REFERENCE:
        flags = tuple(cfront.reference_flags(prog.scop)) + REFERENCE_FLAGS
        return str(build.build_shared(cfront.reference_source(prog.scop), REFERENCE,
                                      flags=flags)), 0.0, ()
    gen = prog.generate(job.target)
    serial = tuple(k.name for k in gen.kernels if k.serial)
    return str(build.build_shared(gen.source, job.target)), gen.seconds, serial


def _short(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {str(exc).strip()}"
    lines = text.splitlines()
    return "\n".join(lines[:6]) + ("\n..." if len(lines) > 6 else "")


def build_all(jobs: Sequence[BuildJob], workers: int | None = None,
              on_done: Callable[[BuildResult], None] | None = None
              ) -> dict[tuple[str, str, str | None], BuildResult]:
    """Every job's BuildResult, keyed by job.key; `workers` processes (default: all cores,
    1 builds in this process)."""
    workers = workers or os.cpu_count() or 1
    results: dict[tuple[str, str, str | None], BuildResult] = {}
    if workers == 1 or len(jobs) <= 1:
        for job in jobs:
            results[job.key] = build_one(job)
            if on_done:
                on_done(results[job.key])
        return results
    # spawn: islpy state of this process is not inherited by the workers
    with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=get_context("spawn")) as pool:
        futures = [pool.submit(build_one, job) for job in jobs]
        for future in as_completed(futures):
            result = future.result()
            results[result.job.key] = result
            if on_done:
                on_done(result)
    return results
