"""The command line: show, compile (drop-in outputs), verify, run, errors and exit codes."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from polycuda.cli import main

FIG2 = """\
#include <stdio.h>

/* Di et al. 2012, Figure 2 */
void fig2(int T, int I, double A[I + 2])
{
#pragma scop
  for (int t = 1; t <= T; t++)
    for (int i = 1; i <= I; i++)
      A[i] = 0.5 * (A[i] + A[i + 1]);
#pragma endscop
}

int fig2_answer(void) { return 42; }
"""

DRIVER = """\
#include <stdio.h>
#include <stdlib.h>
void fig2(int T, int I, double A[I + 2]);
int main(void) {
  int T = 5, I = 300;
  double *A = malloc(sizeof(double) * (I + 2)), *R = malloc(sizeof(double) * (I + 2));
  for (int i = 0; i < I + 2; i++) A[i] = R[i] = 0.5 + (i * 37 % 101) / 101.0;
  fig2(T, I, (double (*))A);
  for (int t = 1; t <= T; t++) for (int i = 1; i <= I; i++) R[i] = 0.5 * (R[i] + R[i + 1]);
  for (int i = 0; i < I + 2; i++) if (A[i] != R[i]) { printf("bad %d\\n", i); return 1; }
  printf("same\\n");
  return 0;
}
"""


@pytest.fixture
def fig2_file(tmp_path: Path) -> Path:
    path = tmp_path / "fig2.c"
    path.write_text(FIG2)
    return path


def _json(capsys, argv) -> object:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_show_deps_json_is_table_1(capsys, fig2_file):
    deps = _json(capsys, ["show", "deps", str(fig2_file), "--json"])
    assert len(deps) == 5
    assert all({"kind", "source", "sink", "distance"} <= set(d) for d in deps)
    found = sorted((d["kind"], tuple(d["distance"])) for d in deps)
    assert found == [("anti", (0, 1)), ("anti", (1, 0)), ("flow", (1, -1)), ("flow", (1, 0)),
                     ("output", (1, 0))]


@pytest.mark.parametrize("flags, expected", [
    (["--scheduler", "pluto"], [[1, 0, 0], [1, 1, 0]]),
    (["--scheduler", "pluto", "--balanced-wavefront"], [[2, 1, 0], [1, 1, 0]]),
])
def test_show_schedule_json_reproduces_di_et_al(capsys, fig2_file, flags, expected):
    data = _json(capsys, ["show", "schedule", str(fig2_file), "--json"] + flags)
    (stmt,) = data["statements"]
    assert stmt["name"] == "S0" and stmt["iterators"] == ["t", "i"]
    assert stmt["hyperplanes"] == expected
    assert stmt["parallel"] == [False, False]


def test_show_schedule_with_false_dependence_elimination_is_figure_9(capsys, fig2_file):
    data = _json(capsys, ["show", "schedule", str(fig2_file), "--json", "--scheduler", "pluto",
                          "--eliminate-false-deps"])
    copy, compute = data["statements"]
    assert copy["hyperplanes"] == [[1, 0, 0], [1, 1, 0]]
    # S1 shifted by (0, 1) relative to the copy statement, as in the paper's text
    assert compute["hyperplanes"] == [[1, 0, 0], [1, 1, 1]]


def test_show_schedule_isl(capsys, fig2_file):
    data = _json(capsys, ["show", "schedule", str(fig2_file), "--scheduler", "isl", "--json"])
    (stmt,) = data["statements"]
    assert stmt["parallel"] == [False, True]


def test_compile_openmp_output_is_a_drop_in_replacement(tmp_path, fig2_file):
    out = tmp_path / "fig2_omp.c"
    assert main(["compile", str(fig2_file), "--target", "openmp", "-o", str(out)]) == 0
    text = out.read_text()
    head = FIG2[: FIG2.index("#pragma scop")]
    assert text.startswith(head) and "int fig2_answer(void) { return 42; }" in text
    assert "#pragma scop" not in text and "pc_fig2(" in text
    driver = tmp_path / "driver.c"
    driver.write_text(DRIVER)
    exe = tmp_path / "prog"
    subprocess.run(["gcc", "-O2", "-fopenmp", str(out), str(driver), "-o", str(exe), "-lm"],
                   check=True)
    run = subprocess.run([str(exe)], check=True, capture_output=True, text=True)
    assert run.stdout.strip() == "same"


def test_compile_cuda_writes_cu_and_host_file(tmp_path, fig2_file):
    out = tmp_path / "fig2.cu"
    assert main(["compile", str(fig2_file), "--target", "cuda", "-o", str(out)]) == 0
    host = tmp_path / "fig2_host.c"
    assert 'extern "C" int pc_fig2(' in out.read_text()
    assert "pc_fig2(" in host.read_text() and "fig2_answer" in host.read_text()
    subprocess.run(["gcc", "-c", str(host), "-o", str(tmp_path / "host.o")], check=True)
    if shutil.which("nvcc"):
        subprocess.run(["nvcc", "-c", str(out), "-o", str(tmp_path / "dev.o")], check=True)


def test_compile_dumps_options_that_read_back(tmp_path, fig2_file):
    opts = tmp_path / "opts.json"
    assert main(["compile", str(fig2_file), "--target", "c", "-o", str(tmp_path / "a.c"),
                 "--tile-sizes", "4,16", "--dump-options", str(opts)]) == 0
    assert json.loads(opts.read_text())["tile_sizes"] == [4, 16]
    assert main(["compile", str(fig2_file), "--options", str(opts), "--target", "c",
                 "-o", str(tmp_path / "b.c")]) == 0
    assert (tmp_path / "a.c").read_text() == (tmp_path / "b.c").read_text()


def test_shared_memory_option(tmp_path, fig2_file, capsys):
    opts = tmp_path / "opts.json"
    assert main(["compile", str(fig2_file), "--scheduler", "pluto", "--shared-staging",
                 "--shared-memory", "200", "-o", str(tmp_path / "a.cu"),
                 "--dump-options", str(opts)]) == 0
    assert json.loads(opts.read_text())["shared_memory_kib"] == 200
    assert main(["compile", str(fig2_file), "--shared-memory", "0",
                 "-o", str(tmp_path / "b.cu")]) == 1
    assert "shared_memory_kib" in capsys.readouterr().err


def test_verify_and_run_succeed(capsys, fig2_file):
    assert main(["verify", str(fig2_file), "--size", "T=4", "--size", "I=50",
                 "--targets", "c,openmp,emulate"]) == 0
    out = capsys.readouterr().out
    assert out.count(" ok ") == 3
    assert main(["run", str(fig2_file), "--target", "openmp", "--size", "I=500",
                 "--repeat", "2"]) == 0
    assert "verified" in capsys.readouterr().out


def test_bad_input_names_file_line_and_construct(capsys, tmp_path):
    bad = tmp_path / "bad.c"
    bad.write_text(FIG2.replace("A[i] = 0.5", "A[i * i] = 0.5"))
    assert main(["verify", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}:9:" in err and "error" in err and "affine" in err


def test_python_file_on_the_command_line(capsys, tmp_path):
    src = tmp_path / "k.py"
    src.write_text("def scale(n, A, B):\n    for i in range(n):\n        B[i] = 2.0 * A[i]\n")
    assert main(["verify", str(src), "--size", "n=10", "--targets", "c,emulate"]) == 0
    assert capsys.readouterr().out.count(" ok ") == 2


def test_console_script_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "polycuda.cli", "--help"], check=False,
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "compile" in proc.stdout
