"""Verification: the transformed program against the untransformed one on random inputs.

Every written array is compared: exactly for integers, with a tolerance for floating point
(the generated code keeps each element's operation order, but nvcc contracts a*b+c to FMA).
An array updated by reduction statements may have been summed in another order (cuda, with
Options.allow_reassociation): its relative tolerance is at least 2 * epsilon * L, L the bound
on the terms one cell receives at the run's sizes (analysis.reductions.terms_per_cell).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from polycuda.analysis import index_check, index_values, indirect, reductions
from polycuda.errors import PolycudaWarning
from polycuda.host_memory import check_argument_bytes
from polycuda.ir import dtypes
from polycuda.ir.scop import Scop
from polycuda.sizes import array_shape

NP_DTYPES = {name: getattr(np, d.numpy) for name, d in dtypes.TABLE.items()}
# narrow and unsigned integers are drawn over their whole range: negative chars, unsigned values
# near 2**32 (wrap-around), shorts whose products leave short
FULL_RANGE = dtypes.NARROW + dtypes.UNSIGNED
TOLERANCES = {"double": (1e-9, 1e-12), "float": (2e-4, 1e-5)}
EPSILON = {"double": float(np.finfo(np.float64).eps), "float": float(np.finfo(np.float32).eps)}

Runner = Callable[[dict[str, object]], None]  # runs one program in place on named arguments


def random_arguments(scop: Scop, values: dict[str, int], seed: int = 0,
                     special: bool = False) -> dict[str, object]:
    """Named entry arguments: parameter values, random scalars and arrays (never zeros).
    With `special`, about one element in SPECIAL_SHARE of each floating-point array (at
    least one of each where it has three) is NaN, +inf or -inf: comparisons, min/max and
    conversions that differ only on them are seen (scalars stay finite).

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
                              else int(full_range(rng, arg.dtype, ())) if arg.dtype in FULL_RANGE
                              else int(rng.integers(1, 10)))
        else:
            shape = array_shape(scop, arg.name, values)
            dtype = NP_DTYPES[arg.dtype]
            if arg.dtype in ("float", "double"):
                data = rng.uniform(0.5, 1.5, size=shape)
                if special:
                    data = with_special_values(rng, data)
            elif arg.name in row_pointers and arg.name in index_ranges:
                # from 0, rows non-empty: rowptr[i + 1] - 1 (a diagonal) needs no lo > 0
                # (the one range of the array's values does; index_check sees the data)
                data = random_row_pointers(rng, shape[0], index_ranges[arg.name][1])
            elif arg.name in index_ranges:
                lo, hi = index_ranges[arg.name]
                data = rng.integers(lo, hi + 1, size=shape)
            elif arg.dtype in FULL_RANGE:
                data = full_range(rng, arg.dtype, shape)
            else:
                data = rng.integers(1, 10, size=shape)
            args[arg.name] = np.ascontiguousarray(data.astype(dtype))
    return args


