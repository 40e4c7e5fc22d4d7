"""The whole lowering as one function of named passes (source Scop -> generated code)."""

from __future__ import annotations

import time
import dataclasses
from dataclasses import dataclass, field

import islpy as isl
import numpy as np

from polycuda.analysis import dependences, indirect, reductions
from polycuda.codegen import (abi, ast_check, c_target, cuda_host, cuda_target, fused_loops,
                              inspector_cuda, private_code, shared_code)
from polycuda.codegen import host_choice as host_choice_code
from polycuda.codegen.host_driver import HostSide
from polycuda import progress
from polycuda.errors import IllegalScheduleError, InvalidConfigError, PolycudaError
from polycuda.gpu import (carry, cost, mapping, notes, parallel, promotion, shared_promotion,
                          staging, tiling)
from polycuda.ir import isl_build
from polycuda.ir.scop import Arg, Scop
from polycuda.options import Options
from polycuda.runtime.arrays import NUMPY_DTYPES
from polycuda.schedule import (budget, closure, expand, fallback, false_deps, isl_scheduler,
                               legality)


@dataclass(frozen=True)
class Generated:
    """Generated source for one region, with what produced it."""

    scop: Scop
    options: Options
    source: str
    schedule: str  # the scheduler's isl schedule tree, as text
    kernels: tuple[mapping.KernelMapping, ...]
    seconds: float = field(default=0.0, compare=False)  # frontend excluded, compiler excluded
    choice: str = ""  # the scheduler used and why (Choice.reason)
    # the named passes that ran, in order, each with its time and what it did (progress.Step)
    steps: tuple[progress.Step, ...] = field(default=(), compare=False)
    # the scheduler whose schedule the code is from (auto's candidate, the requested one);
    # "" for the original order (the last fallback) and the run-time path
    scheduler: str = ""


def drop_empty_statements(scop: Scop) -> Scop:
    """The Scop without statements that never run (a domain empty within the context, e.g.
    `if (j >= 2 * i + 2)` inside `j < i + 2`): exact, and no band downstream is empty."""
    ctx = isl.Context()
    context = isl_build.context_set(scop, ctx)
    kept = tuple(stmt for stmt in scop.statements
                 if not isl_build.domain_set(stmt, ctx).intersect_params(context).is_empty())
    if len(kept) == len(scop.statements) or not kept:
        return scop
    return dataclasses.replace(scop, statements=kept)


def transform_scop(scop: Scop, options: Options, timer: progress.PassTimer | None = None
                   ) -> Scop:
    """The Scop that is scheduled (Scop -> Scop passes): statements that never run dropped;
    local scalars and arrays expanded, reads of values from before their loop nest redirected
    to a copy taken there (expand_scalars); array copies when eliminate_false_deps is set
    (within Options.schedule_operations; else unchanged, with a PolycudaWarning)."""
    timer = timer or progress.PassTimer(scop.name, show=options.progress)
    # statements whose domain is empty never run: dropped, so that no band is empty
    scop = drop_empty_statements(scop)
    # expansion and array copies need exact footprints; indirect accesses (A[idx[i]]) have
    # only may-footprints
    has_indirect = any(s.is_indirect() for s in scop.statements)
    if options.expand_scalars and not has_indirect:
        # schedule.expand: a cell per iteration for local scalars and arrays (temp2 ->
        # temp2_x[i][j], doitgen's acc[p] -> acc_x[r][q][p])
        with timer.step("scalar expansion") as step:
            scop, step.note = _noting_new_arrays(scop, expand.expand_scalars(scop))
        # schedule.false_deps: reads of values from before their nest read a copy (trmm)
        with timer.step("copies of original values") as step:
            scop, step.note = _noting_new_arrays(scop, false_deps.copy_original_reads(scop))
    steps = closure.find(scop) if closure.applies(scop, options) else []
    if steps:
        # schedule.closure: the steps of a min-plus closure (Floyd-Warshall) in parallel,
        # reading copies of row and column k, where the entries check that the inputs are
        # non-negative (else the host version runs)
        with timer.step("closure steps") as step:
            scop = closure.rewrite(scop, steps)
            step.note = (f"steps in parallel where {', '.join(scop.nonnegative_inputs)} >= 0 "
                         "at entry")
    if not options.eliminate_false_deps or has_indirect:
        return scop
    # schedule.false_deps: array copies (Di et al. 2012, Algorithm 2)
    with timer.step("false dependences") as step:
        ctx = isl.Context()
        try:
            return _noting_new_arrays(scop, budget.run_bounded(
                lambda: false_deps.eliminate_false_deps(scop, ctx), ctx,
                budget.Limit(options.schedule_operations, "schedule_operations"),
                "false-dependence elimination", options.solver_timeout_s,
                give_up_on=(PolycudaError,)))[0]
        except budget.SolverGaveUp as gave_up:
            fallback.give_up(scop, gave_up.what, gave_up.reason)
            step.note = f"given up: {gave_up.reason}"
            return scop


