"""Default threads per block of a 1-D kernel whose threads each walk a line that the thread
dimension strides across (gpu/mapping.py line_threads, LINE_THREAD_LINES): adi's row sweep
(four arrays strided: 64 threads) and deriche's (two: 128); the sweeps along columns, whose
accesses coalesce along the thread dimension, keep the default 256; given sizes win. The
same in C and in Python: the rule reads the schedule and the accesses, not the source form."""

from __future__ import annotations

import numpy as np
import pytest

from kernels import suite
from polycuda.frontend import c as cfront
from polycuda.frontend import python as pyfront
from polycuda.options import Options
from polycuda.pipeline import compile_scop


def _threads(scop, **options) -> dict[str, tuple[int, ...]]:
    generated = compile_scop(scop, Options(target="cuda", tuned_sizes=False, **options))
    return {k.name: k.block_sizes for k in generated.kernels if not k.serial}


def _c_scop(name: str):
    (scop,) = cfront.parse_file(suite.by_name(name).c_path)
    return scop


def _python_scop(name: str):
    kernel = suite.by_name(name)
    fn = suite.python_function(kernel)
    args = suite.random_args(kernel, kernel.small, np.random.default_rng(0))
    return pyfront.parse_function(fn, pyfront.arg_specs_from_values(fn, args, {}))


@pytest.mark.parametrize("frontend", [_c_scop, _python_scop], ids=["c", "python"])
def test_adi_row_sweep_runs_on_smaller_blocks_and_its_column_sweep_on_the_default(frontend):
    threads = sorted(_threads(frontend("adi")).values())
    assert threads == [(64,), (256,)]  # rows: p, q, u, v strided; columns coalesce


def test_deriche_row_sweeps_take_128_threads_and_the_others_keep_the_default():
    threads = list(_threads(_c_scop("deriche")).values())
    assert sorted(threads).count((128,)) == 2  # y1, y2 along rows: two arrays each
    assert all(t in ((128,), (256,), (8, 32)) for t in threads)


def test_given_sizes_are_not_changed_by_the_rule():
    assert set(_threads(_c_scop("adi"), tile_sizes=(256,)).values()) == {(256,)}
    assert set(_threads(_c_scop("adi"), tile_sizes=(512,), block_sizes=(128,)).values()) \
        == {(128,)}


def test_a_kernel_without_a_loop_per_thread_keeps_the_default():
    # jacobi_1d's sweeps: one point per thread
    assert set(_threads(_c_scop("jacobi_1d"), scheduler="isl").values()) == {(256,)}
