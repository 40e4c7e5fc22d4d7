"""Bounded compile time and legal schedules for valid input (issue 14, items 6, 7, 10): the
budgeted solver calls, the fallback chain and its warnings, Pluto on parity dependences and on
Python regions, and the progress lines of long compiles."""

import glob
import logging
import os
import signal
import time
import warnings
from pathlib import Path

import islpy as isl
import numpy as np
import pytest

import polycuda
from kernels import suite
from polycuda import progress, show
from polycuda.analysis import dependences
from polycuda.errors import InvalidConfigError, PolycudaWarning, SolverTimeoutError
from polycuda.frontend import c as cfront
from polycuda.frontend import python as pyfront
from polycuda.options import WORK_LIMITS, Options
from polycuda.pipeline import compile_scop
from polycuda.schedule import budget, isl_scheduler, pluto
from tests.unit.random_c import random_region

pytestmark = pytest.mark.filterwarnings("ignore::polycuda.errors.PolycudaWarning")
TARGETS = ("c", "openmp", "emulate")
C_INPUTS = Path(__file__).parent / "c_inputs"
PARITY = """
void parity(int n, double A[2 * n + 1])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[2 * i] = A[n - i];
#pragma endscop
}
"""


def _verified(prog, sizes, targets=TARGETS):
    results = prog.verify(sizes, targets=targets)
    assert [r.target for r in results] == list(targets) and all(r.ok for r in results)


# -- budget.run_bounded ---------------------------------------------------------------------
LIMIT = budget.Limit(budget.MAX_OPERATIONS, "schedule_operations")


def test_run_bounded_returns_the_childs_result():
    ctx = isl.Context()
    assert budget.run_bounded(lambda: ("x" * 200_000, 3), ctx, LIMIT, "echo", 10.0) == (
        "x" * 200_000, 3)


def test_the_wall_clock_safety_net_fails_the_compile_instead_of_falling_back():
    with pytest.raises(SolverTimeoutError, match="safety net of 0.2 s .*solver_timeout_s"):
        budget.run_bounded(lambda: time.sleep(30), isl.Context(), LIMIT, "sleeper", 0.2)


def _clock_past_the_deadline_once_the_child_has_exited(monkeypatch):
    """budget's clock: 0 for the deadline's reading, then, once the forked solver child has
    exited (waited for, not reaped), far past any deadline: a parent that a loaded machine kept
    from running until the solver had finished and the safety net had passed."""
    children: list[int] = []
    real_fork = os.fork

    def fork() -> int:
        pid = real_fork()
        if pid:
            children.append(pid)
        return pid

    readings: list[int] = []  # of this child

    def monotonic() -> float:
        readings.append(children[-1])
        if readings.count(children[-1]) == 1:  # run_bounded's deadline = now + timeout_s
            return 0.0
        os.waitid(os.P_PID, children[-1], os.WEXITED | os.WNOWAIT)
        return 1e9

    monkeypatch.setattr(budget.os, "fork", fork)
    monkeypatch.setattr(budget, "time", type("Clock", (), {"monotonic": staticmethod(monotonic)}))


def _child_never_heard_from(monkeypatch):
    """The safety net's path, whatever the machine's speed: the parent's wait for the child
    always times out (the child, still running, is killed)."""
    monkeypatch.setattr(budget.select, "select", lambda r, w, x, timeout: ([], [], []))


def test_a_result_sent_before_a_late_parent_reads_it_is_used(monkeypatch):
    _clock_past_the_deadline_once_the_child_has_exited(monkeypatch)
    assert budget.run_bounded(lambda: ("done", 3), isl.Context(), LIMIT, "echo", 0.2) == (
        "done", 3)


def test_a_nested_safety_net_is_an_error_not_a_give_up():
    """A SolverTimeoutError inside a bounded call that gives up on PolycudaError: still the
    error, never a SolverGaveUp that would fall back to other code."""
    def inner():
        return budget.run_bounded(lambda: time.sleep(30), isl.Context(), LIMIT, "inner", 0.2)

    with pytest.raises(SolverTimeoutError, match="inner ran past"):
        budget.run_bounded(inner, isl.Context(), LIMIT, "outer", 30.0, give_up_on=(
            polycuda.errors.PolycudaError,))