def _noting_new_arrays(before: Scop, after: Scop) -> tuple[Scop, str]:
    """`after`, and the arrays that it has and `before` has not, for the step's note."""
    known = {a.name for a in before.arrays}
    added = [a.name for a in after.arrays if a.name not in known]
    return after, (f"new arrays {', '.join(added)}" if added else "unchanged")


def schedule_scop(scop: Scop, options: Options, ctx: isl.Context,
                  dep_map: isl.UnionMap | None = None) -> isl.Schedule:
    """The first legal schedule of the fallback chain: the chosen scheduler's, unless it ran out
    of its work limit or failed (then a simpler one, with a PolycudaWarning; schedule/fallback.py).
    With scheduler "auto": the schedule that choose_schedule() picks.

    # dep_map: { S[i] -> T[j] }, all flow/anti/output dependences (computed when not given)
    """
    if dep_map is None:
        dep_map = dependence_map(scop, ctx)
    if options.scheduler == "auto":
        return choose_schedule(scop, options, ctx, dep_map).schedule
    return next(fallback.schedules(scop, options, ctx, dep_map))[1]


# Options.scheduler "auto": the schedulers compared per target (gpu/cost.py), the first one
# winning ties. On the CPU targets isl's alone: the OpenMP printer runs the outermost parallel
# loop of each nest, and no measurement shows Pluto's fused nests faster there. isl's with
# distributed SCCs last: it wins only where fusion costs parallelism (trmm: the copy of B fused
# into the product's nest left one parallel loop; distributed, the product has two).
# Superposition (Shirako et al. 2017) last: it wins only where its fewer parametric loops
# outside blocks and threads show, jacobi_2d_alt (Figure 1: isl's and Pluto's schedules put
# the independent rows on threads and run t and j inside each of 1300 threads; superposition
# runs t on the host, i and j on blocks and threads: 7.66 ms against 374.5 on the H100 at 500
# steps of 1300^2), and adi (fewer repeated launches; 1016 against 1022 ms), in the suite
# (bench/results/2026-11-26-nvidia-h100-80gb-hbm3-sup-auto.json); everywhere else it ties.
AUTO_SCHEDULERS = {"cuda": ("isl", "pluto", "isl-distributed", "superposition")}
# A later candidate mapped only when the least cost so far has no parametric loop in a
# one-thread kernel and at least this many on the longest path outside blocks and threads:
# superposition won only there in the suite (jacobi_2d_alt, adi: 2) and tied elsewhere, where
# its scheduling cost up to 0.4 s of a 2-core machine's compile (three_mm 1.64 -> 2.07 s).
AUTO_MIN_DEPTH = {"superposition": 2}


@dataclass(frozen=True)
class Choice:
    """The schedule compile_scop uses, its mapping, the scheduler that made it, and why."""

    scheduler: str
    schedule: isl.Schedule
    mapped: mapping.MappedSchedule
    reason: str
    # auto: the candidate of least launches among those whose cost differs from the chosen
    # one's in launches alone, (scheduler, schedule, mapping); None if there is none
    runner_up: tuple[str, isl.Schedule, mapping.MappedSchedule] | None = None
    # auto: every other candidate mapped legally, in auto's order (AUTO_SCHEDULERS), each
    # (scheduler, schedule, mapping): the next ones to try when the chosen one's AST build
    # gives up (_bounded_source)
    others: tuple[tuple[str, isl.Schedule, mapping.MappedSchedule], ...] = ()
    # auto: each candidate in auto's order, (scheduler, its Cost or None where skipped, why
    # skipped or ""): `show schedule`'s table
    candidates: tuple[tuple[str, cost.Cost | None, str], ...] = ()
    # the first candidate's (or the requested scheduler's) fallback chain: the steps given up
    fallbacks: tuple[str, ...] = ()


