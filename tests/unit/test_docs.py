"""README.md and the MkDocs site under docs/: size and table limits, every measurement cited with
its bench/results file, every relative link resolving, the generated reference pages current,
the examples' pasted output real, and `mkdocs build --strict` passing."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from polycuda import docs_gen

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
GENERATED = {DOCS / path for path in docs_gen.PAGES}
# A number with the unit of a time, a rate or a speedup: what a measurement looks like
MEASUREMENT = re.compile(r"(?<![\w.^])\d[\d,.]*\s?(?:ms|us|ns|TB/s|GB/s|TFLOP/s|minutes)\b"
                         r"|(?<![\w.^])\d[\d,.]*x(?![\w])")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if "results" not in p.relative_to(DOCS).parts)


def _prose(text: str) -> str:
    """The text with fenced code blocks blanked (their lines kept, so that line numbers hold)."""
    out, fenced = [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else line)
    return "\n".join(out)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]


def test_readme_is_short():
    size = len(README.read_bytes())
    assert size <= 10 * 1024, f"README.md is {size} bytes: move detail to docs/"


def test_readme_table_cells_are_short():
    for number, line in enumerate(_prose(README.read_text()).split("\n"), 1):
        if line.lstrip().startswith("|"):
            long = [c for c in _cells(line) if len(c) > 300]
            assert not long, f"README.md:{number}: a table cell of {len(long[0])} characters"


def test_readme_measurements_link_their_results_file():
    for number, line in enumerate(_prose(README.read_text()).split("\n"), 1):
        if MEASUREMENT.search(line):
            assert "bench/results/" in line, (
                f"README.md:{number}: a measurement without its bench/results file: {line}")


def _paragraphs(text: str):
    """(first line number, text) of each paragraph or list item of the prose."""
    start, block = 1, []
    for number, line in enumerate(_prose(text).split("\n") + [""], 1):
        if not line.strip() or re.match(r"\s*([-*]|\d+\.)\s", line) or line.startswith("|"):
            if block:
                yield start, " ".join(block)
            block, start = ([line] if line.strip() else []), number
        else:
            block.append(line)


def test_docs_measurements_cite_their_results_file():
    """Hand-written pages: a paragraph (or list item, or table row) with a measurement links a
    file under bench/results (through docs/results). A rule's constants are not measurements:
    such a paragraph names the source file that defines them."""
    for page in _pages():
        if page in GENERATED:
            continue
        for number, para in _paragraphs(page.read_text()):
            if not MEASUREMENT.search(para) or "results/" in para:
                continue
            assert "constants" in para and re.search(r"\w+/\w+\.py", para), (
                f"{page.relative_to(ROOT)}:{number}: a measurement without its results file: "
                f"{para[:200]}")


def _links(path: Path) -> list[str]:
    return [m[1] for m in LINK.finditer(_prose(path.read_text()))]


@pytest.mark.parametrize("path", [README] + _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path: Path):
    for target in _links(path):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        file = (path.parent / target.split("#")[0]).resolve()
        assert file.exists(), f"{path.relative_to(ROOT)}: link to {target}: no such file"


def test_readme_points_inside_the_repository():
    for target in _links(README):
        if re.match(r"[a-z]+:", target):
            continue
        file = (README.parent / target.split("#")[0]).resolve()
        assert ROOT in file.parents or file == ROOT, f"README.md links outside the repo: {target}"
    assert "../shared" not in README.read_text()


def test_readme_test_command_is_the_one_ci_runs():
    """.ci/run runs the README's test command (plus its own pytest flags): keep them one text."""
    ci = next(line for line in (ROOT / ".ci/run").read_text().split("\n")
              if "pip install" in line and "pytest" in line)
    readme = next(line for line in README.read_text().split("\n")
                  if "pip install -e '.[test]'" in line)
    command = readme[readme.index("python3 -m pip install"):].split()
    words = iter(ci.split())
    assert all(word in words for word in command), (  # in order, CI's own flags between
        f".ci/run: {ci!r} does not run README's {' '.join(command)!r}")


def test_generated_reference_pages_are_current():
    for path, text in docs_gen.generate().items():
        committed = (DOCS / path).read_text()
        assert committed == text, f"docs/{path} is stale: run `python -m polycuda.docs_gen`"


def test_options_reference_lists_every_field_and_flag():
    import dataclasses

    from polycuda.options import Options

    page = docs_gen.options_page()
    for field in dataclasses.fields(Options):
        assert f"## `{field.name}`" in page
    cli_page = docs_gen.cli_page()
    for sub in docs_gen._subparsers(docs_gen.cli.parser()).values():
        for action in docs_gen._visible(sub):
            for flag in action.option_strings:
                assert flag in cli_page, f"{flag} missing from the CLI reference"


def test_paper_map_names_every_paper_and_departure():
    page = (DOCS / "paper-map.md").read_text()
    for stem in ("baskaran2008", "di2012", "di2011", "shirako2017", "anantpur2013"):
        assert stem in page
    departures = page.split("## Where the code departs from the papers")[1]
    for author in ("Di & Xue 2011", "Baskaran", "Di et al. 2012", "Shirako", "Anantpur"):
        assert author in departures, f"no departure listed for {author}"


def _console_output(text: str, command: str) -> list[str]:
    """The lines printed after `$ command` in the README's console blocks, up to the next `$`."""
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(f"$ {command}"))
    out = []
    for line in lines[start + 1:]:
        if line.startswith("$ ") or line.startswith("```"):
            break
        out.append(line.rstrip())
    return out


def _run(*args: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return [line.rstrip().replace(str(ROOT), "/path/to/polycuda") for line in
            result.stdout.rstrip("\n").split("\n")]


def test_readme_examples_print_what_readme_shows():
    text = README.read_text()
    assert _run("-m", "polycuda.cli", "show", "schedule", "docs/examples/jacobi.c", "--target",
                "openmp") == _console_output(text, "polycuda show schedule")
    assert _run("docs/examples/jacobi_1d.py") == _console_output(text, "python docs/examples")
    shown = _console_output(text, "polycuda verify")
    verify = _run("-m", "polycuda.cli", "verify", "docs/examples/jacobi.c", "--targets",
                  "c,openmp,emulate")
    assert verify == shown


def test_the_python_example_is_the_suites_kernel_file_shown_verbatim():
    """One source for the 1-D Jacobi loops: docs/examples/jacobi_1d.py links to the suite's
    kernels/python/jacobi_1d.py (as docs/results to bench/results), and README shows that file."""
    kernel = ROOT / "kernels/python/jacobi_1d.py"
    assert (DOCS / "examples/jacobi_1d.py").resolve() == kernel
    block = README.read_text().split("(kernels/python/jacobi_1d.py)", 1)[1]
    block = block.split("```python\n", 1)[1].split("```\n", 1)[0]
    assert block == kernel.read_text()


def test_mkdocs_build_strict(tmp_path):
    if importlib.util.find_spec("mkdocs") is None:
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                             "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir",
                             str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "site" / "reference" / "options" / "index.html").exists()
