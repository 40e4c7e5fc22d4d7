"""Golden tests: the generated C and CUDA text of the paper examples (the stencils of Di et al.
2012: jacobi-1d, jacobi-2d, SOR, FDTD-2D; and gemm), and the default CUDA of the dense kernels
whose mapping the PPCG comparison rests on (gemm, symm twice, doitgen, gemver, trmm: expansion,
copies, reductions, promotion, the auto scheduler), diffed against committed files.

A change of the generated code shows as a diff here; after checking it, rewrite the files with
`pytest tests/golden --update-golden` and commit them with the change.
"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

import polycuda
from kernels import suite
from polycuda.options import Options

GOLDEN_DIR = Path(__file__).resolve().parent / "files"
KERNELS = ("jacobi_1d", "jacobi_2d", "sor_2d", "fdtd_2d", "gemm")
# the PPCG-like baseline and the paper's own configuration (Pluto, balanced wavefronts)
CONFIGS = {"isl": Options(scheduler="isl"),
           "pluto-balanced": Options(scheduler="pluto", balanced_wavefront=True),
           "default": Options()}
TARGETS = {"c": ".c", "cuda": ".cu"}
DENSE = ("gemm", "symm", "symm_scatter", "doitgen", "gemver", "trmm")
CASES = ([(k, c, t) for k in KERNELS for c in ("isl", "pluto-balanced") for t in TARGETS]
         + [(k, "default", "cuda") for k in DENSE])


def golden_path(kernel: str, config: str, target: str) -> Path:
    return GOLDEN_DIR / f"{kernel}.{config}{TARGETS[target]}"


def generated(kernel: str, config: str, target: str) -> str:
    k = suite.by_name(kernel)
    prog = polycuda.compile(str(k.c_path), function=k.function, options=CONFIGS[config])
    return prog.generate(target).source


@pytest.mark.parametrize("kernel, config, target", CASES)
def test_generated_code_matches_golden(kernel, config, target, update_golden):
    text = generated(kernel, config, target)
    path = golden_path(kernel, config, target)
    if update_golden:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return
    assert path.exists(), f"{path} is missing: run pytest tests/golden --update-golden"
    want = path.read_text()
    if text != want:
        diff = "".join(difflib.unified_diff(want.splitlines(True), text.splitlines(True),
                                            f"golden/{path.name}", "generated", n=2))
        pytest.fail(f"generated code differs from {path.name} "
                    f"(rewrite with --update-golden if intended):\n{diff[:6000]}")


def test_every_golden_file_belongs_to_a_case():
    expected = {golden_path(*case).name for case in CASES}
    present = {p.name for p in GOLDEN_DIR.iterdir()} if GOLDEN_DIR.exists() else set()
    assert present <= expected, f"stale golden files: {sorted(present - expected)}"
