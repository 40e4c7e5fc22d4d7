"""Program: one compiled region with its oracle; generates, builds, runs and verifies it."""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache

from polycuda import pipeline
from polycuda.codegen import overlap_guard, zero_division
from polycuda.frontend.c import CSourceInfo
from polycuda.errors import InvalidConfigError, PolycudaWarning, UserError, VerificationError
from polycuda.ir.scop import Scop
from polycuda.options import Options
from polycuda.sizes import resolve_sizes
from polycuda.verify import Comparison, Runner, check_against

CPU_TARGETS = ("c", "openmp")


class Program:
    """A region (from C or Python) and the untransformed program that serves as its oracle.

    Example:
        >>> prog = polycuda.compile(open("jacobi.c").read())       # doctest: +SKIP
        >>> prog.verify(sizes={"n": 32, "T": 4})                    # doctest: +SKIP
        >>> prog(T, n, A, B)                     # runs on the GPU (or options.target)
    """

    def __init__(self, scop: Scop, options: Options, reference: Runner,
                 reference_name: str = "reference"):
        self.scop = scop
        self.options = options
        self._reference = reference
        self.reference_name = reference_name
        self._kernels: dict[tuple[str, Options], Callable] = {}
        self._tuned: dict[Options, Options] = {}

    @property
    def name(self) -> str:
        return self.scop.name

    def with_options(self, **changes: object) -> Program:
        """The same region and oracle with Options changed (e.g. tile_sizes), built anew."""
        return Program(self.scop, self.options.replace(**changes), self._reference,
                       self.reference_name)

    def generate(self, target: str | None = None, **changes: object) -> pipeline.Generated:
        """The generated code for `target` (default: the options' target)."""
        return _generate(self.scop, self.effective_options(target, **changes))

    def effective_options(self, target: str | None = None, **changes: object) -> Options:
        """The options code is generated with: these options with `changes`, for `target`,
        and on cuda, when no tile or block size or size plan is given and Options.tuned_sizes
        holds, the sizes of the latest `polycuda tune` of this region on this GPU (if any)."""
        target = self.resolve_target(target)
        opts = self.options.replace(target="cuda" if target == "emulate" else target, **changes)
        if opts.target == "cuda" and opts.tuned_sizes and not (opts.tile_sizes or
                                                               opts.block_sizes or opts.sizes):
            if opts not in self._tuned:  # one look in the tune cache per options
                from polycuda.tune import search

                found = search.lookup(self.scop, opts)
                self._tuned[opts] = self._buildable(found.apply(opts), opts) if found else opts
            opts = self._tuned[opts]
        return opts

    def _buildable(self, tuned: Options, plain: Options) -> Options:
        """`tuned` when this region compiles with it, else `plain` with a PolycudaWarning: a
        cached tune result never turns a working compile into an error (a result stored by
        an older polycuda whose mapping differs, or one the model chose without a GPU)."""
        try:
            _generate(self.scop, tuned)
        except InvalidConfigError as err:
            warnings.warn(f"{self.name}: the sizes of the earlier `polycuda tune` "
                          f"(tile_sizes={tuned.tile_sizes} block_sizes={tuned.block_sizes}) "
                          f"do not build ({err}); using the default sizes. Run `polycuda tune "
                          "--no-cache` again.", PolycudaWarning, stacklevel=4)
            return plain
        return tuned

    def resolve_target(self, target: str | None) -> str:
        """"auto" (the default) is cuda when a GPU is present, else openmp."""
        from polycuda.runtime import device

        target = target or self.options.target
        if target == "auto":
            return "cuda" if device.gpu_info() else "openmp"
        return target

    def kernel(self, target: str | None = None, **changes: object) -> Callable:
        """A callable running the generated entry (built and cached on disk).

        target "emulate" runs the generated CUDA on the CPU (all blocks and threads).
        """
        from polycuda.runtime import build, emulate, launch

        target = self.resolve_target(target)
        opts = self.effective_options(target, **changes)
        key = (target, opts)
        if key not in self._kernels:
            gen = _generate(self.scop, opts)
            if target == "emulate":
                path = emulate.build_emulated(gen.source)
            else:
                path = build.build_shared(gen.source, target)
            self._kernels[key] = launch.load(path, self.scop, target, transformed=gen.scop)
        return self._kernels[key]

    def build_many(self, variants: list[dict[str, object]], target: str = "cuda",
                   workers: int | None = None) -> int:
        """Generate and build the code of each of `variants` (option changes, as kernel()
        takes them) in parallel processes, so that kernel(target, **changes) finds each one
        loaded: what the tuner measures in batches (a round of its local search). A variant
        that fails to build is left for kernel() to raise its error. workers: processes
        (default: the CPUs less one; 1 or fewer builds nothing here). Returns how many were
        built."""
        import os

        from polycuda.runtime import launch

        target = self.resolve_target(target)
        jobs = {}
        for changes in variants:
            try:
                opts = self.effective_options(target, **changes)
            except InvalidConfigError:  # kernel() raises it where the variant is asked for
                continue
            if (target, opts) not in self._kernels:
                jobs[target, opts] = (self.scop, opts, target)
        count = min(len(jobs), workers if workers is not None else (os.cpu_count() or 1) - 1)
        if count <= 1:
            return 0
        done = dict(zip(jobs, _pool_map(_generate_and_build, list(jobs.values()), count)))
        built = 0
        for key, result in done.items():
            if isinstance(result, tuple):
                path, transformed = result
                self._kernels[key] = launch.load(path, self.scop, key[0],
                                                 transformed=transformed)
                built += 1
        return built

    def __call__(self, *args: object, **kwargs: object) -> None:
        """Run the region on the options' target, in place on the given arrays."""
        self.kernel()(*args, **kwargs)

    def verification_targets(self) -> tuple[str, ...]:
        """c and openmp (parallel loops shuffled), and cuda on a GPU or emulated on the CPU."""
        from polycuda.runtime import device

        return CPU_TARGETS + (("cuda",) if device.gpu_info() else ("emulate",))

    def verify(self, sizes: dict[str, int] | None = None, targets: tuple[str, ...] | None = None,
               seed: int = 0, raise_on_mismatch: bool = True) -> list[Comparison]:
        """Compare each target with the untransformed program on random inputs.

        Raises:
            VerificationError: some target's result differs (when raise_on_mismatch).
        """
        values = resolve_sizes(self.scop, sizes)
        runners: dict[str, Runner] = {}
        for target in targets or self.verification_targets():
            shuffle = target in CPU_TARGETS
            kernel = self.kernel(target, shuffle_parallel=shuffle)
            runners.update(_version_runners(self.scop, kernel, target))
        results = _merged_versions(check_against(self.scop, self._reference, runners, values,
                                                 seed))
        bad = [r for r in results if not r.ok]
        if bad and raise_on_mismatch:
            raise VerificationError("; ".join(f"{r.target}: {r.message}" for r in bad))
        return results


