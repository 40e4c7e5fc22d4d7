"""The work that every bounded solver call of the suite's compiles makes, against its limit:
isl operations (schedule/budget.py: allocations and simplex pivots) and Pluto's ILP solves, per
kernel, configuration and call, with the defaults of Options beside them.

Usage: python3 bench/solver_operations.py [OUT.json] [--config NAME ...] [--kernel NAME ...]
(from the repository root). Each bounded call runs in this process under its limits, and the
count is read from the isl context afterwards (a call that gave up shows its limit): isl has no getter for it, so `_operations`
reads the field that isl_ctx_get_max_operations sits beside, after checking that it found the
context by a value it set (this file only; the compiler never reads the count).
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import json
import os
import platform
import sys
import warnings

import islpy as isl

from kernels import suite
from polycuda.bench import environment
from polycuda.errors import PolycudaWarning
from polycuda.frontend import c as cfront
from polycuda.options import WORK_LIMITS, Options
from polycuda.pipeline import compile_scop
from polycuda.schedule import budget, pluto

CONFIGS = {"default-cuda": Options(target="cuda"),
           "default-openmp": Options(target="openmp"),
           "pluto-cuda": Options(target="cuda", scheduler="pluto"),
           "pluto-balanced-cuda": Options(target="cuda", scheduler="pluto",
                                          balanced_wavefront=True),
           "pluto-inter-cuda": Options(target="cuda", scheduler="pluto", balanced_wavefront=True,
                                       eliminate_false_deps=True),
           "superposition-cuda": Options(target="cuda", scheduler="superposition")}
# struct isl_ctx (isl_ctx_private.h): `operations` then `max_operations`, read at the offset
# of the latter in isl_ctx_get_max_operations (this islpy's isl); checked below
_MAX_OPERATIONS_AT = 0x1D8
_CTX_POINTER_AT = 24  # in islpy's Python object of an isl.Context
_MAGIC = 0x5A17_0123_4567


def _ctx_pointer(ctx: isl.Context) -> int:
    pointer = ctypes.c_uint64.from_address(id(ctx) + _CTX_POINTER_AT).value
    ctx.set_max_operations(_MAGIC)
    found = ctypes.c_uint64.from_address(pointer + _MAX_OPERATIONS_AT).value
    ctx.set_max_operations(0)
    if found != _MAGIC:
        sys.exit("bench/solver_operations.py: isl's context layout differs in this islpy; "
                 "update _MAX_OPERATIONS_AT from `objdump -d` of isl_ctx_get_max_operations")
    return pointer


def _operations(ctx: isl.Context) -> int:
    return ctypes.c_uint64.from_address(_ctx_pointer(ctx) + _MAX_OPERATIONS_AT - 8).value


class Recorder:
    """budget.run_bounded replaced by an unbounded in-process call that records its work."""

    def __init__(self):
        self.calls: list[dict] = []
        self.counters: list[pluto.IlpCounter] = []

    def run_bounded(self, fn, ctx, limit, what, timeout_s, give_up_on=()):
        """The call in this process under its limits (a call past one records how far it
        got: its limit), as budget.run_bounded would give it up."""
        self.counters.clear()
        _operations(ctx)  # checks the layout before any work
        call = {"what": what, "limit_option": limit.option, "limit": limit.operations}
        budget.bounded_context(ctx, limit.operations)
        try:
            return fn()
        except (isl.Error, budget.OutOfWork, *give_up_on) as err:
            call["gave_up"] = f"{type(err).__name__}: {err}"[:200]
            raise budget.SolverGaveUp(what, call["gave_up"]) from None
        finally:
            call["operations"] = _operations(ctx)
            ctx.set_max_operations(0)
            if self.counters:
                call["ilp_solves"] = sum(c.used for c in self.counters)
            self.calls.append(call)

    def counter(self, limit):
        made = _IlpCounter(limit)
        self.counters.append(made)
        return made


_IlpCounter = pluto.IlpCounter


def measure(configs: dict[str, Options], kernels) -> dict:
    recorder = Recorder()
    budget.run_bounded = recorder.run_bounded
    pluto.IlpCounter = recorder.counter
    rows = {}
    for kernel in kernels:
        scop = next(s for s in cfront.parse_file(str(kernel.c_path)) if s.name == kernel.function)
        for name, options in configs.items():
            recorder.calls = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PolycudaWarning)
                compile_scop(scop, options)
            rows[f"{kernel.name} {name}"] = recorder.calls
            worst = max((c["operations"] / c["limit"] for c in recorder.calls), default=0)
            gave_up = [c["what"] for c in recorder.calls if "gave_up" in c]
            print(f"{kernel.name:16s} {name:20s} calls {len(recorder.calls):2d}, most "
                  f"{worst:.4f} of a limit; gave up: {gave_up}", file=sys.stderr)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", help="JSON report (default: a summary on stdout)")
    parser.add_argument("--config", action="append", choices=sorted(CONFIGS))
    parser.add_argument("--kernel", action="append", help="only these suite kernels")
    args = parser.parse_args()
    configs = {name: CONFIGS[name] for name in (args.config or CONFIGS)}
    kernels = [k for k in suite.KERNELS if not args.kernel or k.name in args.kernel]
    rows = measure(configs, kernels)
    most: dict[str, dict] = {}
    for label, calls in rows.items():
        for c in calls:
            for option, value in ((c["limit_option"], c["operations"]),
                                  ("pluto_ilp_solves", c.get("ilp_solves"))):
                key = f"{c['what']} ({option})"
                if value is not None and value > most.get(key, {"value": -1})["value"]:
                    most[key] = {"value": value, "where": label}
    defaults = {name: getattr(Options(), name) for name in WORK_LIMITS}
    result = {"date": datetime.date.today().isoformat(), "commit": environment.git_commit(),
              "host": platform.processor() or platform.machine(), "cores": os.cpu_count(),
              "islpy": ".".join(map(str, isl.VERSION)), "limits": defaults,
              "most": most, "calls": rows}
    text = json.dumps(result, indent=1)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(json.dumps({"limits": defaults, "most": most}, indent=1))


if __name__ == "__main__":
    main()
