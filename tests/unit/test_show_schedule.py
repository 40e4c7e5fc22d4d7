"""`show schedule` says why a row is not a parallel loop (the dependences it carries, or that
it is a constant row and no loop) and prints each statement's source line."""

import json
from pathlib import Path

from polycuda import cli

KERNELS = Path(__file__).resolve().parents[2] / "kernels" / "c"


def _schedule(capsys, *args: str) -> tuple[str, dict]:
    assert cli.main(["show", "schedule", *args]) == 0
    text = capsys.readouterr().out
    assert cli.main(["show", "schedule", *args, "--json"]) == 0
    return text, json.loads(capsys.readouterr().out)


def test_sequential_rows_name_the_dependences_they_carry(capsys):
    text, data = _schedule(capsys, str(KERNELS / "jacobi_2d.c"), "--target", "openmp")
    s0, s1 = data["statements"]
    # t carries the time steps' dependences; i and j carry none (each sweep is parallel)
    assert s0["sequential"][0].startswith("carries ") and "S1 -> S0 flow on A" in \
        s0["sequential"][0]
    assert s0["sequential"][1:] == ["", ""] and s0["parallel"][1:] == [True, True]
    assert "S0 -> S1 flow on B" not in s0["sequential"][0]  # carried at the loop inside t
    assert "[1, 0, 0, 0]  sequential: carries S0 -> S0 output on B" in text
    assert s0["line"] == 21 and s0["source"].startswith("B[i][j] = SCALAR_VAL(0.2)")
    assert "  S0[t, i, j]  line 21: B[i][j] = SCALAR_VAL(0.2)" in text


def test_a_constant_row_is_no_loop(capsys):
    text, data = _schedule(capsys, str(KERNELS / "gemm.c"), "--target", "cuda",
                           "--scheduler", "isl")
    s0 = data["statements"][0]
    assert s0["iterators"] == ["i", "j"] and s0["hyperplanes"][2] == [0, 0, 0]
    assert s0["sequential"][2] == "constant row"
    assert "[0, 0, 0]  constant row" in text and "constant row  parallel" not in text


def test_python_statements_show_their_line(capsys, tmp_path):
    path = tmp_path / "k.py"
    path.write_text("def scan(n: int, A):\n    for i in range(1, n):\n"
                    "        A[i] = A[i] + A[i - 1]\n")
    text, data = _schedule(capsys, str(path), "--target", "c")
    s0 = data["statements"][0]
    assert s0["line"] == 3 and s0["source"] == "A[i] = A[i] + A[i - 1]"
    assert s0["sequential"] == ["carries S0 -> S0 flow on A"]
    assert "[1, 0]  sequential: carries S0 -> S0 flow on A" in text