def choose_schedule(scop: Scop, options: Options, ctx: isl.Context, dep_map: isl.UnionMap,
                    timer: progress.PassTimer | None = None) -> Choice:
    """The requested scheduler's legal mapped schedule (fallback chain); with "auto", each of
    AUTO_SCHEDULERS[target]'s, and the one of least gpu.cost.Cost (ties: the first).

    # dep_map: { S[i] -> T[j] }, all dependences within the context
    """
    timer = timer or progress.PassTimer(scop.name, show=options.progress)
    if options.scheduler != "auto":
        notes: list[str] = []
        schedule, mapped = _schedule_and_map(scop, options, ctx, dep_map, timer, notes)
        used = f"; {'; '.join(notes)}" if notes else ""
        return Choice(options.scheduler, schedule, mapped,
                      f"{options.scheduler} (requested){used}", fallbacks=tuple(notes))
    names = AUTO_SCHEDULERS.get(options.target, ("isl",))
    found, skipped, given_up = [], [], []
    table: list[tuple[str, cost.Cost | None, str]] = []
    for order, name in enumerate(names):
        if order == 0:  # the first candidate: its whole fallback chain, as when requested
            with timer.trying(name):
                schedule, mapped = _schedule_and_map(scop, options.replace(scheduler=name),
                                                     ctx, dep_map, timer, given_up)
        else:  # a later one: its own scheduler only, within auto_candidate_operations, or
            # skipped (Pluto on adi needs more: the default compile stays near the first
            # scheduler's cost)
            least = min(f[0] for f in found)
            if least.serial == 0 and least.depth < AUTO_MIN_DEPTH.get(name, 0):
                why = (f"the least cost so far, {least}, has fewer than {AUTO_MIN_DEPTH[name]} "
                       "parametric loops on the longest path")
                skipped.append(f"{name} skipped ({why})")
                table.append((name, None, f"skipped: {why}"))
                continue
            with timer.trying(name):
                later = _later_candidate(scop, options.replace(scheduler=name), ctx, dep_map,
                                         timer)
            if isinstance(later, str):
                skipped.append(f"{name} skipped ({later})")
                table.append((name, None, f"skipped: {later}"))
                continue
            schedule, mapped = later
        found.append((cost.cost(mapped), order, name, schedule, mapped))
        table.append((name, found[-1][0], ""))
    best = min(found, key=lambda f: (f[0], f[1]))
    # the first candidate's fallbacks, as a requested scheduler's (show schedule reports them)
    used = f"; {'; '.join(given_up)}" if given_up else ""
    if len(names) == 1:
        return Choice(best[2], best[3], best[4], f"auto: {best[2]} (the only candidate on "
                      f"target {options.target}){used}", fallbacks=tuple(given_up))
    compared = ", ".join([f"{f[2]} {f[0]}" for f in found] + skipped)
    others = [f for f in found if f[0] != best[0] and
              dataclasses.replace(f[0], launches=0) == dataclasses.replace(best[0], launches=0)]
    second = min(others, key=lambda f: (f[0], f[1]), default=None)
    return Choice(best[2], best[3], best[4],
                  f"auto: {best[2]}, the least cost of {compared} ("
                  + " / ".join(term[2] for term in cost.COST_TERMS)
                  + f"; ties: {names[0]}){used}", second and (second[2], second[3], second[4]),
                  tuple((f[2], f[3], f[4]) for f in found if f is not best), tuple(table),
                  tuple(given_up))


# The note that ends a requested scheduler's choice when its fallback chain gave up a step
# (Choice.reason: "<scheduler> (requested); <step> given up (...); used: <step>").
USED_NOTE = "used: "


def fell_back(generated: Generated) -> bool:
    """Whether the requested scheduler of `generated` was given up for a later step of its
    fallback chain (the code is that step's, not the scheduler's)."""
    return f"; {USED_NOTE}" in generated.choice


def runs_two_schedules(generated: Generated) -> bool:
    """Whether `generated` holds two schedules chosen per call (runtime_choice)."""
    return f"; {cost.RUNTIME_NOTE}" in generated.choice


def _later_candidate(scop: Scop, options: Options, ctx: isl.Context, dep_map: isl.UnionMap,
                     timer: progress.PassTimer
                     ) -> tuple[isl.Schedule, mapping.MappedSchedule] | str:
    """The requested scheduler's schedule and legal mapping within
    Options.auto_candidate_operations, with no fallback (the first candidate already is one); else why not (no warning:
    the default compile just keeps the other candidate). Sizes given for the first candidate's
    kernels may not fit this one's (a wavefront band's tied tile rows take the smallest size,
    and a given block may then exceed it): that candidate is skipped, not the compile failed
    (found by `tune` on doitgen: tiles 96x96x6 on 1x96x6 threads fit isl's kernels, not
    pluto's wavefront)."""
    attempt = fallback.attempts(options)[0]
    attempt = dataclasses.replace(attempt, limit=budget.Limit(
        options.auto_candidate_operations, "auto_candidate_operations"))
    try:
        with timer.step("schedule") as step:
            schedule = fallback.bounded_schedule(attempt, scop, ctx, dep_map,
                                                 options.solver_timeout_s)
            step.note = attempt.name
        return schedule, _map_checked(scop, schedule, options, ctx, dep_map, timer)
    except budget.SolverGaveUp as gave_up:
        return gave_up.reason
    except IllegalScheduleError as err:
        return f"mapping refused by the legality check: {str(err)[:120]}"
    except InvalidConfigError as err:
        return f"the given sizes do not fit its kernels: {str(err)[:120]}"


def dependence_map(scop: Scop, ctx: isl.Context) -> isl.UnionMap:
    # { S[i] -> T[j] } within the context: instances outside it never run (e.g. the negative
    # array extents of a Python region), so no schedule needs to order them
    return dependences.untagged_union(scop, ctx).intersect_params(isl_build.context_set(scop, ctx))


