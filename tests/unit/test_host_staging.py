"""The host side of the CUDA entry (issue 15, item 6; codegen/host_driver.py): device buffers
reused across calls, page-locked copies (registered arrays or a staged double buffer). Checked
on the emulator against the sequential program over calls that grow and shrink the arrays, with
the emulator's counts of device allocations and page-locked ranges: kept between calls, none
left after pc_<name>_release(), and the entry still right after a release."""

from __future__ import annotations

import ctypes
import json
import shutil
import subprocess

import numpy as np
import pytest

import polycuda
from polycuda import Options
from polycuda.cli import main
from polycuda.errors import InvalidConfigError
from polycuda.runtime import device, emulate
from tests.unit.test_indirect import MIXED

SMOOTH = """
void smooth(int T, int n, double A[n], double B[n])
{
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      B[i] = 0.25 * (A[i - 1] + 2.0 * A[i] + A[i + 1]);
    for (int i = 1; i < n - 1; i++)
      A[i] = B[i];
  }
#pragma endscop
}
"""
# region-local scalar and array, expanded to one cell per i: the device entry's local arrays
# (expanded sizes follow n), read-only x, written y
LOCALS = """
void mv(int n, int m, double A[n][m], double x[m], double y[n])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    double t[4];
    for (int j = 0; j < m; j++)
      s += A[i][j] * x[j];
    for (int k = 0; k < 4; k++)
      t[k] = s * k;
    y[i] = s + t[3];
  }
#pragma endscop
}
"""
# sizes in calling order: grow, shrink, grow past the first maximum, shrink to a tiny array
SMOOTH_SIZES = [{"T": 3, "n": 300}, {"T": 2, "n": 1000}, {"T": 3, "n": 40},
                {"T": 2, "n": 2500}, {"T": 1, "n": 7}]
# 1 KiB chunks: the staged arrays above go through several chunks, the last one partial
CONFIGS = {
    "reuse": dict(host_buffers="reuse", host_copies="pageable"),
    "reuse-staged": dict(host_buffers="reuse", host_copies="staged", host_pin_min_kib=0,
                         host_chunk_kib=1),
    "reuse-register": dict(host_buffers="reuse", host_copies="register", host_pin_min_kib=0),
    "per-call-staged": dict(host_buffers="per-call", host_copies="staged", host_pin_min_kib=0, host_chunk_kib=1),
    "per-call-register": dict(host_buffers="per-call", host_copies="register",
                              host_pin_min_kib=0),
}


def _verified(source: str, options: dict, sizes: list[dict]) -> polycuda.Program:
    prog = polycuda.compile(source, options=Options(**options))
    for values in sizes:
        assert all(r.ok for r in prog.verify(values, targets=("emulate",)))
    return prog


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_repeated_calls_growing_and_shrinking(config):
    options = CONFIGS[config]
    prog = _verified(SMOOTH, options, SMOOTH_SIZES)
    lib = prog.kernel("emulate").lib
    reuse = Options(**options).host_buffers == "reuse"
    copies = Options(**options).host_copies
    # reuse: A's and B's buffers kept; per call: none left. staged: the staging buffer kept;
    # registered arrays: unregistered at the end of each call
    assert emulate.live_allocations(lib) == (2 if reuse else 0)
    assert emulate.pinned_ranges(lib) == (1 if copies == "staged" else 0)
    assert (emulate.pins_made(lib) > 0) == (copies != "pageable")
    assert lib.pc_smooth_release() == 0
    assert emulate.live_allocations(lib) == 0 and emulate.pinned_ranges(lib) == 0
    assert lib.pc_smooth_release() == 0  # nothing left: a second release is harmless
    # after a release the next call makes its buffers again
    assert all(r.ok for r in prog.verify({"T": 2, "n": 600}, targets=("emulate",)))


def test_small_arrays_are_copied_as_pageable_memory():
    prog = _verified(SMOOTH, dict(host_copies="register", host_pin_min_kib=64),
                     SMOOTH_SIZES[:2])
    assert emulate.pins_made(prog.kernel("emulate").lib) == 0  # 8 KB < 64 KiB: not pinned


def test_device_entry_local_arrays_are_reused():
    sizes = [{"n": 30, "m": 20}, {"n": 70, "m": 9}, {"n": 5, "m": 33}]
    prog = _verified(LOCALS, dict(host_buffers="reuse", host_copies="staged",
                                  host_pin_min_kib=0, host_chunk_kib=1), sizes)
    lib = prog.kernel("emulate").lib
    locals_ = sum(a.local for a in prog.generate("emulate").scop.arrays)
    assert locals_ >= 2
    assert emulate.live_allocations(lib) == 3 + locals_  # A, x, y and the locals, kept
    assert lib.pc_mv_release() == 0 and emulate.live_allocations(lib) == 0


