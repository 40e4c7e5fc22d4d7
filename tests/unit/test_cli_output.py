"""Where `polycuda compile` writes (issue 40): nothing but stdout without -o (target cuda of a
C file: the .cu alone, no _host.c), and never over a file polycuda did not write unless
--force; each file it writes starts with its marker line."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from polycuda.cli import main
from polycuda.output import MARKER

SRC = """\
void scale(int n, double A[n], double B[n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    B[i] = 2.0 * A[i];
#pragma endscop
}
"""


@pytest.fixture
def src(tmp_path: Path, monkeypatch) -> Path:
    """scale.c in its own directory, the working directory an empty other one."""
    (tmp_path / "in").mkdir()
    (tmp_path / "cwd").mkdir()
    path = tmp_path / "in" / "scale.c"
    path.write_text(SRC)
    monkeypatch.chdir(tmp_path / "cwd")
    return path


def _files(tmp_path: Path) -> list[str]:
    return sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())


@pytest.mark.parametrize("target", ["cuda", "openmp", "c"])
def test_without_o_the_code_goes_to_stdout_and_no_file_appears(src, tmp_path, capsys, target):
    assert main(["compile", str(src), "--target", target]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"{MARKER} from scale.c") and "pc_scale" in out
    assert _files(tmp_path) == ["in/scale.c"]
    assert ("-o OUT" in err) == (target == "cuda")  # where the host file would have gone
    if target == "cuda":
        assert 'extern "C"' in out and "#pragma scop" not in out
    assert main(["compile", str(src), "--target", target, "-o", "-"]) == 0
    assert capsys.readouterr().out == out and _files(tmp_path) == ["in/scale.c"]


@pytest.mark.parametrize("existing", ["out.cu", "out_host.c"])
def test_a_users_file_is_not_overwritten_without_force(src, tmp_path, capsys, existing):
    mine = tmp_path / "cwd" / existing
    mine.write_text("/* my own file */\n")
    assert main(["compile", str(src), "-o", "out.cu"]) == 1
    err = capsys.readouterr().err
    assert f"'{existing}' exists and was not written by polycuda" in err
    assert "-o/--output" in err and "--force" in err
    assert mine.read_text() == "/* my own file */\n"
    assert _files(tmp_path) == ["cwd/" + existing, "in/scale.c"]  # nothing written
    assert main(["compile", str(src), "-o", "out.cu", "--force"]) == 0
    assert mine.read_text().startswith(MARKER)


def test_polycudas_own_output_is_overwritten(src, tmp_path, capsys):
    for target in ("cuda", "cuda", "openmp"):
        assert main(["compile", str(src), "--target", target, "-o", "out.cu"]) == 0
    assert "wrote out.cu" in capsys.readouterr().err
    assert "#pragma omp" in Path("out.cu").read_text()
    assert Path("out_host.c").read_text().startswith(f"{MARKER} from scale.c")


def test_the_input_file_is_never_overwritten(src, capsys):
    for extra in ([], ["--force"]):
        assert main(["compile", str(src), "--target", "c", "-o", str(src)] + extra) == 1
        assert "it is the input file" in capsys.readouterr().err
    assert src.read_text() == SRC


def test_the_written_c_file_still_builds(src, tmp_path):
    out = tmp_path / "cwd" / "scale_omp.c"
    assert main(["compile", str(src), "--target", "openmp", "-o", str(out)]) == 0
    subprocess.run(["gcc", "-fopenmp", "-c", str(out), "-o", os.devnull], check=True)
