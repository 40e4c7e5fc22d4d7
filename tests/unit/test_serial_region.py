"""A CUDA region in which no loop is parallel (cuda_host.serial_region; issue 15, item 1): the
host entry pc_<name> runs it on the CPU on the host arrays (Options.serial_region "cpu", the
default), pc_<name>_dev keeps the one-thread kernels. Every form is checked against the
sequential program on random inputs (the emulator runs pc_<name>; pc_<name>_dev is called on
the emulator's device arrays, which are host memory)."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

import polycuda
from kernels import suite
from polycuda.cli import main
from polycuda.errors import InvalidConfigError
from polycuda.options import Options
from polycuda.runtime import emulate

# Two recurrences along i, one through a scalar the region declares (a local of the region),
# and a 2-D sweep in which each element reads its left neighbour's new value and the previous
# row's last new value: one chain through all instances, no loop is parallel.
SERIAL = """
void serial(int n, int m, double x[n], double b[n], double A[n][m]) {
#pragma scop
  double s = 0.5;
  for (int i = 1; i < n; i++) {
    s = s * 0.5 + b[i];
    x[i] = x[i - 1] * 0.25 + s;
  }
  for (int i = 1; i < n; i++)
    for (int j = 1; j < m; j++)
      A[i][j] = 0.5 * A[i][j - 1] + 0.4 * A[i - 1][m - 1] + 0.1 * x[i];
#pragma endscop
}
"""
SIZES = {"n": 37, "m": 23}


def _entry(source: str, name: str) -> str:
    """The text of the extern "C" function `name` in a generated .cu."""
    start = source.index(f'extern "C" int {name}(')
    return source[start:source.index("\n}\n", start) + 3]


def _program(**options: object) -> polycuda.Program:
    return polycuda.compile(SERIAL, filename="serial.c", options=Options(target="cuda", **options))


def _reference(x: np.ndarray, b: np.ndarray, a: np.ndarray) -> None:
    """The region, in Python, in place."""
    s = 0.5
    for i in range(1, len(x)):
        s = s * 0.5 + b[i]
        x[i] = x[i - 1] * 0.25 + s
    for i in range(1, a.shape[0]):
        for j in range(1, a.shape[1]):
            a[i, j] = 0.5 * a[i, j - 1] + 0.4 * a[i - 1, -1] + 0.1 * x[i]


def test_the_host_entry_runs_a_serial_region_on_the_cpu_and_the_device_entry_in_kernels():
    source = _program().generate("cuda").source
    host = _entry(source, "pc_serial")
    assert "<<<" not in host and "cudaMemcpy" not in host and "pc_serial_dev(" not in host
    assert "malloc(" in host and "free(s)" in host  # the region's local scalar
    assert "for (int c1" in host  # the kernels' loops, printed in place
    launches = re.findall(r"kernel\w*<<<dim3\(1\), dim3\(1\)>>>", source)
    assert launches and all(k not in host for k in launches)  # pc_serial_dev launches them


def test_both_entries_compute_the_sequential_result():
    prog = _program()
    assert all(r.ok for r in prog.verify(SIZES, targets=("emulate",)))
    lib = ctypes.CDLL(str(emulate.build_emulated(prog.generate("cuda").source, seed=3)))
    rng = np.random.default_rng(11)
    n, m = SIZES["n"], SIZES["m"]
    inputs = (rng.uniform(0.5, 1.5, n), rng.uniform(0.5, 1.5, n), rng.uniform(0.5, 1.5, (n, m)))
    expected = [a.copy() for a in inputs]
    _reference(*expected)
    for entry in ("pc_serial", "pc_serial_dev"):
        arrays = [a.copy() for a in inputs]
        fn = getattr(lib, entry)
        fn.restype = ctypes.c_int
        assert fn(ctypes.c_longlong(n), ctypes.c_longlong(m),
                  *[a.ctypes.data_as(ctypes.c_void_p) for a in arrays]) == 0, entry
        for got, want in zip(arrays, expected):
            np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=entry)


def test_serial_region_gpu_keeps_the_copies_and_the_kernels():
    prog = _program(serial_region="gpu")
    host = _entry(prog.generate("cuda").source, "pc_serial")
    assert "cudaMemcpy" in host and "<<<" not in host
    assert all(r.ok for r in prog.verify(SIZES, targets=("emulate",)))


def test_a_region_with_a_parallel_loop_keeps_the_gpu_path():
    gemm = suite.by_name("gemm")
    source = polycuda.compile(str(gemm.c_path), function=gemm.function,
                              options=Options(target="cuda")).generate("cuda").source
    assert "cudaMemcpy" in _entry(source, "pc_gemm")
    assert "no loop of this region is parallel" not in source


def test_show_schedule_says_where_the_region_runs(tmp_path, capsys):
    path = tmp_path / "serial.c"
    path.write_text(SERIAL)
    assert main(["show", "schedule", str(path), "--target", "cuda"]) == 0
    out = capsys.readouterr().out
    assert "pc_serial runs the region on the CPU" in out
    assert main(["show", "schedule", str(path), "--target", "cuda",
                 "--serial-region", "gpu"]) == 0
    assert "run the region in one-thread kernels (--serial-region gpu)" in capsys.readouterr().out


def test_a_bad_serial_region_value_is_refused():
    with pytest.raises(InvalidConfigError, match="serial_region"):
        Options(serial_region="host")


@pytest.mark.gpu
@pytest.mark.parametrize("setting", ["cpu", "gpu"])
def test_on_the_gpu_both_entries_compute_the_sequential_result(setting):
    cupy = pytest.importorskip("cupy")
    prog = _program(serial_region=setting)
    assert all(r.ok for r in prog.verify({"n": 301, "m": 67}, targets=("cuda",)))
    kernel = prog.kernel("cuda")
    rng = np.random.default_rng(5)
    n, m = 301, 67
    inputs = (rng.uniform(0.5, 1.5, n), rng.uniform(0.5, 1.5, n), rng.uniform(0.5, 1.5, (n, m)))
    expected = [a.copy() for a in inputs]
    _reference(*expected)
    host = [a.copy() for a in inputs]
    kernel(n, m, *host)  # pc_serial
    device = [cupy.asarray(a) for a in inputs]
    kernel(n, m, *device)  # pc_serial_dev: the one-thread kernels
    for got_host, got_device, want in zip(host, device, expected):
        np.testing.assert_allclose(got_host, want, rtol=1e-12)
        np.testing.assert_allclose(cupy.asnumpy(got_device), want, rtol=1e-12)