HOST_VERSION = " (host version)"  # the runner of a CUDA region's host version (verify)


def _version_runners(scop: Scop, kernel: Callable, target: str) -> dict[str, Runner]:
    """The runner of `target`; for a CUDA region with a host version (codegen/host_choice.py),
    the kernels' runner and the host version's (pc_<name>_force set around each call), so that
    verify checks both whatever the rule picks at the sizes."""
    import ctypes

    from polycuda.codegen.host_choice import RAN_GPU, RAN_HOST

    lib = getattr(kernel, "lib", None)
    try:
        force = ctypes.c_int.in_dll(lib, f"pc_{scop.name}_force") if lib is not None else None
    except ValueError:
        force = None
    if force is None:
        return {target: _named_runner(scop, kernel)}

    def forced(version: int) -> Runner:
        plain = _named_runner(scop, kernel)

        def run(args: dict[str, object]) -> None:
            before, force.value = force.value, version
            try:
                plain(args)
            finally:
                force.value = before

        return run

    return {target: forced(RAN_GPU), target + HOST_VERSION: forced(RAN_HOST)}


def _merged_versions(results: list[Comparison]) -> list[Comparison]:
    """One Comparison per target: a host version's merged into its target's."""
    from polycuda.verify import merge

    by_target = {r.target: r for r in results if not r.target.endswith(HOST_VERSION)}
    for r in results:
        if r.target.endswith(HOST_VERSION):
            merge(by_target[r.target[:-len(HOST_VERSION)]], r, "host version: ")
    return list(by_target.values())


