"""A host loop of kernel launches as one cooperative launch (Options.host_loops "grid"; issue
15, item 1: a sequential outer loop stays on the host, "or inside one kernel with grid-wide
barriers, whichever measures faster").

trisolv, cholesky and lu keep their outer loop sequential under every scheduler: the host runs
it and launches the inner parallel loops' kernels once per iteration (2 x 8192 launches for
trisolv at n = 8192). Here the loop runs inside one kernel instead. Each launch of its body
becomes a section of that kernel, followed by a grid-wide barrier (cooperative groups'
grid.sync(), which also makes the section's writes visible to every block, as a kernel
boundary does). The order of the instances is the one of the launches, so no dependence
changes: each section is the kernel's own printed body, run by the same (block, thread)
coordinates, and every barrier of the launch sequence is kept.

How a section runs on the fused grid. All blocks of a cooperative launch are resident at once,
so the grid is at most the SMs times the blocks per SM that the kernel's resources allow
(CUDA's occupancy API), and at most the blocks that the widest section would have launched.
The blocks are 1-D, of the most threads any section has. Section k, launched with grid
(gx, gy, gz) and block (bx, by, bz) before, sees:
- gridDim (gx', gy', gz'): gx' = min(gx, G), gy' = min(gy, G / gx'), gz' = min(gz, G / (gx'
  gy')) for the fused grid of G blocks; blocks from gx' gy' gz' on skip the section;
- blockIdx from the linear block index (x fastest), threadIdx from the linear thread index the
  same way, blockDim its own block; threads from bx by bz on skip the section.
A kernel's tile and point loops are grid- and block-stride loops that are correct on any grid
(cuda_target.py), so a smaller gridDim only gives a block more tiles. Only sections whose
threads never meet at a barrier or a warp shuffle are fused (a skipped thread would be missing
there), and none with shared memory; reduction, row/column/dual reduction and wavefront
kernels keep their launches, and a loop that holds one of them stays on the host.

One block (Shirako et al. 2017, Figure 3: a sequential loop inside the kernel, block-level
barriers between its parallel loops). A loop that the grid cannot run because a section meets
at a barrier (a reduction's tree in shared memory: durbin, whose k loop launched 7 kernels per
iteration) runs in one block instead: every section with the block's own threads (so no thread
skips a barrier), each grid-stride loop over a grid of one block, and __syncthreads() after
each section, which orders the sections' global writes within the block as a kernel boundary
does. One block has one SM: its parallel kernels may join only when their threads run no loop
of their own (grid_strided_only), and with Options.host_loops "auto" it runs only when the loop
has at least MIN_TRIPS iterations and no section would have launched more than
BLOCK_MAX_BLOCKS blocks in any of them (the host walks the loop first, as for the grid); else
the launches.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import islpy as isl

from polycuda.codegen.printer import for_parts

_AXES = ("x", "y", "z")
# CUDA's built-in index variables, which a section's text uses as its own launch would
_BUILTIN = re.compile(r"\b(threadIdx|blockIdx|blockDim|gridDim)\.([xyz])\b")
# Options.host_loops "auto": the loop in one cooperative launch when it runs at least this many
# iterations, else launches. H100 (hostloops.json, hostloops-stencil.json; 2026-11-25):
# one launch per iteration cost trisolv (8192 iterations) 2.7-3.2x, lu 2.0x, cholesky and
# ludcmp (2000) 1.3x and 1.8x, sor_2d's isl wavefronts 1.25x; 20 time steps of heat_3d and
# jacobi_3d (256^3) ran 2-4% faster as launches, jacobi_2d's (4096^2) 6% slower. At 64 steps
# jacobi_2d ran 7% faster fused, heat_3d 2% slower; at 128, 256 and 512 both within 0.5%
# (trips-T*.json). Below 64 only the 20-step runs were measured.
MIN_TRIPS = 128
# Options.host_loops "auto" fuses only loops whose kernels have at most this many grid
# dimensions. The fused grid deals a 3-D kernel's tiles to blocks by a fixed split of its
# blocks over z, where launches schedule them as blocks free up: heat_3d at PolyBench LARGE
# (120^3, 500 steps) ran 16.1 ms fused against 14.5 launched (ppcg-hostloops-7432e50.json),
# 256^3 1-4% slower; every 1-D and 2-D loop measured ran as fast or faster fused.
AUTO_DIMS = 2
# Options.host_loops "auto" runs a loop in one block only when no section of it would have
# launched more blocks than this in any iteration: each grid-stride section then takes at most
# this many turns of the one block, against a launch (a few microseconds) each. A turn costs
# a few percent of a launch, so the one block stays ahead well past this limit; a limit of 8
# sent durbin at n = 4000 (16 blocks a section) back to its launches, slower than the
# sequential program (bench/results/2026-12-03-nvidia-h200-one-block-turns.json).
BLOCK_MAX_BLOCKS = 64
# What a thread that skips a section must not miss
_COLLECTIVE = ("__syncthreads", "__shfl", "__syncwarp", ".sync()")


@dataclass(frozen=True)
class Section:
    """One kernel launch of the loop's body, to run inside the fused kernel.

    counts: its grid's block counts (x first), C expressions in the host iterators;
    threads: its block's threads (x first); lines: its body, as printed for its own launch.
    """

    name: str
    counts: tuple[str, ...]
    threads: tuple[int, ...]
    lines: tuple[str, ...]


def body_marks(loop: isl.AstNode) -> list[isl.AstNode] | None:
    """The kernel marks that are the whole body of host loop `loop` (a mark, or a block of
    marks), in order; None for any other body (nested host loops, conditions)."""
    body = loop.for_get_body()
    if body.get_type() == isl.ast_node_type.mark:
        return [body]
    if body.get_type() != isl.ast_node_type.block:
        return None
    children = body.block_get_children()
    nodes = [children.get_at(k) for k in range(children.n_ast_node())]
    if any(n.get_type() != isl.ast_node_type.mark for n in nodes):
        return None
    return nodes


def fusable(lines: list[str]) -> bool:
    """Whether a kernel body (printed lines) may run as a section: no barrier or warp
    collective, which threads skipping the section would miss."""
    return not any(token in line for line in lines for token in _COLLECTIVE)


def grid_strided_only(lines: list[str]) -> bool:
    """Whether every loop of a kernel body (printed lines) is a grid-stride loop over its
    blocks: its threads run no loop of their own. In one block, such a kernel costs a turn
    per block of its grid; one whose threads loop (gramschmidt's update under isl, over m)
    costs those loops once per block too, one block after another: 2.0x slower than its
    launches on the H100 (bench/results/2026-11-26-nvidia-h100-80gb-hbm3-one-block.json)."""
    return all("gridDim" in line for line in lines if line.lstrip().startswith("for ("))


def one_block_fusable(sections: list[Section]) -> bool:
    """Whether `sections` may run in one block: every section with a barrier or a warp
    collective has the block's threads (none of them skips it)."""
    threads = block_threads(sections)
    return all(fusable(list(s.lines)) or math.prod(s.threads) == threads for s in sections)


def block_threads(sections: list[Section]) -> int:
    """Threads of the fused kernel's 1-D blocks: the most of any section."""
    return max(math.prod(s.threads) for s in sections)


def _clamped(count: str, limit: str) -> str:
    return f"pc_min(pc_max((long long)({count}), 1LL), (long long)({limit}))"


def section_lines(section: Section, indent: str, one_block: bool = False) -> list[str]:
    """The section's code in the fused kernel, then the grid-wide barrier (pc_grid); with
    `one_block`, on a grid of one block, then __syncthreads()."""
    body = "\n".join(section.lines)
    used = set(_BUILTIN.findall(body))
    n = 0 if one_block else len(section.counts)
    out = [f"{indent}{{  /* {section.name} */"]
    inner = indent + "  "
    grid = []  # the section's gridDim per axis
    for axis in range(n):
        room = "pc_blocks" if axis == 0 else f"pc_blocks / ({' * '.join(grid)})"
        name = f"pc_g{_AXES[axis]}"
        out.append(f"{inner}const unsigned {name} = (unsigned)"
                   f"{_clamped(section.counts[axis], room)};")
        grid.append(name)
    threads = f"threadIdx.x < {math.prod(section.threads)}u"
    out.append(f"{inner}if ({threads}) {{" if one_block else
               f"{inner}if (blockIdx.x < {' * '.join(grid) or '1u'} && {threads}) {{")
    values = {}
    for axis in range(3):
        a = _AXES[axis]
        outer_grid = " * ".join(grid[:axis]) or "1u"
        values[("gridDim", a)] = grid[axis] if axis < n else "1u"
        linear = "blockIdx.x" if axis == 0 else f"(blockIdx.x / ({outer_grid}))"
        values[("blockIdx", a)] = f"{linear} % {grid[axis]}" if axis < n else "0u"
        size = section.threads[axis] if axis < len(section.threads) else 1
        outer_threads = math.prod(section.threads[:axis])
        values[("blockDim", a)] = f"{size}u"
        linear = "threadIdx.x" if axis == 0 else f"(threadIdx.x / {outer_threads}u)"
        values[("threadIdx", a)] = f"{linear} % {size}u"
    for builtin, a in sorted(used):
        out.append(f"{inner}  const unsigned pc_{builtin}_{a} = {values[(builtin, a)]};")
    body = _BUILTIN.sub(lambda m: f"pc_{m.group(1)}_{m.group(2)}", body)
    out += [f"{inner}  {line}" for line in body.split("\n")]
    out.append(f"{inner}}}")
    out.append(f"{indent}}}")
    out.append(f"{indent}{'__syncthreads()' if one_block else 'pc_grid.sync()'};")
    return out


def kernel_source(name: str, decl: str, loop: isl.AstNode, sections: list[Section],
                  one_block: bool = False) -> str:
    """The fused kernel: the loop, each iteration its sections in order, a grid-wide barrier
    after each; with `one_block`, for a grid of one block, a block barrier after each."""
    it, init, cond, inc = for_parts(loop)
    threads = block_threads(sections)
    lines = [f"__global__ void __launch_bounds__({threads}) {name}({decl}) {{"]
    if not one_block:
        lines += ["  cooperative_groups::grid_group pc_grid = cooperative_groups::this_grid();",
                  "  const unsigned pc_blocks = gridDim.x;"]
    lines.append(f"  for (int {it} = {init}; {cond}; {it} += {inc}) {{")
    for section in sections:
        lines += section_lines(section, "    ", one_block)
    lines += ["  }", "}"]
    return "\n".join(lines)


def launch_lines(name: str, loop: isl.AstNode, sections: list[Section],
                 params: list[tuple[str, str]], min_trips: int | None) -> list[str]:
    """The host's cooperative launch of the fused kernel `name`; params: (C type, argument).
    With `min_trips`, only when the loop runs at least that many iterations (and a block
    fits): the lines then end inside `else {`, where the caller prints the loop's launches,
    and closes it.

    The grid: the most blocks that any section would have launched in any iteration (the
    host walks the loop's iterations; each count capped first, so no product overflows),
    at most the blocks resident at once."""
    it, init, cond, inc = for_parts(loop)
    threads = block_threads(sections)
    lines = [*resident_cap(name, str(threads), 0, required=min_trips is None),
             "long long pc_g = 1, pc_trips = 0;",
             f"for (long long {it} = {init}; {cond}; {it} += {inc}) {{",
             "  pc_trips += 1;"]
    for section in sections:
        product = " * ".join(_clamped(c, "pc_cap") for c in section.counts) or "1LL"
        lines.append(f"  pc_g = pc_max(pc_g, {product});")
    lines += ["}", "pc_g = pc_min(pc_g, pc_cap);"]
    launch = cooperative_launch(name, "(unsigned)pc_g", str(threads), params, 0)
    if min_trips is None:
        return lines + launch
    return lines + [f"if (pc_trips >= {min_trips} && pc_cap >= 1) {{",
                    *[f"  {x}" for x in launch],
                    "} else {"]


def one_block_launch_lines(name: str, loop: isl.AstNode, sections: list[Section],
                           args: str, auto: bool) -> list[str]:
    """The host's launch of the one-block kernel `name`; args: its arguments. With `auto`,
    only when the loop runs at least MIN_TRIPS iterations and no section would have launched
    more than BLOCK_MAX_BLOCKS blocks in any of them (the host walks the loop's iterations):
    the lines then end inside `else {`, where the caller prints the loop's launches, and
    closes it."""
    launch = f"{name}<<<dim3(1), dim3({block_threads(sections)})>>>({args});"
    if not auto:
        return [launch]
    it, init, cond, inc = for_parts(loop)
    most = f"{BLOCK_MAX_BLOCKS + 1}LL"
    lines = ["long long pc_g = 1, pc_trips = 0;",
             f"for (long long {it} = {init}; {cond}; {it} += {inc}) {{",
             "  pc_trips += 1;"]
    for section in sections:
        product = " * ".join(_clamped(c, most) for c in section.counts) or "1LL"
        lines.append(f"  pc_g = pc_max(pc_g, {product});")
    return lines + ["}", f"if (pc_trips >= {MIN_TRIPS} && pc_g <= {BLOCK_MAX_BLOCKS}) {{",
                    f"  {launch}", "} else {"]


def resident_cap(name: str, threads: str, shared: int, required: bool = True) -> list[str]:
    """Host lines that set pc_cap to the blocks of kernel `name` (of `threads` threads and
    `shared` bytes of dynamic shared memory) resident at once on the device, the most that
    a cooperative launch may have (CUDA's occupancy API); when `required`, an error code
    when none fits."""
    lines = ["int pc_dev = 0, pc_sms = 0, pc_per_sm = 0;",
            "PC_CHECK(cudaGetDevice(&pc_dev));",
            ("PC_CHECK(cudaDeviceGetAttribute(&pc_sms, cudaDevAttrMultiProcessorCount, "
             "pc_dev));"),
            (f"PC_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&pc_per_sm, {name}, "
             f"{threads}, {shared}));"),
            "long long pc_cap = (long long)pc_sms * pc_per_sm;"]
    if required:
        lines.append("if (pc_cap < 1) return (int)cudaErrorCooperativeLaunchTooLarge;")
    return lines


def cooperative_launch(name: str, grid: str, block: str, params: list[tuple[str, str]],
                       shared: int) -> list[str]:
    """Host lines of a cooperative launch of `name` (its arguments through pointers, as
    cudaLaunchCooperativeKernel takes them); params: (C type, argument) of each parameter."""
    lines, pointers = [], []
    for k, (ctype, arg) in enumerate(params):
        lines.append(f"{ctype.replace('__restrict__', '').strip()} pc_a{k} = {arg};")
        pointers.append(f"(void *)&pc_a{k}")
    lines.append(f"void *pc_args[] = {{{', '.join(pointers)}}};")
    lines.append(f"PC_CHECK(cudaLaunchCooperativeKernel((void *){name}, dim3({grid}), "
                 f"dim3({block}), pc_args, {shared}, 0));")
    return lines


def note(source: str) -> str:
    """For `show passes`: the host loops of generated CUDA `source` that run in one
    cooperative launch or in one block (their kernels, and when), or ""."""
    out = ""
    for how in ("one cooperative launch", "one block"):
        found = re.findall(rf"/\* (\S+): {how}( when it runs \d+ iterations or more[^*]*)? "
                           r"\*/", source)
        if found:
            width = f", of at most {BLOCK_MAX_BLOCKS} blocks per kernel" if how == "one block" \
                else ""
            when = f" (from {MIN_TRIPS} iterations on{width})" if any(w for _, w in found) else ""
            out += f"; host loops in {how}{when}: " + ", ".join(k for k, _ in found)
    return out

