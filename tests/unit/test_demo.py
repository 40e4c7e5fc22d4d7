"""The demo and `run` say when a speedup means little (run.RunReport.caveat: small work, runs
that disagree) and give the spread of the paired runs; the demo ends with what to try next.
Synthetic timings only: no test asserts a measured time."""

from polycuda import cli, demo
from polycuda.run import MEANINGFUL_S, RunReport


def _report(target_s: list[float], reference_s: list[float]) -> RunReport:
    return RunReport("jacobi_2d", "openmp", {"T": 1, "n": 8}, times_s=target_s,
                     reference_times_s=reference_s, reference_name="gcc -O3 build",
                     verified=True)


def test_small_work_is_said_to_be_small():
    small = _report([0.004, 0.005, 0.004], [0.008, 0.009, 0.008])
    assert "the work is small (the reference runs 8.0 ms" in small.caveat()
    assert "caveat     the work is small" in small.render()
    big = _report([0.5, 0.52, 0.51], [2 * MEANINGFUL_S * 10] * 3)
    assert big.caveat() == "" and "caveat" not in big.render()


def test_runs_that_disagree_are_said_to_and_the_spread_is_paired():
    noisy = _report([0.2, 0.6, 0.25], [1.0, 1.1, 1.0])
    assert noisy.speedup_spread() == (1.1 / 0.6, 1.0 / 0.2)
    assert "the target's runs vary 3.0x" in noisy.caveat()
    assert "1.83x to 5.00x over the paired runs" in noisy.render()
    # an interpreted reference (one run) pairs with nothing
    assert _report([0.2, 0.3], [5.0]).speedup_spread() is None


def test_demo_prints_its_source_and_the_next_steps(capsys):
    assert cli.main(["demo", "--source"]) == 0
    assert capsys.readouterr().out == demo.EXAMPLE
    steps = demo.next_steps(demo.SIZES["cuda"], "cuda")
    assert "polycuda run jacobi_2d.c --size T=80 --size n=4096" in steps
    assert "polycuda tune jacobi_2d.c --size T=40 --size n=2048 --dump-sizes sizes.json" in steps
    assert "on a machine with an NVIDIA GPU" in demo.next_steps(demo.SIZES["openmp"], "openmp")
