"""The structural cost of mapped schedules (gpu/cost.py) and the scheduler 'auto' built on it:
the default that picks, per region, the schedule with the shortest chain of dependent steps."""

import json

import pytest

import polycuda
from kernels import suite
from polycuda.cli import main
from polycuda.errors import InvalidConfigError
from polycuda.gpu import cost, mapping
from polycuda.options import Options
from polycuda.pipeline import choose_schedule, dependence_map, transform_scop
from polycuda.schedule import isl_scheduler


def _choice(name: str, **options):
    kernel = suite.by_name(name)
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function)
    opts = Options(target="cuda", **options)
    scop = transform_scop(prog.scop, opts)
    ctx = isl_scheduler.new_context()
    return choose_schedule(scop, opts, ctx, dependence_map(scop, ctx))


@pytest.mark.parametrize("name,scheduler,expected", [
    ("gemm", "isl", cost.Cost(0, 1)),  # the k loop in each thread
    ("lu", "isl", cost.Cost(0, 2)),  # host k loop, a j loop in each thread
    ("lu", "pluto", cost.Cost(0, 1)),  # host loop over wavefronts of tiles
    ("jacobi_2d", "pluto", cost.Cost(0, 1)),  # intra-tile wavefronts are tile-bounded
    ("heat_3d", "isl", cost.Cost(0, 1)),  # host time loop, 3-D kernels
])
def test_cost_counts_loops_of_parametric_length(name, scheduler, expected):
    found = cost.cost(_choice(name, scheduler=scheduler).mapped)
    assert (found.serial, found.depth) == (expected.serial, expected.depth)


@pytest.mark.parametrize("name,scheduler,expected", [
    ("gemm", "isl", 0),  # one kernel, no host loop: launched once
    ("three_mm", "isl", 0),  # three kernels, each launched once
    ("jacobi_1d", "isl", 2 * (cost.LAUNCH_PARAMETER - 1)),  # two kernels per time step
    # a division per row, an update per row i >= 1, the copy x = b once: 256 - 1 + 255 - 1
    ("trisolv", "isl", 2 * cost.LAUNCH_PARAMETER - 3),
])
def test_launches_are_counted_at_the_parameter_value(name, scheduler, expected):
    assert cost.launches(_choice(name, scheduler=scheduler).mapped) == expected


def test_fewer_launches_break_ties():
    # 1-D Jacobi: one host loop either way; Pluto's runs over wavefronts of tiles, not steps
    isl_cost = cost.cost(_choice("jacobi_1d", scheduler="isl").mapped)
    pluto_cost = cost.cost(_choice("jacobi_1d", scheduler="pluto").mapped)
    assert (isl_cost.serial, isl_cost.depth) == (pluto_cost.serial, pluto_cost.depth)
    assert pluto_cost.launches < isl_cost.launches / 4
    assert _choice("jacobi_1d").scheduler == "pluto"


def test_one_thread_kernels_cost_most():
    # Pluto fuses gemver into one nest without a parallel loop: one-thread kernels
    assert cost.cost(_choice("gemver", scheduler="pluto").mapped).serial > 0
    assert cost.cost(_choice("gemver", scheduler="isl").mapped).serial == 0


def test_fewer_kernels_launched_once_do_not_break_ties():
    # three_mm: Pluto fuses E = A.B and F = C.D into one kernel (two kernels against isl's
    # three), which ran 1.7x slower on the H100; equal repeated launches leave isl's
    assert cost.cost(_choice("three_mm", scheduler="pluto").mapped) == cost.cost(
        _choice("three_mm", scheduler="isl").mapped)
    assert _choice("three_mm").scheduler == "isl"


@pytest.mark.parametrize("name,expected", [("lu", "pluto"), ("fdtd_2d", "pluto"),
                                           ("gemver", "isl-distributed"), ("gemm", "isl"),
                                           ("gramschmidt", "isl-distributed"),
                                           ("heat_3d", "isl"), ("trisolv", "pluto")])
def test_auto_takes_the_cheaper_schedule_and_isl_on_ties(name, expected):
    choice = _choice(name)
    assert choice.scheduler == expected
    assert choice.reason.startswith(f"auto: {expected}, the least cost of isl ")


