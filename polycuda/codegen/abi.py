"""The calling convention shared by generated code, the runtime and the reference builds.

Every generated source (targets c, openmp, cuda) defines one entry per region:

    int pc_<scop.name>(ARGS)        host pointers; returns 0 on success
    int pc_<scop.name>_dev(ARGS)    CUDA only: device pointers, runs in place; returns the
                                    cudaError_t as int (0 = success)
    int pc_<scop.name>_release(void)  CUDA only, when Options.host_buffers / host_copies
                                    are not the defaults: frees the device buffers and the
                                    page-locked staging buffer kept across calls (0 = success;
                                    call it before cudaDeviceReset)
    void pc_<scop.name>_fail(int err)  CUDA only: prints the entry's name and the CUDA error
                                    (number, name, message) on stderr, then exit(EXIT_FAILURE);
                                    the rewritten C of `polycuda compile --target cuda` calls
                                    it when pc_<scop.name> returns non-zero

ARGS follow `scop.args` in order: a "param" is `long long name`, a "scalar" is passed by value
with its C type, an "array" is `T *name`: flat, row-major, contiguous, with the sizes of
`Array.shape` evaluated at the parameter values. CUDA entries are `extern "C"`. Local arrays
of the region are allocated inside the entry. An entry whose written array argument shares a
byte with another array argument runs `static int pc_<scop.name>_original(ARGS)` (the region as
written, sequential) instead; `pc_<scop.name>_dev` returns cudaErrorInvalidValue then
(overlap_guard.py). The reference build of C input defines `int pc_ref_<scop.name>(ARGS)` with
the same arguments, calling the user's own function.
"""

from __future__ import annotations

import re

from polycuda.errors import SourceLoc, UnsupportedConstruct
from polycuda.ir import dtypes
from polycuda.ir.scop import Arg, Scop

# An entry of a region with run-time nests returns INDEX_ERROR_BASE + k when a subscript read
# from an index array falls outside the extent of scop.arrays[k] (found by the inspector before
# any write; codegen/inspector_cuda.py), and INDEX_ERROR_BASE + len(scop.arrays) + k when the
# bounds of a loop that reads them from scop.arrays[k] decrease or leave an extent (csr.py)
INDEX_ERROR_BASE = 100000

# An entry of a region from Python returns ZERO_DIVISION_ERROR + k when the region divided
# Python numbers by 0, k: 0 `//`, 1 `%` (integers), 2 `/` of integers, 3 `/` of floats (also
# inside float `//` and `%`); the divisions were skipped (codegen/zero_division.py) and the
# launcher raises ZeroDivisionError with Python's message
ZERO_DIVISION_ERROR = 99001
ZERO_DIVISION_MESSAGES = {ZERO_DIVISION_ERROR: "integer division or modulo by zero",
                          ZERO_DIVISION_ERROR + 1: "integer modulo by zero",
                          ZERO_DIVISION_ERROR + 2: "division by zero",
                          ZERO_DIVISION_ERROR + 3: "float division by zero"}

C_TYPES = dtypes.C_NAMES  # "long" is "long long": 64-bit on every host and device


# A generated .cu is three parts: what the regions of one file share (includes, helpers, each
# guarded so that it is defined once), the region's own definitions between these two lines,
# and the optional main (test_main.py). `polycuda compile` of a C file with several regions
# joins their parts (cuda_host.join): the shared parts first, each region's own definitions in
# a namespace of its own (kernel names, run-time nest kernels and their state do not clash),
# one main.
OWN_BEGIN = "/* polycuda: the region's own definitions */"
OWN_END = "/* polycuda: end of the region's own definitions */"


def entry_name(scop: Scop, suffix: str = "") -> str:
    return f"pc_{scop.name}{suffix}"


# What entry_name(scop) is followed by in the identifiers that a region defines at file scope:
# its entries (above), its host states (host_driver.py) and the counters of its run-time nests
# (inspector_cuda.py, executor_cuda.py, chunking_cuda.py), which the loader reads by name
REGION_SUFFIXES = (
    "", "_dev", "_release", "_fail", "_at_exit", "_state", "_dev_state", "_levels",
    "_iterations", "_executor", "_reused", "_widest", "_inspect_s", "_inspect_s_wall",
    "_execute_s", "_fallback_below", "_level_s", "_level_measured", "_host_iter_s",
    "_host_measured", "_host_used_measured", "_chunk_steps", "_run", "_streams", "_cpu", "_gpu",
    "_variant", "_kept", "_kept_bytes", "_original", "_divided", "_dev_divided",
    "_ran", "_force", "_host_version", "_dev_on_host")

