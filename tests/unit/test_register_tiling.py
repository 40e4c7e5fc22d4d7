"""Register tiling of DOALL kernels (gpu/register_tiling.py): each thread runs r x c points,
unrolled and jammed, their accumulators in registers (gpu/promotion.py); the emulator verifies
the generated CUDA against the original."""

from __future__ import annotations

import re

import pytest

import polycuda
from kernels import suite
from polycuda.errors import InvalidConfigError
from polycuda.options import Options
from tests.unit.test_promotion import GEMM, GEMM_SIZES, _emulated_ok, _kernels_text

PROMOTED = re.compile(r"\bpc_p\d")  # a private register (pc_p0, ...), not the host pc_pins


def _gemm(**options: object) -> polycuda.Program:
    return polycuda.compile(str(GEMM.c_path), function=GEMM.function,
                            options=Options(target="cuda", shared_promotion=False, **options))


def test_gemm_2x2_holds_four_accumulators_and_loads_each_c_element_once():
    prog = _gemm(register_tiles=(2, 2))
    generated = prog.generate("cuda")
    (kernel,) = generated.kernels
    assert kernel.register_tiles == (2, 2) and kernel.block_sizes == (4, 16)  # tiles 8 x 32
    text = _kernels_text(generated.source)
    registers = [f"pc_p0_{u}_{v}" for u in range(2) for v in range(2)]
    loop = text[text.index("for (int c4"):]
    depth, end = 0, loop.index("{")
    for end in range(loop.index("{"), len(loop)):  # the k loop, up to its closing brace
        depth += {"{": 1, "}": -1}.get(loop[end], 0)
        if depth == 0:
            break
    loop = loop[:end]
    # copies of the thread's code: the full tiles' (isolated, gpu/tiling.py) and the others'
    copies = len(re.findall(r"double pc_p0_0_0 = (C\[|NAN;)", text))
    assert copies >= 2, text
    for reg in registers:
        assert re.search(rf"double {reg} = (C\[|NAN;)", text), text
        assert len(re.findall(rf"{reg} \+= \(\(alpha \* A\[", loop)) == 1, loop
        assert len(re.findall(rf"C\[[^;]*\] = {reg};", text)) == copies, text
    assert "C[" not in loop, loop
    assert text.count("C[") == 8 * copies, text  # four loads, four stores in each copy
    assert _emulated_ok(prog, GEMM_SIZES)


def test_units_without_promotion_verify():
    prog = _gemm(register_tiles=(4, 2), private_promotion=False)
    assert not PROMOTED.search(prog.generate("cuda").source)
    assert _emulated_ok(prog, GEMM_SIZES)


def test_a_register_tile_must_divide_its_tile_size():
    with pytest.raises(InvalidConfigError, match="does not divide tile size 8"):
        _gemm(register_tiles=(3, 2)).generate("cuda")
    with pytest.raises(InvalidConfigError):
        Options(register_tiles=(0,))


def test_a_unit_that_varies_with_the_parameters_gets_no_registers():
    """deriche's fused kernel runs `y2[w - 1][j] = 0` at point coordinate (w - 1) mod 256: isl
    leaves its unit loop as one copy whose unit depends on w, so the copy's scope must keep
    y2 in memory (it once took unit 1 for every w and lost the zero of unit 0)."""
    kernel = suite.by_name("deriche")
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(target="cuda", shared_promotion=False, register_tiles=(2,)))
    assert _emulated_ok(prog, dict(kernel.small))
    assert _emulated_ok(prog, {"w": 300, "h": 5})


@pytest.mark.parametrize("name", ["two_mm", "atax", "gemver", "syr2k", "covariance"])
def test_register_tiled_suite_kernels_verify(name):
    kernel = suite.by_name(name)
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(target="cuda", shared_promotion=False, register_tiles=(2, 2)))
    assert any(k.register_tiles for k in prog.generate("cuda").kernels)
    assert _emulated_ok(prog, dict(kernel.small))