def full_range(rng: np.random.Generator, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    """Values over the whole range of an integer dtype, half of them within 16 of its ends
    (where conversions wrap), never 0 (random_arguments: no division by zero)."""
    info = np.iinfo(NP_DTYPES[dtype])
    low, high = int(info.min), int(info.max)
    data = rng.integers(low, high, size=shape, endpoint=True, dtype=np.int64 if low < 0
                        else np.uint64)
    ends = rng.integers(0, 16, size=shape, endpoint=True).astype(data.dtype)
    near = np.where(rng.random(size=shape) < 0.5, data.dtype.type(low) + ends,
                    data.dtype.type(high) - ends)
    data = np.where(rng.random(size=shape) < 0.5, near, data)
    return np.where(data == 0, data.dtype.type(1), data).astype(NP_DTYPES[dtype])


SPECIAL_SHARE = 8
SPECIAL_VALUES = (np.nan, np.inf, -np.inf)


def with_special_values(rng: np.random.Generator, data: np.ndarray) -> np.ndarray:
    """`data` with NaN, +inf and -inf at random positions (see random_arguments)."""
    flat = data.reshape(-1).copy()
    count = min(flat.size, max(len(SPECIAL_VALUES), flat.size // SPECIAL_SHARE))
    where = rng.choice(flat.size, count, replace=False)
    flat[where] = np.resize(np.array(SPECIAL_VALUES), count)
    return flat.reshape(data.shape)


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
    # array -> the largest difference over the rounding bound of reassociation (0..1 when
    # the difference is rounding; above 1 it is not)
    rounding: dict[str, float] = field(default_factory=dict)


ROUNDING_SAFETY = 2.0  # over the perturbed run's deviation: u is random, not the worst sign


def rounding_scales(scop: Scop, reference: Runner, inputs: dict[str, object],
                    expected: dict[str, object], values: dict[str, int]) -> dict[str, float]:
    """{array: the largest change of its cells when the reference runs on the inputs scaled
    by (1 + d * u), u uniform in [-1, 1], d = epsilon * L} for the floating-point arrays
    updated by reductions of L > 1 terms: the conditioning that the reference shows.

    A sum of L terms in another order differs from the original by up to about L * epsilon
    times the sum of the terms' magnitudes (Higham, Accuracy and Stability of Numerical
    Algorithms, 2nd ed., eq. (4.4)); what later statements make of such a difference (a
    back substitution, a pivot) the sum alone does not say. A rounding-sized change of the
    inputs goes through the same computation: the reference's response to it bounds what a
    reordering may change, whatever comes after the sums.
    """
    terms = reductions.terms_per_cell(scop, values)
    floats = [n for n in scop.written_arrays() if not scop.array(n).local
              and scop.array(n).dtype in EPSILON and terms.get(n, 1) > 1]
    if not floats:
        return {}
    length = max(terms.values())
    rng = np.random.default_rng(12345)
    perturbed = copy_arguments(inputs)
    for arg in scop.args:
        value = perturbed[arg.name]
        if arg.dtype in EPSILON and arg.kind in ("array", "scalar"):
            scale = EPSILON[arg.dtype] * length * rng.uniform(-1.0, 1.0, np.shape(value))
            changed = np.asarray(value) * (1.0 + scale)
            perturbed[arg.name] = (changed.astype(NP_DTYPES[arg.dtype]) if arg.kind == "array"
                                   else float(changed))
    reference(perturbed)
    out = {}
    for name in floats:
        diff = np.abs(np.asarray(perturbed[name], np.float64) - np.asarray(expected[name]))
        finite = diff[np.isfinite(diff)]
        out[name] = float(finite.max()) if finite.size else 0.0
    return out


def compare(scop: Scop, target: str, expected: dict[str, object], actual: dict[str, object],
            rounding: dict[str, float] | None = None) -> Comparison:
    """Compare every written argument array; records the worst relative error per array.
    NaN equals NaN at the same position, infinities must match exactly. `rounding`
    ({array: scale}, from rounding_scales) widens the tolerance of an array by
    ROUNDING_SAFETY * scale, and the message says whether a difference is rounding."""
    result = Comparison(target, True)
    values = {p: int(expected[p]) for p in scop.params if isinstance(expected.get(p), int)}
    terms = reductions.terms_per_cell(scop, values)
    for name in scop.written_arrays():
        arr = scop.array(name)
        if arr.local:
            continue
        exp, act = np.asarray(expected[name]), np.asarray(actual[name])
        if arr.dtype in TOLERANCES:
            bad = _compare_floats(result, name, arr.dtype, exp, act, terms.get(name, 1),
                                  (rounding or {}).get(name))
        else:
            gap = np.abs(act.astype(np.int64) - exp.astype(np.int64))
            result.worst[name] = float(np.max(gap)) if exp.size else 0.0
            bad = np.argwhere(act != exp)
        if len(bad):
            where = tuple(int(i) for i in bad[0])
            result.ok = False
            result.message += (f"{name}: mismatch at {where}: expected {exp[where]!r}, "
                               f"got {act[where]!r}")
            ratio = result.rounding.get(name)
            result.message += (f" ({ratio:.3g} times the rounding bound: not rounding); "
                               if ratio is not None else "; ")
    return result


def _compare_floats(result: Comparison, name: str, dtype: str, exp: np.ndarray,
                    act: np.ndarray, terms: int, scale: float | None) -> np.ndarray:
    """Record the worst relative error of one array; return the positions that differ."""
    rtol, atol = TOLERANCES[dtype]
    rtol = max(rtol, 2 * EPSILON[dtype] * terms)
    exp64, act64 = exp.astype(np.float64), act.astype(np.float64)
    same = (exp64 == act64) | (np.isnan(exp64) & np.isnan(act64))
    with np.errstate(invalid="ignore"):  # inf - inf: told apart by `same`
        diff = np.where(same, 0.0, np.abs(act64 - exp64))
    diff = np.where(np.isnan(diff), np.inf, diff)  # NaN on one side only, inf against finite
    base = atol + rtol * np.abs(np.where(np.isfinite(exp64), exp64, 0.0))
    result.worst[name] = float(np.max(diff / (np.abs(exp64) + atol / rtol))) if exp.size else 0.0
    if scale is None or not exp.size:
        return np.argwhere(diff > base)
    allowed = base + ROUNDING_SAFETY * scale
    ratio = float(np.max(diff / allowed))
    result.rounding[name] = ratio
    if ratio <= 1.0 and bool(np.any(diff > base)):
        result.message += (f"{name}: within rounding (largest difference {ratio:.2g} of the "
                           f"bound: reassociated sums of up to {terms} terms, at the "
                           "conditioning of a perturbed reference run); ")
    return np.argwhere(diff > allowed)


def check_against(scop: Scop, reference: Runner, runners: dict[str, Runner],
                  values: dict[str, int], seed: int = 0, special_values: bool = True
                  ) -> list[Comparison]:
    """Run the reference and each target on copies of the same random inputs; compare.
    The original's accesses are checked on the drawn inputs first (index_check): the
    reference indexes raw memory. With `special_values`, programs with floating-point inputs
    run a second input set with NaN and infinities among the values (random_arguments).

    Raises:
        UserError: the drawn inputs would make the original access outside an array.
    """
    sets = [random_arguments(scop, values, seed)]
    if special_values and _has_float_inputs(scop):
        sets.append(random_arguments(scop, values, seed, special=True))
    results = {target: Comparison(target, True) for target in runners}
    for k, inputs in enumerate(sets):
        _check_original(scop, values, inputs)
        expected = copy_arguments(inputs)
        with np.errstate(all="ignore") if k else contextlib.nullcontext():
            reference(expected)  # (inf - inf in a Python oracle: expected, not a warning)
        rounding = rounding_scales(scop, reference, inputs, expected, values) if k == 0 else {}
        for target, run in runners.items():
            actual = copy_arguments(inputs)
            run(actual)
            merge(results[target], compare(scop, target, expected, actual, rounding),
                   "" if k == 0 else "with NaN/inf inputs: ")
    return list(results.values())


def merge(into: Comparison, one: Comparison, label: str) -> None:
    """`one`'s result folded into `into` (its message after `label`)."""
    into.ok = into.ok and one.ok
    for name, err in one.worst.items():
        if np.isfinite(err):
            into.worst[name] = max(into.worst.get(name, 0.0), err)
    into.rounding.update({k: max(v, into.rounding.get(k, 0.0)) for k, v in one.rounding.items()})
    if one.message:
        into.message += label + one.message


def _has_float_inputs(scop: Scop) -> bool:
    return any(a.dtype in EPSILON and a.kind in ("array", "scalar") for a in scop.args)


def _check_original(scop: Scop, values: dict[str, int], inputs: dict[str, object]) -> None:
    unchecked = index_check.check_accesses(scop, values, inputs)
    if unchecked and index_values.derive(scop, values).uncovered:
        warnings.warn(f"{scop.name}: verify could not check every access of the original "
                      f"on the drawn index arrays ({'; '.join(dict.fromkeys(unchecked))}); "
                      "their values are bounded by the extents only", PolycudaWarning,
                      stacklevel=4)
