"""Per-kernel sizes: a size plan in PPCG's --sizes notation (issue 46 step 2).

A plan is an isl union map from kernels to sizes, as PPCG's `--sizes` reads it
(`{ kernel[0] -> tile[64,64]; kernel[0] -> block[16,32] }`), with two entries of our own:

- `kernel[k] -> tile[t...]`: the tile sizes of kernel k's mapped band (a wavefront kernel's
  m members), outermost first;
- `kernel[k] -> block[b...]`: its threads per block along the mapped dimensions;
- `kernel[k] -> registers[r...]`: points per thread along them (register tiling);
- `kernel[k] -> sequential[s]`: the tile size of the band members after the mapped ones (the
  k tile of gemm's shared-memory tiles).

Kernel k is the region's `kernel<k>` (the names of the generated kernels and of `show
schedule`). A kernel's entries act as Options.tile_sizes, block_sizes, register_tiles and
sequential_tile would for that kernel alone (the last entries apply to the innermost loops,
as there); what the plan does not give comes from those options, else from the defaults. A
domain with a variable (`kernel[i] -> tile[32,32]`, or `: i >= 2`) gives every kernel it
contains the same sizes. Kernel kinds with a fixed layout (reductions, one-thread kernels)
take no sizes.

Example:
    >>> plan = "{ kernel[0] -> tile[64,64]; kernel[i] -> block[16,32] : i >= 1 }"
    >>> check(plan)
    >>> sizes_of(plan, 0), sizes_of(plan, 3).block
    (KernelSizes(tile=(64, 64), block=(), registers=(), sequential=0), (16, 32))
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import islpy as isl

from polycuda.errors import InvalidConfigError
from polycuda.options import Options

ENTRIES = ("tile", "block", "registers", "sequential")
EXAMPLE = "{ kernel[0] -> tile[32,32]; kernel[0] -> block[8,32] }"
_KERNEL_NAME = re.compile(r"kernel(\d+)")


@dataclass(frozen=True)
class KernelSizes:
    """What a plan gives one kernel (() or 0: not given)."""

    tile: tuple[int, ...] = ()
    block: tuple[int, ...] = ()
    registers: tuple[int, ...] = ()
    sequential: int = 0


def _parsed(text: str) -> isl.UnionMap:
    """The plan's union map, its form checked (not yet any kernel's values).

    Raises:
        InvalidConfigError: not isl's notation, parameters, a domain other than kernel[k], an
            entry other than ENTRIES, or `sequential` with other than one value.
    """
    try:
        plan = isl.UnionMap.read_from_str(isl.Context(), text)
    except isl.Error:
        raise InvalidConfigError(f"size plan {text!r} is not an isl union map such as "
                                 f"{EXAMPLE}") from None
    if plan.dim(isl.dim_type.param):
        raise InvalidConfigError(f"size plan {text!r} has parameters: sizes are numbers")
    for part in _maps(plan):
        source = part.get_tuple_name(isl.dim_type.in_)
        entry = part.get_tuple_name(isl.dim_type.out)
        if source != "kernel" or part.dim(isl.dim_type.in_) != 1:
            raise InvalidConfigError(f"size plan {text!r}: {part} maps from "
                                     f"{source or 'an unnamed tuple'}, not kernel[k]")
        if entry not in ENTRIES:
            raise InvalidConfigError(f"size plan {text!r}: '{entry}' is not one of "
                                     f"{', '.join(ENTRIES)}")
        if entry == "sequential" and part.dim(isl.dim_type.out) != 1:
            raise InvalidConfigError(f"size plan {text!r}: sequential takes one size, as "
                                     "kernel[0] -> sequential[32]")
    return plan


def _maps(plan: isl.UnionMap) -> list[isl.Map]:
    found: list[isl.Map] = []
    plan.foreach_map(found.append)
    return found


def check(text: str) -> None:
    """Raise InvalidConfigError unless `text` is a size plan in this module's form."""
    _parsed(text)