# The identifiers of polycuda's own code in a generated file: the helpers (ir/c_expr.py,
# cuda_host.py, c_target.py, overlap_guard.py, zero_division.py), the host side
# (host_driver.py), the warp sum, the emulator (runtime/), the reference build (frontend/c.py), and the numbered kernels and locks of
# run-time nests (inspector_cuda.py, executor_cuda.py, syncfree_affine.py)
RUNTIME_IDENTIFIER = re.compile(
    r"pc_(floord|ceild|min|max|minmax(64)?|signed_int|mod|elements|trip|elapsed"
    r"|host_(state|guard|buffer|stage|pins|release|streams|copies)|stage_(in|out)"
    r"|overlap(_wait|_out|_state|_release|_ranges)?|zero_division(s|s_dev|_counts|_error)?"
    r"|(div|rem)_(py|np)|[tf]div_py|warp_sum(_emu)?|emu(_\w*)?"
    r"|ref_(region|copy)_\w+"
    r"|(check|chunks|writer|reader|clear|exec|count|place|sync|mutex|affwarp|affsync)\d+"
    r"|differ\d+_\d+)")


# What entry_name(scop) is followed by, then a number, in identifiers a region defines at file
# scope: the C and OpenMP targets' sequential functions (c_target.CPrinter._sequential_function)
REGION_NUMBERED = ("_seq",)


def region_identifiers(name: str) -> tuple[str, ...]:
    """The file-scope identifiers of a region named `name` (REGION_SUFFIXES), and the entry of
    its reference build."""
    return tuple(f"pc_{name}{suffix}" for suffix in REGION_SUFFIXES) + (f"pc_ref_{name}",)


def check_region_names(scops: list[Scop] | tuple[Scop, ...]) -> None:
    """Refuse a region whose identifiers would be one of polycuda's own or one of another
    region's of the same file (a C function `host` makes `pc_host_state`, the host side's
    type; functions `f` and `f_dev` both make `pc_f_dev`): the generated file would not
    build.

    Raises:
        UnsupportedConstruct: naming the region's file and line, the identifier and the
            region it clashes with.
    """
    seen: dict[str, str] = {}  # identifier -> the region that defines it
    checked: set[str] = set()  # the regions so far, whose numbered identifiers are taken
    owners: dict[str, str] = {}  # name -> the first of `seen` that is pc_<name>_seq<k>
    for scop in scops:
        mine = region_identifiers(scop.name)
        why = next((f"its identifier '{i}' is one of polycuda's own" for i in mine
                    if RUNTIME_IDENTIFIER.fullmatch(i)), None)
        if why is None and entry_name(scop) in seen and seen[entry_name(scop)] == scop.name:
            why = (f"the name is given twice (the k-th further region of a function f is "
                   f"named f_k); its identifier '{entry_name(scop)}' would be defined twice")
        if why is None:
            why = next((f"its identifier '{i}' is also one of region '{seen[i]}'" for i in mine
                        if i in seen), None)
        if why is None:  # a function f_seq0 beside f: f's C target defines pc_f_seq0
            why = next((f"its identifier '{i}' is also one of region '{numbered_owner(i)}'"
                        for i in mine if numbered_owner(i) in checked), None)
            if why is None and scop.name in owners:
                taken = owners[scop.name]
                why = (f"its C target's identifiers 'pc_{scop.name}_seq<k>' take '{taken}' of "
                       f"region '{seen[taken]}'")
            checked.add(scop.name)
        if why is not None:
            raise UnsupportedConstruct(f"region '{scop.name}' cannot be compiled: {why}; rename "
                                       "its function", _region_loc(scop))
        seen.update(dict.fromkeys(mine, scop.name))
        for i in mine:
            owner = numbered_owner(i)
            if owner is not None:
                owners.setdefault(owner, i)


# pc_<name>_seq<k>: <name> is the region whose numbered identifier it would be (one split: the
# suffix must be followed by digits alone), looked up instead of matching every region's pattern
_NUMBERED = re.compile(rf"pc_(.+)(?:{'|'.join(REGION_NUMBERED)})\d+")


def numbered_owner(identifier: str) -> str | None:
    """The region name whose numbered file-scope identifiers (pc_<name><REGION_NUMBERED><k>)
    include `identifier`, if any."""
    match = _NUMBERED.fullmatch(identifier)
    return match.group(1) if match else None


def _region_loc(scop: Scop) -> SourceLoc | None:
    src = scop.source
    if src is None:
        return None
    return SourceLoc(src.file, src.first_line)


def arg_decl(arg: Arg) -> str:
    if arg.kind == "param":
        return f"long long {arg.name}"
    if arg.kind == "scalar":
        return f"{C_TYPES[arg.dtype]} {arg.name}"
    return f"{C_TYPES[arg.dtype]} *{arg.name}"


def arg_decls(scop: Scop) -> str:
    return ", ".join(arg_decl(a) for a in scop.args) or "void"
