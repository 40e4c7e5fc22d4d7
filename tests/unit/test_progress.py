"""Progress records (progress.py) go through Python's logging: they say which candidate
scheduler a pass runs for; the Python API shows none unless logging is configured;
Options(progress=False) makes none; the command line shows them on stderr, --quiet silences
them (tune's too) and --verbose shows every pass from the start."""

import logging

import polycuda
from polycuda import cli, progress
from polycuda.options import Options
from polycuda.tune import search

SRC = """
void k(int n, double A[n][n], double B[n][n]) {
#pragma scop
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      B[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
#pragma endscop
}
"""


def _lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name.startswith("polycuda")]


def test_lines_name_the_candidate_scheduler(caplog):
    caplog.set_level(logging.INFO, logger="polycuda")
    timer = progress.PassTimer("k", quiet_s=0.0)
    with timer.trying("pluto"):
        with timer.step("schedule"):
            pass
    with timer.step("AST build"):
        pass
    lines = _lines(caplog)
    assert lines[0] == "k [pluto]: schedule ..."
    assert lines[1].startswith("k [pluto]: schedule 0.")
    assert lines[2] == "k: AST build ..." and lines[3].startswith("k: AST")
    assert [s.candidate for s in timer.steps] == ["pluto", ""]


def test_debug_shows_every_pass_from_the_start_info_waits(caplog):
    caplog.set_level(logging.INFO, logger="polycuda")
    timer = progress.PassTimer("k", quiet_s=1e9)
    with timer.step("schedule"):
        pass
    assert _lines(caplog) == []
    caplog.set_level(logging.DEBUG, logger="polycuda")
    with timer.step("AST build"):
        pass
    # the pass that ended unlogged is logged with the next one, each once
    assert [line.split(" ")[1] for line in _lines(caplog)] == ["schedule", "AST"]
    assert {r.levelno for r in caplog.records} == {logging.DEBUG}


def test_show_false_logs_nothing_and_keeps_the_steps(caplog):
    caplog.set_level(logging.DEBUG, logger="polycuda")
    timer = progress.PassTimer("k", quiet_s=0.0, show=False)
    with timer.step("schedule"):
        pass
    assert _lines(caplog) == [] and [s.name for s in timer.steps] == ["schedule"]
    assert list(progress.regions([1, 2], str, quiet_s=-1.0, show=False)) == [1, 2]
    assert _lines(caplog) == []


def test_the_api_says_nothing_unless_logging_is_configured(capsys, caplog):
    # each compile of its own source: a program's code is compiled once (cached)
    caplog.set_level(logging.DEBUG, logger="polycuda")
    polycuda.compile(SRC, options=Options(target="cuda")).generate("cuda")
    lines = _lines(caplog)
    assert any(line.startswith("k [isl]: schedule") for line in lines)
    assert any(line.startswith("k [pluto]: schedule") for line in lines)
    caplog.clear()
    polycuda.compile(SRC.replace("0.25", "0.5"), options=Options(target="cuda", progress=False)
                     ).generate("cuda")
    assert _lines(caplog) == []
    # logging not configured: the records reach the library's NullHandler alone, never stderr
    caplog.set_level(logging.NOTSET, logger="polycuda")
    logging.getLogger("polycuda").propagate = False
    try:
        timer = progress.PassTimer("k", quiet_s=-1.0)
        with timer.step("schedule"):
            pass
    finally:
        logging.getLogger("polycuda").propagate = True
    assert capsys.readouterr().err == ""


def _cli_err(capsys, tmp_path, constant: str, *flags: str) -> str:
    path = tmp_path / "k.c"
    path.write_text(SRC.replace("0.25", constant))  # a source not compiled before (cached)
    assert cli.main(["compile", str(path), "--target", "cuda", "-o", str(tmp_path / "k.cu"),
                     *flags]) == 0
    return capsys.readouterr().err


def test_cli_verbose_shows_every_pass_quiet_none(capsys, tmp_path):
    verbose = _cli_err(capsys, tmp_path, "0.125", "--verbose")
    assert "polycuda: k [pluto]: schedule " in verbose and "done in " in verbose
    default = _cli_err(capsys, tmp_path, "0.375")
    assert "[pluto]" not in default  # a fast compile: no INFO record
    quiet = _cli_err(capsys, tmp_path, "0.625", "--quiet", "--verbose")
    assert "[pluto]" not in quiet and "polycuda: k" not in quiet
    # the command left the library's logger as it found it
    assert logging.getLogger("polycuda").level == logging.NOTSET


def test_cli_tune_obeys_quiet(capsys, monkeypatch):
    said = []

    def tune(prog, sizes, **kw):
        said.append(kw["progress"])
        kw["progress"] and kw["progress"]("step one")
        raise polycuda.PolycudaError("stop here")

    monkeypatch.setattr(search, "tune", tune)
    assert cli.main(["tune", "kernels/c/sor_1d.c", "--size", "T=8", "--size", "n=64"]) == 1
    assert "polycuda: tune: step one" in capsys.readouterr().err
    assert cli.main(["tune", "kernels/c/sor_1d.c", "--quiet"]) == 1
    assert said[-1] is None and "tune:" not in capsys.readouterr().err
