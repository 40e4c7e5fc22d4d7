"""The generated CUDA keeps clear of a ptxas miscompile (bench/repro/ptxas_minmax3.cu): optimised
ptxas fuses two 32-bit integer max (or min) operations with a negated operand into one VIMNMX3
and drops the negation. The helpers compute integer min and max in 64-bit inline PTX, so the
PTX of a generated kernel holds no 32-bit integer min or max for ptxas to fuse. The program is
the minimised form of tests/fuzz seed 61035, wrong on the H200 before the workaround: its loop
over blocks started at max(..., -((n + 61) / 64), ...) computed with the sign lost."""

from __future__ import annotations

import re
import subprocess

import pytest

import polycuda
from polycuda.errors import ToolNotFoundError
from polycuda.runtime import device
from tests.fuzz.harness import CONFIGS

SOURCE = """
void fuzz(int n, double alpha, double A[n + 1])
{
  int i, j;
#pragma scop
  for (i = n - 1; i >= 1; i--) {
    for (j = 2; j < n - 1; j++) {
      A[i + 1] = 0.5 * A[i - 1] + alpha;
    }
  }
#pragma endscop
}
"""
SIZES = {"n": 7}


def _program() -> polycuda.Program:
    return polycuda.compile(SOURCE, options=CONFIGS["pluto-balanced"], filename="fuzz.c")


def test_the_ptx_of_a_generated_kernel_has_no_32_bit_integer_min_or_max(tmp_path):
    try:
        nvcc = device.find_nvcc()
    except ToolNotFoundError as err:
        pytest.skip(str(err))
    source = _program().generate("cuda").source
    assert "pc_max(" in source and "(-(" in source  # the shape that ptxas got wrong
    cu = tmp_path / "kernel.cu"
    cu.write_text(source)
    ptx = tmp_path / "kernel.ptx"
    subprocess.run([nvcc, "-O3", "-arch=sm_90", "-ptx", str(cu), "-o", str(ptx)], check=True,
                   capture_output=True, timeout=300)
    kernels = re.findall(r"\.entry[^{]*\{.*?\n\}", ptx.read_text(), re.S)
    assert kernels
    for body in kernels:
        assert not re.search(r"\b(min|max)\.[su]32\b", body), body
        assert re.search(r"\b(min|max)\.s64\b", body), body


def test_the_helpers_compute_the_same_bounds_in_the_emulator():
    results = _program().verify(SIZES, targets=("emulate",), seed=61035, raise_on_mismatch=False)
    assert all(r.ok for r in results), [r.message for r in results]


@pytest.mark.gpu
def test_the_minimised_program_is_right_on_the_gpu():
    results = _program().verify(SIZES, targets=("cuda",), seed=61035, raise_on_mismatch=False)
    assert all(r.ok for r in results), [r.message for r in results]
