"""The model's view of a compiled region: for each tiled kernel, its band's polytope at fixed
sizes (model.Problem), its kind, and its registers and shared memory as nvcc built them.

The band of a kernel is found again in the scheduler's tree (Generated.schedule) by the rule
gpu/mapping.py applies: bands above it are host loops (their trip count multiplies the
kernel's runs; a DOALL kernel is modelled on the middle iteration's slice); a wavefront band
tiles its first member and its last m-1 (its first m when the intra-tile wavefronts are the
skewed sum); a DOALL band its first n members.
"""

from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from polycuda.errors import InvalidConfigError
from polycuda.gpu import mapping, wavefront
from polycuda.ir import isl_build
from polycuda.options import Options
from polycuda.pipeline import Generated
from polycuda.tune import occupancy
from polycuda.tune.model import Problem


@dataclass(frozen=True)
class KernelModel:
    """One tiled kernel: its name, band Problem, and resources as built (R_T, S_TB)."""

    name: str
    problem: Problem
    default_tiles: tuple[int, ...]
    registers: int
    smem_bytes: int


def kernel_models(gen: Generated, values: dict[str, int],
                  resources: dict[str, occupancy.KernelResources] | None = None
                  ) -> tuple[KernelModel, ...]:
    """The tiled kernels of `gen` (CUDA) at parameter values `values`.

    resources: per kernel name (occupancy.kernel_resources of gen.source); read from the
    source by nvcc when None.

    Raises:
        InvalidConfigError: a kernel's band was not found in the schedule tree.
        BuildError, ToolNotFoundError: reading the resources failed.
    """
    if resources is None:
        resources = occupancy.kernel_resources(gen.source)
    ctx = isl.Context()
    schedule = isl.Schedule.read_from_str(ctx, gen.schedule)
    fixed = isl_build.fixed_params(gen.scop, values, ctx)
    bands = _candidate_bands(schedule.get_root(), gen.options)
    models = []
    tiled = [k for k in gen.kernels if not k.serial and not k.reduction]
    for kernel in tiled:
        node = _next_band(bands, kernel)
        problem = _problem(node, kernel, fixed, _accesses(gen))
        use = resources.get(kernel.name)
        models.append(KernelModel(kernel.name, problem, kernel.tile_sizes,
                                  use.registers if use else 32, use.smem_bytes if use else 0))
    return tuple(models)


def _accesses(gen: Generated) -> int:
    """Mean loads and stores per statement instance (the DOALL memory term)."""
    counts = [len(isl_build.statement_accesses(gen.scop, s)) for s in gen.scop.statements]
    return max(1, round(sum(counts) / max(1, len(counts))))


def _candidate_bands(root: isl.ScheduleNode, options: Options) -> list[isl.ScheduleNode]:
    """Band nodes in depth-first order that gpu/mapping.py may map to a kernel."""
    found: list[isl.ScheduleNode] = []

    def visit(node: isl.ScheduleNode) -> None:
        if node.get_type() == isl.schedule_node_type.band and (
                wavefront.eligible(node, options) or node.band_member_get_coincident(0)):
            found.append(node)
            return  # what is below runs inside this kernel
        for k in range(node.n_children()):
            visit(node.child(k))

    visit(root)
    return found


def _next_band(bands: list[isl.ScheduleNode], kernel: mapping.KernelMapping
               ) -> isl.ScheduleNode:
    n = len(kernel.tile_sizes)
    while bands:
        node = bands.pop(0)
        coincident = node.band_member_get_coincident(0)
        if node.band_n_member() >= n and coincident != kernel.wavefront:
            return node
    raise InvalidConfigError(f"the band of {kernel.name} was not found in the schedule tree")


