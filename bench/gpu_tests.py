"""Runs the GPU tests (`pytest -m gpu tests`), then every test of the given files (those that
take a GPU path when one is present, e.g. tests/unit/test_cuda_host_errors.py), and writes
their outcomes as JSON with the GPU's name, the date and the commit: the evidence of a GPU run.
`--gpu-paths P,...` runs the GPU tests of those paths only, instead of all of tests/ (to split
a run over several device calls of a limited length). Options in PYTEST_ADDOPTS apply to every
run and are recorded with the commands (on the H200's 16 cores, `-n 12` runs all 175 GPU tests in
79 s: pytest-xdist, one test process per worker, all on the one GPU).

    [PYTEST_ADDOPTS="-n 12"] python bench/gpu_tests.py OUT.json [--gpu-paths PATH,...] [TEST_FILE ...]
"""

from __future__ import annotations

import datetime
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from polycuda.bench import environment


def _gpu_name() -> str:
    try:
        run = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                              "--format=csv,noheader"], capture_output=True, text=True,
                             check=False)
    except FileNotFoundError:
        return "no GPU (no nvidia-smi)"
    return run.stdout.strip() or f"no GPU (nvidia-smi: {run.stderr.strip()[:100]})"


def _outcomes(xml_path: Path) -> list[dict]:
    tests = []
    for case in ET.parse(xml_path).getroot().iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed", "error": "error"}.get(child.tag, child.tag)
                message = (child.get("message") or "")[:300]
                break
        else:
            message = ""
        tests.append({"test": f"{case.get('classname')}::{case.get('name')}",
                      "outcome": outcome, "seconds": round(float(case.get("time", 0)), 3),
                      **({"message": message} if message else {})})
    return tests


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    out, files = Path(argv[0]), argv[1:]
    gpu_paths = ["tests"]
    if files[:1] == ["--gpu-paths"]:
        if len(files) < 2:
            print("--gpu-paths needs a comma-separated list of test paths", file=sys.stderr)
            return 2
        gpu_paths, files = [p for p in files[1].split(",") if p], files[2:]
    runs = ([["-m", "gpu", *gpu_paths]] if gpu_paths else []) + (
        [["-m", "gpu or not gpu", *files]] if files else [])
    tests, rc, commands = [], 0, []
    with tempfile.TemporaryDirectory() as tmp:
        for k, selection in enumerate(runs):
            xml_path = Path(tmp) / f"junit{k}.xml"
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                       f"--junitxml={xml_path}", *selection]
            addopts = os.environ.get("PYTEST_ADDOPTS", "")
            commands.append(" ".join(command[1:]) + (f" (PYTEST_ADDOPTS={addopts!r})"
                                                     if addopts else ""))
            rc = max(rc, subprocess.run(command, check=False).returncode)
            tests += _outcomes(xml_path) if xml_path.exists() else []
    commit = environment.git_commit()  # POLYCUDA_COMMIT first: a device copy's .git is stale
    counts = {k: sum(t["outcome"] == k for t in tests)
              for k in ("passed", "failed", "error", "skipped")}
    result = {"date": datetime.date.today().isoformat(), "gpu": _gpu_name(), "commit": commit,
              "commands": commands, "pytest_rc": rc, **counts, "tests": tests}
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(counts), file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
