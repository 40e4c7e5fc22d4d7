"""A CUDA region in which no loop is parallel (cuda_host.serial_region; issue 15, item 1): the
host entry pc_<name> runs it on the CPU on the host arrays (Options.serial_region "cpu", the
default), pc_<name>_dev keeps the one-thread kernels. Every form is checked against the
sequential program on random inputs (the emulator runs pc_<name>; pc_<name>_dev is called on
the emulator's device arrays, which are host memory)."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest

import polycuda
from kernels import suite
from polycuda.cli import main
from polycuda.codegen import cuda_host
from polycuda.errors import InvalidConfigError
from polycuda.options import Options
from polycuda.runtime import build, emulate, launch
from polycuda.verify import random_arguments

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
# A short chain over long arrays: pc_short_dev keeps its kernel for small k (the copies of x
# and b would cost more than the chain) and takes the CPU for large k.
SHORT = """
void short_chain(int n, int k, double x[n], double b[n]) {
#pragma scop
  for (int i = 1; i < k; i++)
    x[i] = x[i - 1] * 0.5 + b[i];
#pragma endscop
}
"""


def _function(source: str, head: str) -> str:
    """The text of the function of `source` whose definition starts with `head`."""
    start = source.index(head)
    return source[start:source.index("\n}\n", start) + 3]


def _entry(source: str, name: str) -> str:
    """The text of the extern "C" function `name` in a generated .cu."""
    return _function(source, f'extern "C" int {name}(')


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


def test_the_host_entry_runs_a_serial_region_on_the_cpu_and_the_device_entry_by_a_rule():
    source = _program().generate("cuda").source
    host = _entry(source, "pc_serial")
    assert "<<<" not in host and "cudaMemcpy" not in host and "return pc_serial_cpu(" in host
    cpu = _function(source, "static int pc_serial_cpu(")
    assert "malloc(" in cpu and "free(s)" in cpu  # the region's local scalar
    assert "for (int c1" in cpu and "<<<" not in cpu  # the kernels' loops, printed in place
    dev = _entry(source, "pc_serial_dev")
    assert "pc_serial_cpu(n, m, h_x, h_b, h_A)" in dev and "return pc_serial_gpu(" in dev
    gpu = _function(source, "static int pc_serial_gpu(")
    assert "return pc_serial_run(" in gpu  # the driver of the kernels (host_overlap)
    run = _function(source, "static int pc_serial_run(")
    assert re.search(r"kernel\w*<<<dim3\(1\), dim3\(1\)>>>", run)


def _emulated(prog: polycuda.Program, sizes: dict, device_entry: bool, seed: int = 3
              ) -> tuple[dict, dict]:
    """(the arrays after the emulated entry, after the sequential program), same random inputs.
    device_entry: pc_<name>_dev, the arrays registered as the emulator's device memory."""
    gen = prog.generate("emulate")
    kernel = launch.load(emulate.build_emulated(prog.generate("cuda").source, seed=seed),
                         prog.scop, "emulate", transformed=gen.scop, device_entry=device_entry)
    args = random_arguments(prog.scop, sizes, seed=seed)
    expected = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}
    prog._reference(expected)
    kernel(**args)
    return args, expected


@pytest.mark.parametrize("device_entry", [False, True])
def test_both_entries_compute_the_sequential_result(device_entry):
    prog = _program()
    assert all(r.ok for r in prog.verify(SIZES, targets=("emulate",)))
    got, want = _emulated(prog, SIZES, device_entry)
    for name in ("x", "b", "A"):
        np.testing.assert_allclose(got[name], want[name], rtol=1e-12)
    x, b, a = (want[k].copy() for k in ("x", "b", "A"))  # the reference is the region
    _reference(x, b, a)
    np.testing.assert_allclose(want["A"], a, rtol=1e-12)


@pytest.mark.parametrize("k, on_cpu", [(6, False), (4000, True)])
def test_the_device_entry_is_right_on_either_side_of_its_rule(k, on_cpu):
    n = 4096
    # the generated rule (cuda_host._serial_functions): the CPU when the instances' predicted
    # GPU time exceeds the copies' (x, b out; x back)
    gpu_ns = (k - 1) * cuda_host.SERIAL_GPU_NS * (1 - cuda_host.SERIAL_CPU_SHARE)
    assert (gpu_ns > 3 * n * 8 * cuda_host.ROUND_TRIP_NS_PER_BYTE) == on_cpu
    prog = polycuda.compile(SHORT, filename="short.c", options=Options(target="cuda"))
    got, want = _emulated(prog, {"n": n, "k": k}, device_entry=True, seed=k)
    np.testing.assert_allclose(got["x"], want["x"], rtol=1e-12)


@pytest.mark.parametrize("host_buffers", ["reuse", "per-call"])
def test_the_device_entry_keeps_its_page_locked_copies_across_calls(host_buffers):
    # k = 4000: the CPU side of the rule; its host copies of x and b are page-locked and kept
    # (host_buffers "reuse", the default), or malloc'ed per call (no state kept)
    prog = polycuda.compile(SHORT, filename="short.c",
                            options=Options(target="cuda", host_buffers=host_buffers))
    gen = prog.generate("cuda")
    lib = launch.load(emulate.build_emulated(gen.source, seed=3), prog.scop, "emulate",
                      transformed=gen.scop, device_entry=True)
    for n in (4096, 5000, 4096):  # grown once, then reused
        args = random_arguments(prog.scop, {"n": n, "k": 4000}, seed=n)
        expected = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}
        prog._reference(expected)
        lib(**args)
        np.testing.assert_allclose(args["x"], expected["x"], rtol=1e-12)
    kept = host_buffers == "reuse"
    assert emulate.pinned_ranges(lib.lib) == (2 if kept else 0)
    if kept:
        assert lib.lib.pc_short_chain_release() == 0 and emulate.pinned_ranges(lib.lib) == 0


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


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: CUDA not compiled")
def test_nvcc_builds_the_serial_entries():
    build.compile_only(_program().generate("cuda").source, "cuda")


@pytest.mark.gpu
@pytest.mark.parametrize("setting", ["cpu", "gpu"])
@pytest.mark.parametrize("source, sizes", [(SERIAL, {"n": 301, "m": 67}),
                                           (SHORT, {"n": 4096, "k": 6}),
                                           (SHORT, {"n": 4096, "k": 4000})],
                         ids=["serial", "short-k6", "short-k4000"])
def test_on_the_gpu_both_entries_compute_the_sequential_result(setting, source, sizes):
    """pc_<name> on host arrays and pc_<name>_dev on CuPy arrays (SHORT at k = 6: its
    kernel; at k = 4000 and SERIAL: the CPU on copies) against the sequential program."""
    cupy = pytest.importorskip("cupy")
    prog = polycuda.compile(source, filename="serial.c",
                            options=Options(target="cuda", serial_region=setting))
    assert all(r.ok for r in prog.verify(sizes, targets=("cuda",)))
    kernel = prog.kernel("cuda")
    args = random_arguments(prog.scop, sizes, seed=7)
    expected = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}
    prog._reference(expected)
    host = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}
    kernel(**host)  # pc_<name>
    device = {k: cupy.asarray(v) if isinstance(v, np.ndarray) else v for k, v in args.items()}
    kernel(**device)  # pc_<name>_dev
    for name, want in expected.items():
        if isinstance(want, np.ndarray):
            np.testing.assert_allclose(host[name], want, rtol=1e-12)
            np.testing.assert_allclose(cupy.asnumpy(device[name]), want, rtol=1e-12)
