"""Verification: the transformed program against the untransformed one on random inputs.

Every written array is compared: exactly for integers, with a tolerance for floating point
(the generated code keeps each element's operation order, but nvcc contracts a*b+c to FMA).
An array updated by reduction statements may have been summed in another order (cuda, with
Options.allow_reassociation): its relative tolerance is at least 2 * epsilon * L, L the bound
on the terms one cell receives at the run's sizes (analysis.reductions.terms_per_cell).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from polycuda.analysis import index_check, index_values, indirect, reductions
from polycuda.errors import PolycudaWarning
from polycuda.host_memory import check_argument_bytes
from polycuda.ir.scop import Scop
from polycuda.sizes import array_shape

NP_DTYPES = {"int": np.int32, "long": np.int64, "float": np.float32, "double": np.float64}
TOLERANCES = {"double": (1e-9, 1e-12), "float": (2e-4, 1e-5)}
EPSILON = {"double": float(np.finfo(np.float64).eps), "float": float(np.finfo(np.float32).eps)}

Runner = Callable[[dict[str, object]], None]  # runs one program in place on named arguments


def random_arguments(scop: Scop, values: dict[str, int], seed: int = 0) -> dict[str, object]:
    """Named entry arguments: parameter values, random scalars and arrays (never zeros).

    Raises:
        UserError: the arrays would not fit in memory (host_memory.check_argument_bytes).
    """
    check_argument_bytes(scop, values)
    rng = np.random.default_rng(seed)
    index_ranges = drawn_index_ranges(scop, values)
    # arrays that bound CSR loops: row pointers, non-decreasing within their range
    row_pointers = indirect.row_pointer_extents(scop, values)
    args: dict[str, object] = {}
    for arg in scop.args:
        if arg.kind == "param":
            args[arg.name] = int(values[arg.name])
        elif arg.kind == "scalar":
            args[arg.name] = (float(rng.uniform(0.5, 1.5)) if arg.dtype in ("float", "double")
                              else int(rng.integers(1, 10)))
        else:
            shape = array_shape(scop, arg.name, values)
            dtype = NP_DTYPES[arg.dtype]
            if arg.dtype in ("float", "double"):
                data = rng.uniform(0.5, 1.5, size=shape)
            elif arg.name in row_pointers and arg.name in index_ranges:
                # from 0, rows non-empty: rowptr[i + 1] - 1 (a diagonal) needs no lo > 0
                # (the one range of the array's values does; index_check sees the data)
                data = random_row_pointers(rng, shape[0], index_ranges[arg.name][1])
            elif arg.name in index_ranges:
                lo, hi = index_ranges[arg.name]
                data = rng.integers(lo, hi + 1, size=shape)
            else:
                data = rng.integers(1, 10, size=shape)
            args[arg.name] = np.ascontiguousarray(data.astype(dtype))
    return args


def drawn_index_ranges(scop: Scop, values: dict[str, int]) -> dict[str, tuple[int, int]]:
    """{index array: (lo, hi)}: values that keep every access of the original in bounds
    (index_values.derive, through CSR loop bounds and nested reads); where a subscript is not
    affine in the values read, also the older per-form bound (indirect.index_value_ranges),
    and verify's host check (index_check) has the last word.

    Raises:
        UserError: no such values exist at these sizes.
    """
    derived = index_values.derive(scop, values)
    ranges = dict(derived.ranges)
    if derived.uncovered:
        for name, (lo, hi) in indirect.index_value_ranges(scop, values).items():
            old = ranges.get(name, (lo, hi))
            ranges[name] = (max(lo, old[0]), max(max(lo, old[0]), min(hi, old[1])))
    return ranges


def random_row_pointers(rng: np.random.Generator, size: int, nnz: int) -> np.ndarray:
    """A CSR row-pointer array of `size` entries: 0 first, `nnz` last, non-decreasing, at
    random cut points; every row non-empty when there are enough elements (a triangular
    solve reads each row's last element as its diagonal)."""
    if size < 2:
        return np.zeros(size, np.int64)
    inner = size - 2
    if nnz - 1 >= inner:
        cuts = np.sort(rng.choice(np.arange(1, nnz), inner, replace=False)) if inner else []
    else:
        cuts = np.sort(rng.integers(0, nnz + 1, inner))
    return np.concatenate(([0], np.asarray(cuts, np.int64), [nnz])).astype(np.int64)


def copy_arguments(args: dict[str, object]) -> dict[str, object]:
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}


@dataclass
class Comparison:
    target: str
    ok: bool
    worst: dict[str, float] = field(default_factory=dict)  # array -> max relative error
    message: str = ""


def compare(scop: Scop, target: str, expected: dict[str, object], actual: dict[str, object]
            ) -> Comparison:
    """Compare every written argument array; records the worst relative error per array."""
    result = Comparison(target, True)
    values = {p: int(expected[p]) for p in scop.params if isinstance(expected.get(p), int)}
    terms = reductions.terms_per_cell(scop, values)
    for name in scop.written_arrays():
        arr = scop.array(name)
        if arr.local:
            continue
        exp, act = np.asarray(expected[name]), np.asarray(actual[name])
        if arr.dtype in TOLERANCES:
            rtol, atol = TOLERANCES[arr.dtype]
            rtol = max(rtol, 2 * EPSILON[arr.dtype] * terms.get(name, 1))
            err = float(np.nanmax(np.abs(act - exp) / (np.abs(exp) + atol / rtol))) if exp.size else 0.0
            good = bool(np.allclose(act, exp, rtol=rtol, atol=atol, equal_nan=True))
        else:
            err = float(np.max(np.abs(act.astype(np.int64) - exp.astype(np.int64)))) if exp.size else 0.0
            good = bool(np.array_equal(act, exp))
        result.worst[name] = err
        if not good:
            bad = np.argwhere(~np.isclose(act, exp, rtol=rtol, atol=atol, equal_nan=True) if arr.dtype
                              in TOLERANCES else act != exp)
            where = tuple(int(i) for i in bad[0]) if len(bad) else ()
            result.ok = False
            result.message += (f"{name}: mismatch at {where}: expected {exp[where]!r}, "
                               f"got {act[where]!r}; ")
    return result


def check_against(scop: Scop, reference: Runner, runners: dict[str, Runner],
                  values: dict[str, int], seed: int = 0) -> list[Comparison]:
    """Run the reference and each target on copies of the same random inputs; compare.
    The original's accesses are checked on the drawn inputs first (index_check): the
    reference indexes raw memory.

    Raises:
        UserError: the drawn inputs would make the original access outside an array.
    """
    inputs = random_arguments(scop, values, seed)
    unchecked = index_check.check_accesses(scop, values, inputs)
    if unchecked and index_values.derive(scop, values).uncovered:
        warnings.warn(f"{scop.name}: verify could not check every access of the original "
                      f"on the drawn index arrays ({'; '.join(dict.fromkeys(unchecked))}); "
                      "their values are bounded by the extents only", PolycudaWarning,
                      stacklevel=3)
    expected = copy_arguments(inputs)
    reference(expected)
    results = []
    for target, run in runners.items():
        actual = copy_arguments(inputs)
        run(actual)
        results.append(compare(scop, target, expected, actual))
    return results
