"""Regression tests of issue 14: located errors instead of tracebacks, no silent drops."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from polycuda.cli import main

OK_C = """\
void f(int n, double A[n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = A[i] + 1.0;
#pragma endscop
}
"""


@pytest.fixture
def ok_c(tmp_path: Path) -> Path:
    path = tmp_path / "ok.c"
    path.write_text(OK_C)
    return path


def _fails(capsys, argv: list[str], *needles: str, code: int = 1) -> str:
    """Run the CLI in-process: exit code `code`, every needle in stderr, no traceback."""
    try:
        rc = main(argv)
    except SystemExit as stop:  # argparse's usage errors
        rc = stop.code
    err = capsys.readouterr().err
    assert rc == code, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, err
    return err


# -- files and options ----------------------------------------------------------------------------
def test_output_into_a_missing_directory(capsys, ok_c, tmp_path):
    out = tmp_path / "missing" / "x.cu"
    _fails(capsys, ["compile", str(ok_c), "-o", str(out)], "error:", "does not exist")


def test_options_file_missing_garbage_or_mistyped(capsys, ok_c, tmp_path):
    _fails(capsys, ["compile", str(ok_c), "--options", str(tmp_path / "none.json")],
           "cannot read options file", "No such file")
    bad = tmp_path / "bad.json"
    bad.write_text('{"tile_sizes": [4,\n  oops]}')
    _fails(capsys, ["compile", str(ok_c), "--options", str(bad)], f"{bad}:2:3: error:",
           "not JSON")
    bad.write_text('{"tile_sizes": "4,8"}')
    _fails(capsys, ["compile", str(ok_c), "--options", str(bad)], "'tile_sizes' must be a list")
    bad.write_text('{"no_such_option": 1}')
    _fails(capsys, ["compile", str(ok_c), "--options", str(bad)], "unknown option",
           "no_such_option")


@pytest.mark.parametrize("suffix", [".c", ".py"])
def test_binary_input_file(capsys, tmp_path, suffix):
    path = tmp_path / f"bin{suffix}"
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00\xd0\xff\xfe\n")
    _fails(capsys, ["compile", str(path)], f"{path}:1:", "error:")


def test_python_file_whose_import_raises(capsys, tmp_path):
    path = tmp_path / "raises.py"
    path.write_text("import math\nx = 1 / 0\n\ndef f(A, n):\n    for i in range(n):\n"
                    "        A[i] = 1.0\n")
    _fails(capsys, ["compile", str(path)], f"{path}:2:", "ZeroDivisionError")


def test_directory_as_input(capsys, tmp_path):
    _fails(capsys, ["compile", str(tmp_path)], "is a directory")


def test_unknown_verify_target_lists_emulate_not_auto(capsys, ok_c):
    err = _fails(capsys, ["verify", str(ok_c), "--targets", "bogus"], "bogus", "emulate",
                 code=2)
    assert "auto" not in err.splitlines()[-1]


@pytest.mark.parametrize("argv", [["--tile-sizes", "-4,8"], ["--tile-sizes=-4,8"],
                                  ["--block-sizes", "0,8"]])
def test_negative_or_zero_sizes(capsys, ok_c, argv):
    _fails(capsys, ["compile", str(ok_c)] + argv, "sizes must be >= 1", code=2)


class _ClosedPipe:
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_show_into_a_closed_pipe_exits_quietly_in_process(capsys, ok_c, monkeypatch):
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert main(["show", "deps", str(ok_c)]) == 141
    assert "Traceback" not in capsys.readouterr().err


def test_show_into_a_closed_pipe_exits_quietly(ok_c):
    # `polycuda show code FILE | head -0`: the reader is gone before the first write
    cmd = [sys.executable, "-m", "polycuda.cli", "show", "code", str(ok_c), "--target", "c"]
    show = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    assert show.stdout is not None and show.stderr is not None
    show.stdout.close()
    err = show.stderr.read().decode()
    assert show.wait(timeout=300) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def _env() -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[2])
    return {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
