"""Kernel parameters: no __restrict__ on the written arrays of a kernel that both reads and
writes an array (codegen/cuda_target.read_and_written: nvcc 13 miscompiled such a kernel of
deriche on the H100 with it, and on the H200 with __restrict__ everywhere), `const ...
*__restrict__` on the arrays a kernel only reads (bench/results/2026-12-02-nvidia-h200-
restrict.json)."""

import re

import polycuda
from kernels import suite
from polycuda.options import Options


def _signatures(name: str, **options) -> dict[str, str]:
    kernel = suite.by_name(name)
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(target="cuda", **options))
    source = prog.generate("cuda").source
    return {m.group(1): m.group(2) for m in re.finditer(
        r"__global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(([^)]*)\)", source)}


def test_a_recurrence_kernel_takes_no_restrict_and_a_pure_one_keeps_it():
    """deriche's backward row pass reads and writes y2 (y2[j] from y2[j+1], y2[j+2]) and reads
    imgIn; its final sum imgOut = y1 + y2 only reads y1, y2 and only writes imgOut."""
    signatures = _signatures("deriche").values()
    recurrences = [params for params in signatures if "double *y2" in params]
    assert recurrences
    unrestricted = [re.sub(r"const \w+ \*__restrict__ \w+", "", params)
                    for params in recurrences]
    assert all("__restrict__" not in params for params in unrestricted)
    assert any("const double *__restrict__ imgIn" in params for params in recurrences)
    assert any("double *__restrict__ imgOut" in params and "double *__restrict__ y2" in params
               for params in signatures)


def test_gemm_accumulating_into_c_takes_no_restrict():
    (params,) = _signatures("gemm").values()
    assert "double *C" in params
    assert "const double *__restrict__ A" in params and "const double *__restrict__ B" in params
    assert "__restrict__" not in re.sub(r"const \w+ \*__restrict__ \w+", "", params)


def test_a_cooperative_launch_of_unrestricted_parameters_compiles(tmp_path):
    """The grid-synchronised wavefront's host code declares a variable of each parameter's type
    for cudaLaunchCooperativeKernel: `double *A` must stay a pointer there (it once became
    `double`, which only nvcc noticed)."""
    from polycuda.runtime import build

    kernel = suite.by_name("jacobi_1d")
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(target="cuda", scheduler="pluto",
                                            wavefront_sync="grid"))
    source = prog.generate("cuda").source
    assert "cudaLaunchCooperativeKernel" in source
    assert re.search(r"double \*\s*pc_a\d+ = A;", source)
    assert build.build_shared(source, "cuda", cache=tmp_path).exists()