def iterator_prefix(scop: Scop) -> str:
    """"c", unless the region already uses a name like c0, c1 (then "pc_pc_c", ...: never
    "pc_c", the names of gpu/carry.py's registers pc_c0, pc_c1, ...)."""
    names = {a.name for a in scop.args} | {a.name for a in scop.arrays} | {
        it for s in scop.statements for it in s.iterators}
    prefix = "c"
    while prefix == "pc_c" or any(n.startswith(prefix) and n[len(prefix):].isdigit()
                                  for n in names):
        prefix = "pc_" + prefix
    return prefix


MAX_SCHEDULE_DEPTH = 64  # names for deeper loops than any tiled nest of ours reaches


def _accesses(scop: Scop, ctx: isl.Context) -> staging.Accesses:
    """The scop's reads and writes, { S[x] -> A[a] }, and its arrays' element types."""
    return staging.Accesses(isl_build.accesses_union(scop, ctx, writes=False),
                            isl_build.accesses_union(scop, ctx, writes=True),
                            {a.name: a.dtype for a in scop.arrays})


def compile_scop(scop: Scop, options: Options) -> Generated:
    """Scop -> source text of `options.target` (pure: same input, same text, as long as no
    work limit runs out, on any machine; schedule/fallback.py says what happens when one
    does)."""
    if options.target == "auto":
        raise InvalidConfigError("resolve target 'auto' (Program.resolve_target) before codegen")
    abi.check_region_names([scop])  # its entries' names are free
    start = time.perf_counter()
    timer = progress.PassTimer(scop.name, show=options.progress)
    # Scop -> Scop: drop statements that never run, expand local scalars, optional array
    # copies against false dependences (transform_scop)
    original = scop  # the program as written: the host version of the region (host_choice)
    scop = transform_scop(scop, options, timer)
    # analysis.indirect: nests with dependences known only at run time (A[idx[i]] written)
    # get the GPU inspector/executor, nests with other indirect subscripts or CSR loops a
    # check kernel before them (codegen/csr.py); the other statements the static path below
    if runs_inspector(scop, options):
        return _runtime_generated(scop, options, start)
    return _static_generated(scop, options, start, timer, original=original)


def runs_inspector(scop: Scop, options: Options) -> bool:
    """Whether compile_scop takes the run-time path for the (transformed) Scop: CUDA with nests
    whose dependences are known only at run time, or with index checks (codegen/csr.py)."""
    return options.target == "cuda" and bool(
        indirect.runtime_nests(scop, options.allow_reassociation) or indirect.checked_nests(scop))


def _static_generated(scop: Scop, options: Options, start: float,
                      timer: progress.PassTimer, variants: bool = True,
                      original: Scop | None = None) -> Generated:
    """The static path of compile_scop on the transformed Scop: dependences, schedule,
    mapping, AST, printer; with `variants`, the runner-up's code too where the entries choose
    at run time (runtime_choice); with `original` (the Scop as written), that program on the
    host beside the kernels, chosen per call (host_choice)."""
    ctx = isl_scheduler.new_context()
    # analysis.dependences: flow (value-based), anti, output
    with timer.step("dependences") as step:
        dep_map = dependence_map(scop, ctx)
        step.note = f"{dep_map.n_map()} relations"
    # schedule (isl | pluto, bounded, else the fallback chain), then the mapping steps
    # (_map_checked: mapping, tiling, wavefront skewing, shared staging, legality check): the
    # first schedule of the chain that maps legally (scheduler "auto": each candidate's, the
    # one of least structural cost, gpu/cost.py)
    choice = choose_schedule(scop, options, ctx, dep_map, timer)
    timer.record("scheduler choice", 0.0, choice.reason)
    promoted = _promotions(scop, options, ctx, choice.mapped, timer)
    # codegen: isl AST (bounded, else the original order's), then the target's printer
    source, mapped, schedule, ast_note, used = _bounded_source(scop, options, ctx, dep_map,
                                                               choice, promoted, timer)
    reason = f"{choice.reason}; {ast_note}" if ast_note else choice.reason
    variant_mapped = None  # the runner-up's mapping where its code is in the file too
    # the runner-up's code beside it, chosen per call by the launch bounds (runtime_choice)
    if (variants and mapped is promoted
            and (both := runtime_choice(scop, options, ctx, choice)) is not None):
        with timer.step("run-time choice") as step:
            other = _runner_up_source(scop, options, ctx, choice)
            if other is None:
                step.note = (f"{both.schedulers[1]}'s code not built (its AST build ran out of "
                             f"Options.ast_operations): {choice.scheduler}'s alone")
            else:
                source = cuda_host.join_variants(scop, (source, other), both,
                                                 HostSide.of(options))
                reason = f"{reason}; {both.note()}"
                step.note = both.note()
                variant_mapped = choice.runner_up[2]
    # the program as written on the host beside the kernels, chosen per call (host_choice)
    host = None
    if original is not None:
        with timer.step("host version") as step:
            host = host_choice(scop, options, ctx, mapped, variant_mapped)
            if host is not None:
                source = host_choice_code.add_host_version(original, source, host)
            step.note = host.note() if host else (
                "none (Options.host_fallback never, or a serial region that runs on the CPU)")
    if scop.nonnegative_inputs and host is None:  # closure.applies() promised it
        raise PolycudaError(f"region '{scop.name}': its closure steps need the host version "
                            "beside the kernels, which this compile leaves out")
    return Generated(scop, options, source, str(schedule), mapped.kernels,
                     time.perf_counter() - start, reason, tuple(timer.steps), used)