def test_the_safety_net_in_a_compile_is_an_error_never_other_code(monkeypatch):
    """Options.solver_timeout_s never decides the code: with the clock forced past it while
    the solver runs, the compile fails (no fallback warning, no code); with the clock past it
    after the solver has answered, the code is the one of an unhurried compile."""
    scop = cfront.parse_file(str(suite.by_name("jacobi_2d").c_path))[0]
    opts = Options(target="openmp", solver_timeout_s=5.0)
    expected = compile_scop(scop, opts).source
    with monkeypatch.context() as patch:
        _child_never_heard_from(patch)
        with warnings.catch_warnings():
            warnings.simplefilter("error", PolycudaWarning)  # a fallback would warn
            with pytest.raises(SolverTimeoutError, match="safety net of 5 s"):
                compile_scop(scop, opts)
    with monkeypatch.context() as patch:
        _clock_past_the_deadline_once_the_child_has_exited(patch)
        with warnings.catch_warnings():
            warnings.simplefilter("error", PolycudaWarning)
            assert compile_scop(scop, opts).source == expected


class _Interrupted(Exception):
    pass


def test_an_interrupted_wait_reaps_the_solver_child_and_raises_what_interrupted_it():
    """A caller's alarm (the fuzz harness's per-program timeout) while run_bounded waits: the
    caller's exception comes out, and no solver process is left running behind it."""
    def interrupt(signum, frame):
        raise _Interrupted()
    before = _children()  # e.g. a forkserver that an earlier test of this process started
    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.2)
        with pytest.raises(_Interrupted):
            budget.run_bounded(lambda: time.sleep(300), isl.Context(), LIMIT, "sleeper", 600.0)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert _children() == before  # the child was killed and waited for (no zombie either)


def _children() -> set[int]:
    """This process's child processes (Linux: /proc/self/task/*/children)."""
    tasks = glob.glob("/proc/self/task/*/children")
    if not tasks:
        pytest.skip("no /proc/self/task/*/children on this system")
    return {int(pid) for path in tasks for pid in open(path).read().split()}


def _set_operations(ctx: isl.Context):
    s = isl.Set("[n] -> { [i, j] : 0 <= i < n and 0 <= j < i }", context=ctx)
    shift = isl.Map("{ [i, j] -> [i + 1, j] }", context=ctx)

    def work() -> str:
        nonlocal s
        for _ in range(100):
            s = s.union(s.apply(shift))
        return str(s)
    return work


def test_run_bounded_gives_up_on_the_isl_operation_limit_the_same_way_each_time():
    ctx = isl.Context()
    work = _set_operations(ctx)  # parsed before: a parser out of quota says "syntax error"
    for _ in range(3):
        with pytest.raises(budget.SolverGaveUp,
                           match=r"isl operation limit of 10 ran out \(Options.ast_operations"):
            budget.run_bounded(work, ctx, budget.Limit(10, "ast_operations"), "set ops", 30.0)
    assert ctx.get_max_operations() == 0  # the limit was the child's: the parent's ctx is free


def test_an_isl_scheduler_call_is_bounded_by_the_operation_limit():
    # isl counts each simplex pivot (isl_tab_pivot) and allocation, inside its scheduler too
    kernel = suite.by_name("jacobi_2d")
    scop = cfront.parse_file(str(kernel.c_path))[0]
    ctx = isl_scheduler.new_context()
    deps = dependences.untagged_union(scop, ctx)
    with pytest.raises(budget.SolverGaveUp, match="isl operation limit of 2000 ran out"):
        budget.run_bounded(lambda: str(isl_scheduler.isl_schedule(scop, ctx, deps)), ctx,
                           budget.Limit(2000, "schedule_operations"), "isl scheduler", 60.0)


def test_run_bounded_reraises_what_is_not_a_give_up():
    def fail():
        raise KeyError("a bug")

    with pytest.raises(KeyError, match="a bug"):
        budget.run_bounded(fail, isl.Context(), LIMIT, "buggy", 10.0)


