"""Copies overlapped with the kernels (Options.host_overlap; codegen/host_driver.py and
cuda_host.HostPrinter.overlapped): right on the emulator, whose non-blocking stream delivers a
copy in as late as a GPU may and takes a copy out as early as it may (runtime/cuda_emu.h), so
that a wait placed wrong changes the results; the waits and copies in the order the top-level
parts of the driver need them."""

from __future__ import annotations

import re
import shutil
import threading

import numpy as np
import pytest

import polycuda
from kernels import suite
from polycuda import Options
from polycuda.cli import main
from polycuda.runtime import build, emulate, launch
from polycuda.verify import random_arguments

OVERLAP = {
    "reuse-register": dict(host_overlap=True, host_pin_min_kib=0),
    "per-call-register": dict(host_overlap=True, host_buffers="per-call", host_pin_min_kib=0),
    "reuse-pageable": dict(host_overlap=True, host_copies="pageable"),
}


@pytest.mark.parametrize("config", sorted(OVERLAP))
@pytest.mark.parametrize("name", ["three_mm", "two_mm", "gemver", "covariance", "lu"])
def test_overlapped_copies_verify_on_the_emulator(name, config):
    kernel = suite.by_name(name)
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(**OVERLAP[config]))
    assert "pc_overlap_wait" in prog.generate("cuda").source
    for seed in range(2):  # a second call: the kept buffers hold the first call's values
        assert all(r.ok for r in prog.verify(kernel.small, targets=("emulate",), seed=seed))


def test_release_frees_the_buffers_and_the_next_call_makes_them_again():
    kernel = suite.by_name("two_mm")
    prog = polycuda.compile(str(kernel.c_path), options=Options(**OVERLAP["reuse-register"]))
    assert all(r.ok for r in prog.verify(kernel.small, targets=("emulate",)))
    lib = prog.kernel("emulate").lib
    assert emulate.live_allocations(lib) > 0 and emulate.pinned_ranges(lib) == 0
    assert lib.pc_two_mm_release() == 0 and emulate.live_allocations(lib) == 0
    assert all(r.ok for r in prog.verify(kernel.small, targets=("emulate",), seed=1))


def _three_mm_run(source: str) -> list[str]:
    body = source[source.index("static int pc_three_mm_run("):]
    body = body[:body.index("\n}\n")]
    return [m.group(0) for m in re.finditer(
        r"pc_overlap_(wait|out)\(pc_ov, \d\)|kernel\d<<<", body)]


def test_waits_before_the_first_use_and_copies_out_after_the_last_writer():
    # 3mm: kernel0 F = C D, kernel1 E = A B, kernel2 G = E F (arguments E A B F C D G)
    kernel = suite.by_name("three_mm")
    prog = polycuda.compile(str(kernel.c_path), options=Options(host_overlap=True))
    source = prog.generate("cuda").source
    assert _three_mm_run(source) == [
        "pc_overlap_wait(pc_ov, 3)", "pc_overlap_wait(pc_ov, 4)", "pc_overlap_wait(pc_ov, 5)",
        "kernel0<<<", "pc_overlap_out(pc_ov, 3)",
        "pc_overlap_wait(pc_ov, 0)", "pc_overlap_wait(pc_ov, 1)", "pc_overlap_wait(pc_ov, 2)",
        "kernel1<<<", "pc_overlap_out(pc_ov, 0)",
        "pc_overlap_wait(pc_ov, 6)", "kernel2<<<", "pc_overlap_out(pc_ov, 6)"]
    entry = source[source.index('extern "C" int pc_three_mm('):]
    copies = re.findall(r"cudaMemcpyAsync\(d_(\w+),", entry)
    assert copies == ["F", "C", "D", "E", "A", "B", "G"]  # first needed first
    # the device entry runs the same driver with nothing to wait for
    assert "return pc_three_mm_run(ni, nj, nk, nl, nm, E, A, B, F, C, D, G, NULL);" in source


def _emulated(source: str, prog: polycuda.Program, sizes: dict, device_entry: bool = False
              ) -> tuple[dict, dict]:
    """(the arrays after the emulated `source`, after the sequential program), same inputs."""
    gen = prog.generate("emulate")
    kernel = launch.load(emulate.build_emulated(source), prog.scop, "emulate",
                         transformed=gen.scop, device_entry=device_entry)
    args = random_arguments(prog.scop, sizes, seed=3)
    expected = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}
    prog._reference(expected)
    kernel(**args)
    return args, expected


