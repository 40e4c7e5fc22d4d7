"""Private (register) promotion in DOALL kernels (Baskaran et al. 2008, data management:
allocation, access functions, copy code; PPCG's private memory).

Below the thread-mapped point loops of a kernel, one thread runs a sequence of statement
instances. An array element that every access to its array inside a subtree of that sequence
reaches (for fixed values of the loops around the subtree) lives in a register there: loaded
before the subtree where a read sees a value from before it, stored after it where the subtree
writes it. The subtree is marked `private:<kernel>:<k>` in the schedule tree; the CUDA printer
(codegen/cuda_target.py) prints the loads, stores and the register in place of the array.

Legality, decided with isl on the access relations and the schedule tree (never on text):
1. one element: for fixed values of the prefix schedule at the subtree (host loops, tile and
   point loops, loops between), the accesses of the array inside the subtree reach a single
   element, so no other access inside it can alias the register's element;
2. no other thread: no instance of the same launch (same host loops) with other tile or point
   coordinates accesses that element, unless neither access writes. The mapping's parallel
   check (legality.check_parallel: no dependence between two points of one launch) implies it;
   it is checked again here directly, on the accesses, so that promotion does not rest on it.
   Instances before and after the subtree on the same point run on the same thread, in order,
   and see memory as the original does: the register is loaded at entry and stored at exit.
3. every reference to the array in the subtree's statements is unconditional and visible to
   the access relations (no reference inside a ternary's branch, a short-circuit operand or a
   written element's subscript): the load reads only an element that the program reads.

In a register-tiled kernel (gpu/register_tiling.py) a thread runs several points (units) in
one unrolled code: the same holds with the unit added to the prefix (one element, and one
register, per unit), and condition 2 counts another unit of the thread as another point.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import islpy as isl

from polycuda.gpu import staging
from polycuda.gpu.plan import (  # noqa: F401 (PRIVATE_MARK, PrivateElement: as before)
    PRIVATE_MARK, KernelMapping, MappedSchedule, PrivateElement, PrivateScope)
from polycuda.ir import isl_build
from polycuda.ir.expr import BinOp, Expr, Ref, Ternary, children
from polycuda.ir.scop import Scop

# isl steps that the search may take; beyond, no promotion (it only saves memory traffic, and
# the code without it is correct). Every suite kernel, with and without register_tiles=(2, 2),
# is promoted the same under this limit as under none; at a twentieth of it, register-tiled
# two_mm, three_mm, covariance, symm, correlation, deriche and adi lose their registers.
PROMOTION_OPERATIONS = 5_000_000


def promote_private(mapped: MappedSchedule, scop: Scop, accesses: staging.Accesses
                    ) -> MappedSchedule:
    """_promote_private() within PROMOTION_OPERATIONS isl steps, else `mapped` unchanged."""
    return isl_build.within_operations(mapped.schedule.get_ctx(), PROMOTION_OPERATIONS,
                                       lambda: _promote_private(mapped, scop, accesses),
                                       lambda: mapped)


def _promote_private(mapped: MappedSchedule, scop: Scop, accesses: staging.Accesses
                     ) -> MappedSchedule:
    """The mapped schedule with `private:<kernel>:<k>` marks above the subtrees that hold array
    elements in registers, and each kernel's PrivateScopes (KernelMapping.private).

    Only DOALL kernels (not serial, not wavefront) are promoted; an element is promoted at the
    outermost subtree below the point band where the module docstring's conditions hold and
    the subtree runs more than one instance that accesses it (else a register saves nothing).

    # accesses: { S[x] -> A[a] } reads and writes in the scop's statement space; the schedule's
    #           domain is its image under mapped.lift ({ S[x] -> S[x, T] })
    """
    lifted = _Lifted(lift_access(accesses.reads, mapped.lift),
                     lift_access(accesses.writes, mapped.lift), accesses.dtypes,
                     unsafe_arrays(scop), mapped.schedule.get_map())
    kernels = {k.name: k for k in mapped.kernels}
    root = mapped.schedule.get_root()
    found: dict[str, list[PrivateScope]] = {}
    for path in _thread_mark_paths(root):
        mark = _at(root, path)
        name = mark.mark_get_id().get_name().partition(":")[2]
        if kernels[name].wavefront or mark.child(0).n_children() == 0:
            continue
        promoter = _Promoter(lifted, kernels[name], mark.child(0).child(0))
        # elements carried across a shared scope's sequential tiles hold their registers
        # above this subtree (gpu/carry.py)
        carried = frozenset(e.array for e in kernels[name].carried)
        body = promoter.visit(mark.child(0).child(0), carried)
        root = body.get_schedule().get_root()
        if promoter.scopes:
            found[name] = promoter.scopes
    if not found:
        return mapped
    new_kernels = tuple(dataclasses.replace(k, private=tuple(found[k.name]))
                        if k.name in found else k for k in mapped.kernels)
    return MappedSchedule(root.get_schedule(), new_kernels, mapped.lift)


@dataclass(frozen=True)
class _Lifted:
    """The scop's accesses in the schedule's domain, and what else the search needs.

    # reads, writes: { S[x, T] -> A[a] };  full: { S[x, T] -> [s0, ..., sn] } the schedule
    """

    reads: isl.UnionMap
    writes: isl.UnionMap
    dtypes: dict[str, str]
    unsafe: dict[str, frozenset[str]]  # statement -> arrays with hidden/conditional refs
    full: isl.UnionMap


class _Promoter:
    """The search below one kernel's point band (`body`: the point band's child)."""

    def __init__(self, lifted: _Lifted, kernel: KernelMapping, body: isl.ScheduleNode):
        self.lifted = lifted
        self.kernel = kernel.name
        self.units = kernel.units  # { S[x] -> [u] } of a register-tiled kernel
        self.box = tuple(r for r in kernel.register_tiles if r > 1)
        self.scopes: list[PrivateScope] = []
        self.registers = 0
        domain = body.get_domain()
        # point: { S[x] -> [host, tiles, points] } (threads and units);  host: { S[x] -> [host] }
        # (a shared scope's sequential tile loops, between the blocks and the threads, run on
        # every thread: they are not part of a point)
        kernel_node = kernel_mark(body)
        host = kernel_node.get_prefix_schedule_union_map()
        point = self._keyed(host.flat_range_product(
            kernel_node.child(0).band_get_partial_schedule_union_map()).flat_range_product(
            body.parent().band_get_partial_schedule_union_map()))
        same_host = host.apply_range(host.reverse())
        # { S[x] -> R[y] }: instances of one launch that run on other points (threads, blocks)
        self.other_points = same_host.subtract(point.apply_range(point.reverse())) \
            .intersect_domain(domain).intersect_range(domain)
        self.kernel_writes = lifted.writes.intersect_domain(domain)
        self.kernel_accesses = lifted.reads.union(lifted.writes).intersect_domain(domain)

    def _keyed(self, prefix: isl.UnionMap) -> isl.UnionMap:
        """{ S[x] -> [p] } -> { S[x] -> [p, u] }: with the unit, in a register-tiled kernel."""
        return prefix if self.units is None else prefix.flat_range_product(self.units)

    def visit(self, node: isl.ScheduleNode, promoted: frozenset[str]) -> isl.ScheduleNode:
        """Mark the subtree at `node` and below; returns the node at the same position (the
        inserted mark, where one was)."""
        kind = node.get_type()
        if kind == isl.schedule_node_type.leaf:
            return node
        elements: tuple[PrivateElement, ...] = ()
        if kind != isl.schedule_node_type.filter:  # a mark cannot sit above a filter
            elements = self._elements(node, promoted)
        if elements:
            mark = f"{self.kernel}:{len(self.scopes)}"
            self.scopes.append(PrivateScope(mark, elements))
            node = node.insert_mark(isl_build.named_id(node.get_ctx(), f"{PRIVATE_MARK}:{mark}"))
            node = node.child(0)
            promoted = promoted | {e.array for e in elements}
        for k in range(node.n_children()):
            node = self.visit(node.child(k), promoted).parent()
        return node.parent() if elements else node

    def _elements(self, node: isl.ScheduleNode, promoted: frozenset[str]
                  ) -> tuple[PrivateElement, ...]:
        """The elements that the subtree at `node` can hold in registers (arrays not promoted
        around it), in array-name order."""
        domain = node.get_domain()
        prefix = node.get_prefix_schedule_union_map().intersect_domain(domain)
        reads = self.lifted.reads.intersect_domain(domain)
        writes = self.lifted.writes.intersect_domain(domain)
        unsafe = self._unsafe(domain)
        elements = []
        for array in array_names(reads.union(writes)):
            if array in promoted or array in unsafe:
                continue
            element = self._element(array, prefix, of_array(reads, array),
                                    of_array(writes, array))
            if element is not None:
                elements.append(element)
        return tuple(elements)

    def _element(self, array: str, prefix: isl.UnionMap, reads: isl.UnionMap,
                 writes: isl.UnionMap) -> PrivateElement | None:
        """The array's element as a register over the subtree whose prefix schedule is
        `prefix` (one per unit of a register-tiled kernel), or None when it is not provably
        a single private element or saves nothing.

        # prefix: { S[x] -> [p] };  reads, writes: { S[x] -> A[a] } of `array` in the subtree
        """
        touched = reads.union(writes)
        key = self._keyed(prefix)  # { S[x] -> [p, u] }
        # condition 1: { [p, u] -> A[a] } single-valued (first the cheap necessary condition
        # that no instance touches two elements: a stencil's neighbours fail it at once)
        if not touched.is_single_valued():
            return None
        if not key.reverse().apply_range(touched).is_single_valued():
            return None
        # profitable: more than one accessing instance for some [p, u]
        if key.intersect_domain(touched.domain()).reverse().is_single_valued():
            return None
        # condition 2: no instance on another point (another thread, block, or unit of this
        # thread in a register-tiled kernel) shares the element, when one writes
        writer_pairs = writes.apply_range(self.kernel_accesses.reverse()).union(
            touched.apply_range(of_array(self.kernel_writes, array).reverse()))
        if not writer_pairs.intersect(self.other_points).is_empty():
            return None
        register = f"pc_p{self.registers}"
        self.registers += 1
        loads, covers = self._uncovered(key, reads, writes)
        return PrivateElement(array, register, self.lifted.dtypes[array], touched, loads,
                              writes.domain(), self.units, self.box, covers)

    def _uncovered(self, key: isl.UnionMap, reads: isl.UnionMap, writes: isl.UnionMap
                   ) -> tuple[isl.UnionSet, isl.UnionMap | None]:
        """The reading instances that no write of the subtree precedes with the same prefix
        and unit (a statement reads before it writes: its own write never covers its read),
        and the pairs { W[y] -> R[x] } of a write before a read (None: no writes).

        # key: { S[x] -> [p, u] };  returns { S[x] }, { W[y] -> R[x] }
        """
        readers, writers = reads.domain(), writes.domain()
        if writers.is_empty():
            return readers, None
        full = self.lifted.full.intersect_domain(readers.union(writers))
        same = key.apply_range(key.reverse())
        before = full.lex_lt_union_map(full).intersect(same)
        covers = before.intersect_domain(writers).intersect_range(readers)
        return readers.subtract(covers.range()), covers

    def _unsafe(self, domain: isl.UnionSet) -> frozenset[str]:
        """Arrays with a reference that condition 3 excludes, in the statements of `domain`."""
        names: set[str] = set()
        domain.foreach_set(lambda s: names.update(
            self.lifted.unsafe.get(s.get_tuple_name(), frozenset())))
        return frozenset(names)


def kernel_mark(node: isl.ScheduleNode) -> isl.ScheduleNode:
    """The `kernel:` mark above `node` (its prefix schedule: the host loops; a shared mark and
    sequential tile loops may lie between it and the thread mark, gpu/shared_promotion.py)."""
    while not (node.get_type() == isl.schedule_node_type.mark
               and node.mark_get_id().get_name().startswith("kernel:")):
        node = node.parent()
    return node


def _thread_mark_paths(root: isl.ScheduleNode) -> list[tuple[int, ...]]:
    """Child positions from the root to each `thread:` mark, in tree order."""
    paths: list[tuple[int, ...]] = []

    def visit(node: isl.ScheduleNode) -> bool:
        if (node.get_type() == isl.schedule_node_type.mark
                and node.mark_get_id().get_name().startswith("thread:")):
            paths.append(_path(node))
        return True

    root.foreach_descendant_top_down(visit)
    return paths


def _path(node: isl.ScheduleNode) -> tuple[int, ...]:
    positions = []
    while node.has_parent():
        positions.append(node.get_child_position())
        node = node.parent()
    return tuple(reversed(positions))


def _at(root: isl.ScheduleNode, path: tuple[int, ...]) -> isl.ScheduleNode:
    for k in path:
        root = root.child(k)
    return root


def lift_access(access: isl.UnionMap, lift: isl.UnionMap) -> isl.UnionMap:
    # { S[x] -> A[a] } -> { S[x, T] -> A[a] }
    return lift.reverse().apply_range(access)


def array_names(access: isl.UnionMap) -> list[str]:
    names: set[str] = set()
    access.foreach_map(lambda m: names.add(m.get_tuple_name(isl.dim_type.out)))
    return sorted(names)


def of_array(access: isl.UnionMap, array: str) -> isl.UnionMap:
    """The part of `access` ({ S[x] -> A[a] }) that reaches `array`."""
    result = isl.UnionMap.empty(access.get_space())
    for part in isl_build.maps_of(access):
        if part.get_tuple_name(isl.dim_type.out) == array:
            result = result.union(isl.UnionMap.from_map(part))
    return result


def unsafe_arrays(scop: Scop) -> dict[str, frozenset[str]]:
    """Per statement, the arrays referenced where condition 3 (module docstring) fails: in a
    subscript of the written element, a ternary's branch or a short-circuit operand."""
    result = {}
    for stmt in scop.statements:
        names = {r.array for index in stmt.lhs.index for r in _all_refs(index)}
        names |= _conditional_arrays(stmt.rhs, conditional=False)
        result[stmt.name] = frozenset(names)
    return result


def _all_refs(expr: Expr) -> list[Ref]:
    found = [expr] if isinstance(expr, Ref) else []
    for child in children(expr):
        found += _all_refs(child)
    return found


def _conditional_arrays(expr: Expr, conditional: bool) -> set[str]:
    """Arrays referenced inside `expr` where evaluation is conditional (or everywhere below
    when `conditional`)."""
    if conditional:
        return {r.array for r in _all_refs(expr)}
    if isinstance(expr, Ternary):
        return (_conditional_arrays(expr.cond, False) | _conditional_arrays(expr.then, True)
                | _conditional_arrays(expr.other, True))
    if isinstance(expr, BinOp) and expr.op in ("&&", "||"):
        return _conditional_arrays(expr.lhs, False) | _conditional_arrays(expr.rhs, True)
    names: set[str] = set()
    for child in children(expr):
        names |= _conditional_arrays(child, False)
    return names

