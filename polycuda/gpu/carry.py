"""Registers carried across a shared scope's sequential tile loops: gemm's C[i][j] accumulators
loaded once before the k-tile loop and stored once after it (PPCG's private memory, placed at
the kernel level above the sequential tile loops; Baskaran et al. 2008, data management:
allocation, access functions and copy code of a per-thread copy).

In a kernel with shared promotion (gpu/shared_promotion.py) the tree is
  kernel mark -> [T] (blocks) -> [Tseq] -> shared mark -> thread mark -> [P mod S] -> ... units,
so the private promotion below the thread mark (gpu/promotion.py) loads and stores C once per
k tile. Here a mark `carry:<kernel>` goes above [Tseq]: for each thread coordinate t of
[P mod S] (the thread band) and unit u (gpu/register_tiling.py), the element is held in a
register over the whole [Tseq] subtree. The thread band is below the mark, so the printer
names the thread's coordinates itself (pc_t<k> = threadIdx: one thread per coordinate, which
we require: block size == tile size / register tile along every mapped dimension).

Legality, decided with isl on the access relations (gpu/promotion.py's conditions, with the
key [host, T, t, u] in place of the prefix at a subtree below the thread mark):
1. one element: for fixed key, the accesses of the array below the mark reach one element;
2. no other point: no instance of the same launch with another key (another block, thread or
   unit) accesses an element that the key's instances write, or writes one they access; the
   key's own instances run in schedule order on one thread, on the register;
3. every reference to the array is unconditional and affine (promotion.unsafe_arrays).
Profitable: the key's instances span more than one sequential tile (else promotion.py's scope
below the thread mark already holds the element for the whole of its use).
"""

from __future__ import annotations

import dataclasses

import islpy as isl

from polycuda.gpu import promotion, register_tiling, staging
from polycuda.gpu.plan import (  # noqa: F401 (CARRY_MARK: as before)
    CARRY_MARK, SHARED_MARK, CarriedElement, KernelMapping, MappedSchedule)
from polycuda.ir import isl_build
from polycuda.ir.scop import Scop

# isl steps of the search for one schedule; beyond, no carried registers (only a saving of
# memory traffic: the code without them keeps C in private scopes per k tile, or in memory)
CARRY_OPERATIONS = 2_000_000


def one_thread_per_point(kernel: KernelMapping) -> bool:
    """Whether each thread runs one coordinate of the thread band (block size == T / r)."""
    regs = kernel.register_tiles or (1,) * kernel.n
    return kernel.block_sizes == register_tiling.spacing(kernel.tile_sizes, regs)


def promote_carried(mapped: MappedSchedule, scop: Scop, accesses: staging.Accesses
                    ) -> MappedSchedule:
    """_promote_carried() within CARRY_OPERATIONS isl steps, else `mapped` unchanged."""
    return isl_build.within_operations(mapped.schedule.get_ctx(), CARRY_OPERATIONS,
                                       lambda: _promote_carried(mapped, scop, accesses),
                                       lambda: mapped)


def _promote_carried(mapped: MappedSchedule, scop: Scop, accesses: staging.Accesses
                     ) -> MappedSchedule:
    """The mapped schedule with a carry mark above the [Tseq] band of each kernel that carries
    an element, and each kernel's KernelMapping.carried."""
    if any(s.is_indirect() for s in scop.statements):
        return mapped
    reads = promotion.lift_access(accesses.reads, mapped.lift)
    writes = promotion.lift_access(accesses.writes, mapped.lift)
    unsafe = promotion.unsafe_arrays(scop)
    kernels = {k.name: k for k in mapped.kernels}
    root = mapped.schedule.get_root()
    found: dict[str, tuple[CarriedElement, ...]] = {}
    for name in [k.name for k in mapped.kernels if k.sequential_tiles]:
        shared = _shared_mark(root, name)
        kernel = kernels[name]
        if shared is None or not one_thread_per_point(kernel):
            continue
        seq_band = shared.parent()
        if seq_band.get_type() != isl.schedule_node_type.band:
            continue
        elements = _elements(seq_band, shared.child(0).child(0), kernel, reads, writes,
                             unsafe, accesses.dtypes)
        if elements:
            found[name] = elements
            mark = isl_build.named_id(root.get_ctx(), f"{CARRY_MARK}:{name}")
            root = seq_band.insert_mark(mark).get_schedule().get_root()
    if not found:
        return mapped
    new_kernels = tuple(dataclasses.replace(k, carried=found[k.name]) if k.name in found
                        else k for k in mapped.kernels)
    return MappedSchedule(root.get_schedule(), new_kernels, mapped.lift)


def _shared_mark(root: isl.ScheduleNode, kernel: str) -> isl.ScheduleNode | None:
    marks: list[isl.ScheduleNode] = []

    def visit(node: isl.ScheduleNode) -> bool:
        if (node.get_type() == isl.schedule_node_type.mark
                and node.mark_get_id().get_name() == f"{SHARED_MARK}:{kernel}"):
            marks.append(node.copy())
        return not marks

    root.foreach_descendant_top_down(visit)
    return marks[0] if marks else None


def _elements(seq_band: isl.ScheduleNode, thread_band: isl.ScheduleNode, kernel: KernelMapping,
              reads: isl.UnionMap, writes: isl.UnionMap, unsafe: dict[str, frozenset[str]],
              dtypes: dict[str, str]) -> tuple[CarriedElement, ...]:
    """The elements carried over `seq_band` (module docstring's conditions), by array name.

    # reads, writes: { S[x] -> A[a] } in the schedule's domain
    """
    domain = seq_band.get_domain()
    prefix = seq_band.get_prefix_schedule_union_map().intersect_domain(domain)  # [host, T]
    thread = thread_band.band_get_partial_schedule_union_map().intersect_domain(domain)
    if kernel.units is not None:
        thread = thread.flat_range_product(kernel.units.intersect_domain(domain))
    key = prefix.flat_range_product(thread)  # { S[x] -> [host, T, t, u] }
    host = promotion.kernel_mark(seq_band).get_prefix_schedule_union_map() \
        .intersect_domain(domain)
    other_points = host.apply_range(host.reverse()).subtract(key.apply_range(key.reverse()))
    tiles = seq_band.band_get_partial_schedule_union_map().intersect_domain(domain)
    reads, writes = reads.intersect_domain(domain), writes.intersect_domain(domain)
    everything = reads.union(writes)
    names: set[str] = set()
    domain.foreach_set(lambda s: names.update(unsafe.get(s.get_tuple_name(), frozenset())))
    box = tuple(r for r in kernel.register_tiles if r > 1)
    elements = []
    for array in promotion.array_names(everything):
        touched = promotion.of_array(everything, array)
        written = promotion.of_array(writes, array)
        if array in names or not touched.is_single_valued():
            continue
        by_key = key.intersect_domain(touched.domain())
        if not by_key.reverse().apply_range(touched).is_single_valued():
            continue  # condition 1
        if by_key.reverse().apply_range(tiles).is_single_valued():
            continue  # one sequential tile per key: nothing carried
        conflicts = written.apply_range(everything.reverse()).union(
            touched.apply_range(writes.reverse()))
        if not conflicts.intersect(other_points).is_empty():
            continue  # condition 2
        elements.append(CarriedElement(array, f"pc_c{len(elements)}", dtypes[array], touched,
                                       written, thread, box))
    return tuple(elements)