def _named_runner(scop: Scop, kernel: Callable) -> Runner:
    def run(args: dict[str, object]) -> None:
        kernel(*[args[a.name] for a in scop.args])

    return run


@lru_cache(maxsize=256)
def _generate(scop: Scop, options: Options) -> pipeline.Generated:
    """The pipeline's code for `scop`, its entries checking first that no written array
    argument shares memory with another (codegen/overlap_guard.py: the region as written runs
    then; the check needs the untransformed `scop`, which the pipeline does not keep). From
    Python, divisions by a value that may be 0 are guarded (codegen/zero_division.py: Python's
    answer, never SIGFPE; C input keeps C's semantics)."""
    if scop.source is not None and not isinstance(scop.source, CSourceInfo):
        scop = zero_division.guard_divisions(scop)
    gen = pipeline.compile_scop(scop, options)
    source = overlap_guard.guard_source(scop, gen.source, options.target)
    return dataclasses.replace(gen, source=zero_division.guard_source(scop, source,
                                                                      options.target))


def generate_sources(programs: tuple[Program, ...], target: str | None, workers: int,
                     regions: Callable[[list[Program]], Iterable[Program]] = iter) -> list[str]:
    """The generated source of each of `programs` for `target`, in their order; with `workers`
    > 1 and several regions, compiled in that many processes (a file of many regions). Each
    region's code does not depend on the process that compiles it (tests/unit/
    test_determinism_across_runs.py), so the file is the same as compiled one by one. A
    worker's warnings are given again here, in region order; a region that fails in a worker
    is compiled again here, so that its error is raised as in a sequential compile.
    regions: iterates the programs as their results are taken (progress.regions: a progress
    record per region)."""
    jobs = [(p.scop, p.effective_options(target)) for p in programs]
    count = min(len(jobs), workers)
    results = _pool_map(_generate_quietly, jobs, count) if count > 1 else None
    sources = []
    for _, (scop, opts) in zip(regions(list(programs)), jobs):
        # in this process: the source is compiled below, its warnings given as they come
        source, caught = next(results) if results is not None else (None, [])
        for message, category in caught:
            warnings.warn(message, category, stacklevel=2)
        sources.append(source if source is not None else _generate(scop, opts).source)
    return sources


def _pool_map(fn: Callable, jobs: list, workers: int) -> Iterator:
    """fn over `jobs` in `workers` processes, results in order as they come."""
    import concurrent.futures
    import multiprocessing

    # forkserver: the children never inherit the parent's CUDA context or threads
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["polycuda.program"])  # imported once, not per worker
    pool = concurrent.futures.ProcessPoolExecutor(workers, mp_context=context)
    try:
        yield from pool.map(fn, jobs)
    finally:  # a caller that stops early (an error) does not wait for the jobs not started
        pool.shutdown(cancel_futures=True)


def _generate_quietly(job: tuple[Scop, Options]) -> tuple[str | None, list[tuple[str, type]]]:
    """Worker of generate_sources: the source (None when it raised: compiled again by the
    parent) and the warnings given on the way, as (message, category)."""
    scop, options = job
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            source: str | None = _generate(scop, options).source
        except Exception:  # noqa: BLE001 (raised again by the parent's own compile)
            source = None
    return source, [(str(w.message), w.category) for w in caught]


def _generate_and_build(job: tuple[Scop, Options, str]) -> tuple[str, Scop] | str:
    """Worker of Program.build_many: (the built library's path, the transformed Scop), or the
    error's text."""
    from polycuda.errors import PolycudaError
    from polycuda.runtime import build, emulate

    scop, options, target = job
    try:
        gen = _generate(scop, options)
        path = (emulate.build_emulated(gen.source) if target == "emulate"
                else build.build_shared(gen.source, target))
        return str(path), gen.scop
    except PolycudaError as err:
        return f"{type(err).__name__}: {err}"


def require_one(programs: tuple[Program, ...], function: str | None, where: str) -> Program:
    """The program named `function`, or the only one."""
    if function is not None:
        for prog in programs:
            if prog.name == function:
                return prog
        raise UserError(f"{where}: no region named '{function}' "
                        f"(found: {', '.join(p.name for p in programs) or 'none'})")
    if len(programs) != 1:
        raise UserError(f"{where}: {len(programs)} regions found "
                        f"({', '.join(p.name for p in programs)}); choose one by name")
    return programs[0]