def _promotions(scop: Scop, options: Options, ctx: isl.Context, mapped: mapping.MappedSchedule,
                timer: progress.PassTimer) -> mapping.MappedSchedule:
    """The promotion steps of a legal mapping, each timed and noted on `timer`."""
    # gpu.carry, gpu.promotion (CUDA): elements that one thread reuses held in registers
    with timer.step("register promotion") as step:
        mapped = _promoted(scop, options, ctx, mapped)
        step.note = notes.private_note(mapped, options)
    # gpu.shared_promotion (CUDA, Options.shared_promotion): a block's reused tiles in shared
    # memory (the arrays held in registers excluded)
    with timer.step("shared promotion") as step:
        if options.target == "cuda" and options.shared_promotion:
            mapped = shared_promotion.promote_shared(mapped, scop, _accesses(scop, ctx), options)
        step.note = notes.shared_note(mapped, options)
    return mapped


# Options.runtime_choice: the parameter values at which the rule of gpu.cost.LAUNCH_NS is
# evaluated at compile time: every parameter at gpu.cost.LAUNCH_PARAMETER (where the choice
# was made), and each parameter alone at LARGE with the others at SMALL (1-D Jacobi at T = 64,
# n = 2^22: Pluto's 65,543 wavefront launches x 7 us = 459 ms against isl's 128 launches x
# 2 us and 5.4e8 instances x 0.007 ns = 3.8 ms). The runner-up is compiled too where the
# rule picks it at one of them; each call then decides at its own parameters.
RUNTIME_CHOICE_LARGE = 1 << 22
RUNTIME_CHOICE_SMALL = 64


def runtime_choice(scop: Scop, options: Options, ctx: isl.Context, choice: Choice
                   ) -> cost.RuntimeChoice | None:
    """The run-time choice between the chosen schedule and its runner-up
    (Options.runtime_choice), or None: not CUDA with scheduler auto and no size given (nor
    a size plan: its kernels are one schedule's), no runner-up, or the rule picks it at no
    sample (RUNTIME_CHOICE_LARGE)."""
    given = (options.tile_sizes or options.block_sizes or options.register_tiles
             or options.sequential_tile or options.sizes)
    if (options.target != "cuda" or options.scheduler != "auto" or not options.runtime_choice
            or given or choice.runner_up is None):
        return None
    params = [a.name for a in scop.args if a.kind == "param"]
    context = isl_build.context_set(scop, ctx)
    launches = (cost.launch_times(choice.mapped, context),
                cost.launch_times(choice.runner_up[2], context))
    instances = cost.instance_bounds(scop, ctx)
    samples = [dict.fromkeys(params, cost.LAUNCH_PARAMETER)] + [
        {q: RUNTIME_CHOICE_LARGE if q == p else RUNTIME_CHOICE_SMALL for q in params}
        for p in params]
    bounds = (*launches, instances)
    for values in samples:
        counts = [cost.bound_at(b, values) for b in bounds]
        if None not in counts and cost.picks_runner_up((counts[0], counts[1]), counts[2]):
            texts = [cost.bound_c(b, context.params()) for b in bounds]
            return cost.RuntimeChoice((choice.scheduler, choice.runner_up[0]),
                                      (texts[0], texts[1]), texts[2], values, bounds)
    return None


def host_choice(scop: Scop, options: Options, ctx: isl.Context, mapped: mapping.MappedSchedule,
                runner_up: mapping.MappedSchedule | None = None) -> cost.HostChoice | None:
    """The run-time choice between the kernels of `mapped` (and of the runner-up's mapping,
    where the file holds both: runtime_choice) and the region's original program on the host
    (Options.host_fallback; the rule of gpu.cost.HOST_INSTANCE_NS), or None: not CUDA,
    host_fallback "never", or a serial region whose entries already run it on the CPU
    (Options.serial_region "cpu")."""
    if options.target != "cuda" or options.host_fallback == "never":
        return None
    if options.serial_region == "cpu" and cuda_host.serial_region(mapped.kernels):
        return None
    context = isl_build.context_set(scop, ctx)
    launches = tuple(cost.launch_times(m, context) for m in (mapped, runner_up) if m is not None)
    instances = cost.instance_estimates(scop, ctx)
    accessed, written = cuda_host.accessed_args(scop)
    names = {a.name for a in accessed}
    transfers = tuple(
        cost.Transfer(a.name, scop.array(a.name).shape, np.dtype(NUMPY_DTYPES[a.dtype]).itemsize,
                      1 + (a.name in written), (a.name in names) + (a.name in written))
        for a in scop.args if a.kind == "array")
    params = tuple(a.name for a in scop.args if a.kind == "param")
    texts = tuple(cost.bound_c(b, context.params()) for b in launches)
    side = HostSide.of(options)
    pin_min = side.pin_min_bytes if side.copies == "register" else 0
    return cost.HostChoice(options.host_fallback, texts,
                           cost.bound_c(instances, context.params()), transfers, params,
                           (launches, instances), scop.nonnegative_inputs, pin_min)


