"""The drop-in CUDA outputs (`polycuda compile --target cuda`: OUT.cu + OUT_host.c): a CUDA
error of the generated entry ends the user's program with the error on stderr (issue 14,
item 3); without an error the program runs as before (checked under the emulator)."""

import shutil
import subprocess
from pathlib import Path

import pytest

from polycuda.cli import main
from polycuda.runtime import device, emulate

# A user program: the region's function and a main that prints a checksum, and "continued"
# after the call (a silent failure printed it with the arrays untouched).
PROGRAM = """\
#include <stdio.h>
#include <stdlib.h>

void smooth(int T, int n, double A[n], double B[n])
{
  int t, i;
#pragma scop
  for (t = 0; t < T; t++) {
    for (i = 1; i < n - 1; i++)
      B[i] = 0.25 * (A[i - 1] + 2.0 * A[i] + A[i + 1]);
    for (i = 1; i < n - 1; i++)
      A[i] = B[i];
  }
#pragma endscop
}

int main(void)
{
  int n = 500;
  double *A = malloc(n * sizeof(double)), *B = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) { A[i] = 0.5 + (i * 37 % 101) / 101.0; B[i] = 0.0; }
  smooth(7, n, A, B);
  double sum = 0;
  for (int i = 0; i < n; i++) sum += A[i] * (i + 1);
  printf("continued %.12f\\n", sum);
  free(A); free(B);
  return 0;
}
"""


def _expected_checksum(tmp_path: Path) -> str:
    src = tmp_path / "orig.c"
    src.write_text(PROGRAM)
    exe = tmp_path / "orig"
    subprocess.run([device.find_cc(), "-O1", str(src), "-o", str(exe)], check=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout


def _compile_dropin(tmp_path: Path, *flags: str) -> tuple[Path, Path]:
    src = tmp_path / "smooth.c"
    src.write_text(PROGRAM)
    out = tmp_path / "smooth.cu"
    assert main(["compile", str(src), "--target", "cuda", "-o", str(out), *flags]) == 0
    return out, tmp_path / "smooth_host.c"


def _nvcc_program(tmp_path: Path, *flags: str) -> subprocess.CompletedProcess:
    """The user's program linked with the nvcc-built drop-in entry, run."""
    cu, host = _compile_dropin(tmp_path, *flags)
    nvcc = device.find_nvcc()
    subprocess.run([device.find_cc(), "-c", str(host), "-o", str(tmp_path / "host.o")],
                   check=True)
    subprocess.run([nvcc, "-c", str(cu), "-o", str(tmp_path / "dev.o")], check=True)
    exe = tmp_path / "prog"
    subprocess.run([nvcc, str(tmp_path / "host.o"), str(tmp_path / "dev.o"), "-o", str(exe)],
                   check=True)
    return subprocess.run([str(exe)], capture_output=True, text=True)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: CUDA not compiled")
def test_cuda_error_ends_the_program_with_its_message(tmp_path):
    # the kernels alone: this small region's host version (codegen/host_choice.py) would run
    # without a GPU
    run = _nvcc_program(tmp_path, "--host-fallback", "never")
    if device.gpu_info() is not None:  # on a GPU the program runs and computes as before
        assert run.returncode == 0 and run.stdout == _expected_checksum(tmp_path)
        return
    assert run.returncode != 0 and "continued" not in run.stdout
    assert "polycuda: pc_smooth failed: CUDA error " in run.stderr
    assert ("cudaErrorNoDevice" in run.stderr or "cudaErrorInsufficientDriver" in run.stderr
            or "cudaErrorNotSupported" in run.stderr), run.stderr


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: CUDA not compiled")
def test_a_small_region_runs_its_host_version_without_touching_the_gpu(tmp_path):
    run = _nvcc_program(tmp_path)  # 7 steps of 500 points: the rule picks the host
    assert run.returncode == 0, run.stderr
    assert run.stdout == _expected_checksum(tmp_path)


def test_dropin_host_file_runs_the_emulated_entry(tmp_path):
    cu, host = _compile_dropin(tmp_path)
    cpp = tmp_path / "smooth_emu.cpp"
    cpp.write_text(emulate.translate(cu.read_text()))
    objs = [tmp_path / "host.o", tmp_path / "dev.o"]
    subprocess.run([device.find_cc(), "-c", str(host), "-o", str(objs[0])], check=True)
    subprocess.run([device.find_cxx(), "-std=c++20", "-O1", "-pthread", "-c", str(cpp),
                    "-o", str(objs[1])], check=True)
    exe = tmp_path / "prog"
    subprocess.run([device.find_cxx(), "-pthread", *map(str, objs), "-o", str(exe)],
                   check=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == _expected_checksum(tmp_path)
    assert "if (pc_err != 0) pc_smooth_fail(pc_err);" in host.read_text()
