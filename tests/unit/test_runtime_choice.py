"""Two schedules of one region in one CUDA file, chosen per call (Options.runtime_choice,
pipeline.runtime_choice; issue 15, item 5): where the auto scheduler's least-cost candidate and
the runner-up differ in kernel launches alone and which launches fewer depends on the sizes
(1-D Jacobi: Pluto launches one kernel per wavefront of tiles, (6T + n) / 64 of them; isl two
per time step), both are compiled and the entries run the one of fewer launches by a bound
evaluated at the call's parameters. Checked against the sequential program on random inputs
on both sides of the rule (the emulator), the bounds' C text against isl's evaluation."""

from __future__ import annotations

import ctypes
import json
import shutil

import numpy as np
import pytest

import polycuda
from kernels import suite
from polycuda.cli import main
from polycuda.gpu import cost
from polycuda.ir.c_expr import C_HELPERS
from polycuda.options import Options
from polycuda.ir import isl_build
from polycuda.pipeline import (RUNTIME_CHOICE_LARGE, RUNTIME_CHOICE_SMALL, choose_schedule,
                               compile_scop, dependence_map, runtime_choice, transform_scop)
from polycuda.runtime import build, emulate, launch
from polycuda.schedule import isl_scheduler
from polycuda.verify import random_arguments


def _program(name: str, **options) -> polycuda.Program:
    kernel = suite.by_name(name)
    return polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(target="cuda", **options))


def _choices(name: str, **options):
    """(program, choice, RuntimeChoice or None, launch time bounds of both candidates)."""
    prog = _program(name, **options)
    opts = prog.options
    scop = transform_scop(prog.scop, opts)
    ctx = isl_scheduler.new_context()
    choice = choose_schedule(scop, opts, ctx, dependence_map(scop, ctx))
    both = runtime_choice(scop, opts, ctx, choice)
    context = isl_build.context_set(scop, ctx)
    bounds = (cost.launch_times(choice.mapped, context),
              cost.launch_times(choice.runner_up[2], context) if choice.runner_up else ())
    return prog, choice, both, bounds


def test_jacobi_1d_has_both_schedules_and_the_entries_choose_by_launch_bounds():
    prog, choice, both, _ = _choices("jacobi_1d")
    assert choice.scheduler == "pluto" and choice.runner_up[0] == "isl"
    assert both is not None and both.schedulers == ("pluto", "isl")
    # the runner-up is lower where the time steps are few and the array long
    assert both.example == {"T": RUNTIME_CHOICE_SMALL, "n": RUNTIME_CHOICE_LARGE}
    gen = prog.generate()
    source = gen.source
    assert "namespace polycuda_variant_0 {" in source and "namespace polycuda_variant_1 {" in source
    assert source.count('extern "C" int pc_jacobi_1d(') == 1
    assert source.count('extern "C" int pc_jacobi_1d_dev(') == 1
    assert source.count('extern "C" void pc_jacobi_1d_fail(') == 1
    assert "static int pc_jacobi_1d_variant(long long T, long long n)" in source
    assert "at run time: isl's code" in gen.choice
    assert [s.name for s in gen.steps].count("run-time choice") == 1
    assert ("return (pc_launch_ns0 > pc_launch_ns1 && pc_launch_ns0 > pc_instances * 0.007) ? "
            "1 : 0;") in source


# T = 3, n = 900: Pluto's 15 wavefront launches x 7 us against isl's 6 x 2 us and 5,388
# instances x 0.007 ns: isl's; T = 30, n = 40: Pluto's 4 x 7 us against isl's 60 x 2 us
SIDES = ({"T": 3, "n": 900}, {"T": 30, "n": 40})


@pytest.mark.parametrize("sizes", [*SIDES, {"T": 1, "n": 3}])
def test_jacobi_1d_verifies_on_both_sides_of_the_rule(sizes):
    results = _program("jacobi_1d").verify(sizes, targets=("emulate",))
    assert results and all(r.ok for r in results), [r.message for r in results]