def test_runtime_nests_entry_reuses_buffers():
    """The inspector/executor's entry (codegen/inspector_cuda.py) with the reused, staged host
    side: right over repeated calls of other sizes, with random index arrays."""
    prog = polycuda.compile(MIXED, options=Options(host_buffers="reuse", host_copies="staged",
                                                   host_pin_min_kib=0, host_chunk_kib=1))
    for seed, (n, m, k) in enumerate([(40, 9, 5), (90, 20, 3), (12, 4, 8)]):
        assert all(r.ok for r in prog.verify({"n": n, "m": m, "k": k}, targets=("emulate",),
                                             seed=seed))
    lib = prog.kernel("emulate").lib
    assert emulate.live_allocations(lib) >= 4  # A, B, idx, C kept
    assert lib.pc_mixed_release() == 0 and emulate.live_allocations(lib) == 0


def test_plain_host_side_generates_no_host_state():
    plain = Options(host_buffers="per-call", host_copies="pageable", host_overlap=False)
    source = polycuda.compile(SMOOTH, options=plain).generate("cuda").source
    assert "pc_host_state" not in source and "pc_smooth_release" not in source
    # a serial region's entries keep their kernels there (inspector sub-regions)
    assert Options().plain_host_side() == plain.replace(serial_region="gpu")
    # the defaults (measured faster: bench/results/...-host-side.json) keep buffers, pin arrays
    default = polycuda.compile(SMOOTH).generate("cuda").source
    assert 'extern "C" int pc_smooth_release(void)' in default
    assert "cudaHostRegister" in default


@pytest.mark.parametrize("changes", [dict(host_buffers="pool"), dict(host_copies="pinned"),
                                     dict(host_pin_min_kib=-1), dict(host_chunk_kib=0)])
def test_bad_host_options_are_refused(changes):
    with pytest.raises(InvalidConfigError, match=next(iter(changes))):
        Options(**changes)


def test_cli_host_options_round_trip(tmp_path):
    src = tmp_path / "smooth.c"
    src.write_text(SMOOTH)
    dumped = tmp_path / "opts.json"
    assert main(["compile", str(src), "--target", "cuda", "-o", str(tmp_path / "s.cu"),
                 "--host-buffers", "reuse", "--host-copies", "staged", "--host-pin-min", "16",
                 "--host-chunk", "256", "--dump-options", str(dumped)]) == 0
    opts = Options.from_text(dumped.read_text())
    assert (opts.host_buffers, opts.host_copies, opts.host_pin_min_kib,
            opts.host_chunk_kib) == ("reuse", "staged", 16, 256)
    text = (tmp_path / "s.cu").read_text()
    assert "pc_stage_in(&pc_smooth_state, 262144," in text and ">= 16384 ?" in text


def _dropin(tmp_path, flags):
    src = tmp_path / "smooth.c"
    src.write_text(SMOOTH + MAIN)
    out = tmp_path / "smooth.cu"
    assert main(["compile", str(src), "--target", "cuda", "-o", str(out), *flags]) == 0
    return out, tmp_path / "smooth_host.c"


# calls the region with growing and shrinking n, prints a checksum after each call
MAIN = """
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
  int sizes[4] = {3000, 500, 9000, 64};
  for (int c = 0; c < 4; c++) {
    int n = sizes[c];
    double *A = malloc(n * sizeof(double)), *B = malloc(n * sizeof(double));
    for (int i = 0; i < n; i++) { A[i] = 0.5 + (i * 37 % 101) / 101.0; B[i] = 0.0; }
    smooth(3 + c, n, A, B);
    double sum = 0;
    for (int i = 0; i < n; i++) sum += (A[i] + 0.5 * B[i]) * (i % 13 + 1);
    printf("call %d: %.12f\\n", c, sum);
    free(A); free(B);
  }
  return 0;
}
"""
DROPIN_FLAGS = [["--host-buffers", "reuse"],
                ["--host-buffers", "reuse", "--host-copies", "staged", "--host-pin-min", "0",
                 "--host-chunk", "4"],
                ["--host-copies", "register", "--host-pin-min", "0"],
                ["--host-buffers", "per-call", "--host-overlap"]]


