"""isl scheduler wrapper, schedule JSON, independent legality check, GPU mapping marks."""

import islpy as isl
import pytest

from polycuda.analysis import dependences
from polycuda.errors import IllegalScheduleError, InvalidConfigError
from polycuda.gpu import mapping, tiling
from polycuda.ir import isl_build
from polycuda.options import Options
from polycuda.schedule import isl_scheduler, legality, report
from tests.unit import hand_scops


@pytest.mark.parametrize("make", hand_scops.ALL)
def test_isl_schedules_are_legal_and_reported(make):
    scop = make()
    ctx = isl_scheduler.new_context()
    schedule = isl_scheduler.isl_schedule(scop, ctx)
    legality.check(schedule, dependences.untagged_union(scop, ctx))
    data = report.schedule_json(scop, schedule)
    assert [s["name"] for s in data["statements"]] == [s.name for s in scop.statements]
    for stmt, entry in zip(scop.statements, data["statements"]):
        assert entry["iterators"] == list(stmt.iterators)
        assert len(entry["hyperplanes"]) == len(entry["parallel"])
        assert all(len(row) == len(stmt.iterators) + 1 for row in entry["hyperplanes"])


def test_figure2_isl_schedule_is_a_wavefront_with_inner_parallel_loop():
    scop = hand_scops.figure2()
    ctx = isl_scheduler.new_context()
    data = report.schedule_json(scop, isl_scheduler.isl_schedule(scop, ctx))
    (stmt,) = data["statements"]
    assert stmt["parallel"] == [False, True]
    outer = stmt["hyperplanes"][0]
    # every dependence distance of Table I is strictly positive along the outer row
    for d in [(1, 0), (1, -1), (0, 1)]:
        assert outer[0] * d[0] + outer[1] * d[1] >= 1


def test_legality_check_rejects_an_interchanged_sor():
    scop = hand_scops.sor_1d()
    ctx = isl_scheduler.new_context()
    deps = dependences.untagged_union(scop, ctx)
    domain = isl_build.domain_union(scop, ctx)
    bad = isl.Schedule.from_domain(domain).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(isl.UnionMap("[T, n] -> { S0[t, i] -> [i, t] }",
                                                        context=ctx)))
    with pytest.raises(IllegalScheduleError):
        legality.check(bad, deps)
    legality.check(isl_scheduler.original_schedule_tree(scop, ctx), deps)


@pytest.mark.parametrize("make", hand_scops.ALL)
def test_fast_legality_answer_is_violated_s(make):
    """check()'s fast path (_orders_all) says legal exactly when violated() is empty: on the
    isl schedule, the original order, the original order reversed (illegal where there is a
    dependence), and the original order without the first statement's instances."""
    scop = make()
    ctx = isl_scheduler.new_context()
    deps = dependences.untagged_union(scop, ctx)
    original = isl_scheduler.original_schedule_tree(scop, ctx)
    domain = original.get_domain()
    schedules = [isl_scheduler.isl_schedule(scop, ctx), original]
    sched_umap = original.get_map()
    dims: list[int] = []
    sched_umap.foreach_map(lambda m: dims.append(m.dim(isl.dim_type.out)))
    n = dims[0]
    names = [f"s{k}" for k in range(n)]
    negate = isl.UnionMap(f"{{ [{', '.join(names)}] -> [{', '.join('-' + x for x in names)}] }}",
                          context=ctx)
    schedules.append(isl.Schedule.from_domain(domain).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(sched_umap.apply_range(negate))))
    first: list[isl.Set] = []
    domain.foreach_set(first.append)
    schedules.append(original.intersect_domain(domain.subtract(isl.UnionSet(first[0]))))
    answers = [legality._orders_all(schedule, deps) for schedule in schedules]
    assert answers == [legality.violated(schedule, deps).is_empty() for schedule in schedules]
    assert answers[:2] == [True, True]
    if not deps.is_empty():
        assert not answers[2]


def test_mapping_marks_kernels_and_keeps_sequential_loops_on_host():
    scop = hand_scops.jacobi_2d()
    ctx = isl_scheduler.new_context()
    schedule = isl_scheduler.isl_schedule(scop, ctx)
    mapped = tiling.map_schedule(schedule, Options(), isl_build.context_set(scop, ctx))
    kernels = mapped.kernels
    assert [k.tile_sizes for k in kernels] == [(8, 32), (8, 32)]
    assert all(k.depth == 1 and not k.serial for k in kernels)
    assert "kernel:kernel0" in str(mapped.schedule) and "thread:kernel1" in str(mapped.schedule)
    assert mapped.lift.is_equal(schedule.get_domain().identity())  # no wavefront: no lift


def test_mapping_without_parallelism_gives_one_serial_kernel():
    scop = hand_scops.reverse_scan()
    ctx = isl_scheduler.new_context()
    schedule = isl_scheduler.isl_schedule(scop, ctx)
    mapped = tiling.map_schedule(schedule, Options(), isl_build.context_set(scop, ctx))
    assert [k.serial for k in mapped.kernels] == [True]


def test_tile_and_block_sizes_from_options():
    assert mapping.tile_sizes_for(2, Options(tile_sizes=(16, 64))) == (16, 64)
    assert mapping.tile_sizes_for(1, Options(tile_sizes=(16, 64))) == (64,)
    assert mapping.tile_sizes_for(3, Options(tile_sizes=(16, 64))) == (4, 16, 64)
    tiles = (16, 64)
    assert mapping.block_sizes_for(tiles, Options(block_sizes=(4, 32))) == (4, 32)
    assert mapping.block_sizes_for(tiles, Options(block_sizes=(32,))) == (16, 32)
    # a given block size larger than its tile is refused, not shrunk to the tile (issue 14)
    with pytest.raises(InvalidConfigError, match="block size 128 exceeds tile size 64"):
        mapping.block_sizes_for(tiles, Options(block_sizes=(128,)))
    # at most 1024 threads: the outer sizes are halved first (x stays whole for coalescing)
    assert mapping.block_sizes_for((4, 16, 32), Options()) == (2, 16, 32)
    assert mapping.block_sizes_for((64, 64), Options()) == (16, 64)
    assert mapping.block_sizes_for((1, 2048), Options()) == (1, 1024)
    # derived sizes keep CUDA's per-axis limits: z at most 64
    assert mapping.block_sizes_for((100, 1, 1), Options()) == (50, 1, 1)
    assert mapping.block_sizes_for((100, 1, 8), Options(block_sizes=(1, 8))) == (50, 1, 8)