def region_host_choice(scop: Scop, options: Options) -> cost.HostChoice | None:
    """The host choice that compile_scop puts beside the kernels of `scop` (as written) under
    `options` on CUDA, found the way show schedule finds it; None where it puts none (see
    host_choice; a region of the run-time nest path has none either)."""
    options = options.replace(target="cuda")
    if runs_inspector(scop, options):
        return None
    ctx = isl_scheduler.new_context()
    scop = transform_scop(scop, options)
    choice = choose_schedule(scop, options, ctx, dependence_map(scop, ctx))
    both = runtime_choice(scop, options, ctx, choice)
    runner_up = choice.runner_up[2] if both and choice.runner_up else None
    return host_choice(scop, options, ctx, choice.mapped, runner_up)


def _runner_up_source(scop: Scop, options: Options, ctx: isl.Context, choice: Choice
                      ) -> str | None:
    """The code of the runner-up's mapping (its promotions, AST and printer, as the chosen
    one's), or None when its AST build runs out of Options.ast_operations (no fallback: the
    chosen schedule's code is there)."""
    assert choice.runner_up is not None
    timer = progress.PassTimer(f"{scop.name} ({choice.runner_up[0]})",
                               show=options.progress)
    mapped = _promotions(scop, options, ctx, choice.runner_up[2], timer)

    try:
        source, _, _, checked = budget.run_bounded(
            lambda: _source(scop, options, ctx, mapped), ctx, _ast_limit(options),
            "the AST build", options.solver_timeout_s, give_up_on=(ast_check.AstNotExact,))
    except budget.SolverGaveUp:
        return None
    if checked:
        fallback.ast_rebuilt(scop, f"{choice.runner_up[0]}'s (the run-time choice's runner-up) "
                             f"{checked}")
    return source


def _promoted(scop: Scop, options: Options, ctx: isl.Context, mapped: mapping.MappedSchedule
              ) -> mapping.MappedSchedule:
    """The mapping with private (register) promotion, for the CUDA target when the options
    ask for it; else unchanged."""
    if options.target != "cuda" or not options.private_promotion:
        return mapped
    if options.shared_promotion:  # registers across a shared scope's sequential tiles first
        mapped = carry.promote_carried(mapped, scop, _accesses(scop, ctx))
    return promotion.promote_private(mapped, scop, _accesses(scop, ctx))


def _map_checked(scop: Scop, schedule: isl.Schedule, options: Options, ctx: isl.Context,
                 dep_map: isl.UnionMap, timer: progress.PassTimer | None = None
                 ) -> mapping.MappedSchedule:
    """The mapping steps of `schedule` (gpu/tiling.map_schedule's, each timed and noted), its
    tiled schedule and parallel loops checked against every dependence
    (IllegalScheduleError when they are not legal)."""
    timer = timer or progress.PassTimer(scop.name, show=options.progress)
    context = isl_build.context_set(scop, ctx)
    accesses = _accesses(scop, ctx)
    # gpu.mapping: each subtree a kernel (blocks/threads, wavefront, reduction, one thread)
    with timer.step("mapping") as step:
        mapped = mapping.assign_kernels(schedule, options, context, iterator_prefix(scop),
                                        dep_map, accesses, reductions.reduction_ops(scop))
        step.note = notes.mapping_note(mapped)
    # gpu.tiling: DOALL bands tiled, tile loops on blocks and point loops on threads
    with timer.step("tiling") as step:
        mapped = tiling.tile_kernels(mapped, context)
        step.note = notes.tiling_note(mapped)
    # gpu.tiling: wavefront bands tiled and skewed (Di et al. 2012, Section III)
    with timer.step("wavefront skewing") as step:
        mapped = tiling.skew_wavefronts(mapped, context)
        step.note = notes.skewing_note(mapped)
    # gpu.staging: a wavefront tile's arrays in shared memory (Options.shared_staging)
    with timer.step("shared staging") as step:
        mapped = tiling.stage_wavefronts(mapped, accesses, options)
        step.note = notes.staging_note(mapped, options)
    # schedule.legality: the tiled schedule and every block/thread loop against every dependence
    with timer.step("legality check") as step:
        lifted_deps = mapped.lifted(dep_map)
        try:
            legality.check(mapped.schedule, lifted_deps, "tiled schedule")
            parallel.check_parallel(mapped, lifted_deps)
        except IllegalScheduleError as err:
            step.note = f"refused: {str(err)[:120]}"
            raise
        step.note = "legal"
    return mapped


