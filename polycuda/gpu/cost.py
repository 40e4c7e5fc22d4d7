"""A structural cost of a mapped schedule, to choose between schedulers without a GPU.

On a GPU the time of a region is dominated by its chain of dependent steps: host loops around
kernels (a launch each), loops that each thread runs in sequence, and above all loops run by
a one-thread kernel. Tiles bound some loops by a constant (the intra-tile wavefront of a
wavefront kernel, the point loops of a tile); only loops whose trip count grows with the
problem's parameters lengthen the chain asymptotically. The cost counts them:

    serial  loops of parametric length inside one-thread kernels (the worst: no parallelism;
            a reduction loop summed by blocks is not one)
    depth   parametric loops on the longest path from the root to a statement, outside the
            loops mapped to blocks and threads (host loops and in-thread loops alike)

    in_thread  per statement, the parametric loops around it that a thread runs in sequence
            (inside a kernel, not mapped to blocks or threads), summed over the statements:
            where fusion puts a parallel nest inside another statement's sequential loop, its
            threads run both loops one after the other (gramschmidt under isl's schedule: A's
            update after the reduction of R[k][j], in the same thread, 2 against 1 when each
            strongly connected component has its own nest)
    launches  kernel launches repeated by host loops at every parameter equal to
            LAUNCH_PARAMETER: each kernel's launches beyond its first (a launch costs
            microseconds whatever its work: 1-D Jacobi under isl launches one kernel per time
            step, under Pluto one per wavefront of tiles, 5x faster on the H100). A kernel
            launched once counts 0: how many such kernels a region has is a constant number of
            microseconds, and fusing independent nests into fewer of them is no gain (three_mm
            fused by Pluto into two kernels ran 1.70 ms kernel-only at the full sizes against
            1.03 ms for isl's three on the H100, kernel-only-linalg.json of 2026-11-25)

and compares (serial, depth, in_thread, launches) lexicographically: PolyBench lu under isl's
schedule runs a host k loop around kernels whose threads loop over j (depth 2); Pluto's
wavefront tiles leave one host loop over the wavefronts (depth 1).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import islpy as isl

from polycuda.gpu import extents
from polycuda.gpu.plan import (KERNEL_MARK, REDUCE_MARK, SERIAL_MARK, THREAD_MARK,
                               ChainReductionKernel, DualReductionKernel, Kernel,
                               KernelMapping, KindTable, MappedSchedule, ProducerFusionKernel,
                               ReductionKernel, RowReductionKernel)
from polycuda.ir import isl_build
from polycuda.ir.evaluate import eval_int
from polycuda.ir.scop import Scop

# A loop whose trip count, for fixed outer loops, can exceed this is of parametric length
# (tiles and intra-tile wavefronts are far shorter; any parametric extent exceeds it).
PARAMETRIC_TRIPS = 1 << 16
# Every parameter's value where launches are counted: large enough that the host loops'
# trip counts separate (time steps against wavefronts of 8-256 wide tiles), small enough to
# count the host iterations point by point in milliseconds.
LAUNCH_PARAMETER = 256

_N = isl.schedule_node_type


@dataclass(frozen=True, order=True)
class Cost:
    """Parametric loops in one-thread kernels, then on the longest host + thread path, then
    kernel launches (module docstring)."""

    serial: int
    depth: int
    in_thread: int = 0
    launches: int = 0

    def __str__(self) -> str:
        return f"{self.serial}/{self.depth}/{self.in_thread}/{self.launches}"


# The terms of a Cost as `show schedule`'s table of auto's candidates heads them, in the
# order compared, with what each counts (the module docstring says why)
COST_TERMS = (("serial", "one-thread", "loops of parametric length in one-thread kernels"),
              ("depth", "longest path", "parametric loops on the longest path outside blocks and "
               "threads"),
              ("in_thread", "in threads", "parametric loops run in sequence by threads, summed "
               "over statements"),
              ("launches", "launches", f"kernel launches repeated by host loops, at every "
               f"parameter {LAUNCH_PARAMETER}"))


def cost(mapped: MappedSchedule) -> Cost:
    """The Cost of a mapped schedule (see the module docstring)."""
    kernels = {k.name: k for k in mapped.kernels}
    root = mapped.schedule.get_root()
    if not root.n_children():
        return Cost(0, 0)
    loops = _visit(root, kernels, 0, False, None)
    return Cost(loops.serial, loops.depth, loops.in_thread, launches(mapped))


def launches(mapped: MappedSchedule) -> int:
    """Repeated kernel launches of the mapped schedule with every parameter
    LAUNCH_PARAMETER: per kernel (or serial, reduce) mark, the distinct values of the host
    loops around it, less the mark's first launch."""
    total = 0
    for _, steps in _host_steps(mapped):
        for k in range(steps.dim(isl.dim_type.param)):
            steps = steps.fix_val(isl.dim_type.param, k,
                                  isl.Val.int_from_si(steps.get_ctx(), LAUNCH_PARAMETER))
        total += steps.count_val().to_python() - 1 if steps.dim(isl.dim_type.set) else 0
    return total