def test_pluto_gives_up_after_its_ilp_solves():
    scop = cfront.parse_file(str(suite.by_name("jacobi_2d").c_path))[0]
    with pytest.raises(budget.OutOfWork, match="limit of 5 ILP solves"):
        pluto.pluto_schedule(scop, max_ilp_solves=5)


# -- options --------------------------------------------------------------------------------
def test_work_limits_round_trip_through_text():
    opts = Options(target="c", schedule_operations=1000, solver_timeout_s=30.0)
    assert '"schedule_operations": 1000' in opts.to_text()
    assert Options.from_text(opts.to_text()) == opts
    assert "schedule_operations" not in Options(target="c").to_text()


@pytest.mark.parametrize("field", WORK_LIMITS)
@pytest.mark.parametrize("value", [0, -1, 2.5, True])
def test_work_limits_must_be_positive_integers(field, value):
    with pytest.raises(InvalidConfigError, match=field):
        Options(**{field: value})


@pytest.mark.parametrize("value", [0, -1.0, float("inf"), float("nan")])
def test_the_safety_net_must_be_positive_and_finite(value):
    with pytest.raises(InvalidConfigError, match="solver_timeout_s"):
        Options(solver_timeout_s=value)


# -- item 7: legal schedules for valid input ------------------------------------------------
@pytest.mark.parametrize("balanced", [False, True])
def test_pluto_schedules_a_parity_dependence(balanced):
    """A[2*i] = A[n-i]: the dependence holds only for even n - i (a div); isl_set_coefficients
    refused it. The over-approximation must still verify."""
    opts = Options(scheduler="pluto", balanced_wavefront=balanced)
    prog = polycuda.compile(PARITY, options=opts)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PolycudaWarning)
        prog.generate("c")
    _verified(prog, {"n": 13})


def test_pluto_schedules_python_regions_without_refusal():
    """Python regions have array-extent parameters (A_d0...); dependences outside the context
    (negative extents) made the legality check refuse every Pluto schedule."""
    kernel = suite.by_name("mvt")
    fn = suite.python_function(kernel)
    args = suite.random_args(kernel, kernel.small, np.random.default_rng(0))
    scop = pyfront.parse_function(fn, pyfront.arg_specs_from_values(fn, args, {}))
    with warnings.catch_warnings():
        warnings.simplefilter("error", PolycudaWarning)
        gen = compile_scop(scop, Options(target="cuda", scheduler="pluto"))
    assert "permutable: 1" in gen.schedule


def test_doitgen_pluto_without_false_deps_is_tiled_and_verifies():
    """Pluto + balanced wavefronts + eliminate_false_deps on doitgen: the tiled schedule was
    refused ("tiled schedule violates dependences"), then a warning and the next schedule.
    (Without array expansion, which since removes the dependences on acc that caused it.)
    The cause: the wavefront's point bands moved into each statement of the sequence below
    them, past inner bands that order acc's uses before the next reset (wavefront.sinkable);
    they now stay above the sequence, and the tiled schedule is legal."""
    opts = Options(scheduler="pluto", balanced_wavefront=True, eliminate_false_deps=True,
                   expand_scalars=False)
    prog = polycuda.compile(str(suite.by_name("doitgen").c_path), options=opts)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PolycudaWarning)
        kernels = prog.generate("cuda").kernels
    assert any(k.wavefront and not k.sink_points for k in kernels)
    _verified(prog, {"nr": 3, "nq": 4, "nk": 5})


# -- item 6: budgets and the fallback chain -------------------------------------------------
def test_adi_under_pluto_falls_back_within_its_limit_and_verifies():
    """PolyBench adi: Pluto's ILP did not finish in 600 s. One lexmin of its fusion test makes
    few isl operations in minutes: a limit below the point where it starts is what bounds it
    (at the default schedule_operations the compile took 98 s on a loaded 2-core machine)."""
    opts = Options(scheduler="pluto", schedule_operations=200_000)
    prog = polycuda.compile(str(C_INPUTS / "adi.c"), options=opts)
    start = time.perf_counter()
    with pytest.warns(PolycudaWarning, match=r"pluto scheduler given up \(.*(ILP solves|isl "
                                             r"operation limit)"):
        prog.generate("c", shuffle_parallel=True)  # verify's c build: compiled once
    assert time.perf_counter() - start < 600  # not a timing assert: a hang guard
    _verified(prog, {"tsteps": 2, "n": 7})