def _schedule_and_map(scop: Scop, options: Options, ctx: isl.Context, dep_map: isl.UnionMap,
                      timer: progress.PassTimer, notes: list[str] | None = None
                      ) -> tuple[isl.Schedule, mapping.MappedSchedule]:
    """The first schedule of the fallback chain whose mapping is legal, and that mapping; a
    refused mapping is reported (PolycudaWarning) and the next schedule tried. The chain ends
    with the original order, whose sequential mapping is always legal. `notes`, when given,
    gets each step given up or refused and, after any, the step used."""
    chain = fallback.schedules(scop, options, ctx, dep_map, notes)
    while True:
        with timer.step("schedule") as step:
            name, schedule = next(chain)
            step.note = name
        try:
            mapped = _map_checked(scop, schedule, options, ctx, dep_map, timer)
            if notes:
                notes.append(f"{USED_NOTE}{name}")
            return schedule, mapped
        except IllegalScheduleError as err:
            if name == fallback.ORIGINAL_ORDER:
                raise  # an internal error: the original order is legal by construction
            fallback.refused(scop, name, err)
            if notes is not None:
                notes.append(f"the {name}'s mapping refused ({str(err)[:200]})")


def _source(scop: Scop, options: Options, ctx: isl.Context, mapped: mapping.MappedSchedule
            ) -> tuple[str, float, float, str]:
    """The isl AST of the mapped schedule (loop iterators named <prefix><depth>), checked to
    run each instance of the domain once (codegen/ast_check.py: isl's default AST, else with
    atomic, else separate loops), printed by the target's printer; the seconds of the AST
    build (with its check) and of the printer, and a note naming the AST builds that failed
    the check ("" when the first passed).

    Raises:
        ast_check.AstNotExact: no AST build of ast_check.LOOP_TYPES passed the check.
    """
    begin = time.perf_counter()
    context = isl_build.context_set(scop, ctx)

    def build_ast(schedule: isl.Schedule, leaves: ast_check.LeafDomains) -> tuple:
        build = isl.AstBuild.from_context(context)
        build = build.set_iterators(isl_build.id_list(ctx, iterator_prefix(scop), MAX_SCHEDULE_DEPTH))
        # staged tiles: the leaves that make a tile's last write of an element, and their
        # guards; DOALL kernels: the block/thread coordinates that a leaf's AST leaves implicit
        build, handle, final_conditions, coordinates = cuda_target.final_store_guards(
            build, mapped.kernels, schedule, iterator_prefix(scop), leaves)
        # private scopes: each AST copy's registers, loads and stores in its iterators
        # shared scopes: each AST copy's box offsets and copy conditions in its iterators
        shared_hook, shared = shared_code.shared_marks(scop, mapped.kernels)
        build, private_handle, private = private_code.private_registers(
            build, scop, mapped.kernels, shared_hook, shared)
        ast = build.node_from_schedule(schedule)
        del handle, private_handle
        return ast, final_conditions, coordinates, private

    (ast, final_conditions, coordinates, private), note = ast_check.exact(
        mapped.schedule, context, build_ast)
    built = time.perf_counter()
    if options.target == "cuda":
        source = cuda_host.generate(scop, ast, mapped.kernels, final_conditions, private,
                                      coordinates, HostSide.of(options), options.host_loops)
    else:
        source = c_target.generate(scop, ast, mapped.kernels,
                                   openmp=options.target == "openmp",
                                   shuffle=options.shuffle_parallel)
    return source, built - begin, time.perf_counter() - built, note