def _expected(tmp_path) -> str:
    src = tmp_path / "orig.c"
    src.write_text(SMOOTH + MAIN)
    exe = tmp_path / "orig"
    subprocess.run([device.find_cc(), "-O1", str(src), "-o", str(exe)], check=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout


@pytest.mark.parametrize("flags", DROPIN_FLAGS, ids=lambda f: "-".join(f[1::2][:2]))
def test_dropin_program_with_host_options_on_the_emulator(tmp_path, flags):
    """The user's own program, its region replaced, called four times with other sizes."""
    cu, host = _dropin(tmp_path, flags)
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
    assert run.stdout == _expected(tmp_path)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: CUDA not compiled")
@pytest.mark.parametrize("flags", DROPIN_FLAGS, ids=lambda f: "-".join(f[1::2][:2]))
def test_dropin_with_host_options_compiles_and_reports_errors(tmp_path, flags):
    """nvcc builds the stateful host side; without a GPU the first CUDA call's error ends the
    program with its message, as with the default host side (test_cuda_host_errors). The host
    rule runs these small calls on the CPU, so the host version is left out to reach the CUDA
    calls; with it (the last flags), no CUDA call is made and the program needs no GPU."""
    on_host = flags == DROPIN_FLAGS[-1]
    cu, host = _dropin(tmp_path, flags if on_host else [*flags, "--host-fallback", "never"])
    nvcc = device.find_nvcc()
    subprocess.run([device.find_cc(), "-c", str(host), "-o", str(tmp_path / "host.o")],
                   check=True)
    subprocess.run([nvcc, "-c", str(cu), "-o", str(tmp_path / "dev.o")], check=True)
    exe = tmp_path / "prog"
    subprocess.run([nvcc, str(tmp_path / "host.o"), str(tmp_path / "dev.o"), "-o", str(exe)],
                   check=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True)
    if on_host or device.gpu_info() is not None:  # the same results as the sequential program
        assert run.returncode == 0 and run.stdout == _expected(tmp_path)
        return
    assert run.returncode != 0 and "call 0" not in run.stdout
    assert "polycuda: pc_smooth failed: CUDA error " in run.stderr
    assert ("cudaErrorNoDevice" in run.stderr or "cudaErrorInsufficientDriver" in run.stderr
            or "cudaErrorNotSupported" in run.stderr), run.stderr


def test_register_falls_back_when_an_array_is_already_page_locked():
    """An array the caller page-locked itself cannot be registered again: the entry copies it
    as pageable memory and is still right (checked on the emulator)."""
    prog = polycuda.compile(SMOOTH, options=Options(host_copies="register",
                                                    host_pin_min_kib=0))
    kernel = prog.kernel("emulate")
    lib = kernel.lib
    n = 500
    A = np.random.default_rng(1).random(n) + 0.5
    B = np.random.default_rng(2).random(n) + 0.5
    expected = {"T": 2, "n": n, "A": A.copy(), "B": B.copy()}
    prog._reference(expected)
    assert lib.pc_emu_host_register(ctypes.c_void_p(A.ctypes.data),
                                    ctypes.c_ulonglong(A.nbytes)) == 0
    kernel(2, n, A, B)
    assert emulate.pinned_ranges(lib) == 1  # the caller's own registration is left alone
    np.testing.assert_allclose(A, expected["A"], rtol=1e-13)
    np.testing.assert_allclose(B, expected["B"], rtol=1e-13)


def test_bench_script_runs_on_the_emulator(tmp_path):
    """bench/host_side.py (the lead's GPU timing of these options) end to end on the CPU."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "host_side.py"
    spec = importlib.util.spec_from_file_location("host_side", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "host.json"
    assert module.main(["--target", "emulate", "--small", "--repeats", "2", "--kernels", "mvt",
                        "--configs", "baseline,reuse+staged", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    configs = result["kernels"]["mvt"]["configs"]
    assert set(configs) == {"baseline", "reuse+staged"} and result["date"]
    assert all(len(c["times_s"]) == 2 and c["min_s"] <= c["median_s"] <= c["max_s"]
               for c in configs.values())


def test_host_options_share_the_kernels_tune_results():
    """The host side changes no kernel: a region tuned with the default host side keeps its
    tuned sizes under any host option (tune/search.cache_key)."""
    from polycuda.tune import search

    scop = polycuda.compile(SMOOTH).scop
    plain = search.cache_key(scop, Options(target="cuda"), "gpu", None)
    host = Options(target="cuda", host_buffers="reuse", host_copies="staged", host_chunk_kib=8)
    assert search.cache_key(scop, host, "gpu", None) == plain
    assert search.cache_key(scop, Options(target="cuda", scheduler="pluto"), "gpu", None) != plain
