"""Per-kernel sizes (polycuda/size_plan.py, issue 46 step 2): a plan in PPCG's --sizes notation
sizes the kernels it names and no other; the plan a compile used (`show sizes`,
--dump-sizes) given back gives the same code; bad plans are refused with what is wrong."""

from __future__ import annotations

import json
import re

import pytest

from kernels import suite
from polycuda import cli, size_plan
from polycuda.errors import InvalidConfigError
from polycuda.frontend import c as cfront
from polycuda.options import Options
from polycuda.pipeline import compile_scop


def _scop(name: str):
    (scop,) = cfront.parse_file(suite.by_name(name).c_path)
    return scop


def _compile(name: str, **options):
    return compile_scop(_scop(name), Options(target="cuda", tuned_sizes=False, **options))


def _kernel_texts(source: str) -> dict[str, str]:
    """Each __global__ function of a generated file, by name (its text up to its closing
    brace, the first at the start of a line)."""
    parts = re.split(r"(?=__global__ )", source)
    texts: dict[str, str] = {}
    for part in parts[1:]:
        name = re.match(r"__global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(", part).group(1)
        texts[name] = part[:part.index("\n}\n")]
    return texts


def test_the_plan_reads_as_ppcg_writes_it():
    plan = ("{ kernel[0] -> tile[64,64]; kernel[0] -> block[16,32]; "
            "kernel[i] -> registers[2,2] : i >= 1; kernel[2] -> sequential[16] }")
    assert size_plan.sizes_of(plan, 0) == size_plan.KernelSizes((64, 64), (16, 32))
    assert size_plan.sizes_of(plan, 2) == size_plan.KernelSizes((), (), (2, 2), 16)
    assert size_plan.sizes_of(plan, 5) == size_plan.KernelSizes((), (), (2, 2), 0)
    assert size_plan.sizes_of("{ }", 0) == size_plan.KernelSizes()


@pytest.mark.parametrize("plan, said", [
    ("{ kernel[0] -> tile[64,", "not an isl union map"),
    ("[n] -> { kernel[0] -> tile[n] }", "has parameters"),
    ("{ stmt[0] -> tile[4] }", "not kernel\\[k\\]"),
    ("{ kernel[0] -> tiles[4] }", "'tiles' is not one of tile, block, registers, sequential"),
    ("{ kernel[0] -> sequential[8, 8] }", "sequential takes one size"),
])
def test_a_malformed_plan_is_refused_with_what_is_wrong(plan, said):
    with pytest.raises(InvalidConfigError, match=said):
        Options(sizes=plan)


def test_a_plan_with_two_values_for_a_kernel_or_a_size_below_one_is_refused():
    with pytest.raises(InvalidConfigError, match="kernel0 more than one tile"):
        size_plan.sizes_of("{ kernel[0] -> tile[4]; kernel[i] -> tile[8] }", 0)
    with pytest.raises(InvalidConfigError, match="tile \\[0\\] must all be >= 1"):
        size_plan.sizes_of("{ kernel[0] -> tile[0] }", 0)
    with pytest.raises(InvalidConfigError, match="size plan, kernel0: block_sizes=\\(64, 64\\)"):
        _compile("gemm", scheduler="isl", sizes="{ kernel[0] -> block[64,64] }")


def test_a_plan_for_one_kernel_changes_that_kernel_alone():
    default = _compile("fdtd_2d", scheduler="isl")
    names = [k.name for k in default.kernels if not k.serial]
    assert len(names) >= 2
    for name in names[:2]:
        number = size_plan.kernel_number(name)
        planned = _compile("fdtd_2d", scheduler="isl",
                           sizes=f"{{ kernel[{number}] -> tile[16,16] }}")
        before, after = _kernel_texts(default.source), _kernel_texts(planned.source)
        assert before.keys() == after.keys()
        changed = {k for k in before if before[k] != after[k]}
        assert changed == {name}, (name, changed)
        sizes = {k.name: k.tile_sizes for k in planned.kernels}
        assert sizes[name][-1] == 16


@pytest.mark.parametrize("name, scheduler", [
    ("gemm", "isl"),        # the gemm-like layout: registers and the k tile
    ("fdtd_2d", "isl"),     # several DOALL kernels
    ("sor_2d", "pluto"),    # a wavefront kernel
    ("atax", "isl"),        # reduction kernels: fixed layouts, no entries
    ("adi", "isl"),         # the line_threads rule's smaller block
])
def test_the_plan_used_given_back_gives_the_same_code(name, scheduler):
    default = _compile(name, scheduler=scheduler)
    used = size_plan.used(default.kernels)
    assert used, "a sized kernel"
    assert all(not k.serial for k in default.kernels if k.name in dict(used))
    plan = size_plan.text_of(used)
    again = _compile(name, scheduler=scheduler, sizes=plan)
    assert again.source == default.source
    assert size_plan.text_of(size_plan.used(again.kernels)) == plan


def test_compile_dumps_the_sizes_and_sizes_reads_them_back(tmp_path, capsys):
    source = suite.by_name("fdtd_2d").c_path
    first, dumped = tmp_path / "a.cu", tmp_path / "sizes.json"
    assert cli.main(["compile", str(source), "--scheduler", "isl", "--no-tuned-sizes",
                     "-o", str(first), "--dump-sizes", str(dumped)]) == 0
    data = json.loads(dumped.read_text())
    assert data["scheduler"] == "isl" and data["sizes"].startswith("{ kernel[0] -> tile[")
    again = tmp_path / "b.cu"
    assert cli.main(["compile", str(source), "--no-tuned-sizes", "-o", str(again),
                     "--sizes", str(dumped)]) == 0
    assert again.read_text().split("\n", 1)[1] == first.read_text().split("\n", 1)[1]
    capsys.readouterr()
    assert cli.main(["show", "sizes", str(source), "--scheduler", "isl",
                     "--no-tuned-sizes"]) == 0
    shown = capsys.readouterr().out
    assert "region fdtd_2d (scheduler isl):" in shown
    assert f"plan: {data['sizes']}" in shown
    assert re.search(r"kernel0 doall: tile \d+x\d+, block \d+x\d+", shown)


def test_sizes_takes_a_plan_inline_or_in_a_file_and_says_what_is_wrong(tmp_path, capsys):
    source = str(suite.by_name("gemm").c_path)
    out = str(tmp_path / "g.cu")
    plan = tmp_path / "plan.txt"
    plan.write_text("{ kernel[0] -> tile[32,32] }\n")
    for given in ("{ kernel[0] -> tile[32,32] }", str(plan)):
        args = cli.parser().parse_args(["compile", source, "--sizes", given])
        assert cli._options(args).sizes == "{ kernel[0] -> tile[32,32] }"
    plan.write_text("{ kernel[0] -> tiles[32] }\n")
    assert cli.main(["compile", source, "-o", out, "--sizes", str(plan)]) == 1
    assert f"{plan}:1:1: error: --sizes: size plan" in capsys.readouterr().err
    assert cli.main(["compile", source, "-o", out, "--sizes", "nofile"]) == 1
    assert "no such file, and not a size plan" in capsys.readouterr().err
    assert cli.main(["tune", source, "--sizes", "{ kernel[0] -> tile[32,32] }"]) == 1
    assert "tune chooses the sizes" in capsys.readouterr().err