def test_auto_is_isl_on_cpu_targets_and_show_says_why(capsys):
    kernel = suite.by_name("lu")
    assert main(["show", "schedule", str(kernel.c_path), "--target", "openmp", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["scheduler"] == "isl" and "only candidate on target openmp" in shown["choice"]
    assert main(["show", "schedule", str(kernel.c_path), "--target", "cuda"]) == 0
    out = capsys.readouterr().out
    assert "(pluto scheduler; auto: pluto, the least cost of 4 candidates" in out
    assert [line.split()[:3] for line in out.splitlines() if line.startswith("    isl ")] == \
        [["isl", "0", "2"]]


def test_auto_choice_verifies_on_the_emulator():
    kernel = suite.by_name("lu")
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function)
    assert prog.generate("cuda").choice.startswith("auto: pluto")
    results = prog.verify({"n": 19}, targets=("emulate",))
    assert results and all(r.ok for r in results)


def test_a_later_candidate_out_of_its_share_is_skipped_without_a_warning(recwarn):
    # Pluto needs more than auto_candidate_operations on adi: the default keeps another
    choice = _choice("adi")
    assert choice.scheduler != "pluto" and ("pluto skipped (isl operation limit of 600000 ran "
                                            "out (Options.auto_candidate_operations))"
                                            in choice.reason)
    assert not [w for w in recwarn if "pluto" in str(w.message)]


def test_superposition_is_chosen_where_it_keeps_a_loop_off_the_threads():
    # jacobi_2d_alt (Shirako et al. 2017, Figure 1): isl's and Pluto's schedules put the
    # independent rows i on threads, each running t and j in sequence (depth 2); superposition
    # runs t on the host and i, j on blocks and threads (depth 1): 7.66 ms against 374.5 on
    # the H100 (bench/results/2026-11-26-nvidia-h100-80gb-hbm3-sup-auto.json)
    choice = _choice("jacobi_2d_alt")
    assert choice.scheduler == "superposition"
    assert cost.cost(choice.mapped) < cost.cost(_choice("jacobi_2d_alt", scheduler="isl").mapped)
    assert cost.cost(choice.mapped).depth == 1 and "isl 0/2/4/0" in choice.reason
    # where the least cost so far has one parametric loop on the longest path (gemm), it is
    # not mapped at all (pipeline.AUTO_MIN_DEPTH: it only tied there, at up to 0.4 s)
    gemm = _choice("gemm")
    assert gemm.scheduler == "isl" and "superposition skipped (the least cost so far, " \
        "0/1/1/0, has fewer than 2 parametric loops" in gemm.reason


def test_a_parallel_nest_fused_into_another_statements_loop_costs_in_thread_loops():
    # gramschmidt: isl fuses A's update (parallel in i and j) behind the reduction of
    # R[k][j] over i, in the same thread; distributed, the update has its own 2-D kernel
    fused = cost.cost(_choice("gramschmidt", scheduler="isl").mapped)
    distributed = cost.cost(_choice("gramschmidt", scheduler="isl-distributed").mapped)
    assert (fused.serial, fused.depth) == (distributed.serial, distributed.depth)
    assert (fused.in_thread, distributed.in_thread) == (2, 1)
    # gemm: C *= beta is fused at k = 0, a point of the k loop: it runs no loop of its own
    assert cost.cost(_choice("gemm", scheduler="isl").mapped).in_thread == 1


def test_row_reduction_kernels_run_no_loop_in_one_thread():
    # gesummv: both rows (y = A x, tmp = B x) on blocks, their j loops on a warp's lanes
    found = _choice("gesummv", scheduler="isl")
    assert [k.reduction_combine for k in found.mapped.kernels] == [mapping.ROWS]
    assert cost.cost(found.mapped) == cost.Cost(0, 0, 0, 0)
    no_rows = _choice("gesummv", scheduler="isl", row_reductions=False)
    assert cost.cost(no_rows.mapped).in_thread > 0


def test_sizes_that_do_not_fit_a_later_candidate_skip_it_not_the_compile():
    # doitgen: tiles 96x96x6 on 1x96x6 threads fit isl's kernels; pluto's wavefront ties two
    # tile rows at the smaller size (6), where a block of 96 does not fit
    choice = _choice("doitgen", tile_sizes=(96, 96, 6), block_sizes=(1, 96, 6))
    assert choice.scheduler == "isl"
    assert "pluto skipped (the given sizes do not fit its kernels: block size 96 exceeds" \
        in choice.reason
    with pytest.raises(InvalidConfigError, match="block size 96 exceeds tile size 6"):
        _choice("doitgen", scheduler="pluto", tile_sizes=(96, 96, 6), block_sizes=(1, 96, 6))