def test_the_sizes_of_the_tests_run_each_variant():
    _, _, both, _ = _choices("jacobi_1d")
    assert [both.picks(s) for s in SIDES] == [True, False]


def test_the_generated_rule_agrees_with_isl_and_the_bounds_bound_the_exact_count():
    prog, choice, both, bounds = _choices("jacobi_1d")
    source = prog.generate().source
    head = "static int pc_jacobi_1d_variant("
    function = source[source.index(head):source.index("\n}\n", source.index(head)) + 3]
    lib = ctypes.CDLL(str(build.build_shared(C_HELPERS + function.replace("static ", "", 1),
                                             "c")))
    lib.pc_jacobi_1d_variant.argtypes = [ctypes.c_longlong, ctypes.c_longlong]
    picked = set()
    for t in (1, 3, 30, 100, 500):
        for n in (3, 40, 900, 2000, 1 << 16, 1 << 24):
            sizes = {"T": t, "n": n}
            picked.add(both.picks(sizes))
            assert lib.pc_jacobi_1d_variant(t, n) == int(both.picks(sizes)), sizes
    assert picked == {True, False}
    # bounds: at the parameters of the compile-time count, at least the exact launches (each
    # mark's first launch included)
    at = dict.fromkeys(("T", "n"), cost.LAUNCH_PARAMETER)
    for bound, mapped in zip(bounds, (choice.mapped, choice.runner_up[2])):
        assert cost.bound_at(tuple((1.0, f) for _, f in bound), at) >= cost.launches(
            mapped) + len(bound)
    assert {w for w, _ in bounds[0]} == {cost.WAVEFRONT_LAUNCH_NS}  # Pluto's wavefronts
    assert {w for w, _ in bounds[1]} == {cost.LAUNCH_NS}  # isl's two kernels per step


def test_no_second_schedule_where_the_rule_never_picks_the_runner_up():
    # lu, cholesky: Pluto's wavefronts of tiles, fewer than the launches of isl's k loop, and
    # their launches' time below the work's at every sample
    for name in ("lu", "cholesky"):
        prog, choice, both, _ = _choices(name)
        assert choice.runner_up is not None and both is None
        assert "polycuda_variant_" not in prog.generate().source


def test_off_with_the_option_with_given_sizes_and_with_a_requested_scheduler():
    for options in ({"runtime_choice": False}, {"tile_sizes": (16, 32)},
                    {"scheduler": "pluto"}):
        prog, _, both, _ = _choices("jacobi_1d", **options)
        assert both is None, options
        assert "polycuda_variant_" not in prog.generate().source, options