# A bound: a sum of weighted products of extents (isl PwAffs in the parameters), the product
# of a bounding box's extents bounding the points in it (bound_at evaluates it, bound_c
# prints it as C).
Bound = tuple[tuple[float, tuple[isl.PwAff, ...]], ...]


def launch_times(mapped: MappedSchedule, context: isl.Set) -> Bound:
    """A bound of the time (ns) that the kernel launches of the mapped schedule take beyond
    their work, in the parameters: per kernel (or serial, reduce) mark, WAVEFRONT_LAUNCH_NS
    (a wavefront kernel's) or LAUNCH_NS times a bound of its launches: the extents of the
    bounding box of its host loops' values (each loop's range alone, rationally relaxed:
    gpu.extents.relaxed_extent_pw_affs), whose product bounds their distinct values; a mark
    outside every host loop, the empty product: one launch. Cheap to evaluate at any
    parameter values, at run time too, where `launches` counts points at one value."""
    kernels = {k.name: k for k in mapped.kernels}
    bounds = []
    for name, steps in _host_steps(mapped):
        steps = steps.intersect_params(context.align_params(steps.get_space()))
        if not steps.is_empty():
            wavefront = name in kernels and kernels[name].wavefront
            bounds.append((WAVEFRONT_LAUNCH_NS if wavefront else LAUNCH_NS,
                           extents.relaxed_extent_pw_affs(steps)))
    return tuple(bounds)


def instance_bounds(scop: Scop, ctx: isl.Context) -> Bound:
    """An upper bound of the statement instances of `scop`, in the parameters: the extents of
    each statement's bounding box within the context."""
    context = isl_build.context_set(scop, ctx)
    domains = [isl_build.domain_set(s, ctx).intersect_params(context) for s in scop.statements]
    return tuple((1.0, tuple(extents.extent_pw_aff(d, k) for k in range(d.dim(isl.dim_type.set))))
                 for d in domains if not d.is_empty())


# Every parameter's value where a statement's instances are counted against its bounding box
# (instance_estimates): large enough that the ratio is near its limit for growing sizes (a
# triangle's 1/2, a tetrahedron's 1/6), small enough to count quickly; a domain of more
# dimensions is counted at a smaller value, its box holding at most FILL_POINTS points.
FILL_PARAMETER = 64
FILL_POINTS = 1 << 18


def instance_estimates(scop: Scop, ctx: isl.Context) -> Bound:
    """The statement instances of `scop`, in the parameters: each statement's bounding box
    (instance_bounds) weighted by the fraction of it that the statement's domain fills with
    every parameter at FILL_PARAMETER (1 where the context has no such point). Not a bound: a
    triangular loop nest (LU's, Cholesky's) fills a third or a sixth of its box, which the
    host rule must see to price the host version; at other sizes the fraction differs a
    little (n = 40: 0.32 of LU's box against 0.33)."""
    context = isl_build.context_set(scop, ctx)
    estimates = []
    for stmt in scop.statements:
        domain = isl_build.domain_set(stmt, ctx).intersect_params(context)
        if domain.is_empty():
            continue
        box = tuple(extents.extent_pw_aff(domain, k)
                    for k in range(domain.dim(isl.dim_type.set)))
        estimates.append((_fill(domain, box), box))
    return tuple(estimates)


