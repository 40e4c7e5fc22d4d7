"""The host rule against measurements (no GPU needed): for each row of bench/host_rule_data.py's
results, what the rule of gpu/cost.py, as compiled now, reads at the row's sizes
(HostChoice.terms), the version it picks and how that version's measured time compares with the
faster one and with the sequential oracle; the rows where it picks one over 10% slower than the
other and those below issue 41's floor (0.9x of sequential), then their counts.

    python bench/host_rule_fit.py bench/results/2026-12-03-nvidia-h200-host-rule-data*.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from polycuda.bench import harness  # noqa: E402
from polycuda.bench.configs import CONFIG_OPTIONS  # noqa: E402
from polycuda.bench.ppcg import SEQUENTIAL_FLOOR  # noqa: E402
from polycuda.options import Options  # noqa: E402
from polycuda.pipeline import region_host_choice  # noqa: E402

SLOWER = 1.1  # a pick this much slower than the other version is a wrong pick


def picks(rows: list[dict]) -> list[dict]:
    """Per row: the kernel, dataset, whether the rule picks the host now, the pick's time over
    the faster version's and the sequential oracle's over the pick's."""
    choices: dict = {}
    out = []
    for row in rows:
        if "error" in row:
            continue
        name = row["kernel"]
        if name not in choices:
            kernel = harness.select_kernels((name,))[0]
            case = harness.make_case(kernel, kernel.small, 0)
            choices[name] = region_host_choice(case.scop, Options(**CONFIG_OPTIONS["default"]))
        host = choices[name].picks_host(row["sizes"])
        times = row["median_us"]
        pick = times["host version"] if host else times["gpu"]
        out.append({"kernel": name, "dataset": row["dataset"], "host": host,
                    "over_best": pick / min(times["host version"], times["gpu"]),
                    "speedup": times["sequential"] / pick})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+", type=Path)
    args = parser.parse_args(argv)
    rows = [row for path in args.results for row in json.loads(path.read_text())["rows"]]
    found = picks(rows)
    wrong = [p for p in found if p["over_best"] > SLOWER]
    below = [p for p in found if p["speedup"] < SEQUENTIAL_FLOOR]
    for p in found:
        marks = ("  slower pick" if p in wrong else "") + ("  below floor" if p in below else "")
        print(f"{p['kernel']:15s} {p['dataset']:10s} {'host' if p['host'] else 'gpu ':4s} "
              f"{p['over_best']:5.2f}x the faster, {p['speedup']:5.2f}x sequential{marks}")
    print(f"{len(found)} rows: {len(wrong)} picks over {SLOWER:g}x the faster version, "
          f"{len(below)} below {SEQUENTIAL_FLOOR:g}x of sequential")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
