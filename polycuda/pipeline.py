"""The whole lowering as one function of named passes (source Scop -> generated code)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import islpy as isl

from polycuda.analysis import dependences
from polycuda.codegen import c_target, cuda_target
from polycuda.gpu import mapping
from polycuda.ir import isl_build
from polycuda.ir.scop import Scop
from polycuda.options import Options
from polycuda.schedule import isl_scheduler, legality


@dataclass(frozen=True)
class Generated:
    """Generated source for one region, with what produced it."""

    scop: Scop
    options: Options
    source: str
    schedule: str  # the scheduler's isl schedule tree, as text
    kernels: tuple[mapping.KernelMapping, ...]
    seconds: float = field(default=0.0, compare=False)  # frontend excluded, compiler excluded


def schedule_scop(scop: Scop, options: Options, ctx: isl.Context) -> isl.Schedule:
    """Run the chosen scheduler and check the result against every dependence."""
    if options.scheduler == "isl":
        schedule = isl_scheduler.isl_schedule(scop, ctx)
    else:
        from polycuda.schedule import pluto

        schedule = pluto.pluto_schedule(scop, ctx=ctx)
    legality.check(schedule, dependences.untagged_union(scop, ctx), f"{options.scheduler} "
                   "schedule")
    return schedule


def compile_scop(scop: Scop, options: Options) -> Generated:
    """Scop -> source text of `options.target` (pure: same input, same text)."""
    start = time.perf_counter()
    ctx = isl_scheduler.new_context()
    context = isl_build.context_set(scop, ctx)
    # schedule: isl (PPCG-like) or pluto, checked legal against flow/anti/output deps
    schedule = schedule_scop(scop, options, ctx)
    # gpu.map: tile the outermost parallel band, kernel/thread/serial marks
    mapped, kernels = mapping.map_schedule(schedule, options, context)
    legality.check(mapped, dependences.untagged_union(scop, ctx), "tiled schedule")
    # codegen: isl AST, then the target's printer
    ast = isl.AstBuild.from_context(context).node_from_schedule(mapped)
    if options.target == "cuda":
        source = cuda_target.generate(scop, ast, kernels)
    else:
        source = c_target.generate(scop, ast, kernels, openmp=options.target == "openmp",
                                   shuffle=options.shuffle_parallel)
    return Generated(scop, options, source, str(schedule), kernels,
                     time.perf_counter() - start)
