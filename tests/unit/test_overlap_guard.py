"""The entries' check of array arguments that share memory (issue 40, part 3): a C caller of the
drop-in output that passes one array twice (`g(n, A, A)`) gets the result of its program as
written, on targets c, openmp and cuda (emulated), instead of the transformed code's."""

import shutil
import subprocess
from pathlib import Path

import pytest

from polycuda.cli import main
from polycuda.errors import LaunchError
from polycuda.runtime import arrays, device, emulate, launch

# The second nest reads A[i][j + 1] and B[i][j]: with distinct arrays the scheduler may fuse the
# nests (no dependence orders them), which under g(n, A, A) reads A[i][j + 1] before the first
# nest doubled it. The second call overlaps by one row (B = A + n). Arrays only read may share.
PROGRAM = """\
#include <stdio.h>
#include <stdlib.h>

void g(int n, double A[n][n], double B[n][n])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      B[i][j] = 2.0 * A[i][j] + 1.0;
  for (i = 0; i < n; i++)
    for (j = 0; j < n - 1; j++)
      A[i][j] = B[i][j] + 0.5 * A[i][j + 1];
#pragma endscop
}

void h(int n, double A[n], double B[n], double C[n])
{
  int i;
#pragma scop
  for (i = 1; i < n; i++)
    C[i] = A[i] + B[i - 1];
#pragma endscop
}

int main(void)
{
  int n = 200;
  double (*A)[n] = malloc(sizeof(double) * n * (n + 1));
  double *C = malloc(sizeof(double) * n);
  for (int i = 0; i < n + 1; i++)
    for (int j = 0; j < n; j++) A[i][j] = ((i * 37 + j * 11) % 101) / 101.0;
  g(n, A, A);
  g(n - 1, (double (*)[n - 1])&A[0][0], (double (*)[n - 1])&A[1][0]);
  h(n, A[0], A[0], C);  /* only read twice: the transformed code runs */
  double s = 0;
  for (int i = 0; i < n + 1; i++)
    for (int j = 0; j < n; j++) s += A[i][j] * (i + 2 * j + 1);
  for (int i = 1; i < n; i++) s += C[i] * i;
  printf("%.12f\\n", s);
  free(A);
  free(C);
  return 0;
}
"""


def _run(exe: Path) -> str:
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def program(tmp_path_factory) -> tuple[Path, str]:
    """The program's file and its output as written (gcc, no polycuda)."""
    tmp = tmp_path_factory.mktemp("overlap")
    src = tmp / "prog.c"
    src.write_text(PROGRAM)
    subprocess.run([device.find_cc(), "-O1", str(src), "-o", str(tmp / "orig")], check=True)
    return src, _run(tmp / "orig")


@pytest.mark.parametrize("target", ["c", "openmp"])
def test_dropin_c_runs_the_region_as_written_on_shared_arrays(program, tmp_path, target):
    src, expected = program
    out = tmp_path / f"prog_{target}.c"
    assert main(["compile", str(src), "--target", target, "-o", str(out)]) == 0
    text = out.read_text()
    assert "return pc_g_original(n, A, B);" in text
    assert "pc_h_original" in text and "pc_overlap_ranges(A, pc_span_A, C, pc_span_C)" in text
    assert "pc_overlap_ranges(A, pc_span_A, B, pc_span_B)" not in text.split("\nint pc_h(")[1]
    exe = tmp_path / "prog"
    subprocess.run([device.find_cc(), "-O1", "-fopenmp", str(out), "-o", str(exe), "-lm"],
                   check=True)
    assert _run(exe) == expected


def _cuda_dropin(src: Path, tmp_path: Path) -> tuple[Path, Path]:
    out = tmp_path / "prog.cu"
    assert main(["compile", str(src), "--target", "cuda", "-o", str(out)]) == 0
    return out, tmp_path / "prog_host.c"


def test_dropin_cuda_emulated_runs_the_region_as_written(program, tmp_path):
    src, expected = program
    cu, host = _cuda_dropin(src, tmp_path)
    text = cu.read_text()
    dev = text.split('extern "C" int pc_g_dev(')[1]
    assert "a written array shares memory" in dev.split("\n}\n")[0]
    cpp = tmp_path / "prog_emu.cpp"
    cpp.write_text(emulate.translate(text))
    objs = [tmp_path / "host.o", tmp_path / "dev.o"]
    subprocess.run([device.find_cc(), "-c", str(host), "-o", str(objs[0])], check=True)
    subprocess.run([device.find_cxx(), "-std=c++20", "-O1", "-pthread", "-c", str(cpp),
                    "-o", str(objs[1])], check=True)
    exe = tmp_path / "prog"
    subprocess.run([device.find_cxx(), "-pthread", *map(str, objs), "-o", str(exe)], check=True)
    assert _run(exe) == expected


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: CUDA not compiled")
def test_dropin_cuda_with_the_check_compiles(program, tmp_path):
    cu, _ = _cuda_dropin(program[0], tmp_path)
    subprocess.run([device.find_nvcc(), "-c", str(cu), "-o", str(tmp_path / "dev.o")],
                   check=True)


def _info(ptr: int, nbytes: int) -> arrays.ArrayInfo:
    return arrays.ArrayInfo("numpy", ptr, "double", (nbytes // 8,), True, False)


def test_python_api_refuses_a_written_array_inside_a_larger_one_past_another():
    # sorted by address: big [0, 800), small [80, 160) (both read), out [400, 480) written:
    # big and out share memory though they are not neighbours in that order
    infos = {"big": _info(1 << 20, 800), "small": _info((1 << 20) + 80, 80),
             "out": _info((1 << 20) + 400, 80)}
    with pytest.raises(LaunchError, match="'big' and 'out' share memory"):
        launch.check_no_overlap(infos, {"out"})
    launch.check_no_overlap(infos, set())  # arrays only read may share