def sizes_of(text: str, kernel: int) -> KernelSizes:
    """The sizes that the plan `text` gives kernel number `kernel`.

    Raises:
        InvalidConfigError: an entry gives the kernel several values or a size below 1.
    """
    plan = _parsed(text)
    here = isl.Set.read_from_str(plan.get_ctx(), f"{{ kernel[{kernel}] }}")
    found: dict[str, tuple[int, ...]] = {}
    for part in _maps(plan):
        values = part.intersect_domain(here).range()
        if values.is_empty():
            continue
        entry = values.get_tuple_name()
        if not values.is_singleton() or entry in found:
            raise InvalidConfigError(f"size plan {text!r} gives kernel{kernel} more than one "
                                     f"{entry}")
        point = values.sample_point()
        sizes = tuple(point.get_coordinate_val(isl.dim_type.set, k).to_python()
                      for k in range(values.dim(isl.dim_type.set)))
        if any(s < 1 for s in sizes):
            raise InvalidConfigError(f"size plan {text!r}: kernel{kernel}'s {entry} "
                                     f"{list(sizes)} must all be >= 1")
        found[entry] = sizes
    return KernelSizes(found.get("tile", ()), found.get("block", ()),
                       found.get("registers", ()), found.get("sequential", (0,))[0])


def kernel_number(name: str) -> int | None:
    """k of a kernel named kernel<k>; None for another name."""
    matched = _KERNEL_NAME.fullmatch(name)
    return int(matched.group(1)) if matched else None


def kernel_options(options: Options, name: str) -> Options:
    """`options` with the entries that Options.sizes gives kernel `name` in place of its
    tile_sizes, block_sizes, register_tiles and sequential_tile: what the mapping sizes that
    kernel by (so that an entry changes that kernel alone); `options` when it gives none.

    Raises:
        InvalidConfigError: the entries are not sizes that options allow (a block of more
            than 1024 threads), said for the kernel.
    """
    number = kernel_number(name)
    if not options.sizes or number is None:
        return options
    given = sizes_of(options.sizes, number)
    changes = {field: value for field, value in (
        ("tile_sizes", given.tile), ("block_sizes", given.block),
        ("register_tiles", given.registers), ("sequential_tile", given.sequential)) if value}
    if not changes:
        return options
    try:
        return options.replace(**changes)
    except InvalidConfigError as err:
        raise InvalidConfigError(f"size plan, {name}: {err}") from None


def used(kernels: Iterable) -> list[tuple[str, KernelSizes]]:
    """The sizes that the mapping gave each sized kernel of `kernels` (gpu.plan's Kernel
    records, in their order: DOALL and wavefront kernels; the fixed layouts have none), as a
    plan gives them: text_of() of it, given back as Options.sizes, sizes every kernel so."""
    found = []
    for kernel in kernels:
        if kernel.serial or kernel_number(kernel.name) is None:
            continue
        found.append((kernel.name, KernelSizes(
            tuple(kernel.tile_sizes), tuple(kernel.block_sizes), tuple(kernel.register_tiles),
            kernel.sequential_tiles[0] if kernel.sequential_tiles else 0)))
    return found


def text_of(entries: Iterable[tuple[str, KernelSizes]]) -> str:
    """The plan of (kernel name, sizes) pairs, in their order, each given entry once: the
    form `check` reads (`{ }` for none)."""
    parts = []
    for name, sizes in entries:
        number = kernel_number(name)
        assert number is not None, f"{name} is not named kernel<k>"
        for entry in ENTRIES:
            value = getattr(sizes, entry)
            values = (value,) if isinstance(value, int) else value
            if values and values != (0,):
                parts.append(f"kernel[{number}] -> {entry}[{','.join(map(str, values))}]")
    return "{ " + "; ".join(parts) + " }" if parts else "{ }"
