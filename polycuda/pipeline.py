"""The whole lowering as one function of named passes (source Scop -> generated code)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import islpy as isl

from polycuda.analysis import dependences
from polycuda.codegen import c_target, cuda_target
from polycuda.errors import InvalidConfigError
from polycuda.gpu import mapping, staging
from polycuda.ir import isl_build
from polycuda.ir.scop import Scop
from polycuda.options import Options
from polycuda.schedule import false_deps, isl_scheduler, legality


@dataclass(frozen=True)
class Generated:
    """Generated source for one region, with what produced it."""

    scop: Scop
    options: Options
    source: str
    schedule: str  # the scheduler's isl schedule tree, as text
    kernels: tuple[mapping.KernelMapping, ...]
    seconds: float = field(default=0.0, compare=False)  # frontend excluded, compiler excluded


def transform_scop(scop: Scop, options: Options) -> Scop:
    """The Scop that is scheduled: with array copies when eliminate_false_deps is set."""
    return false_deps.eliminate_false_deps(scop) if options.eliminate_false_deps else scop


def schedule_scop(scop: Scop, options: Options, ctx: isl.Context,
                  dep_map: isl.UnionMap | None = None) -> isl.Schedule:
    """Run the chosen scheduler and check the result against every dependence.

    # dep_map: { S[i] -> T[j] }, all flow/anti/output dependences (computed when not given)
    """
    if dep_map is None:
        dep_map = dependences.untagged_union(scop, ctx)
    if options.scheduler == "isl":
        schedule = isl_scheduler.isl_schedule(scop, ctx, dep_map)
    else:
        from polycuda.schedule import pluto

        schedule = pluto.pluto_schedule(scop, balanced=options.balanced_wavefront, ctx=ctx)
    legality.check(schedule, dep_map, f"{options.scheduler} schedule")
    return schedule


def iterator_prefix(scop: Scop) -> str:
    """"c", unless the region already uses a name like c0, c1 (then "pc_c", "pc_pc_c"...)."""
    names = {a.name for a in scop.args} | {a.name for a in scop.arrays} | {
        it for s in scop.statements for it in s.iterators}
    prefix = "c"
    while any(n.startswith(prefix) and n[len(prefix):].isdigit() for n in names):
        prefix = "pc_" + prefix
    return prefix


MAX_SCHEDULE_DEPTH = 64  # names for deeper loops than any tiled nest of ours reaches


def _iterator_ids(ctx: isl.Context, prefix: str) -> isl.IdList:
    ids = isl.IdList.alloc(ctx, MAX_SCHEDULE_DEPTH)
    for k in range(MAX_SCHEDULE_DEPTH):
        ids = ids.add(isl.Id(f"{prefix}{k}", context=ctx))
    return ids


def _accesses(scop: Scop, ctx: isl.Context) -> staging.Accesses:
    """The scop's reads and writes, { S[x] -> A[a] }, and its arrays' element types."""
    return staging.Accesses(isl_build.accesses_union(scop, ctx, writes=False),
                            isl_build.accesses_union(scop, ctx, writes=True),
                            {a.name: a.dtype for a in scop.arrays})


def compile_scop(scop: Scop, options: Options) -> Generated:
    """Scop -> source text of `options.target` (pure: same input, same text)."""
    if options.target == "auto":
        raise InvalidConfigError("resolve target 'auto' (Program.resolve_target) before codegen")
    start = time.perf_counter()
    # schedule.false_deps: optional array copies (Di et al. 2012, Algorithm 2), Scop -> Scop
    scop = transform_scop(scop, options)
    ctx = isl_scheduler.new_context()
    context = isl_build.context_set(scop, ctx)
    # analysis.dependences: flow (value-based), anti, output
    dep_map = dependences.untagged_union(scop, ctx)
    # schedule: isl (PPCG-like) or pluto, checked legal against every dependence
    schedule = schedule_scop(scop, options, ctx, dep_map)
    # gpu.map: tile the outermost parallel band, kernel/thread/serial marks
    prefix = iterator_prefix(scop)
    # gpu.staging: the data of each wavefront tile in shared memory (CUDA only)
    mapped = mapping.map_schedule(schedule, options, context, prefix, dep_map,
                                  _accesses(scop, ctx))
    lifted_deps = mapped.lifted(dep_map)
    legality.check(mapped.schedule, lifted_deps, "tiled schedule")
    mapped.check_parallel(lifted_deps)
    kernels = mapped.kernels
    # codegen: isl AST (loop iterators named <prefix><depth>), then the target's printer
    build = isl.AstBuild.from_context(context).set_iterators(_iterator_ids(ctx, prefix))
    # staged tiles: the leaves that make a tile's last write of an element, and their guards
    build, handle, final_conditions = cuda_target.final_store_guards(build, kernels)
    ast = build.node_from_schedule(mapped.schedule)
    del handle
    if options.target == "cuda":
        source = cuda_target.generate(scop, ast, kernels, final_conditions)
    else:
        source = c_target.generate(scop, ast, kernels, openmp=options.target == "openmp",
                                   shuffle=options.shuffle_parallel)
    return Generated(scop, options, source, str(schedule), kernels,
                     time.perf_counter() - start)
