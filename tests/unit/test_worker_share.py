"""tests/conftest.py's OpenMP share of the cores under pytest-xdist (README's `pytest -n auto`):
each of N workers gets cores / N threads, never fewer than 2, and a set OMP_NUM_THREADS wins."""

from __future__ import annotations

import ctypes
import os

from polycuda.runtime import build
from tests.conftest import MIN_OMP_THREADS, omp_share


def test_one_process_keeps_the_openmp_default():
    assert omp_share({}, 16) == {}
    assert omp_share({"PYTEST_XDIST_WORKER_COUNT": "1"}, 16) == {}


def test_workers_split_the_cores():
    assert omp_share({"PYTEST_XDIST_WORKER_COUNT": "4"}, 16) == {"OMP_NUM_THREADS": "4"}
    assert omp_share({"PYTEST_XDIST_WORKER_COUNT": "3"}, 16) == {"OMP_NUM_THREADS": "5"}


def test_each_worker_keeps_several_threads():
    assert omp_share({"PYTEST_XDIST_WORKER_COUNT": "2"}, 2) == {
        "OMP_NUM_THREADS": str(MIN_OMP_THREADS)}
    assert omp_share({"PYTEST_XDIST_WORKER_COUNT": "64"}, 64) == {
        "OMP_NUM_THREADS": str(MIN_OMP_THREADS)}


def test_a_set_thread_count_is_kept():
    environ = {"PYTEST_XDIST_WORKER_COUNT": "8", "OMP_NUM_THREADS": "1"}
    assert omp_share(environ, 16) == {}


def test_openmp_code_in_this_process_runs_on_its_share():
    # libgomp read the OMP_NUM_THREADS that conftest set (it must not be loaded before),
    # or, when none is set, takes every core this process may run on
    source = ("#include <omp.h>\nint pc_threads(void) {\n  int n = 0;\n"
              "#pragma omp parallel\n  {\n#pragma omp single\n    n = omp_get_num_threads();\n"
              "  }\n  return n;\n}\n")
    lib = ctypes.CDLL(str(build.build_shared(source, "openmp")))
    share = os.environ.get("OMP_NUM_THREADS")
    expected = int(share.split(",")[0]) if share else len(os.sched_getaffinity(0))
    assert lib.pc_threads() == expected