def test_a_fallback_scheduler_gets_the_whole_limit():
    """Python adi under Pluto: Pluto runs out of schedule_operations; isl's scheduler, next in
    the chain, fits in it (it is what scheduler "isl" computes) but not in the quarter of it
    that fallbacks had, and the region ran in sequence."""
    kernel = suite.by_name("adi")
    fn = suite.python_function(kernel)
    args = suite.random_args(kernel, kernel.small, np.random.default_rng(0))
    scop = pyfront.parse_function(fn, pyfront.arg_specs_from_values(fn, args, {}))
    with pytest.warns(PolycudaWarning, match="pluto scheduler given up"):
        gen = compile_scop(scop, Options(target="openmp", scheduler="pluto"))
    assert gen.choice.endswith("used: isl scheduler"), gen.choice
    assert "#pragma omp parallel" in gen.source


def test_exhausted_budgets_end_in_the_original_order():
    """No solver fits in 100 isl operations: every scheduler and the AST build give up; the
    code follows the original order and still verifies."""
    opts = Options(schedule_operations=100, ast_operations=100)
    prog = polycuda.compile(str(suite.by_name("jacobi_2d").c_path), options=opts)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        source = prog.generate("openmp").source
    messages = [str(w.message) for w in caught if w.category is PolycudaWarning]
    assert any("isl scheduler given up" in m for m in messages)
    assert any("distributed SCCs given up" in m for m in messages)
    assert any("the AST build given up" in m for m in messages)
    assert "#pragma omp" not in source
    _verified(prog, {"T": 3, "n": 9})


# jacobi_2d on cuda under auto: pluto's (chosen) AST needs more than AUTO_AST isl operations
# and isl's fewer; below AUTO_AST_NONE none of the candidates' fits (issue 40, item b)
AUTO_AST, AUTO_AST_NONE = 100_000, 30_000


def _auto_cuda(ast_operations):
    prog = polycuda.compile(str(suite.by_name("jacobi_2d").c_path),
                            options=Options(ast_operations=ast_operations))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gen = prog.generate("cuda")
    return prog, gen, [str(w.message) for w in caught if w.category is PolycudaWarning]


def test_auto_tries_its_next_candidate_when_the_chosen_ones_ast_build_gives_up():
    """Not the original order at once: auto's next candidate in auto's order (isl), reported
    as a warning, in the choice and in the steps (`show passes`), the same on every compile."""
    prog, gen, messages = _auto_cuda(AUTO_AST)
    assert any("the AST build of pluto's schedule given up (isl operation limit of 100000 ran "
               "out (Options.ast_operations))" in m for m in messages), messages
    assert not any("isl's schedule given up" in m for m in messages), messages
    assert gen.choice.startswith("auto: pluto")
    assert gen.choice.endswith("; used: isl's AST"), gen.choice
    assert "original program order" not in gen.choice
    ast_notes = [step.note for step in gen.steps if step.name == "AST build"]
    assert ast_notes[0].startswith("given up (isl operation limit of 100000") and \
        ast_notes[0].endswith("): auto's isl"), ast_notes
    assert ast_notes[1] == "within 100000 isl operations (isl's)", ast_notes
    assert _auto_cuda(AUTO_AST)[1].source == gen.source
    _verified(prog, {"T": 3, "n": 9}, targets=("emulate",))


def test_auto_ends_in_the_original_order_when_no_candidates_ast_build_fits():
    _, gen, messages = _auto_cuda(AUTO_AST_NONE)
    for name in ("pluto", "isl", "isl-distributed"):
        assert any(f"the AST build of {name}'s schedule given up" in m for m in messages)
    assert gen.choice.endswith("used: the original program order (sequential)"), gen.choice


