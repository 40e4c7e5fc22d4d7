"""`polycuda show deps|schedule|code`: what the compiler found, as text or stable JSON."""

from __future__ import annotations

import json

from polycuda.analysis import dependences
from polycuda.pipeline import schedule_scop, transform_scop
from polycuda.program import Program
from polycuda.schedule import isl_scheduler, report


def deps_json(prog: Program) -> list[dict]:
    return [d.to_json() for d in dependences.compute(prog.scop)]


def schedule_of(prog: Program) -> dict:
    """Schedule JSON of the region as scheduled (after false-dependence elimination, if on)."""
    ctx = isl_scheduler.new_context()
    scop = transform_scop(prog.scop, prog.options)
    return report.schedule_json(scop, schedule_scop(scop, prog.options, ctx))


def _deps_text(prog: Program) -> str:
    lines = [f"region {prog.name}:"]
    for d in dependences.compute(prog.scop):
        dist = "(" + ", ".join(map(str, d.distance)) + ")" if d.distance is not None else "non-uniform"
        lines.append(f"  {d.kind:6s} {d.source}:{d.source_ref} -> {d.sink}:{d.sink_ref}  "
                     f"distance {dist}\n         {d.relation}")
    return "\n".join(lines)


def _schedule_text(prog: Program) -> str:
    lines = [f"region {prog.name} ({prog.options.scheduler} scheduler):"]
    for stmt in schedule_of(prog)["statements"]:
        lines.append(f"  {stmt['name']}[{', '.join(stmt['iterators'])}]")
        for row, par in zip(stmt["hyperplanes"], stmt["parallel"]):
            lines.append(f"    {row}  {'parallel' if par else 'sequential'}")
    return "\n".join(lines)


def show(what: str, programs: tuple[Program, ...], as_json: bool = False) -> str:
    """Text (or JSON) for every program; JSON of several regions is keyed by region name."""
    if what == "code":
        return "\n".join(p.generate().source for p in programs)
    if as_json:
        pick = deps_json if what == "deps" else schedule_of
        if len(programs) == 1:
            return json.dumps(pick(programs[0]), indent=2)
        return json.dumps({p.name: pick(p) for p in programs}, indent=2)
    render = _deps_text if what == "deps" else _schedule_text
    return "\n".join(render(p) for p in programs)
