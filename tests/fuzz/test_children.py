"""The fuzz campaign's forked children: a child stuck in a C-level call (where SIGALRM never
reaches Python code) is killed and recorded as a timeout, and the campaign goes on."""

from __future__ import annotations

import json
import os
import signal
import time

from tests.fuzz import children
from tests.fuzz.__main__ import main
from tests.fuzz.generator import generate
from tests.fuzz.harness import Outcome

HANG_SEED = 2


def fake_runner(prog, configs, targets, time_limit_s, watch):
    """run_program's protocol without compiling: seed HANG_SEED sleeps in C (with SIGALRM
    blocked, as inside an islpy call) in the generation of its target "c" (the target that
    the campaign's rotation gives it)."""
    outs = []
    for config in configs:
        watch.step(config, "", "compile", time_limit_s)
        for target in targets:
            watch.step(config, target, "generate", time_limit_s)
            if prog.seed == HANG_SEED and target == "c":
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
                time.sleep(1000)
            outs.append(Outcome(seed=prog.seed, config=config, target=target, status="ok",
                                compile_s=0.01))
            watch.outcome(outs[-1])
    return outs


def test_a_child_hung_in_a_c_call_is_killed_and_the_campaign_goes_on(tmp_path, monkeypatch):
    monkeypatch.setattr(children, "run_program", fake_runner)
    out = tmp_path / "campaign.json"
    start = time.monotonic()
    main(["--count", "4", "--seed", "0", "--time-limit", "0.3", "--jobs", "2",
          "--json", str(out)])
    assert time.monotonic() - start < 100  # a hang detector, far above the 0.6 s kill
    report = json.loads(out.read_text())
    assert report["programs"] == 4 and report["runs"] == 4
    (hung,) = report["not_ok"]
    assert (hung["seed"], hung["status"], hung["class"]) == (HANG_SEED, "crash", "timeout")
    assert hung["config"] and hung["target"]
    assert "killed" in hung["message"]


def test_the_targets_after_a_killed_one_run_in_a_fresh_child():
    progs = [generate(s) for s in (HANG_SEED, 5)]
    got = list(children.run_isolated(progs, lambda p: (("isl",), ("c", "openmp")),
                                     time_limit_s=0.2, runner=fake_runner))
    assert [p.seed for p, _ in got] == [HANG_SEED, 5]
    (_, first), (_, second) = got
    assert [(o.target, o.status, o.crash_class) for o in first] == [
        ("c", "crash", "timeout"), ("openmp", "ok", "")]
    assert [o.status for o in second] == ["ok", "ok"]


def test_a_child_that_dies_is_a_crash_of_its_remaining_targets():
    def dies(prog, configs, targets, time_limit_s, watch):
        os._exit(3)

    ((_, outs),) = children.run_isolated([generate(1)], lambda p: (("isl",), ("c",)),
                                         time_limit_s=5.0, runner=dies)
    assert [(o.status, o.crash_class) for o in outs] == [("crash", "other: child exit 3")]
