"""Shared pytest options: `--update-golden` rewrites the golden files of tests/golden/."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="write the generated code of tests/golden/ as the new golden files")


@pytest.fixture
def update_golden(request: pytest.FixtureRequest) -> bool:
    """Whether this run rewrites golden files instead of comparing with them."""
    return bool(request.config.getoption("--update-golden"))