def _fill(domain: isl.Set, box: tuple[isl.PwAff, ...]) -> float:
    """The fraction of its bounding box `box` that `domain` fills: 1.0 where the domain is
    its box (each dimension's range the same whatever the others'), else counted with every
    parameter at FILL_PARAMETER (less for many dimensions: FILL_POINTS); 1.0 where that point
    is outside the context or the box is empty there."""
    dims = domain.dim(isl.dim_type.set)
    if _is_box(domain):
        return 1.0
    value = FILL_PARAMETER
    while value > 2 and value**dims > FILL_POINTS:
        value -= 1
    names = [domain.get_dim_name(isl.dim_type.param, k)
             for k in range(domain.dim(isl.dim_type.param))]
    volume = bound_at(((1.0, box),), dict.fromkeys(names, value))
    if not volume:
        return 1.0
    fixed = domain
    for k in range(len(names)):
        fixed = fixed.fix_val(isl.dim_type.param, k, isl.Val.int_from_si(domain.get_ctx(), value))
    points = fixed.count_val().to_python()
    return min(1.0, points / volume) if points else 1.0


def _is_box(domain: isl.Set) -> bool:
    """Whether `domain` is the product of its dimensions' ranges (in the parameters)."""
    dims = domain.dim(isl.dim_type.set)
    box = domain.universe(domain.get_space())
    for k in range(dims):
        own = domain.project_out(isl.dim_type.set, k + 1, dims - k - 1).project_out(
            isl.dim_type.set, 0, k)
        lifted = own.insert_dims(isl.dim_type.set, 0, k).insert_dims(
            isl.dim_type.set, k + 1, dims - k - 1)
        box = box.intersect(lifted.reset_space(domain.get_space()))
    return box.is_subset(domain)


def bound_at(bound: Bound, values: dict[str, int]) -> float | None:
    """A bound (launch_times, instance_bounds) at the given parameter values; None where
    they are outside the domain of one of its extents (the context)."""
    total = 0.0
    for weight, factors in bound:
        product = weight
        for factor in factors:
            space = factor.get_domain_space()
            names = [space.get_dim_name(isl.dim_type.param, k)
                     for k in range(space.dim(isl.dim_type.param))]
            if any(n not in values for n in names):
                return None
            fixed = " and ".join(f"{n} = {values[n]}" for n in names) or "0 = 0"
            point = isl.Set(f"[{', '.join(names)}] -> {{ : {fixed} }}",
                            context=factor.get_ctx()).sample_point()
            value = factor.eval(point)
            if value.is_nan():
                return None
            product *= max(0.0, float(value.to_python()))
        total += product
    return total


def bound_c(bound: Bound, params: isl.Set) -> str:
    """C text (double, in the parameters) of a bound (launch_times, instance_bounds)."""
    terms = []
    for weight, factors in bound:
        parts = [f"{weight!r}"] if weight != 1.0 else []
        parts += [f"(double)pc_max(0LL, (long long)({extents.pw_aff_to_c(f, params)}))"
                  for f in factors]
        terms.append(" * ".join(parts) or "1.0")
    return " + ".join(f"({t})" for t in terms) or "0.0"


def _host_steps(mapped: MappedSchedule) -> list[tuple[str, isl.Set]]:
    """Per kernel (or serial, reduce) mark reached by some statement instance: its kernel's
    name and the values of the host loops around it, { [prefix] } in the parameters."""
    marks: list[isl.ScheduleNode] = []

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == _N.mark and node.mark_get_id().get_name().partition(":")[0] in (
                KERNEL_MARK, SERIAL_MARK, REDUCE_MARK):
            marks.append(node.copy())
            return False
        return True

    mapped.schedule.get_root().foreach_descendant_top_down(visit)
    found = []
    for mark in marks:
        host = mark.get_prefix_schedule_union_map().intersect_domain(mark.get_domain())
        steps = host.range()
        if not steps.is_empty():
            name = mark.mark_get_id().get_name().partition(":")[2]
            found.append((name, isl.Set.from_union_set(steps)))
    return found


