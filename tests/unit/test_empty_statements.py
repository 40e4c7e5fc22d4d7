"""Statements that never run (empty domains) compile and verify (the fuzzer's IndexError)."""

from __future__ import annotations

import pytest

import polycuda
from polycuda.options import Options
from polycuda.pipeline import drop_empty_statements

# S0's condition j >= 2i + 2 contradicts j < i + 2 for i >= 1: S0 never runs.
DEAD_AND_LIVE = """
void f(int n, double B[n], double C[n]) { int i, j;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = i - 3; j < i + 2; j++) { if (j >= 2 * i + 2) B[0] = 0.1; C[i] = 1.0 + C[i - 1]; }
#pragma endscop
}
"""
ONLY_DEAD = DEAD_AND_LIVE.replace(" C[i] = 1.0 + C[i - 1];", "")


@pytest.mark.parametrize("source", [DEAD_AND_LIVE, ONLY_DEAD], ids=["dead-and-live", "only-dead"])
@pytest.mark.parametrize("scheduler", ["isl", "pluto"])
def test_a_statement_that_never_runs_compiles_and_verifies(source, scheduler):
    prog = polycuda.compile(source, filename="dead.c", options=Options(scheduler=scheduler))
    results = prog.verify(sizes={"n": 9}, targets=("c", "openmp", "emulate"))
    assert len(results) == 3 and all(r.ok for r in results)


def test_only_statements_that_never_run_are_dropped():
    scop = polycuda.compile(DEAD_AND_LIVE, filename="dead.c").scop
    assert [s.name for s in drop_empty_statements(scop).statements] == ["S1"]