def test_show_schedule_reports_the_run_time_choice(capsys):
    path = str(suite.by_name("jacobi_1d").c_path)
    assert main(["show", "schedule", path, "--target", "cuda", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["runtime_choice"]["variants"] == ["pluto", "isl"]
    assert out["runtime_choice"]["example"] == {"T": 64, "n": 1 << 22}
    assert len(out["runtime_choice"]["launch_ns"]) == 2
    assert main(["show", "schedule", path, "--target", "cuda"]) == 0
    text = capsys.readouterr().out
    assert "at run time: isl's code where pluto's launches take longer" in text
    assert "rule: pc_launch_ns0 > pc_launch_ns1 && pc_launch_ns0 > pc_instances * 0.007" in text
    assert main(["show", "schedule", str(suite.by_name("gemm").c_path), "--target", "cuda",
                 "--json"]) == 0
    assert "runtime_choice" not in json.loads(capsys.readouterr().out)


def test_the_generated_code_is_the_same_on_every_compile():
    prog = _program("jacobi_1d")
    scop = transform_scop(prog.scop, prog.options)
    assert compile_scop(scop, prog.options).source == compile_scop(scop, prog.options).source


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_nvcc_builds_the_file_with_both_schedules():
    build.compile_only(_program("jacobi_1d").generate().source, "cuda")


@pytest.mark.gpu
@pytest.mark.parametrize("sizes", [{"T": 3, "n": 9000}, {"T": 300, "n": 400}])
def test_both_variants_verify_on_the_gpu(sizes):
    results = _program("jacobi_1d").verify(sizes, targets=("cuda",))
    assert results and all(r.ok for r in results), [r.message for r in results]


def test_the_cli_flag_keeps_one_schedule(tmp_path):
    out = tmp_path / "j.cu"
    path = str(suite.by_name("jacobi_1d").c_path)
    assert main(["compile", path, "--target", "cuda", "-o", str(out)]) == 0
    assert "polycuda_variant_1" in out.read_text()
    assert main(["compile", path, "--target", "cuda", "--no-runtime-choice", "-o",
                 str(out)]) == 0
    assert "polycuda_variant_" not in out.read_text()


def test_both_variants_share_the_kept_buffers_and_one_release():
    prog = _program("jacobi_1d")
    source = prog.generate().source
    assert source.count("static pc_host_state<2> pc_jacobi_1d_state") == 1
    assert source.count('extern "C" int pc_jacobi_1d_release(void) {') == 1
    for sizes in SIDES:  # a call of each variant, host arrays (the kept device buffers)
        results = prog.verify(sizes, targets=("emulate",))
        assert results and all(r.ok for r in results)
    lib = prog.kernel("emulate").lib
    assert emulate.live_allocations(lib) == 2  # A and B, once
    assert lib.pc_jacobi_1d_release() == 0 and emulate.live_allocations(lib) == 0


def test_tune_without_a_gpu_keeps_both_schedules(tmp_path):
    # the model's sizes alone would compile Pluto's code alone (given sizes: one schedule)
    from polycuda.tune import search

    said = []
    result = search.tune(_program("jacobi_1d"), {"T": 100, "n": 1 << 24}, top_k=2,
                         limit=4000, cache=tmp_path, progress=said.append)
    assert (result.tile_sizes, result.block_sizes) == ((), ())
    assert any("two schedules chosen at run time" in line for line in said)
    alone = search.tune(_program("jacobi_1d", runtime_choice=False), {"T": 100, "n": 1 << 24},
                        top_k=2, limit=4000, cache=tmp_path, progress=None)
    assert alone.tile_sizes != ()


TWO_REGIONS = """
void jac(int T, int n, double A[n], double B[n]) {
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0;
    for (int i = 1; i < n - 1; i++)
      A[i] = (B[i - 1] + B[i] + B[i + 1]) / 3.0;
  }
#pragma endscop
}
void smooth(int T, int n, double A[n], double B[n]) {
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      B[i] = 0.25 * A[i - 1] + 0.5 * A[i] + 0.25 * A[i + 1];
    for (int i = 1; i < n - 1; i++)
      A[i] = 0.25 * B[i - 1] + 0.5 * B[i] + 0.25 * B[i + 1];
  }
#pragma endscop
}
"""


def test_a_file_of_two_regions_each_with_two_schedules(tmp_path):
    # each region's variants in its own namespace (cuda_host.join around join_variants): the
    # whole file builds, and each region's entries compute its sequential result on both
    # sides of the rule
    src = tmp_path / "two.c"
    src.write_text(TWO_REGIONS)
    out = tmp_path / "two.cu"
    assert main(["compile", str(src), "--target", "cuda", "-o", str(out)]) == 0
    text = out.read_text()
    for name in ("jac", "smooth"):
        assert f"namespace polycuda_region_{name} {{" in text
        assert text.count(f"static int pc_{name}_variant(") == 1
    assert text.count("namespace polycuda_variant_1 {") == 2
    if shutil.which("nvcc"):
        build.compile_only(text, "cuda")
    lib = emulate.build_emulated(text, seed=5)
    for prog in polycuda.compile_all(str(src), options=Options(target="cuda")):
        gen = prog.generate("cuda")
        kernel = launch.load(lib, prog.scop, "emulate", transformed=gen.scop)
        for sizes in SIDES:
            args = random_arguments(prog.scop, sizes, seed=sizes["T"])
            expected = {k: v.copy() if hasattr(v, "copy") else v for k, v in args.items()}
            prog._reference(expected)
            kernel(**args)
            for name in ("A", "B"):
                np.testing.assert_allclose(args[name], expected[name], rtol=1e-12)