def _problem(node: isl.ScheduleNode, kernel: mapping.KernelMapping, fixed: isl.Set,
             accesses: int) -> Problem:
    """Problem of the kernel's band members; host bands above fixed at their middle."""
    n = len(kernel.tile_sizes)
    total = node.band_n_member()
    if kernel.wavefront and total > n and kernel.intra != wavefront.SUM:
        members = [0, *range(total - n + 1, total)]
    else:
        members = list(range(n))
    # prefix: { S[x] -> [outer host loops] }; phi: { S[x] -> [band members] }, parameters
    # fixed and projected out
    domain = node.get_domain().intersect_params(fixed)
    prefix = _param_free(node.get_prefix_schedule_union_map().intersect_domain(domain))
    phi = _param_free(node.band_get_partial_schedule_union_map().intersect_domain(domain))
    launches = 1
    outer = _as_set(prefix.range())
    if outer.dim(isl.dim_type.set) > 0:
        middle, launches = _middle_slice(outer)
        phi = phi.intersect_domain(prefix.intersect_range(isl.UnionSet.from_set(middle))
                                   .domain())
    image = _as_set(phi.range())
    repeat = _inner_points(image, members)
    for k in reversed(range(total)):
        if k not in members:
            image = image.project_out(isl.dim_type.set, k, 1)
    return _polytope(image, "wavefront" if kernel.wavefront else "doall",
                     "hyperplane" if kernel.intra not in ("", wavefront.SUM) else "sum",
                     accesses, launches, repeat)


def _inner_points(image: isl.Set, members: list[int]) -> int:
    """Points of the untiled band members (run inside each thread) per point of the tiled
    ones, at the middle of the tiled ones' box."""
    extents = 1
    rest = image
    for k in range(image.dim(isl.dim_type.set)):
        if k in members:
            lo = int(rest.dim_min_val(k).to_python())
            hi = int(rest.dim_max_val(k).to_python())
            sliced = rest.fix_val(isl.dim_type.set, k,
                                  isl.Val.int_from_si(rest.get_ctx(), (lo + hi) // 2))
            rest = sliced if not sliced.is_empty() else rest.fix_val(
                isl.dim_type.set, k, isl.Val.int_from_si(rest.get_ctx(), lo))
    for k in range(image.dim(isl.dim_type.set)):
        if k not in members:
            extents *= int(rest.dim_max_val(k).to_python()) - int(
                rest.dim_min_val(k).to_python()) + 1
    return max(1, extents)


def _param_free(umap: isl.UnionMap) -> isl.UnionMap:
    return umap.project_out(isl.dim_type.param, 0, umap.dim(isl.dim_type.param))


def _as_set(uset: isl.UnionSet) -> isl.Set:
    sets = uset.coalesce().get_set_list()
    if sets.n_set() != 1:
        raise InvalidConfigError(f"expected one space, got {uset}")
    return sets.get_at(0)


def _middle_slice(outer: isl.Set) -> tuple[isl.Set, int]:
    """(the host loops' iteration in the middle of their lexicographic order, their count)."""
    count = int(outer.count_val().to_python())
    rest = outer
    for k in range(outer.dim(isl.dim_type.set)):
        lo = int(rest.dim_min_val(k).to_python())
        hi = int(rest.dim_max_val(k).to_python())
        for value in ((lo + hi) // 2, lo):
            sliced = rest.fix_val(isl.dim_type.set, k, isl.Val.int_from_si(rest.get_ctx(), value))
            if not sliced.is_empty():
                break
        rest = sliced
    return rest, max(1, count)


def _polytope(points: isl.Set, kind: str, intra: str, accesses: int, launches: int,
              repeat: int) -> Problem:
    """Problem of a parameter-free set: the constraints of its convex hull, its box."""
    hull = points.convex_hull().remove_divs()
    rows: list[tuple[tuple[int, ...], int]] = []
    n = points.dim(isl.dim_type.set)
    for con in hull.get_constraints():
        coeffs = tuple(int(con.get_coefficient_val(isl.dim_type.set, k).to_python())
                       for k in range(n))
        const = int(con.get_constant_val().to_python())
        rows.append((coeffs, const))
        if con.is_equality():
            rows.append((tuple(-c for c in coeffs), -const))
    lower = tuple(int(points.dim_min_val(k).to_python()) for k in range(n))
    upper = tuple(int(points.dim_max_val(k).to_python()) for k in range(n))
    return Problem(tuple(rows), lower, upper, kind, intra, accesses, launches, repeat)
