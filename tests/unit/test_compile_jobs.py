"""`polycuda compile --jobs N`: a file's regions compiled in N processes give the files that
one process gives, with the same warnings in region order and the same error for a region that
fails."""

from pathlib import Path

import pytest

from bench import many_regions
from polycuda.cli import main

KINDS = len(many_regions.BODIES)  # one region of each kind


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "many.c"
    path.write_text(many_regions.source(KINDS))
    return path


@pytest.mark.parametrize("target", ["cuda", "openmp"])
def test_parallel_compile_writes_the_same_files(tmp_path, capsys, target):
    source = _file(tmp_path)
    written = {}
    for jobs in (1, 3):
        out = tmp_path / f"out{jobs}" / ("many.cu" if target == "cuda" else "many.c")
        out.parent.mkdir()
        assert main(["compile", str(source), "--target", target, "-o", str(out),
                     "--jobs", str(jobs)]) == 0
        written[jobs] = sorted((p.name, p.read_text()) for p in out.parent.iterdir())
    capsys.readouterr()
    assert len(written[1]) == (2 if target == "cuda" else 1)
    assert written[1] == written[3]
    for k in range(KINDS):
        assert f"pc_f{k}" in written[3][0][1]


def test_a_region_failing_in_a_worker_fails_as_in_one_process(tmp_path, capsys):
    source = _file(tmp_path)
    messages = []
    for jobs in ("1", "2"):
        code = main(["compile", str(source), "--block-sizes", "4096,4096", "--jobs", jobs,
                     "-o", str(tmp_path / f"bad{jobs}.cu")])
        assert code != 0
        messages.append(capsys.readouterr().err)
        assert not (tmp_path / f"bad{jobs}.cu").exists()
    assert "exceeds CUDA's limit of 1024" in messages[0]
    assert messages[0] == messages[1]


def test_a_workers_warnings_come_in_region_order(tmp_path, capsys):
    source = _file(tmp_path)
    errs = []
    for jobs in ("1", "2"):
        assert main(["compile", str(source), "--ast-operations", "2000", "--jobs", jobs,
                     "-o", str(tmp_path / f"w{jobs}.cu")]) == 0
        errs.append([line for line in capsys.readouterr().err.splitlines()
                     if "warning:" in line])
    assert any("the AST build" in line for line in errs[0])
    assert [line.split("'")[1] for line in errs[0]] == sorted(
        line.split("'")[1] for line in errs[0])  # f0's, then f1's, ...
    assert errs[0] == errs[1]


def test_jobs_must_be_a_count(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["compile", str(_file(tmp_path)), "--jobs", "many"])
    assert exc.value.code != 0
    assert "expected a number of processes" in capsys.readouterr().err