def test_the_device_entry_runs_the_driver_without_copies():
    kernel = suite.by_name("three_mm")
    prog = polycuda.compile(str(kernel.c_path), options=Options(host_overlap=True))
    args, expected = _emulated(prog.generate("cuda").source, prog, kernel.small,
                               device_entry=True)
    for name in ("E", "F", "G"):
        np.testing.assert_allclose(args[name], expected[name], rtol=1e-12)


def test_calls_from_several_threads_are_right():
    """Each call's copies and waits under the entry's mutex; the emulator's queues under their
    lock (cudaDeviceSynchronize in one thread runs every deferred stream's work)."""
    kernel = suite.by_name("three_mm")
    prog = polycuda.compile(str(kernel.c_path), options=Options(host_overlap=True))
    entry = prog.kernel("emulate")
    calls = []
    for seed in range(4):
        args = random_arguments(prog.scop, kernel.small, seed=seed)
        expected = {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in args.items()}
        prog._reference(expected)
        calls.append((args, expected))
    errors: list[BaseException] = []

    def work(args: dict) -> None:
        try:
            entry(**args)
        except BaseException as err:  # noqa: BLE001 (reported by the assert below)
            errors.append(err)

    threads = [threading.Thread(target=work, args=(args,)) for args, _ in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for args, expected in calls:
        for name in ("E", "F", "G"):
            np.testing.assert_allclose(args[name], expected[name], rtol=1e-12)


@pytest.mark.parametrize("broken", ["no wait", "copy out early"])
def test_the_emulator_catches_a_wait_placed_wrong(broken):
    kernel = suite.by_name("three_mm")
    prog = polycuda.compile(str(kernel.c_path), options=Options(host_overlap=True))
    source = prog.generate("cuda").source
    args, expected = _emulated(source, prog, kernel.small)
    for name in ("E", "F", "G"):
        np.testing.assert_allclose(args[name], expected[name], rtol=1e-12)
    # D: the last copy kernel0 waits for (a wait for C is also one for F before it, in the
    # copy stream's order; one for D covers all three)
    wait_d = "  PC_CHECK((cudaError_t)pc_overlap_wait(pc_ov, 5));  /* D copied in */\n"
    out_f = "  PC_CHECK((cudaError_t)pc_overlap_out(pc_ov, 3));  /* F final: copied out */\n"
    assert wait_d in source and out_f in source
    if broken == "no wait":  # kernel0 reads D before it arrives: poisoned memory
        source = source.replace(wait_d, "")
    else:  # F copied out before kernel0 writes it: the caller gets F as it was
        source = source.replace(out_f, "").replace(wait_d, wait_d + out_f)
    args, _ = _emulated(source, prog, kernel.small)
    assert not np.allclose(args["F"], expected["F"], rtol=1e-12, equal_nan=False)


def test_staged_copies_do_not_overlap():
    # on by default; staged copies go through the staging buffer in stream order
    source = polycuda.compile(str(suite.by_name("two_mm").c_path),
                              options=Options(host_copies="staged")).generate("cuda").source
    assert Options().host_overlap and "pc_stage_in(" in source
    assert "pc_two_mm_run" not in source and "pc_overlap_wait(pc_ov" not in source


def test_cli_host_overlap(tmp_path):
    kernel = suite.by_name("two_mm")
    out = tmp_path / "two_mm.cu"
    dumped = tmp_path / "opts.json"
    assert main(["compile", str(kernel.c_path), "--target", "cuda", "-o", str(out),
                 "--host-overlap", "--dump-options", str(dumped)]) == 0
    assert Options.from_text(dumped.read_text()).host_overlap
    assert "pc_overlap_out(pc_ov," in out.read_text()
    assert main(["compile", str(kernel.c_path), "--target", "cuda", "-o", str(out),
                 "--no-host-overlap"]) == 0
    text = out.read_text()
    assert "pc_two_mm_run" not in text and "pc_overlap_wait(pc_ov" not in text


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: CUDA not compiled")
@pytest.mark.parametrize("name", ["three_mm", "gemver"])
def test_nvcc_builds_the_overlapped_host_side(name):
    kernel = suite.by_name(name)
    prog = polycuda.compile(str(kernel.c_path), options=Options(host_overlap=True))
    build.compile_only(prog.generate("cuda").source, "cuda")
