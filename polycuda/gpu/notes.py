"""What each GPU mapping step did for one program, in words (`polycuda show passes`):
"kernel0 tiles 64x64 on 16x32 threads", "skipped: no wavefront band"."""

from __future__ import annotations

from collections.abc import Callable

from polycuda.gpu.plan import (DoallKernel, Kernel, KindTable, MappedSchedule, ReductionKernel,
                               SerialKernel, WavefrontKernel)
from polycuda.options import Options


def _x(sizes: tuple[int, ...]) -> str:
    return "x".join(map(str, sizes))


def _reduction(kernel: Kernel) -> str:
    assert isinstance(kernel, ReductionKernel)
    return f"reduction {kernel.reduction} ({kernel.reduction_combine})"


# How each kind of kernel runs, in words (every reduction kind: its operator and combine).
KIND_NOTES: KindTable[Callable[[Kernel], str]] = KindTable("note", {
    DoallKernel: lambda kernel: f"{kernel.n}-D blocks",
    WavefrontKernel: lambda kernel: "wavefront",
    SerialKernel: lambda kernel: "one thread",
    ReductionKernel: _reduction})


def mapping_note(mapped: MappedSchedule) -> str:
    """Each kernel and how it runs: "kernel0 2-D blocks, kernel1 wavefront"."""
    return ", ".join(f"{k.name} {KIND_NOTES[k](k)}" for k in mapped.kernels) or "no kernel"


def tiling_note(mapped: MappedSchedule) -> str:
    """The DOALL kernels' tiles, threads, sequential tiles and points per thread."""
    parts = []
    for k in mapped.kernels:
        if not isinstance(k, DoallKernel):
            continue
        text = f"{k.name} tiles {_x(k.tile_sizes)} on {_x(k.block_sizes)} threads"
        if k.sequential_tiles:
            text += f", sequential tiles {_x(k.sequential_tiles)}"
        if k.register_tiles:
            text += f", {_x(k.register_tiles)} points per thread"
        parts.append(text)
    return "; ".join(parts) or "skipped: no DOALL kernel"


def skewing_note(mapped: MappedSchedule) -> str:
    """The wavefront kernels' tiles and intra-tile wavefronts."""
    parts = [f"{k.name} tiles {_x(k.tile_sizes)} on {_x(k.block_sizes)} threads, intra-tile "
             f"{k.intra}" + (", grid-wide barrier" if k.grid_sync else "")
             for k in mapped.kernels if isinstance(k, WavefrontKernel)]
    return "; ".join(parts) or "skipped: no wavefront band"


def staging_note(mapped: MappedSchedule, options: Options) -> str:
    """The arrays staged per wavefront tile, or why none."""
    wavefronts = [k for k in mapped.kernels if isinstance(k, WavefrontKernel)]
    if not wavefronts:
        return "skipped: no wavefront kernel"
    if not (options.shared_staging and options.target == "cuda"):
        return "skipped: off (Options.shared_staging)"
    return "; ".join(f"{k.name} " + (", ".join(f"{a.array}[{_x(a.sizes)}]" for a in k.staged)
                                     or "none fits") for k in wavefronts)


def private_note(mapped: MappedSchedule, options: Options) -> str:
    """The elements held in registers per kernel (private scopes and carried elements)."""
    if options.target != "cuda" or not options.private_promotion:
        return "skipped: off (Options.private_promotion)"
    parts = []
    for k in mapped.kernels:
        names = sorted({e.array for scope in k.private for e in scope.elements}
                       | {e.array for e in k.carried})
        if names:
            carried = " (carried across sequential tiles)" if k.carried else ""
            parts.append(f"{k.name} {', '.join(names)}{carried}")
    return "; ".join(parts) or "nothing promoted"


def shared_note(mapped: MappedSchedule, options: Options) -> str:
    """The arrays held in shared memory per DOALL kernel, or why none."""
    if options.target != "cuda" or not options.shared_promotion:
        return "skipped: off (Options.shared_promotion)"
    parts = [f"{k.name} " + ", ".join(f"{a.array}[{_x(a.sizes)}]" for a in k.shared.arrays)
             for k in mapped.kernels if k.shared is not None and k.shared.arrays]
    if parts:
        return "; ".join(parts)
    if not any(k.sequential_tiles for k in mapped.kernels):
        return "skipped: no sequential loop in a kernel"
    return "nothing reused"
