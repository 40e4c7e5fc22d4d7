"""pipeline.compile_scop's named steps (issue 15 item 7): the steps run in order, each says what
it did for the program, `polycuda show passes` lists them; the step-by-step mapping equals
gpu/tiling.map_schedule's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import polycuda
from polycuda import cli, pipeline
from polycuda.options import Options

KERNELS = Path(__file__).resolve().parents[2] / "kernels" / "c"
MAPPING_STEPS = ["schedule", "mapping", "tiling", "wavefront skewing", "shared staging",
                 "legality check"]
LAST_STEPS = ["scheduler choice", "register promotion", "shared promotion", "AST build",
              "CUDA printing", "host version"]


def _steps(kernel: str, **options: object) -> dict[str, str]:
    prog = polycuda.compile((KERNELS / f"{kernel}.c").read_text(),
                            options=Options(target="cuda", **options))
    steps = prog.generate("cuda").steps
    assert all(s.seconds >= 0 for s in steps)
    return [(s.name, s.note) for s in steps]


def test_gemm_steps_in_order_with_their_notes():
    steps = _steps("gemm", scheduler="isl")
    names = [name for name, _ in steps]
    assert names == (["scalar expansion", "copies of original values", "dependences"]
                     + MAPPING_STEPS + LAST_STEPS)
    notes = dict(steps)
    assert notes["schedule"] == "isl scheduler"
    assert notes["tiling"].startswith("kernel0 tiles 64x64 on 16x32 threads, sequential tiles 32")
    assert notes["wavefront skewing"] == "skipped: no wavefront band"
    assert notes["shared promotion"] == "kernel0 A[64x32], B[32x64]"
    assert notes["register promotion"].startswith("kernel0 C")
    assert notes["legality check"] == "legal"


def test_auto_lists_each_candidates_mapping_then_the_choice():
    names = [name for name, _ in _steps("gemm")]
    # isl, pluto, isl-distributed; not superposition: gemm's least cost has one parametric
    # loop on the longest path (pipeline.AUTO_MIN_DEPTH)
    assert names.count("mapping") == len(pipeline.AUTO_SCHEDULERS["cuda"]) - 1 == 3
    assert names.index("scheduler choice") > max(k for k, n in enumerate(names) if n == "mapping")


def test_wavefront_kernel_skewed_not_tiled_and_staged_when_asked():
    notes = dict(_steps("jacobi_1d", scheduler="pluto"))
    assert notes["tiling"] == "skipped: no DOALL kernel"
    assert notes["wavefront skewing"].startswith("kernel0 tiles ")
    assert notes["shared staging"] == "skipped: off (Options.shared_staging)"
    notes = dict(_steps("jacobi_1d", scheduler="pluto", shared_staging=True))
    assert notes["shared staging"].startswith("kernel0 A[") and "B[" in notes["shared staging"]


def test_shared_promotion_off_says_so():
    notes = dict(_steps("gemm", scheduler="isl", shared_promotion=False))
    assert notes["shared promotion"] == "skipped: off (Options.shared_promotion)"
    assert "sequential tiles" not in notes["tiling"]


def test_show_passes_cli_json_and_text(capsys: pytest.CaptureFixture[str]):
    path = str(KERNELS / "gemver.c")
    assert cli.main(["show", "passes", path, "--target", "cuda", "--json"]) == 0
    steps = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in steps][-3:] == ["AST build", "CUDA printing", "host version"]
    mapping_notes = [s["note"] for s in steps if s["name"] == "mapping"]
    assert any("reduction +=" in note for note in mapping_notes)
    assert cli.main(["show", "passes", path, "--target", "openmp"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("region gemver:\n") and "OpenMP printing" in text
