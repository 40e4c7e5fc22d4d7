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
    # each names both statements' lines, the array and the distance along the row
    assert s0["sequential"][0].startswith("carries ") and \
        "S1 (line 24) -> S0 (line 21) flow on A at distance 1" in s0["sequential"][0]
    assert s0["sequential"][1:] == ["", ""] and s0["parallel"][1:] == [True, True]
    assert "S0 (line 21) -> S1 (line 24) flow on B" not in s0["sequential"][0]  # inside t
    assert "[1, 0, 0, 0]  sequential: carries S0 (line 21) -> S0 (line 21) output on B at " \
        "distance 1" in text
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
    assert s0["sequential"] == ["carries S0 (line 3) -> S0 (line 3) flow on A at distance 1"]
    assert "[1, 0]  sequential: carries S0 (line 3) -> S0 (line 3) flow on A at distance 1" in text


def test_a_distance_that_grows_with_the_problem_says_so(capsys):
    text, data = _schedule(capsys, str(KERNELS / "lu.c"), "--target", "openmp")
    s1 = data["statements"][1]
    assert s1["sequential"][2] == "carries S0 (line 23) -> S1 (line 26) flow on A at distance >= 1"


def test_auto_choice_is_a_table_of_the_candidates_cost_terms(capsys):
    text, data = _schedule(capsys, str(KERNELS / "jacobi_2d.c"), "--target", "cuda")
    rows = {c["scheduler"]: c for c in data["candidates"]}
    assert list(rows) == ["isl", "pluto", "isl-distributed", "superposition"]
    assert [c["scheduler"] for c in data["candidates"] if c["chosen"]] == [data["scheduler"]]
    assert set(rows["isl"]["cost"]) == {"serial", "depth", "in_thread", "launches"}
    assert rows["superposition"]["cost"] is None
    assert rows["superposition"]["note"].startswith("skipped: the least cost so far")
    lines = text.splitlines()
    assert lines[0] == (f"region jacobi_2d ({data['scheduler']} scheduler; auto: "
                        f"{data['scheduler']}, the least cost of 4 candidates (table below)):")
    assert lines[2].split() == ["scheduler", "one-thread", "longest", "path", "in", "threads",
                                "launches"]
    chosen = next(line for line in lines if line.endswith("  chosen"))
    cost = rows[data["scheduler"]]["cost"]
    assert chosen.split() == [data["scheduler"], *map(str, (cost["serial"], cost["depth"],
                                                            cost["in_thread"], cost["launches"])),
                              "chosen"]
    assert max(len(line) for line in lines[:11]) < 200  # no 500-character parenthesis