def _bounded_source(scop: Scop, options: Options, ctx: isl.Context, dep_map: isl.UnionMap,
                    choice: Choice, promoted: mapping.MappedSchedule, timer: progress.PassTimer
                    ) -> tuple[str, mapping.MappedSchedule, isl.Schedule, str, str]:
    """_source() of the chosen mapping (`promoted`) within Options.ast_operations; else, with
    a PolycudaWarning each, of auto's next candidates in auto's order (Choice.others, promoted
    as the chosen one), each within the same limit; else the original order's code
    (unbounded: the last resort; its AST is the simplest one). Returns the source, the
    mapping and schedule it was generated from, a note of the steps given up ("" when
    none) and the scheduler of that schedule ("" for the original order); records the steps "AST build" and "<target> printing" on `timer`."""
    limit = _ast_limit(options)
    printing = f"{options.target.replace('cuda', 'CUDA').replace('openmp', 'OpenMP')} printing"

    def recorded(built: tuple[str, float, float, str], ast_note: str) -> tuple[str, str]:
        source, ast_s, print_s, checked = built
        if checked:
            fallback.ast_rebuilt(scop, checked)
        timer.record("AST build", ast_s, f"{ast_note}; {checked}" if checked else ast_note)
        timer.record(printing, print_s,
                     f"{source.count(chr(10)) + 1} lines{fused_loops.note(source)}")
        return source, checked

    candidates = [(choice.scheduler, choice.schedule, promoted), *choice.others]
    given_up: list[str] = []
    for k, (name, schedule, mapped) in enumerate(candidates):
        if k:
            mapped = _promotions(scop, options, ctx, mapped, timer)
        begin = time.perf_counter()
        try:
            built = budget.run_bounded(lambda: _source(scop, options, ctx, mapped), ctx, limit,
                                       "the AST build", options.solver_timeout_s,
                                       give_up_on=(ast_check.AstNotExact,))
        except budget.SolverGaveUp as gave_up:
            nxt = f"auto's {candidates[k + 1][0]}" if k + 1 < len(candidates) else \
                "the original order"
            what = f"the AST build of {name}'s schedule" if choice.others else "the AST build"
            fallback.give_up(scop, what, gave_up.reason)
            timer.record("AST build", time.perf_counter() - begin,
                         f"given up ({gave_up.reason}): {nxt}")
            given_up.append(f"{what} given up ({gave_up.reason})")
            continue
        note = f"within {limit.operations} isl operations"
        source, checked = recorded(built, f"{note} ({name}'s)" if k else note)
        used = [*given_up, f"{USED_NOTE}{name}'s AST"] if given_up else []
        return (source, mapped, schedule, "; ".join(used + ([checked] if checked else [])),
                name)
    original = isl_scheduler.original_schedule_tree(scop, ctx)
    mapped = _promoted(scop, options, ctx,
                       _map_checked(scop, original, options, ctx, dep_map, timer))
    try:
        built = _source(scop, options, ctx, mapped)
    except ast_check.AstNotExact as err:
        raise PolycudaError(f"region '{scop.name}': isl's AST of the original order loses or "
                            f"repeats instances {err}: no code is generated rather than code "
                            "that skips iterations") from None
    source, checked = recorded(built, "the original order's, unbounded")
    return (source, mapped, original,
            "; ".join([*given_up, f"{USED_NOTE}{fallback.ORIGINAL_ORDER}"]
                      + ([checked] if checked else [])), "")


def _ast_limit(options: Options) -> budget.Limit:
    return budget.Limit(options.ast_operations, "ast_operations")


def _runtime_generated(scop: Scop, options: Options, start: float) -> Generated:
    """CUDA for a region with run-time nests: each nest inspected and executed level by level
    (codegen/inspector_cuda.py); each run of the other top-level statements between them
    compiled by compile_scop as a region of its own (its locals passed in as arrays)."""
    nests = {n.position: n for n in indirect.runtime_nests(scop, options.allow_reassociation)}
    checks = {n.position: n for n in indirect.checked_nests(scop) if n.position not in nests}
    parts: list[tuple[str, object]] = []
    static: list = []
    kernels: list = []
    steps_of_parts: list[progress.Step] = []  # the static parts' steps, named "<part>: <step>"

    def flush() -> None:
        if not static:
            return
        sub = static_region(scop, tuple(static), len(parts))
        # the sub-region's host entry is dropped (inspector_cuda.static_part): its default
        # host side keeps the host-side helpers out of its text; its own index checks are
        # the "check" part before it, so it takes the static path directly
        host = options.plain_host_side()
        timer = progress.PassTimer(sub.name, show=options.progress)
        generated = _static_generated(transform_scop(sub, host, timer), host,
                                      time.perf_counter(), timer, variants=False)
        kernels.extend(generated.kernels)
        steps_of_parts.extend(dataclasses.replace(step, name=f"{sub.name}: {step.name}")
                              for step in generated.steps)
        parts.append(("static", (sub, generated.source)))
        static.clear()

    for pos, stmts in indirect.top_level_groups(scop):
        if pos in nests:
            flush()
            parts.append(("nest", nests[pos]))
        else:
            if pos in checks:  # its index checks before it runs, its code on the static path
                flush()
                parts.append(("check", checks[pos]))
            static.extend(stmts)
    flush()
    printing = time.perf_counter()
    source = inspector_cuda.generate(scop, parts, isl_scheduler.new_context(),
                                     HostSide.of(options), options)
    reason = "run-time nests: " + "; ".join(n.reason for n in nests.values())
    steps = tuple(steps_of_parts) + (progress.Step(
        "inspector/executor", time.perf_counter() - printing, reason),)
    return Generated(scop, options, source, "", tuple(kernels),
                     time.perf_counter() - start, reason, steps)


def static_region(scop: Scop, statements: tuple, k: int) -> Scop:
    """The region of `statements` alone, named <name>_s<k>, its locals made array arguments
    (the enclosing entry allocates them once for every part)."""
    locals_ = tuple(a for a in scop.arrays if a.local)
    args = scop.args + tuple(Arg(a.name, "array", a.dtype) for a in locals_)
    arrays = tuple(dataclasses.replace(a, local=False) for a in scop.arrays)
    return dataclasses.replace(scop, name=f"{scop.name}_s{k}", args=args, arrays=arrays,
                               statements=statements)
