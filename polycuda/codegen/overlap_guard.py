"""The entries' check for array arguments that share memory (issue 40).

Generated code reorders the reads and writes of a region on the assumption that its array
arguments are distinct (as PPCG does). Each entry first compares the byte ranges of its array
arguments; where a written array shares a byte with another one (`g(n, A, A)` from C), the host
entry runs the region's original code instead (`pc_<name>_original`: the untransformed
statements, sequential, in their textual order: the program as written) and the CUDA device
entry refuses the call (cudaErrorInvalidValue, with a message on stderr: its arrays are on the
device, where no sequential code runs). Arrays that are only read may share memory freely.
"""

from __future__ import annotations

import re

import islpy as isl

from polycuda.codegen import abi, ast_check, host_driver
from polycuda.codegen.c_target import CPrinter, array_elements
from polycuda.ir import isl_build
from polycuda.ir.scop import Arg, Scop

HELPER = """\
#ifndef PC_OVERLAP_RANGES_DEFINED
#define PC_OVERLAP_RANGES_DEFINED
#include <stdint.h>
/* Whether the byte ranges [a, a + na) and [b, b + nb) share a byte (an empty one never does):
   the entries' check of their array arguments (codegen/overlap_guard.py) */
static inline int pc_overlap_ranges(const void *a, size_t na, const void *b, size_t nb)
{
  const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return na != 0 && nb != 0 && x < y + nb && y < x + na;
}
#endif
"""


def checked_pairs(scop: Scop) -> list[tuple[Arg, Arg]]:
    """The pairs of array arguments that must not share memory: at least one of them written."""
    written = set(scop.written_arrays())
    arrays = [a for a in scop.args if a.kind == "array"]
    return [(a, b) for k, a in enumerate(arrays) for b in arrays[k + 1:]
            if a.name in written or b.name in written]


def _test_lines(scop: Scop, pairs: list[tuple[Arg, Arg]], action: list[str]) -> list[str]:
    """`{ sizes; if (any pair overlaps) action }` as entry lines (a block: its names stay
    out of the entry's own)."""
    names = sorted({a.name for pair in pairs for a in pair},
                   key=[a.name for a in scop.args].index)
    lines = ["  { /* polycuda: the code below assumes distinct arrays (overlap_guard.py) */"]
    lines += [f"    const size_t pc_span_{n} = {array_elements(scop.array(n))} * "
              f"sizeof({abi.C_TYPES[scop.array(n).dtype]});" for n in names]
    tests = [f"pc_overlap_ranges({a.name}, pc_span_{a.name}, {b.name}, pc_span_{b.name})"
             for a, b in pairs]
    joined = " ||\n        ".join(tests)
    lines.append(f"    if ({joined}) {{")
    return lines + [f"      {line}" for line in action] + ["    }", "  }"]


def original_function(scop: Scop) -> list[str]:
    """`static int pc_<name>_original(ARGS)`: the region's statements sequentially in their
    textual order (the c target of the original schedule), local arrays from calloc; 0."""
    ctx = isl.Context()
    ast = ast_check.original_ast(isl_build.context_set(scop, ctx),
                                 isl_build.original_schedule(scop, ctx))
    printer = CPrinter(scop, {}, openmp=False, shuffle=False)
    printer.node(ast, 1)
    locals_ = [a for a in scop.arrays if a.local]
    lines = [f"/* polycuda: region '{scop.name}' as written, run when its arrays share memory */",
             f"static int {abi.entry_name(scop, '_original')}({abi.arg_decls(scop)}) {{"]
    # a scalar of the region (a local array of no extent) on the stack: its address never
    # escapes, so the host compiler keeps it in a register as it does the program's own
    # scalar; a heap cell might alias the arguments and goes through memory in every loop
    scalars = [arr for arr in locals_ if not arr.shape]
    for arr in locals_:
        ctype = abi.C_TYPES[arr.dtype]
        lines.append(f"  {ctype} {arr.name}[1] = {{0}};" if arr in scalars else
                     f"  {ctype} *{arr.name} = ({ctype} *)calloc({array_elements(arr)}, "
                     f"sizeof({ctype}));")
    lines += printer.lines + [f"  free({arr.name});" for arr in locals_ if arr not in scalars]
    return lines + ["  return 0;", "}", ""]


def guard_source(scop: Scop, source: str, target: str) -> str:
    """`source` (generated for `target` from the transformed `scop`'s region; `scop`: the
    region as the frontend gave it) with the check at the start of its entries and, before
    the host entry, pc_<name>_original and the helper. Unchanged when no pair is checked."""
    pairs = checked_pairs(scop)
    if not pairs:
        return source
    names = ", ".join(a.name for a in scop.args)
    extern = 'extern "C" ' if target == "cuda" else ""
    run_original = [f"return {abi.entry_name(scop, '_original')}({names});"]
    # the helper in the part that the regions of a .cu share (cuda_host.join puts each
    # region's own definitions in a namespace; its guard would hide it from the next one)
    helper = [HELPER.rstrip("\n")]
    if target == "cuda":
        source = source.replace(abi.OWN_BEGIN + "\n", HELPER + abi.OWN_BEGIN + "\n", 1)
        helper = []
    # the host version of a CUDA region (codegen/host_choice.py) is this function already
    kept = f"static int {abi.entry_name(scop, '_original')}(" in source
    source = _around_entry(source, f"{extern}int {abi.entry_name(scop)}(",
                           [*helper, *([] if kept else original_function(scop))],
                           _test_lines(scop, pairs, run_original))
    if target != "cuda":
        return source
    dev = abi.entry_name(scop, "_dev")
    refuse = [f'fprintf(stderr, "polycuda: {dev}: a written array shares memory with another '
              'array argument; nothing was run\\n");', "return (int)cudaErrorInvalidValue;"]
    return _around_entry(source, f'extern "C" int {dev}(', [], _test_lines(scop, pairs, refuse))


def _around_entry(source: str, start: str, before: list[str], after: list[str]) -> str:
    """`source` with lines `before` the one line that opens the entry beginning with `start`
    (at a line's start: the outermost definition, not a variant's or a declaration) and
    `after` it and its index guard."""
    found = list(re.finditer(rf"^{re.escape(start)}.*\) \{{\n", source, re.M))
    assert len(found) == 1, f"overlap_guard: {len(found)} definitions of {start!r}"
    at = found[0]
    # after the entry's refusal of oversized arrays (host_driver.index_guard), whose extents
    # would overflow the byte spans computed here
    end = host_driver.INDEX_GUARD_LINES.match(source, at.end()).end()
    return "".join([source[:at.start()], *(line + "\n" for line in before), source[at.start():end],
                    *(line + "\n" for line in after), source[end:]])