def _visit(node: isl.ScheduleNode, kernels: dict[str, KernelMapping], skip: int,
           serial: bool, in_thread: tuple[tuple[isl.ScheduleNode, int], ...] | None) -> Cost:
    """Cost of the subtree at `node`; `kernels`: the mapping's kernels by name; `skip`:
    leading members of the next band that are mapped to blocks or threads; `serial`: inside
    a one-thread kernel; `in_thread`: the band members around `node` that a thread runs in
    sequence, None outside kernels."""
    kind = node.get_type()
    if kind == _N.leaf:
        return Cost(0, 0, _thread_loops(node, in_thread or ()))
    if kind == _N.mark:
        mark, _, name = node.mark_get_id().get_name().partition(":")
        kernel = kernels.get(name)
        if mark in (KERNEL_MARK, THREAD_MARK):
            skip = kernel.n if kernel else 0
        if mark == REDUCE_MARK:  # its loop is spread over a block of threads
            skip = 1
        if mark == REDUCE_MARK and kernel is not None:  # by its kind's layout of threads
            return REDUCE_COSTS[kernel](
                node, kernel, lambda: _visit(node.child(0), kernels, 1, serial, ()))
        if mark in (KERNEL_MARK, SERIAL_MARK, REDUCE_MARK):
            in_thread = ()
        serial = serial or mark == SERIAL_MARK
        return _visit(node.child(0), kernels, skip, serial, in_thread)
    if kind == _N.band:
        loops = sum(_parametric(node, k) for k in range(skip, node.band_n_member()))
        inner = None if in_thread is None else in_thread + tuple(
            (node.copy(), k) for k in range(skip, node.band_n_member()))
        below = _visit(node.child(0), kernels, 0, serial, inner)
        return Cost(below.serial + (loops if serial else 0), below.depth + loops,
                    below.in_thread)
    children = [_visit(node.child(k), kernels, skip, serial, in_thread)
                for k in range(node.n_children())]
    return Cost(max((c.serial for c in children), default=0),
                max((c.depth for c in children), default=0),
                sum(c.in_thread for c in children))


def _below(node: isl.ScheduleNode, kernel: Kernel, below: Callable[[], Cost]) -> Cost:
    """A tree or column reduction: its loop is spread over a block of threads (or the
    columns over threads, the chunks over blocks); what lies below counts as it is."""
    return below()


def _no_sequential_loop(node: isl.ScheduleNode, kernel: Kernel, below: Callable[[], Cost]
                        ) -> Cost:
    """The rows on blocks and each row's reduction loops spread over a warp's lanes
    (gpu/row_reduction.py): no loop of the kernel runs in sequence in one thread, as a
    many-block reduction's loop below; nor in a dual reduction kernel (rows in batches on
    blocks, columns on threads: gpu/dual_reduction.py); nor in a chained one (rows on blocks,
    columns on threads: gpu/chain_reduction.py)."""
    return Cost(0, 0)


def _fused_producer(node: isl.ScheduleNode, kernel: Kernel, below: Callable[[], Cost]
                    ) -> Cost:
    """A fused producer (gpu/producer_fusion.py) runs one instance per iteration of the
    reduction's chunk loop, in the iteration that reads its element: that loop is the
    reduction's, counted once as in the column kernel without the producer."""
    assert isinstance(kernel, ProducerFusionKernel)
    cost = below()
    chunks = node.child(0).child(0)
    return Cost(cost.serial, cost.depth, cost.in_thread - _thread_loops(
        chunks, ((chunks, 0),), kernel.producer_statements))


