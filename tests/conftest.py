"""Shared pytest options: `--update-golden` rewrites the golden files of tests/golden/; tests
marked `gpu` are skipped, with the reason, where CUDA code cannot run (tests/gpu_probe.py).

Under pytest-xdist (README's `pytest -n auto`) each worker's OpenMP code gets its share of the
cores, so that N workers do not start N x cores threads.
"""

from __future__ import annotations

import os

import pytest

MIN_OMP_THREADS = 2  # parallel loops still run on several threads: races stay visible


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="write the generated code of tests/golden/ as the new golden files")


def pytest_configure(config: pytest.Config) -> None:
    os.environ.update(omp_share(os.environ, os.cpu_count() or 1))


def omp_share(environ: dict[str, str] | os._Environ, cores: int) -> dict[str, str]:
    """OMP_NUM_THREADS for one of PYTEST_XDIST_WORKER_COUNT workers: cores / workers, at least
    MIN_OMP_THREADS; {} (no change) in a single process or when OMP_NUM_THREADS is set.
    libgomp reads it when the first OpenMP library is loaded, after this hook."""
    workers = int(environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers <= 1 or "OMP_NUM_THREADS" in environ:
        return {}
    return {"OMP_NUM_THREADS": str(max(MIN_OMP_THREADS, cores // workers))}


@pytest.hookimpl(trylast=True)  # after `-m` deselected: probe only when GPU tests will run
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gpu = [item for item in items if item.get_closest_marker("gpu")]
    if not gpu:
        return
    from tests.gpu_probe import no_gpu_reason

    reason = no_gpu_reason()
    if reason:
        skip = pytest.mark.skip(reason=f"no usable GPU: {reason}")
        for item in gpu:
            item.add_marker(skip)


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    """Whether this run rewrites golden files instead of comparing with them."""
    return bool(request.config.getoption("--update-golden"))