def test_a_fallback_is_the_same_on_every_compile_and_always_reported():
    """Out of its work limit, isl's scheduler gives up at the same point on every call: the
    same warnings and the same code each time, and `show schedule` says so."""
    opts = Options(target="openmp", schedule_operations=20_000)
    prog = polycuda.compile(str(suite.by_name("jacobi_2d").c_path), options=opts)
    outcomes = []
    for _ in range(3):  # compile_scop: Program.generate keeps the first one's result
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            source = compile_scop(prog.scop, opts).source
        outcomes.append((source, [str(w.message) for w in caught
                                  if w.category is PolycudaWarning]))
    assert outcomes[0] == outcomes[1] == outcomes[2]
    assert any("isl scheduler given up (isl operation limit of 20000 ran out "
               "(Options.schedule_operations))" in m for m in outcomes[0][1])
    choice = show.schedule_of(prog)["choice"]
    assert "isl scheduler given up (isl operation limit of 20000" in choice


def test_random_20_statement_5_deep_region_compiles_and_verifies():
    """isl's scheduler did not finish on it in 400 s."""
    source = random_region(1)
    assert source.count(" = 0.5 * ") == 20 and "for (int m = 0" in source
    prog = polycuda.compile(source)
    with pytest.warns(PolycudaWarning, match="isl scheduler given up .*constraints, above"):
        # the options verify builds c with (parallel loops shuffled): compiled once, not twice
        prog.generate("c", shuffle_parallel=True)
    # not openmp: c and openmp take the same fallback, which runs the statements in order (no
    # parallel loop): openmp's code is c's plus headers, a second compile (2.6 s) of the same
    # check; c shuffles any parallel loop a later fallback would have. OpenMP's own code is
    # verified in test_openmp_regions.py and tests/e2e.
    _verified(prog, {"n": 3}, targets=("c", "emulate"))


# -- item 10: progress ----------------------------------------------------------------------
def _progress_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "polycuda.progress"]


def test_pass_timer_logs_every_pass_once_past_the_threshold(caplog, monkeypatch):
    caplog.set_level(logging.INFO, logger="polycuda")
    now = [0.0]  # a counted clock: the machine's load must not decide what is logged
    monkeypatch.setattr(progress, "clock", lambda: now[0])
    timer = progress.PassTimer("r", quiet_s=0.05)
    with timer.step("fast"):
        now[0] += 0.01
    assert _progress_lines(caplog) == []
    with timer.step("slow"):
        now[0] += 0.1
    lines = _progress_lines(caplog)
    assert [line.split()[1] for line in lines] == ["fast", "slow"]
    assert lines[0].startswith("r: fast ")
    with timer.step("next"):  # past the threshold: announced when it starts, then timed
        assert _progress_lines(caplog)[-1] == "r: next ..."
    assert _progress_lines(caplog)[-1].startswith("r: next 0.")


def test_regions_are_announced_only_after_the_threshold(caplog):
    caplog.set_level(logging.INFO, logger="polycuda")
    names = list(progress.regions(["a", "b"], str, quiet_s=1e9))
    assert names == ["a", "b"] and _progress_lines(caplog) == []
    list(progress.regions(["a", "b"], str, quiet_s=-1))
    assert _progress_lines(caplog) == ["region 1/2 a", "region 2/2 b"]


def test_fast_compiles_print_nothing(capsys, caplog, monkeypatch):
    caplog.set_level(logging.INFO, logger="polycuda")
    monkeypatch.setattr(progress, "clock", lambda: 0.0)  # fast however busy the machine is
    scop = cfront.parse_file(str(suite.by_name("jacobi_1d").c_path))[0]
    compile_scop(scop, Options(target="c"))
    assert capsys.readouterr().err == "" and _progress_lines(caplog) == []


def test_a_failure_after_the_quota_ran_out_is_a_give_up():
    """islpy answers some calls made past the quota with None, and the caller then fails with
    a TypeError of its own (Pluto's dual rows, under scheduler auto): still the work limit."""
    ctx = isl.Context()
    work = _set_operations(ctx)

    def fails_after():
        try:
            work()
        except isl.Error:
            pass
        raise TypeError("int() argument must be a string, not 'NoneType'")

    with pytest.raises(budget.SolverGaveUp, match="isl operation limit of 10 ran out"):
        budget.run_bounded(fails_after, ctx, budget.Limit(10, "schedule_operations"), "x", 30.0)
