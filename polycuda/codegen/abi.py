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
of the region are allocated inside the entry. The reference build of C input defines
`int pc_ref_<scop.name>(ARGS)` with the same arguments, calling the user's own function.
"""

from __future__ import annotations

from polycuda.ir.scop import Arg, Scop

# An entry of a region with run-time nests returns INDEX_ERROR_BASE + k when a subscript read
# from an index array falls outside the extent of scop.arrays[k] (found by the inspector before
# any write; codegen/inspector_cuda.py), and INDEX_ERROR_BASE + len(scop.arrays) + k when the
# bounds of a loop that reads them from scop.arrays[k] decrease or leave an extent (csr.py)
INDEX_ERROR_BASE = 100000

C_TYPES = {"int": "int", "long": "long long", "float": "float", "double": "double"}


def entry_name(scop: Scop, suffix: str = "") -> str:
    return f"pc_{scop.name}{suffix}"


def arg_decl(arg: Arg) -> str:
    if arg.kind == "param":
        return f"long long {arg.name}"
    if arg.kind == "scalar":
        return f"{C_TYPES[arg.dtype]} {arg.name}"
    return f"{C_TYPES[arg.dtype]} *{arg.name}"


def arg_decls(scop: Scop) -> str:
    return ", ".join(arg_decl(a) for a in scop.args) or "void"
