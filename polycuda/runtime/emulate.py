"""Target "emulate": a generated .cu file compiled as C++ by g++ and run on the CPU.

`translate` puts cuda_emu.h in front of the source and rewrites each kernel launch into a call
of the emulator's launcher, which runs every block of the grid (seeded shuffled order) and every
thread of each block (as fibers with real barriers when the kernel calls __syncthreads; then
the blocks that the emulated device holds at once interleave, as resident blocks do);
cooperative launches run all threads of the grid as fibers, with a real grid.sync(). The
`extern "C"` entries then behave as on a GPU, on host memory: CI checks the CUDA code's
thread mapping, barriers and shared memory without a GPU.
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from polycuda.runtime import build

# Package data, put in front of the source in this order; RUNTIME defines what they declare
# (build.py compiles it once into an object that emulated libraries link).
HEADERS = ("cuda_emu.h", "cuda_emu_device.h", "cuda_emu_api.h")
RUNTIME = "cuda_emu_runtime.cpp"
_CUDA_INCLUDE = re.compile(
    r"^[ \t]*#[ \t]*include[ \t]*[<\"](cuda_runtime|cuda_runtime_api|cuda|"
    r"device_launch_parameters|cuda_device_runtime_api|cooperative_groups)\.h[>\"][^\n]*$",
    re.MULTILINE)
_QUALIFIER = re.compile(r"\b(__global__|__device__)\b")
_ATTRIBUTE_CALLS = ("__launch_bounds__", "__align__", "__attribute__", "alignas")
_DYNAMIC_SHARED = re.compile(
    r"\bextern\s+__shared__\s+(?:__align__\s*\([^)]*\)\s*)?(?P<type>[A-Za-z_][\w\s:*]*?)"
    r"\s*(?P<name>[A-Za-z_]\w*)\s*\[\s*\]\s*;")
_STATIC_SHARED = re.compile(
    r"\b__shared__\s+(?:__align__\s*\([^)]*\)\s*)?[A-Za-z_][\w\s:]*?[\s*]"
    r"(?P<name>[A-Za-z_]\w*)\s*(?:\[[^\];]*\]\s*)*;")
_OPEN, _CLOSE = "([{", ")]}"
# What may reach a block barrier: __syncthreads*, or cooperative_groups' block.sync(); or
# a spin-wait's yield (PC_SPIN_YIELD, cuda_emu.h's spin_yield), which also needs fibers; or a
# warp shuffle (cuda_emu_device.h: two block barriers).
_BARRIER = re.compile(
    r"__syncthreads|\bthis_thread_block\b|\bPC_SPIN_YIELD\b|\b__shfl_xor_sync\b")
_COOPERATIVE_LAUNCH = re.compile(r"\bcudaLaunchCooperativeKernel\s*\(")
# The kernel argument of a cooperative launch: `(void *)k`, `(const void *)k` or `k`.
_COOPERATIVE_KERNEL = re.compile(
    r"(?:\(\s*(?:const\s+)?void\s*\*\s*\)\s*)?(?P<kernel>[A-Za-z_][\w:]*(?:\s*<[^<>]*>)?)")


@dataclass(frozen=True)
class Function:
    """A __global__ or __device__ function definition: name, kind and body span (braces)."""

    name: str
    kernel: bool
    body: tuple[int, int]


def translate(cuda_source: str, *, filename: str = "kernel.cu", header: Path | None = None
              ) -> str:
    """The C++ text that g++ builds for target "emulate": the emulator's headers and runtime
    (or an #include of `header`, a file that holds the headers: build.py's precompiled copy,
    with the runtime linked as an object), then `cuda_source`.

    Comments are blanked (line numbers kept: errors point into the .cu file through #line),
    CUDA runtime and cooperative groups includes dropped, launches (`<<<>>>` and
    cudaLaunchCooperativeKernel) rewritten, `extern __shared__` arrays pointed at the launch's
    dynamic shared memory, and every `__shared__` array poisoned at block start.

    Raises:
        ValueError: a launch the emulator cannot run (e.g. cudaLaunchCooperativeKernel of a
            kernel given other than as `(void *)name`, `(const void *)name` or `name`).

    Example:
        >>> "pc_emu::launch(false" in translate("__global__ void k(){}\\nvoid f(){k<<<1,1>>>();}")
        True
    """
    code, masked = strip_comments(cuda_source)
    functions = find_functions(masked)
    barriers = barrier_functions(masked, functions)
    kernels = {f.name for f in functions if f.kernel}
    edits = [(m.start(), m.end(), "") for m in _CUDA_INCLUDE.finditer(masked)]
    edits += launch_edits(code, masked, kernels, barriers)
    edits += cooperative_edits(code, masked)
    edits += shared_edits(code, masked, functions)
    text = apply_edits(code, edits)
    if header is None:
        prelude = emulation_header() + emulation_runtime()
    else:
        prelude = f'#include "{header}"'
    return f'{prelude}\n#line 1 "{filename}"\n{text}'


@lru_cache(maxsize=1)
def emulation_header() -> str:
    """The emulator's C++ headers (package data next to this module), concatenated."""
    package = resources.files("polycuda.runtime")
    return "".join(package.joinpath(name).read_text() for name in HEADERS)


@lru_cache(maxsize=1)
def emulation_runtime() -> str:
    """The emulator's runtime (package data): compiled after emulation_header()."""
    return resources.files("polycuda.runtime").joinpath(RUNTIME).read_text()


def build_emulated(cuda_source: str, *, seed: int | None = None, flags: tuple[str, ...] = (),
                   cache: Path | None = None) -> Path:
    """Build a .cu file for the CPU emulator (g++ -std=c++20 -O1 -pthread), cached.

    Args:
        cuda_source: the CUDA text, exactly as nvcc would get it.
        seed: default seed of the shuffled orders (also settable later with `set_seed`).
        flags: extra g++ flags (e.g. "-DPC_EMU_UCONTEXT" for the portable fiber switch).

    Raises:
        BuildError: g++ rejected the translated source.
    """
    extra = (f"-DPC_EMU_SEED={int(seed)}ULL",) if seed is not None else ()
    return build.build_shared(cuda_source, "emulate", flags=tuple(flags) + extra, cache=cache)


def kernel_barriers(cuda_source: str) -> dict[str, bool]:
    """Each kernel's name -> whether the emulator runs it with fibers (it may reach a barrier)."""
    _, masked = strip_comments(cuda_source)
    functions = find_functions(masked)
    barriers = barrier_functions(masked, functions)
    return {f.name: f.name in barriers for f in functions if f.kernel}


# -- control of a loaded emulated library -------------------------------------------------------
def set_seed(lib: ctypes.CDLL, seed: int) -> None:
    """Restart the shuffled block/thread orders of `lib` from `seed`."""
    lib.pc_emu_set_seed(ctypes.c_ulonglong(seed & (2**64 - 1)))


def reset_error(lib: ctypes.CDLL) -> None:
    """Clear this thread's emulated CUDA error state (sticky errors included)."""
    lib.pc_emu_reset()


def take_error(lib: ctypes.CDLL) -> tuple[int, str]:
    """(cudaError_t code, message) of this thread's emulated CUDA state; (0, "") if none."""
    buf = ctypes.create_string_buffer(512)
    code = lib.pc_emu_error(buf, ctypes.c_int(len(buf)))
    return int(code), buf.value.decode(errors="replace")


def pinned_ranges(lib: ctypes.CDLL) -> int:
    """Page-locked host ranges of `lib` not yet given back (cudaMallocHost, cudaHostRegister)."""
    return int(lib.pc_emu_pinned_ranges())


def pins_made(lib: ctypes.CDLL) -> int:
    """Page-locked host ranges `lib` made since it was loaded (given back or not)."""
    return int(lib.pc_emu_pins_made())


def live_allocations(lib: ctypes.CDLL) -> int:
    """cudaMalloc allocations of `lib` not yet freed (an entry that leaks shows here)."""
    return int(lib.pc_emu_live_allocations())


# -- source scanning ------------------------------------------------------------------------------
def strip_comments(source: str) -> tuple[str, str]:
    """(source with comments blanked, the same with string/char literal contents blanked too).

    Both keep every character position and newline of `source`.
    """
    code, masked = list(source), list(source)
    i, n = 0, len(source)
    while i < n:
        two = source[i:i + 2]
        if two in ("//", "/*"):
            end = source.find("\n", i) if two == "//" else source.find("*/", i + 2)
            end = n if end < 0 else (end if two == "//" else end + 2)
            for k in range(i, end):
                if source[k] != "\n":
                    code[k] = masked[k] = " "
            i = end
        elif source[i] in "\"'":
            end = _literal_end(source, i)
            for k in range(i + 1, end - 1):
                masked[k] = " "
            i = end
        else:
            i += 1
    return "".join(code), "".join(masked)


def _literal_end(source: str, start: int) -> int:
    quote, i = source[start], start + 1
    while i < len(source) and source[i] != quote and source[i] != "\n":
        i += 2 if source[i] == "\\" else 1
    return min(i + 1, len(source))


def match_close(masked: str, pos: int) -> int:
    """Index just past the bracket that closes the one at `pos` (any of ( [ {)."""
    depth = 0
    for i in range(pos, len(masked)):
        ch = masked[i]
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
            if depth == 0:
                return i + 1
    raise ValueError(f"unbalanced '{masked[pos]}' at offset {pos} of the CUDA source")


def find_functions(masked: str) -> list[Function]:
    """Every __global__/__device__ function definition of the (masked) source."""
    found: dict[int, Function] = {}
    for m in _QUALIFIER.finditer(masked):
        fn = _function_at(masked, m.end(), m.group(1) == "__global__")
        if fn is not None:
            found.setdefault(fn.body[0], fn)
    return sorted(found.values(), key=lambda f: f.body)


def _function_at(masked: str, pos: int, kernel: bool) -> Function | None:
    """The function whose declaration continues at `pos` (after a qualifier), if defined here."""
    token = re.compile(r"[(;{=\[]")
    while True:
        m = token.search(masked, pos)
        if m is None or m.group() != "(":
            return None
        name = re.search(r"([A-Za-z_]\w*)\s*$", masked[pos:m.start()])
        if name is None:
            return None
        pos = match_close(masked, m.start())
        if name.group(1) not in _ATTRIBUTE_CALLS:
            break
    after = re.compile(r"[;{]").search(masked, pos)
    if after is None or after.group() == ";":
        return None
    return Function(name.group(1), kernel, (after.start(), match_close(masked, after.start())))


def barrier_functions(masked: str, functions: list[Function]) -> set[str]:
    """Names of the functions that may reach a block barrier (directly or through calls).

    A barrier is __syncthreads*, or this_thread_block() (whose sync() is one). One outside
    every function body (in a macro) marks every function.
    """
    bodies: dict[str, str] = {}
    for fn in functions:
        bodies[fn.name] = bodies.get(fn.name, "") + masked[fn.body[0]:fn.body[1]]
    if any(not _inside(m.start(), functions) for m in _BARRIER.finditer(masked)):
        return set(bodies)
    with_barrier = {name for name, body in bodies.items() if _BARRIER.search(body)}
    changed = True
    while changed:
        changed = False
        for name, body in bodies.items():
            if name not in with_barrier and any(
                    re.search(rf"\b{re.escape(g)}\s*[(<]", body) for g in with_barrier):
                with_barrier.add(name)
                changed = True
    return with_barrier


# -- rewriting ------------------------------------------------------------------------------------
Edit = tuple[int, int, str]


def launch_edits(code: str, masked: str, kernels: set[str], barriers: set[str]) -> list[Edit]:
    """`k<<<grid, block[, shmem[, stream]]>>>(args)` -> `pc_emu::launch(B, grid, ..., k, args)`.

    B is false only for a kernel defined in this source that cannot reach a barrier.
    """
    edits = []
    for m in re.finditer(r"<<<", masked):
        start = _callee_start(masked, m.start())
        callee = code[start:m.start()].strip()
        config_end = _config_end(masked, m.end())
        config = split_top_level(code[m.end():config_end], masked[m.end():config_end])
        if not 2 <= len(config) <= 4:
            raise ValueError(f"launch of {callee} has {len(config)} configuration values "
                             "(expected 2 to 4)")
        open_paren = re.compile(r"\s*\(").match(masked, config_end + 3)
        if open_paren is None:
            raise ValueError(f"launch of {callee}: no argument list after '>>>'")
        close = match_close(masked, open_paren.end() - 1)
        args = code[open_paren.end():close - 1]
        base = re.sub(r"<.*", "", callee).split("::")[-1].strip()
        flag = "false" if base in kernels and base not in barriers else "true"
        shmem = config[2] if len(config) > 2 else "0"
        stream = config[3] if len(config) > 3 else "0"
        call = (f"pc_emu::launch({flag}, {config[0]}, {config[1]}, {shmem}, {stream}, {callee}"
                + (f", {args}" if args.strip() else "") + ")")
        original = code[start:close]
        call += "\n" * max(0, original.count("\n") - call.count("\n"))
        edits.append((start, close, call))
    return edits


def cooperative_edits(code: str, masked: str) -> list[Edit]:
    """`cudaLaunchCooperativeKernel((void *)k, grid, block, args[, shmem[, stream]])` ->
    `pc_emu::launch_cooperative(k, grid, block, args[, shmem[, stream]])`.

    The launcher takes k's parameter types from k itself, so k must be named (possibly with
    template arguments), not computed.
    """
    edits = []
    for m in _COOPERATIVE_LAUNCH.finditer(masked):
        close = match_close(masked, m.end() - 1)
        args = split_top_level(code[m.end():close - 1], masked[m.end():close - 1])
        if not 4 <= len(args) <= 6:
            raise ValueError(f"cudaLaunchCooperativeKernel with {len(args)} arguments "
                             "(expected 4 to 6)")
        kernel = _COOPERATIVE_KERNEL.fullmatch(args[0])
        if kernel is None:
            raise ValueError(f"cudaLaunchCooperativeKernel({args[0]}, ...): the emulator needs "
                             "the kernel as `(void *)name`, `(const void *)name` or `name`")
        call = f"pc_emu::launch_cooperative({', '.join([kernel['kernel'], *args[1:]])})"
        call += "\n" * max(0, code[m.start():close].count("\n") - call.count("\n"))
        edits.append((m.start(), close, call))
    return edits


def _callee_start(masked: str, pos: int) -> int:
    """Start of the kernel expression that ends before `<<<` at `pos` (`ns::k<T, 4>`)."""
    j = pos
    while j > 0 and masked[j - 1].isspace():
        j -= 1
    if j > 0 and masked[j - 1] == ">":  # explicit template arguments
        depth = 0
        while j > 0:
            j -= 1
            depth += {">": 1, "<": -1}.get(masked[j], 0)
            if depth == 0:
                break
    while j > 0 and (masked[j - 1].isalnum() or masked[j - 1] in "_:"):
        j -= 1
    return j


def _config_end(masked: str, pos: int) -> int:
    """Index of the `>>>` that closes the launch configuration starting at `pos`."""
    depth = 0
    for i in range(pos, len(masked)):
        if depth == 0 and masked.startswith(">>>", i):
            return i
        if masked[i] in _OPEN:
            depth += 1
        elif masked[i] in _CLOSE:
            depth -= 1
    raise ValueError("a '<<<' launch without its '>>>'")


def split_top_level(text: str, masked: str) -> list[str]:
    """Split `text` at the commas outside brackets (positions taken from `masked`)."""
    parts, depth, last = [], 0, 0
    for i, ch in enumerate(masked):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[last:i].strip())
            last = i + 1
    parts.append(text[last:].strip())
    return parts


