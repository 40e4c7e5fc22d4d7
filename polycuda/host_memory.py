"""Host memory of a test run (verify, run): estimated before any array is allocated, and refused
above a limit with the `--size` values that would fit.

A 10-deep nest at the default size 12 asks for 12^10 doubles (461 GiB) per array; NumPy's
MemoryError after minutes of swapping is no way to say so.
"""

from __future__ import annotations

import os

from polycuda.errors import UserError
from polycuda.ir import dtypes
from polycuda.ir.expr import Var
from polycuda.ir.scop import Scop
from polycuda.sizes import array_shape, resolve_sizes

ITEM_BYTES = dtypes.BYTES
# Copies of the arguments alive at once: the inputs, the reference's result, the target's
# result and the copy of a timed run (run.run_and_time; verify keeps three).
COPIES = 4
FALLBACK_MEMORY = 16 << 30  # where the machine's memory cannot be read


def argument_bytes(scop: Scop, values: dict[str, int]) -> dict[str, int]:
    """Bytes of each array argument at these parameter values (region-local arrays excluded).

    Raises:
        UserError: an array gets a non-positive extent (sizes.array_shape).
    """
    result = {}
    for arg in scop.args:
        if arg.kind == "array":
            count = 1
            for extent in array_shape(scop, arg.name, values):
                count *= extent
            result[arg.name] = count * ITEM_BYTES[arg.dtype]
    return result


def memory_limit() -> int:
    """Bytes all copies of a run's arguments may take: half of the machine's memory."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    except (AttributeError, ValueError, OSError):
        return FALLBACK_MEMORY // 2


def check_argument_bytes(scop: Scop, values: dict[str, int], limit: int | None = None) -> None:
    """Refuse sizes whose arguments (COPIES of them) would not fit in `limit` bytes.

    Raises:
        UserError: names the largest arrays, their total and sizes that fit (`--size P=V`).
    """
    limit = memory_limit() if limit is None else limit
    per_array = argument_bytes(scop, values)
    total = sum(per_array.values()) * COPIES
    if total <= limit:
        return
    largest = sorted(per_array.items(), key=lambda kv: (-kv[1], kv[0]))[:3]
    listed = ", ".join(f"{name} {_human(size)}" for name, size in largest)
    hint = _fitting_sizes(scop, values, limit)
    advice = (f"pass smaller sizes, e.g. {' '.join(f'--size {p}={v}' for p, v in hint.items())}"
              if hint else "pass smaller sizes with --size NAME=VALUE")
    raise UserError(f"the arguments of '{scop.name}' at sizes {values} take "
                    f"{_human(total // COPIES)} ({listed}), and a test run keeps {COPIES} "
                    f"copies: {_human(total)}, more than the limit of {_human(limit)} (half of "
                    f"this machine's memory); {advice}")


def _fitting_sizes(scop: Scop, values: dict[str, int], limit: int) -> dict[str, int]:
    """The parameters that size arrays, capped at the largest common value that fits."""
    sizing = [p for p in _free_params(scop) if _sizes_arrays(scop, values, p)]
    if not sizing:
        return {}
    low, high = 0, max(values[p] for p in sizing)  # invariant: cap `low` fits (0: none yet)
    while high - low > 1:
        mid = (low + high) // 2
        if _fits(scop, {p: min(values[p], mid) for p in sizing}, values, limit):
            low = mid
        else:
            high = mid
    return {p: min(values[p], low) for p in sizing if values[p] > low} if low else {}


def _free_params(scop: Scop) -> list[str]:
    """Parameters a user sets with --size (not the `<array>_d<k>` extents of Python arrays)."""
    derived = {d.name for a in scop.arrays for k, d in enumerate(a.shape)
               if isinstance(d, Var) and d.name == f"{a.name}_d{k}"}
    return [p for p in scop.params if p not in derived]


def _sizes_arrays(scop: Scop, values: dict[str, int], param: str) -> bool:
    half = {p: v for p, v in values.items() if p in _free_params(scop)}
    half[param] = max(values[param] // 2, 1)
    try:
        return sum(argument_bytes(scop, resolve_sizes(scop, half)).values()) < sum(
            argument_bytes(scop, values).values())
    except UserError:
        return False


def _fits(scop: Scop, capped: dict[str, int], values: dict[str, int], limit: int) -> bool:
    given = {p: v for p, v in values.items() if p in _free_params(scop)}
    given.update(capped)
    try:
        return sum(argument_bytes(scop, resolve_sizes(scop, given)).values()) * COPIES <= limit
    except UserError:
        return False


def _human(size: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):.1f} {unit}"
    return f"{size} B"
