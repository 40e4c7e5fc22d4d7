"""Progress lines (progress.py): they say which candidate scheduler a pass runs for, and
Options(progress=False) / --quiet silence them."""

import io

import polycuda
from polycuda import progress
from polycuda.options import Options

SRC = """
void k(int n, double A[n][n], double B[n][n]) {
#pragma scop
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      B[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
#pragma endscop
}
"""


def test_lines_name_the_candidate_scheduler():
    out = io.StringIO()
    timer = progress.PassTimer("k", out, quiet_s=0.0)
    with timer.trying("pluto"):
        with timer.step("schedule"):
            pass
    with timer.step("AST build"):
        pass
    lines = out.getvalue().splitlines()
    assert lines[0] == "polycuda: k [pluto]: schedule ..."
    assert lines[1].startswith("polycuda: k [pluto]: schedule 0.")
    assert lines[2] == "polycuda: k: AST build ..." and lines[3].startswith("polycuda: k: AST")
    assert [s.candidate for s in timer.steps] == ["pluto", ""]


def test_show_false_prints_nothing_and_keeps_the_steps():
    out = io.StringIO()
    timer = progress.PassTimer("k", out, quiet_s=0.0, show=False)
    with timer.step("schedule"):
        pass
    assert out.getvalue() == "" and [s.name for s in timer.steps] == ["schedule"]
    assert list(progress.regions([1, 2], str, out, quiet_s=-1.0, show=False)) == [1, 2]
    assert out.getvalue() == ""


def test_a_compile_says_each_candidate_or_nothing_with_progress_off(monkeypatch, capsys):
    # every line shown at once (the default waits progress.QUIET_S seconds)
    monkeypatch.setattr(progress.PassTimer.__init__, "__defaults__", (None, 0.0, True))
    polycuda.compile(SRC, options=Options(target="cuda")).generate("cuda")
    err = capsys.readouterr().err
    assert "polycuda: k [isl]: schedule" in err and "polycuda: k [pluto]: schedule" in err
    polycuda.compile(SRC, options=Options(target="cuda", progress=False)).generate("cuda")
    assert capsys.readouterr().err == ""