def shared_edits(code: str, masked: str, functions: list[Function]) -> list[Edit]:
    """Dynamic shared arrays -> the block's buffer; static ones poisoned once per block.

    Static ones at namespace scope are only registered, for cooperative launches.
    """
    edits: list[Edit] = []
    dynamic_spans = []
    for m in _DYNAMIC_SHARED.finditer(masked):
        ctype, name = code[m.start("type"):m.end("type")].strip(), m.group("name")
        buffer = f"reinterpret_cast<{ctype} *>(pc_emu::dynamic_shared())"
        if _inside(m.start(), functions):
            edits.append((m.start(), m.end(), f"{ctype} *{name} = {buffer};"))
        else:  # namespace scope: each use must see the current launch's buffer
            edits.append((m.start(), m.end(), f"#define {name} ({buffer})"))
        dynamic_spans.append((m.start(), m.end()))
    for m in _STATIC_SHARED.finditer(masked):
        if any(a <= m.start() < b for a, b in dynamic_spans):
            continue
        name = m.group("name")
        if _inside(m.start(), functions):
            edits.append((m.end(), m.end(), f" pc_emu::shared_init(&{name}, sizeof({name}));"))
        else:  # per block in cooperative launches: registered for them (poisoned there only)
            edits.append((m.end(), m.end(), (
                f" static pc_emu::SharedAtNamespace pc_emu_shared_{name}([]() {{ "
                f"return pc_emu::SharedSpan{{&{name}, sizeof({name})}}; }});")))
    return edits


def _inside(pos: int, functions: list[Function]) -> bool:
    return any(f.body[0] < pos < f.body[1] for f in functions)


def apply_edits(text: str, edits: list[Edit]) -> str:
    """`text` with each (start, end, replacement) applied; edits must not overlap."""
    out, last = [], 0
    for start, end, replacement in sorted(edits):
        if start < last:
            raise ValueError(f"overlapping rewrites at offset {start} of the CUDA source")
        out += [text[last:start], replacement]
        last = end
    out.append(text[last:])
    return "".join(out)
