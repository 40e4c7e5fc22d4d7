"""Parameter values and array shapes for test runs: given sizes, defaults, footprints."""

from __future__ import annotations

import islpy as isl

from polycuda.analysis.bounds import BoundsChecker
from polycuda.errors import PolycudaError, UserError
from polycuda.ir import isl_build
from polycuda.ir.evaluate import eval_int
from polycuda.ir.expr import Var
from polycuda.ir.scop import Scop

DEFAULT_SIZE = 12


def _shape_params(scop: Scop) -> set[str]:
    """Parameters that only name array extents (Python frontend's `<array>_d<k>`)."""
    return {d.name for a in scop.arrays for d in a.shape
            if isinstance(d, Var) and d.name.endswith(tuple(f"_d{k}" for k in range(8)))}


def _footprint_extent(scop: Scop, array: str, dim: int, values: dict[str, int]) -> int | None:
    """1 + the largest index of `array` along `dim` touched by the region, or None."""
    ctx = isl.Context()
    best: int | None = None
    fixed = " and ".join(f"{p} = {v}" for p, v in values.items() if p in scop.params)
    for stmt in scop.statements:
        for acc in isl_build.statement_accesses(scop, stmt):
            if acc.array != array:
                continue
            image = isl_build.access_map(acc, stmt, ctx, tagged=False).range()
            params = isl.Set.read_from_str(
                ctx, f"{isl_build.param_prefix(scop)} -> {{ : {fixed or '1 = 1'} }}")
            image = image.intersect_params(params)
            if image.is_empty():
                continue
            high = image.dim_max(dim)
            if not high.is_cst():
                return None
            value = _max_constant(high) + 1
            best = value if best is None else max(best, value)
    return best


def _max_constant(high: isl.PwAff) -> int:
    pieces: list[int] = []
    high.foreach_piece(lambda _s, aff: pieces.append(aff.get_constant_val().to_python()))
    return max(pieces)


def resolve_sizes(scop: Scop, given: dict[str, int] | None = None) -> dict[str, int]:
    """Values for every integer parameter: given ones, footprints for shape parameters,
    DEFAULT_SIZE otherwise -- or the largest common smaller value for the parameters not
    given, when an access would leave its array at DEFAULT_SIZE (fixed extents such as
    `double A[10][10]` with a loop to n).

    Raises:
        UserError: a given name is not a parameter, or a value breaks the region's context.
        OutOfBoundsError: an access leaves its array at the given values (or at every default).
    """
    given = dict(given or {})
    unknown = set(given) - set(scop.params)
    if unknown:
        raise UserError(f"--size names {sorted(unknown)}, which are not integer parameters of "
                        f"'{scop.name}' (parameters: {', '.join(scop.params) or 'none'})")
    shape_params = _shape_params(scop)
    defaulted = [p for p in scop.params if p not in shape_params and p not in given]
    checker = BoundsChecker(scop)
    first: PolycudaError | None = None
    for default in range(DEFAULT_SIZE, 0, -1) if defaulted else (DEFAULT_SIZE,):
        values = _values_at(scop, given, shape_params, default)
        try:
            _check_context(scop, values)
            checker.check(values)
            return values
        except PolycudaError as err:
            first = first or err
    assert first is not None
    raise first


def _values_at(scop: Scop, given: dict[str, int], shape_params: set[str], default: int
               ) -> dict[str, int]:
    """Given values, `default` for the other parameters, footprints for shape parameters."""
    values = {p: given.get(p, default) for p in scop.params if p not in shape_params}
    for arr in scop.arrays:
        for k, dim in enumerate(arr.shape):
            if isinstance(dim, Var) and dim.name in shape_params and dim.name not in values:
                extent = given.get(dim.name) or _footprint_extent(scop, arr.name, k, values)
                values[dim.name] = extent if extent is not None else default
    return values


def _check_context(scop: Scop, values: dict[str, int]) -> None:
    ctx = isl.Context()
    context = isl_build.context_set(scop, ctx)
    fixed = " and ".join(f"{p} = {v}" for p, v in values.items())
    point = isl.Set.read_from_str(ctx, f"{isl_build.param_prefix(scop)} -> {{ : {fixed} }}")
    if context.intersect(point).is_empty():
        raise UserError(f"parameter values {values} violate the region's assumptions "
                        f"{scop.context}")


def array_shape(scop: Scop, name: str, values: dict[str, int]) -> tuple[int, ...]:
    shape = tuple(eval_int(d, values) for d in scop.array(name).shape)
    if any(s <= 0 for s in shape):
        raise UserError(f"array '{name}' gets shape {shape} at {values}: sizes must be positive")
    return shape