# The cost of the subtree below a reduce mark, by the reduction kernel's kind.
REDUCE_COSTS: KindTable[Callable[[isl.ScheduleNode, Kernel, Callable[[], Cost]], Cost]] = \
    KindTable("reduce cost", {
        ReductionKernel: _below, RowReductionKernel: _no_sequential_loop,
        DualReductionKernel: _no_sequential_loop, ChainReductionKernel: _no_sequential_loop,
        ProducerFusionKernel: _fused_producer})


def _thread_loops(leaf: isl.ScheduleNode, members: tuple[tuple[isl.ScheduleNode, int], ...],
                  only: tuple[str, ...] | None = None) -> int:
    """Over the statements at `leaf` (those named in `only`, when given): the sum of the
    members of `members` of parametric length for that statement (a fused statement at a
    fixed value of a member runs no loop). With `only` a column kernel's fused producers and
    `members` its chunk band: the chunk loops counted for them, which are the reduction's."""
    if not members:
        return 0
    return sum(_parametric(band, k, isl.UnionSet.from_set(own))
               for own in isl_build.sets_of(leaf.get_domain())
               if only is None or own.get_tuple_name() in only for band, k in members)


def _parametric(band: isl.ScheduleNode, member: int, domain: isl.UnionSet | None = None
                ) -> bool:
    """Whether member `member` of `band` can take more than PARAMETRIC_TRIPS values for fixed
    values of the loops around it (the outer bands and the band's earlier members), for the
    statement instances of `domain` (default: the band's).

    # outer: { S[x] -> [prefix, m_0, ..., m_{member-1}] }, own: { S[x] -> [m] },
    # runs: { [outer] -> [m] }
    """
    domain = band.get_domain() if domain is None else domain
    partial = band.band_get_partial_schedule().intersect_domain(domain)
    outer = band.get_prefix_schedule_union_map().intersect_domain(domain)
    for k in range(member):
        outer = outer.flat_range_product(isl.UnionMap.from_union_pw_aff(partial.get_at(k)))
    own = isl.UnionMap.from_union_pw_aff(partial.get_at(member))
    runs = outer.reverse().apply_range(own)
    # spread: { [d] : d = m' - m for two values m, m' under one outer value }
    spread = runs.reverse().apply_range(runs).deltas()
    long = isl.UnionSet(f"{{ [d] : d >= {PARAMETRIC_TRIPS} }}", context=band.get_ctx())
    return not spread.intersect(long.align_params(spread.get_space())).is_empty()


# Options.runtime_choice (pipeline.runtime_choice): a region's time on the GPU is taken as the
# longer of its launches' time and its work's: the host issues launches while earlier kernels
# run, so plain launch costs hide behind long kernels; a wavefront kernel's tiles run their
# intra-tile wavefronts one after the other, a barrier between them, however few the tiles.
# A call runs the runner-up's code (variant 1) where that estimate is lower than the chosen
# schedule's: where the chosen schedule's launch time exceeds both the runner-up's and the
# work's (all statement instances at INSTANCE_NS); the work is taken as equal under both, so
# that the chosen schedule keeps any locality advantage of its own. Launch times: LAUNCH_NS
# a launch, WAVEFRONT_LAUNCH_NS a wavefront kernel's, each times a launch bound
# (launch_times, instance_bounds). Measured on the H100 (bench/results/2026-11-26-nvidia-h100-
# 80gb-hbm3-runtime-choice*.json): an empty kernel launched from a host loop 2.7-5.1 us; isl's
# 1-D Jacobi steps 1.44-1.77 us a launch where their work is small; the DOALL runner-ups'
# work 6.3e-3 (1-D Jacobi) and 7.0e-3 ns (FDTD-2D) an instance where it dominates; Pluto's
# wavefront launches 7.5-8.3 us each (1-D Jacobi) at every size, 10 us (FDTD-2D). The
# constants lean to the chosen schedule (Pluto's in the measured cases): its launches at the
# least measured, the runner-up's above, the work at the most. Fitted on 16 sizes of 1-D
# Jacobi, FDTD-2D, 2-D Jacobi and Heat-2D (earlier rules: fewer launches where they take
# longer than the work, 2.44x slower at one of 5 sizes; launch time 0 > launch time 1 + the
# work, 1.44x and 1.78x slower at 2 of 16; this one picks the faster schedule in all 16), then
# checked on 13 held-out sizes (bench/runtime_choice.py HELD_OUT): the faster in 12 (or
# within 0.4%), and Heat-2D at T = 5000, n = 128 8% slower than isl's (Pluto's kept).
LAUNCH_NS = 2000.0
WAVEFRONT_LAUNCH_NS = 7000.0
INSTANCE_NS = 0.007
# How Generated.choice (and show schedule) begins the run-time choice's note
RUNTIME_NOTE = "at run time: "


