"""The model's view of a compiled region: for each tiled kernel, its band's polytope at fixed
sizes (model.Problem), its kind, and its registers and shared memory as nvcc built them.

The band of a kernel is found again in the scheduler's tree (Generated.schedule) by the rule
gpu/mapping.py applies: bands above it are host loops (their trip count multiplies the
kernel's runs; a DOALL kernel is modelled on the middle iteration's slice); a wavefront band
tiles its first member and its last m-1 (its first m when the intra-tile wavefronts are the
skewed sum); a DOALL band its first n members.

A wavefront kernel that stages its tiles in shared memory (Options.shared_staging,
gpu/staging.py) allocates it dynamically: ptxas does not report it, so the model computes the
bytes of each layout from the band's accesses (Footprint, staged_bytes).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import islpy as isl
import numpy as np

from polycuda.errors import InvalidConfigError, PolycudaError
from polycuda.gpu import mapping, shared_promotion, staging, wavefront
from polycuda.gpu.plan import DoallKernel, WavefrontKernel
from polycuda.ir import isl_build
from polycuda.options import Options
from polycuda.pipeline import Generated
from polycuda.sizes import array_shape
from polycuda.tune import occupancy
from polycuda.tune.model import Problem, WarpAccess


# an access a = M y + c of an array by a band: (rows of M, c)
AffineAccess = tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]


@dataclass(frozen=True)
class Footprint:
    """One array's accesses by a wavefront band as affine functions of the band's tiled
    coordinates y (the Problem's): a = M y + c, one (M, c) per access."""

    array: str
    elem_bytes: int
    accesses: tuple[AffineAccess, ...]
    written: bool = False

    def box(self, tiles: tuple[int, ...]) -> tuple[int, ...]:
        """The bounding box of the elements a full tile m_k T_k <= y_k < m_k (T_k + 1)
        accesses (the same for every tile: translates of one box), as gpu/staging.py's
        footprint_box bounds an unclipped tile: along array dimension d, the largest
        M_d y + c over the tile's corners minus the smallest, plus one.

        Example (2-D Jacobi after eliminating false dependences, y = (t, 2t + i, 2t + j),
        A[i-1..i+1][j]): tiles 16 x 64 x 64 -> 2 * 15 + 63 + 2 + 1 = 96 rows.
            >>> Footprint("A", 4, ((((-2, 1, 0), (-2, 0, 1)), (-1, 0)),
            ...                    (((-2, 1, 0), (-2, 0, 1)), (1, 0)))).box((16, 64, 64))
            (96, 94)
        """
        top, low = self._corner(tiles, max), self._corner(tiles, min)
        return tuple(hi - lo + 1 for hi, lo in zip(top, low))

    def _corner(self, tiles: tuple[int, ...], pick) -> list[int]:
        """Per array dimension d, `pick` (max or min) over the accesses of M_d y + c at the
        tile corner where it is extreme (y_k = m_k - 1 where pick takes M_dk, else 0)."""
        return [pick(sum(pick(a, 0) * (m - 1) for a, m in zip(rows[d], tiles)) + consts[d]
                     for rows, consts in self.accesses)
                for d in range(len(self.accesses[0][1]))]

    def bytes(self, tiles: tuple[int, ...]) -> int:
        """Shared memory of the staged box, padded as gpu/staging.py lays it out."""
        return staging.padded(math.prod(self.box(tiles)) * self.elem_bytes)


@dataclass(frozen=True)
class KernelModel:
    """One tiled kernel: its name, band Problem, and resources as built (R_T, S_TB).

    tied_rows: for a wavefront kernel, the groups of tile rows built at one size
    (gpu/wavefront.tied_rows); a layout that differs on one is excluded, since the kernel
    would be built with other sizes than modelled.
    footprints, staging_budget: for a wavefront kernel whose tiles are staged in shared
    memory, the footprints of the arrays that may be staged and the budget in bytes
    (Options.shared_memory_kib); () and 0 otherwise (staged_bytes is then 0).
    """

    name: str
    problem: Problem
    default_tiles: tuple[int, ...]
    registers: int
    smem_bytes: int
    footprints: tuple[Footprint, ...] = ()
    staging_budget: int = 0
    # groups of tile rows that the kernel keeps at equal sizes (KernelMapping.tied_rows)
    tied_rows: tuple[tuple[int, ...], ...] = ()
    # the threads per threaded member that the kernel gets at its default tiles
    # (KernelMapping.block_sizes): the local search's start when the default tables measure
    # fastest (search.defaults_layout). () where given sizes would not rebuild the default
    # kernel: a gemm-like kernel's register tiles and k tiles apply only when no size is
    # given (shared_promotion.gemm_like; H100, gemm 4096^3: the default tables 14.99 ms, their
    # sizes 64x64 on 16x32 given 31.05 ms, ...-tune-suite-probes-c.json)
    default_block: tuple[int, ...] = ()
    # per tile sizes: (staged footprints, their bytes, N_mem), which do not depend on the
    # block; the search asks for them for every block of a tile size (search.rank)
    _per_tiles: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def _tile_facts(self, tiles: tuple[int, ...]
                    ) -> tuple[tuple[Footprint, ...], int, int | None]:
        facts = self._per_tiles.get(tiles)
        if facts is None:
            staged = self._staged(tiles)
            facts = (staged, sum(f.bytes(tiles) for f in staged),
                     self._tile_accesses(tiles, staged))
            if len(self._per_tiles) > 65536:  # bounded: a long-lived model stays small
                self._per_tiles.clear()
            self._per_tiles[tiles] = facts
        return facts

    def staged(self, tiles: tuple[int, ...]) -> tuple[Footprint, ...]:
        """The footprints staged at tile sizes `tiles`: the boxes that fit in the budget
        together, taken greedily (gpu/staging.plan)."""
        return self._tile_facts(tuple(tiles))[0]

    def _staged(self, tiles: tuple[int, ...]) -> tuple[Footprint, ...]:
        used, staged = 0, []
        for footprint in self.footprints:
            size = footprint.bytes(tiles)
            if used + size <= self.staging_budget:
                used += size
                staged.append(footprint)
        return tuple(staged)

    def staged_bytes(self, tiles: tuple[int, ...]) -> int:
        """Dynamic shared memory per block at tile sizes `tiles`."""
        return self._tile_facts(tuple(tiles))[1]

    def tile_accesses(self, tiles: tuple[int, ...]) -> int | None:
        """N_mem of a full tile (Di & Xue 2011, eq. (6): its loads and stores of global
        memory) when the kernel stages tiles; None otherwise (eq. (6)'s count applies).

        Our extension for staging (gpu/staging.py), which the paper's model does not have:
        a staged array costs its box once loaded and, if the band writes it, once written
        back; the points then access shared memory (their cost is in beta's per point). An
        array left in global memory (its box did not fit) costs every access of every
        point, as the DOALL extension counts them (model.memory_accesses): no reuse assumed.
        """
        return self._tile_facts(tuple(tiles))[2]

    def _tile_accesses(self, tiles: tuple[int, ...], staged: tuple[Footprint, ...]
                       ) -> int | None:
        if not self.staging_budget:
            return None
        volume = math.prod(tiles)
        total = 0
        for footprint in self.footprints:
            if footprint in staged:
                total += math.prod(footprint.box(tiles)) * (2 if footprint.written else 1)
            else:
                total += len(footprint.accesses) * volume
        return total


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
    tiled = [k for k in gen.kernels if isinstance(k, (DoallKernel, WavefrontKernel))]
    for kernel in tiled:
        node = _next_band(bands, kernel)
        problem = _problem(node, kernel, fixed, _accesses(gen))
        if not kernel.wavefront:
            problem = dataclasses.replace(
                problem, statements=_warp_accesses(node, kernel, fixed, gen, values))
        use = resources.get(kernel.name)
        staged = (kernel.wavefront and gen.options.shared_staging
                  and gen.options.target == "cuda")
        footprints = _footprints(node, kernel, fixed, gen) if staged else ()
        models.append(KernelModel(kernel.name, problem, kernel.tile_sizes,
                                  use.registers if use else 32, use.smem_bytes if use else 0,
                                  footprints, gen.options.shared_memory_kib * 1024
                                  if footprints else 0,
                                  kernel.tied_rows if isinstance(kernel, WavefrontKernel)
                                  else (),
                                  () if kernel.register_tiles else kernel.block_sizes))
    return tuple(models)


def _members(node: isl.ScheduleNode, kernel: mapping.KernelMapping) -> list[int]:
    """The band members the kernel tiles (the Problem's coordinates y), in order."""
    n = len(kernel.tile_sizes)
    total = node.band_n_member()
    if kernel.wavefront and total > n and kernel.intra != wavefront.SUM:
        return [0, *range(total - n + 1, total)]
    return list(range(n))


def _footprints(node: isl.ScheduleNode, kernel: mapping.KernelMapping, fixed: isl.Set,
                gen: Generated) -> tuple[Footprint, ...]:
    """The Footprint of every array the band accesses whose accesses are affine functions of
    the tiled members alone, in the order of the arrays' names. An array accessed through an
    untiled member (its box grows with a parameter) or an indirect subscript is left out:
    gpu/staging.plan does not stage it either.

    # phi: { S[x] -> [y] } the band's tiled members; access: { S[x] -> A[a] }
    """
    ctx = node.get_ctx()
    members = _members(node, kernel)
    total = node.band_n_member()
    domain = node.get_domain().intersect_params(fixed)
    phi = _param_free(node.band_get_partial_schedule_union_map().intersect_domain(domain))
    dtypes = {a.name: a.dtype for a in gen.scop.arrays}
    found: dict[str, list[AffineAccess]] = {}
    bad: set[str] = set()
    written: set[str] = set()
    stmt_phis = {m.get_tuple_name(isl.dim_type.in_): m for m in isl_build.maps_of(phi)}
    for stmt in gen.scop.statements:
        stmt_phi = stmt_phis.get(stmt.name)
        if stmt_phi is None:
            continue
        for k in reversed(range(total)):
            if k not in members:
                stmt_phi = stmt_phi.project_out(isl.dim_type.out, k, 1)
        for acc in isl_build.statement_accesses(gen.scop, stmt):
            access = isl_build.access_map(acc, stmt, ctx, False).intersect_params(fixed)
            name = access.get_tuple_name(isl.dim_type.out)
            by_y = stmt_phi.reverse().apply_range(_param_free(access))  # { [y] -> A[a] }
            affine = (_affine(by_y) if not acc.indirect and by_y.is_single_valued()
                      else None)
            if affine is None or name not in dtypes:
                bad.add(name)
            else:
                found.setdefault(name, []).extend(affine)
                if acc.is_write:
                    written.add(name)
    return tuple(Footprint(name, staging.DTYPE_BYTES[dtypes[name]], tuple(found[name]),
                           name in written)
                 for name in sorted(found) if name not in bad
                 and dtypes[name] in staging.DTYPE_BYTES and found[name][0][1])


def _warp_accesses(node: isl.ScheduleNode, kernel: mapping.KernelMapping, fixed: isl.Set,
                   gen: Generated, values: dict[str, int]
                   ) -> tuple[tuple[WarpAccess, ...], ...]:
    """Each statement's accesses by a DOALL band as byte strides along its tiled members
    (model.warp_transfers, the coalescing extension).

    Moving one step along tiled member k, with the host loops above (the prefix) and the
    band's other members fixed, moves the statement's iterators by d_k: [P; B] d_k = e_k,
    with P and B the linear parts of the prefix and of the band's schedule. Iterators these
    rows leave free (loops inside each thread) are held fixed, innermost first. Access
    a = M x + c of a row-major array then moves by the linearized M d_k, times the element's
    bytes. A statement whose schedule or accesses are not one integer affine piece, or
    whose d_k is not integral, is left out, as are indirect subscripts and scalars; () when
    nothing is left (tile_terms then keeps the rule of blockDim.x alone).
    """
    ctx = node.get_ctx()
    members = _members(node, kernel)
    domain = node.get_domain().intersect_params(fixed)
    prefix = _param_free(node.get_prefix_schedule_union_map().intersect_domain(domain))
    band = _param_free(node.band_get_partial_schedule_union_map().intersect_domain(domain))
    prefixes = {m.get_tuple_name(isl.dim_type.in_): m for m in isl_build.maps_of(prefix)}
    bands = {m.get_tuple_name(isl.dim_type.in_): m for m in isl_build.maps_of(band)}
    elements: dict[str, np.ndarray | None] = {}  # array -> row-major element strides
    found = []
    for stmt in gen.scop.statements:
        nx = len(stmt.iterators)
        outer = prefixes.get(stmt.name)
        fixed_part = (_single_affine(outer) if outer is not None
                      and outer.dim(isl.dim_type.out) else (np.zeros((0, nx), np.int64), None))
        band_part = _single_affine(bands[stmt.name]) if stmt.name in bands else None
        if fixed_part is None or band_part is None:
            continue
        steps = _steps(fixed_part[0], band_part[0], members)
        point = _param_free(domain.extract_set(bands[stmt.name].domain().get_space())
                            ).sample_point()
        if steps is None or point.is_void():
            continue
        x0 = np.array([int(point.get_coordinate_val(isl.dim_type.set, k).to_python())
                       for k in range(nx)], dtype=np.int64)
        accesses = []
        for acc in isl_build.statement_accesses(gen.scop, stmt):
            array = gen.scop.array(acc.array)
            if acc.indirect or not array.shape or array.dtype not in staging.DTYPE_BYTES:
                continue
            if acc.array not in elements:
                try:
                    shape = array_shape(gen.scop, acc.array, values)
                    elements[acc.array] = np.array(
                        shared_promotion.layout_strides(shape, shape[-1]), dtype=np.int64)
                except (PolycudaError, KeyError, ZeroDivisionError):
                    elements[acc.array] = None
            amap = _param_free(isl_build.access_map(acc, stmt, ctx, False)
                               .intersect_params(fixed))
            affine = _single_affine(amap) if amap.is_single_valued() else None
            if affine is None or elements[acc.array] is None:
                continue
            linear = elements[acc.array] @ affine[0]
            size = staging.DTYPE_BYTES[array.dtype]
            accesses.append(WarpAccess(acc.array, size,
                                       tuple(int(linear @ d) * size for d in steps),
                                       int(linear @ x0 + elements[acc.array] @ affine[1]) * size))
        if accesses:
            found.append(tuple(accesses))
    return tuple(found)


def _single_affine(smap: isl.Map) -> tuple[np.ndarray, np.ndarray] | None:
    """(M, c) of a map whose pieces (_affine) share one integer linear part M (c of the
    first piece); None otherwise."""
    pieces = _affine(smap)
    if not pieces or len({p[0] for p in pieces}) != 1:
        return None
    rows, consts = pieces[0]
    return (np.array(rows, dtype=np.int64).reshape(len(rows), -1),
            np.array(consts, dtype=np.int64))


def _steps(fixed_rows: np.ndarray, band_rows: np.ndarray, members: list[int]
           ) -> list[np.ndarray] | None:
    """d_k for each tiled member k (_warp_accesses): integral solutions of [P; B] d = e_k
    with the free iterators held fixed, innermost first; None when there is none."""
    nx = band_rows.shape[1]
    system = np.vstack([fixed_rows.reshape(-1, nx), band_rows])
    for k in reversed(range(nx)):
        rank = np.linalg.matrix_rank(system) if len(system) else 0
        if rank >= nx:
            break
        pin = np.zeros((1, nx), dtype=np.int64)
        pin[0, k] = 1
        if np.linalg.matrix_rank(np.vstack([system, pin])) > rank:
            system = np.vstack([system, pin])
    steps = []
    for k in members:
        rhs = np.zeros(len(system), dtype=np.int64)
        rhs[len(fixed_rows) + k] = 1
        step = np.rint(np.linalg.lstsq(system.astype(float), rhs, rcond=None)[0]
                       ).astype(np.int64)
        if not np.array_equal(system @ step, rhs):
            return None
        steps.append(step)
    return steps


def _affine(by_y: isl.Map) -> list[AffineAccess] | None:
    """(M, c) of each piece of a single-valued { [y] -> A[a] } (None: not integer affine)."""
    pieces: list[AffineAccess] = []
    ok = [True]

    def piece(_: isl.Set, ma: isl.MultiAff) -> None:
        rows, consts = [], []
        for d in range(ma.dim(isl.dim_type.out)):
            aff = ma.get_at(d)
            if aff.dim(isl.dim_type.div) or not aff.get_denominator_val().is_one():
                ok[0] = False
                return
            rows.append(tuple(int(aff.get_coefficient_val(isl.dim_type.in_, k).to_python())
                              for k in range(aff.dim(isl.dim_type.in_))))
            consts.append(int(aff.get_constant_val().to_python()))
        pieces.append((tuple(rows), tuple(consts)))

    try:
        isl.PwMultiAff.from_map(by_y).foreach_piece(piece)
    except isl.Error:
        return None
    return pieces if ok[0] and pieces else None


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
    total = node.band_n_member()
    members = _members(node, kernel)
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
                     "hyperplane" if isinstance(kernel, WavefrontKernel)
                     and kernel.intra not in ("", wavefront.SUM) else "sum",
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


def _param_free(umap):
    """`umap` (an isl.Map or isl.UnionMap) with its parameters projected out."""
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