@dataclass(frozen=True)
class RuntimeChoice:
    """Two schedules of one region in one file (Options.runtime_choice): variant 0, the
    chosen one, and variant 1, the runner-up; each call of the entries runs variant 1 where
    the rule of LAUNCH_NS picks it at its parameters."""

    schedulers: tuple[str, str]
    # C text (double, in the parameters): each variant's launch time bound (ns), the instances
    launch_ns: tuple[str, str]
    instances: str
    example: dict[str, int]  # parameter values at which the rule picks variant 1
    # the same bounds in isl (launch_times of variants 0 and 1, instance_bounds)
    bounds: tuple[Bound, Bound, Bound] = field(default=(), compare=False, repr=False)

    def picks(self, values: dict[str, int]) -> bool | None:
        """Whether a call at these parameter values runs variant 1 (None: outside the
        context)."""
        found = [bound_at(b, values) for b in self.bounds]
        if None in found:
            return None
        return picks_runner_up((found[0], found[1]), found[2])

    def note(self) -> str:
        at = ", ".join(f"{k} = {v}" for k, v in self.example.items())
        return (f"{RUNTIME_NOTE}{self.schedulers[1]}'s code where {self.schedulers[0]}'s "
                f"launches take longer than its launches and than the statement instances x "
                f"{INSTANCE_NS:g} ns (e.g. at {at})")

    def condition(self) -> str:
        """C condition, in the parameters, under which a call runs variant 1."""
        return (f"pc_launch_ns0 > pc_launch_ns1 && pc_launch_ns0 > pc_instances * "
                f"{INSTANCE_NS!r}")


def picks_runner_up(launch_ns: tuple[float, float], instances: float) -> bool:
    """The rule of LAUNCH_NS on numbers (RuntimeChoice.condition in Python)."""
    return launch_ns[0] > launch_ns[1] and launch_ns[0] > instances * INSTANCE_NS


# Options.host_fallback (pipeline.host_choice): every CUDA region keeps its original program,
# sequential, beside its kernels (codegen/host_choice.py), and each call runs it where its
# estimated time is below the GPU's:
#     host = instances x HOST_INSTANCE_NS
#     gpu  = GPU_CALL_NS + copies + locks + launches x HOST_LAUNCH_FACTOR + instances x INSTANCE_NS
#     copies = bytes copied / HOST_COPY_BYTES_PER_NS + copy calls x COPY_CALL_NS
#     locks = arrays page-locked for the call (Options.host_pin_min_kib) x PIN_CALL_NS
#     launches = launch_times' bound (LAUNCH_NS a launch, WAVEFRONT_LAUNCH_NS a wavefront's)
#     instances = instance_estimates (each statement's bounding box times the part it fills)
# The host entry's copies are its copies in (every array argument) and out (the written ones).
# On device arrays (pc_<name>_dev: CuPy/torch arrays) the GPU copies, locks and pays
# GPU_CALL_NS for nothing and the host version pays the round trip instead: each accessed
# array copied out, each written one back (the rule includes that cost, as the serial region's
# device entry does). Fitted on the H200 to the whole function of both versions, forced, of
# PolyBench's kernels at its datasets (bench/host_rule_data.py; its results and the picks
# before and after: bench/results/2026-12-03-nvidia-h200-host-rule-data*.json, replayed by
# bench/host_rule_fit.py): HOST_INSTANCE_NS is near the middle of the host's time per
# estimated instance there (vectorized stencils take the least, 1-D loops of few instances the
# most); GPU_CALL_NS and COPY_CALL_NS are the intercept and slope of the GPU's time over its
# copy calls where they are all it does (a few small kernels); PIN_CALL_NS what locking one
# array costs a call (cudaHostRegister and its unregister, nearly the same for any size there);
# HOST_LAUNCH_FACTOR the ratio of a chain of small dependent launches' time to its launch
# bound (the bound's constants are the run-time choice's, which lean low);
# HOST_COPY_BYTES_PER_NS below the page-locked bandwidth.
HOST_INSTANCE_NS = 1.0
HOST_COPY_BYTES_PER_NS = 50.0
COPY_CALL_NS = 8000.0
GPU_CALL_NS = 15000.0
PIN_CALL_NS = 300000.0
HOST_LAUNCH_FACTOR = 2.5


@dataclass(frozen=True)
class Transfer:
    """An array argument's copies in one call: its elements (the shape's product, in the
    parameters), the bytes of one, the host entry's copies to run on the GPU (in, and out
    when written) and the device entry's to run on the host (out when accessed, back when
    written)."""

    array: str
    shape: tuple  # of ir Exprs in the parameters
    element_bytes: int
    host_entry: int
    device_entry: int


@dataclass(frozen=True)
class HostChoice:
    """The run-time choice between a region's kernels and its original program on the host
    (Options.host_fallback, the rule above): its bounds as C text in the parameters, the
    arrays' copies, and the same bounds in isl for picks_host(). Data already on the GPU
    (pc_<name>_dev: CuPy / torch arrays through the Python API) counts no copies for the
    kernels; the host version there pays for its copies out and back, included in its time
    (it runs where it is faster even so: a host loop of many small launches)."""

    mode: str  # Options.host_fallback: "auto" decides per call, "always" runs the host
    launch_ns: tuple[str, ...]  # per variant (runtime_choice: two), the least counts
    instances: str
    transfers: tuple[Transfer, ...]
    params: tuple[str, ...]  # the parameters that the rule reads
    bounds: tuple[tuple[Bound, ...], Bound] = field(default=((), ()), compare=False,
                                                    repr=False)
    # arrays whose every element must be >= 0 (not NaN, not -0.0) at entry for the kernels
    # to compute the region (Scop.nonnegative_inputs, schedule/closure.py): elsewhere the
    # host version runs, whatever the rule or a forced version says
    nonnegative: tuple[str, ...] = ()
    # the host entry page-locks each array of at least so many bytes for its copies
    # (Options.host_copies "register", host_pin_min_kib); 0: it locks none
    pin_min_bytes: int = 0

    def estimates(self, values: dict[str, int], on_device: bool = False
                  ) -> tuple[float, float] | None:
        """(host ns, GPU ns) of a call at these parameter values, on host arrays (the host
        entry: the GPU's copies in and out counted) or on device arrays (the device entry:
        none for the GPU, the host version's round trip counted); None outside the context."""
        terms = self.terms(values, on_device)
        if terms is None:
            return None
        return host_and_gpu_ns(terms["launch_ns"], terms["instances"],
                               (terms["copied_bytes"], int(terms["copies"])), on_device,
                               int(terms["pinned"]))

    def terms(self, values: dict[str, int], on_device: bool = False
              ) -> dict[str, float] | None:
        """What the rule reads at these parameter values, before its constants weigh it: the
        launch time bound (ns, the least of the variants'), the instance estimate, the bytes
        copied, the copy calls and the arrays page-locked for them (as estimates counts
        them); None outside the context."""
        launches = [bound_at(b, values) for b in self.bounds[0]]
        instances = bound_at(self.bounds[1], values)
        if instances is None or None in launches:
            return None
        traffic = [(t, math.prod(max(0, eval_int(d, values)) for d in t.shape)
                    * t.element_bytes) for t in self.transfers]
        if on_device:
            moved = [(b, t.device_entry) for t, b in traffic]
        else:
            moved = [(b, t.host_entry) for t, b in traffic]
        locked = 0 if on_device or not self.pin_min_bytes else sum(
            1 for b, n in moved if n and b >= self.pin_min_bytes)
        least = min((b for b in launches if b is not None), default=0.0)
        return {"launch_ns": least, "instances": instances,
                "copied_bytes": float(sum(b * n for b, n in moved)),
                "copies": float(sum(n for _, n in moved)), "pinned": float(locked)}

    def picks_host(self, values: dict[str, int], on_device: bool = False) -> bool | None:
        """Whether a call at these parameter values runs the host version (None: outside
        the context, where "auto" decides)."""
        if self.mode != "auto":
            return self.mode == "always"
        found = self.estimates(values, on_device)
        return None if found is None else found[0] < found[1]

    def note(self) -> str:
        """What the file holds, in a few words (the step's note of `show passes`)."""
        when = "where the rule picks it (show schedule)" if self.mode == "auto" else "always"
        checked = (f", and where an element of {', '.join(self.nonnegative)} is negative, NaN "
                   "or -0.0 (the kernels' closure steps need them non-negative)"
                   if self.nonnegative else "")
        return f"the original program beside the kernels, run per call {when}{checked}"

    def rule(self) -> str:
        """The rule as text, with its constants and the parameters it reads."""
        if self.mode != "auto":
            return f"{HOST_NOTE}always (Options.host_fallback = '{self.mode}')"
        pins = (f" + arrays of at least {self.pin_min_bytes} bytes (page-locked for the call) "
                f"x {PIN_CALL_NS:g} ns (PIN_CALL_NS)" if self.pin_min_bytes else "")
        return (f"{HOST_NOTE}the original program on the host where host < gpu, at each "
                f"call's {', '.join(self.params) or 'constant sizes'}: host = instances "
                f"(each statement's bounding box times the part it fills) x "
                f"{HOST_INSTANCE_NS:g} ns (HOST_INSTANCE_NS); gpu = {GPU_CALL_NS:g} ns "
                f"(GPU_CALL_NS) + copied bytes / {HOST_COPY_BYTES_PER_NS:g} B/ns "
                f"(HOST_COPY_BYTES_PER_NS) + copies x {COPY_CALL_NS:g} ns (COPY_CALL_NS)"
                f"{pins} + launch time (launches x {LAUNCH_NS:g} ns, LAUNCH_NS; "
                f"{WAVEFRONT_LAUNCH_NS:g} a wavefront kernel's) x {HOST_LAUNCH_FACTOR:g} "
                f"(HOST_LAUNCH_FACTOR) + instances x {INSTANCE_NS:g} ns (INSTANCE_NS); on "
                f"device arrays the GPU copies and locks nothing and pays no GPU_CALL_NS, and "
                f"the host pays the copies out and back")


# How Generated.choice (and show schedule) begins the host choice's note
HOST_NOTE = "host version: "


def host_and_gpu_ns(launch_ns: float, instances: float, copied: tuple[float, int],
                    on_device: bool = False, pinned: int = 0) -> tuple[float, float]:
    """The rule of HOST_INSTANCE_NS on numbers: (host ns, GPU ns) of a call whose copies move
    copied[0] bytes in copied[1] calls (the GPU's on host arrays, `pinned` of them page-locked
    for the call; the host's on device arrays: its round trip). HostChoice's C function
    computes the same."""
    copies = copied[0] / HOST_COPY_BYTES_PER_NS + copied[1] * COPY_CALL_NS
    host = instances * HOST_INSTANCE_NS + (copies if on_device else 0.0)
    gpu = launch_ns * HOST_LAUNCH_FACTOR + instances * INSTANCE_NS
    if not on_device:
        gpu += GPU_CALL_NS + copies + pinned * PIN_CALL_NS
    return host, gpu
