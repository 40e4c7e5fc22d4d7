"""`polycuda show deps|schedule|passes|sizes|code`: what the compiler found, as text or stable
JSON (passes: the named steps of pipeline.compile_scop, what each did and its time; sizes: each
kernel's sizes and the size plan that gives them, polycuda/size_plan.py)."""

from __future__ import annotations

import json
from collections.abc import Callable

import islpy as isl

from polycuda import size_plan
from polycuda.analysis import affine_writers, dependences, indirect
from polycuda.codegen import abi, cuda_host
from polycuda.errors import PolycudaError
from polycuda.gpu import cost
from polycuda.gpu.plan import (ChainReductionKernel, DoallKernel, DualReductionKernel, Kernel,
                               KindTable, ProducerFusionKernel, ReductionKernel,
                               RowReductionKernel, SerialKernel, WavefrontKernel)
from polycuda.ir.scop import Scop
from polycuda.options import Options
from polycuda.pipeline import (Choice, choose_schedule, dependence_map, drop_empty_statements,
                               host_choice, runs_inspector, runtime_choice, transform_scop)
from polycuda.program import Program
from polycuda.schedule import budget, expand, isl_scheduler, report, superposition


def deps_json(prog: Program) -> list[dict]:
    """Every dependence; one inside a run-time loop (analysis/indirect.py) also carries
    "run_time": why that loop's dependences are computed at run time."""
    nests = {s: n for n in indirect.runtime_nests(prog.scop, prog.options.allow_reassociation)
             for s in n.statements}
    out = []
    for d in dependences.compute(prog.scop):
        entry = d.to_json()
        nest = nests.get(d.source)
        if nest is not None and nests.get(d.sink) is nest:
            entry["run_time"] = nest.reason
        out.append(entry)
    return out


def _reduced(kernel: Kernel) -> list[tuple[str, str, dict]]:
    """A reduction kernel's statements (a row kernel's every one) with their operator."""
    assert isinstance(kernel, ReductionKernel)
    names = (kernel.row_statements if isinstance(kernel, RowReductionKernel)
             else (kernel.reduction_statement,))
    return [(name, "reduction", {"op": kernel.reduction, "kernel": kernel.name,
                                 "run": kernel.reduction_combine}) for name in names]


def _fused(kernel: Kernel) -> list[tuple[str, str, dict]]:
    """gpu/producer_fusion.py: the producers run in the column kernel."""
    assert isinstance(kernel, ProducerFusionKernel)
    return _reduced(kernel) + [
        (name, "fused_producer", {"kernel": kernel.name, "run": kernel.reduction_combine,
                                  "before": kernel.reduction_statement})
        for name in kernel.producer_statements]


def _pair(kernel: Kernel) -> list[tuple[str, str, dict]]:
    """gpu/dual_reduction.py, gpu/chain_reduction.py: both statements in one kernel, one pass
    over the matrix."""
    assert isinstance(kernel, (DualReductionKernel, ChainReductionKernel))
    row, column = kernel.dual_statements
    return [(row, "dual_reduction", {"kernel": kernel.name, "run": kernel.reduction_combine,
                                     "cells": "row", "with": column}),
            (column, "dual_reduction", {"kernel": kernel.name, "run": kernel.reduction_combine,
                                        "cells": "column", "with": row})]


# What `show schedule` adds to each statement's row, by kernel kind: (statement, key, entry).
SHOW_ENTRIES: KindTable[Callable[[Kernel], list[tuple[str, str, dict]]]] = KindTable(
    "show schedule", {DoallKernel: lambda kernel: [], WavefrontKernel: lambda kernel: [],
                      SerialKernel: lambda kernel: [], ReductionKernel: _reduced,
                      ProducerFusionKernel: _fused, DualReductionKernel: _pair,
                      ChainReductionKernel: _pair})


def schedule_of(prog: Program) -> dict:
    """Schedule JSON of the region as scheduled (after the Scop -> Scop passes), with the
    scheduler used and why ("scheduler", "choice")."""
    ctx = isl_scheduler.new_context()
    options = prog.options.replace(target=prog.resolve_target(None).replace("emulate", "cuda"))
    scop = transform_scop(prog.scop, options)
    dep_map = dependence_map(scop, ctx)
    choice = choose_schedule(scop, options, ctx, dep_map)
    scheduled = report.schedule_json(scop, choice.schedule,
                                     report.labelled_dependences(scop, ctx))
    rows: dict[tuple[str, str], dict] = {}  # (statement, key) -> its entry, by kind
    for k in choice.mapped.kernels:
        for name, key, entry in SHOW_ENTRIES[k](k):
            rows[name, key] = entry
    for stmt in scheduled["statements"]:
        for key in ("fused_producer", "dual_reduction"):
            if (stmt["name"], key) in rows:
                stmt[key] = rows[stmt["name"], key]
        entry = rows.get((stmt["name"], "reduction"))
        if entry is not None and stmt["hyperplanes"]:
            # a reduction kernel's band has one member and the statement as its leaf: the
            # statement's innermost loop (mapping._reduction, and a row reduction's loops)
            stmt["reduction"] = {"row": len(stmt["hyperplanes"]) - 1, **entry}
    out = {"scheduler": choice.scheduler, "choice": choice.reason, **scheduled}
    if choice.candidates:  # scheduler auto: each candidate's cost terms, or why it was skipped
        out["candidates"] = [
            {"scheduler": name, "cost": None if c is None else
             {term: getattr(c, term) for term, _, _ in cost.COST_TERMS},
             "chosen": name == choice.scheduler, "note": note}
            for name, c, note in choice.candidates]
        out["fallbacks"] = list(choice.fallbacks)
    if options.target == "cuda" and cuda_host.serial_region(choice.mapped.kernels):
        out["serial_region"] = _serial_region(prog.scop, options)
    # compile_scop's runtime-nest path has no run-time choice of schedules
    both = None if runs_inspector(scop, options) else runtime_choice(scop, options, ctx, choice)
    if both is not None:  # Options.runtime_choice: the runner-up's code too, chosen per call
        out["runtime_choice"] = {"variants": list(both.schedulers),
                                 "launch_ns": list(both.launch_ns),
                                 "instance_bound": both.instances, "rule": both.condition(),
                                 "example": both.example, "note": both.note()}
    # Options.host_fallback: the original program on the host, chosen per call
    host = None if runs_inspector(scop, options) else host_choice(
        scop, options, ctx, choice.mapped, choice.runner_up[2] if both and choice.runner_up
        else None)
    if host is not None:
        out["host_fallback"] = {
            "mode": host.mode, "rule": host.rule(), "params": list(host.params),
            "launch_ns": list(host.launch_ns), "instance_bound": host.instances,
            "copies": {t.array: {"host_entry": t.host_entry, "device_entry": t.device_entry,
                                 "element_bytes": t.element_bytes} for t in host.transfers},
            "constants": {"HOST_INSTANCE_NS": cost.HOST_INSTANCE_NS,
                          "HOST_COPY_BYTES_PER_NS": cost.HOST_COPY_BYTES_PER_NS,
                          "COPY_CALL_NS": cost.COPY_CALL_NS, "LAUNCH_NS": cost.LAUNCH_NS,
                          "WAVEFRONT_LAUNCH_NS": cost.WAVEFRONT_LAUNCH_NS,
                          "INSTANCE_NS": cost.INSTANCE_NS, "GPU_CALL_NS": cost.GPU_CALL_NS,
                          "PIN_CALL_NS": cost.PIN_CALL_NS,
                          "HOST_LAUNCH_FACTOR": cost.HOST_LAUNCH_FACTOR},
            "pin_min_bytes": host.pin_min_bytes}
    if choice.scheduler == "superposition" and choice.reason == "superposition (requested)":
        out["kernels"] = _superposition_kernels(scop, options, ctx, dep_map, choice)
    return out


def _serial_region(scop: Scop, options: Options) -> str:
    """Where the CUDA entries run a region in which no loop is parallel (Options.serial_region;
    cuda_host._serial_functions)."""
    entry, dev = abi.entry_name(scop), abi.entry_name(scop, "_dev")
    if options.serial_region == "cpu":
        return (f"no loop is parallel: {entry} runs the region on the CPU, on the host arrays "
                f"(no copies); {dev} on device arrays runs it in one-thread kernels, or on the "
                "CPU after copying the arrays out when its statement instances x "
                f"{cuda_host.SERIAL_GPU_NS * (1 - cuda_host.SERIAL_CPU_SHARE):g} ns exceed the "
                f"bytes copied out and back x {cuda_host.ROUND_TRIP_NS_PER_BYTE:g} ns "
                "(decided at run time)")
    return (f"no loop is parallel: {entry} and {dev} run the region in one-thread kernels "
            "(--serial-region gpu)")


def passes_of(prog: Program) -> list[dict]:
    """The named steps that compiling the region ran (pipeline.compile_scop), in order: name,
    what the step did for this region ("note") and its seconds. With scheduler "auto" each
    candidate schedule's mapping steps appear, each with its "candidate" scheduler (else ""),
    then "scheduler choice" says which was kept."""
    target = prog.resolve_target(None).replace("emulate", "cuda")
    return [{"name": step.name, "candidate": step.candidate, "note": step.note,
             "seconds": round(step.seconds, 4)} for step in prog.generate(target).steps]


def sizes_of(prog: Program) -> dict:
    """The scheduler of the region's code, each kernel's sizes (tile, block, registers and
    sequential for the DOALL and wavefront kernels; the fixed layouts have none) and the
    size plan of them (`plan`: what --sizes takes to size every kernel so)."""
    target = prog.resolve_target(None).replace("emulate", "cuda")
    gen = prog.generate(target)
    given = dict(size_plan.used(gen.kernels))
    kernels = []
    for k in gen.kernels:
        sizes = given.get(k.name)
        kernels.append({"kernel": k.name, "kind": k.KIND, "sized": sizes is not None,
                        "tile": list(sizes.tile) if sizes else [],
                        "block": list(sizes.block) if sizes else [],
                        "registers": list(sizes.registers) if sizes else [],
                        "sequential": sizes.sequential if sizes else 0})
    return {"scheduler": gen.scheduler or gen.options.scheduler, "kernels": kernels,
            "plan": size_plan.text_of(given.items())}


def _sizes_text(prog: Program) -> str:
    found = sizes_of(prog)
    lines = [f"region {prog.name} (scheduler {found['scheduler']}):"]
    for k in found["kernels"]:
        if not k["sized"]:
            lines.append(f"  {k['kernel']} {k['kind']}: its kind's fixed layout")
            continue
        parts = [f"tile {_x(k['tile'])}", f"block {_x(k['block'])}"]
        parts += [f"registers {_x(k['registers'])}"] if k["registers"] else []
        parts += [f"sequential {k['sequential']}"] if k["sequential"] else []
        lines.append(f"  {k['kernel']} {k['kind']}: {', '.join(parts)}")
    lines.append(f"  plan: {found['plan']}")
    return "\n".join(lines)


def _x(sizes: list[int]) -> str:
    return "x".join(map(str, sizes))


def _passes_text(prog: Program) -> str:
    steps = passes_of(prog)
    width = max((len(s["name"]) for s in steps), default=0)
    lines = [f"region {prog.name}:"]
    lines += [f"  {s['name']:{width}s} {s['seconds']:8.3f} s  "
              + (f"[{s['candidate']}] " if s["candidate"] else "") + s["note"] for s in steps]
    return "\n".join(lines)


def _superposition_kernels(scop: Scop, options: Options, ctx: isl.Context,
                           dep_map: isl.UnionMap, choice: Choice) -> list[dict] | str:
    """superposition.kernel_report of the schedule used, within Options.schedule_operations
    (else why not)."""
    tiles = {k.name: k.tile_sizes for k in choice.mapped.kernels
             if isinstance(k, (DoallKernel, WavefrontKernel))}
    try:
        return budget.run_bounded(
            lambda: superposition.kernel_report(scop, ctx, dep_map, choice.mapped.schedule,
                                                tiles, options.max_mapped_dims),
            ctx, budget.Limit(options.schedule_operations, "schedule_operations"),
            "superposition report", options.solver_timeout_s, give_up_on=(PolycudaError,))
    except budget.SolverGaveUp as gave_up:
        return f"no report: {gave_up.reason}"


def _deps_text(prog: Program) -> str:
    lines = [f"region {prog.name}:"]
    for d in dependences.compute(prog.scop):
        dist = "(" + ", ".join(map(str, d.distance)) + ")" if d.distance is not None else "non-uniform"
        lines.append(f"  {d.kind:6s} {d.source}:{d.source_ref} -> {d.sink}:{d.sink_ref}  "
                     f"distance {dist}\n         {d.relation}")
    # indirect subscripts: which loops take the run-time path, and why
    for nest in indirect.runtime_nests(prog.scop, prog.options.allow_reassociation):
        lines.append(f"  run-time: {nest.reason}; statements {', '.join(nest.statements)}; "
                     f"monitored arrays {', '.join(nest.monitored) or 'none'}")
        lines.append(f"  run-time: {affine_writers.describe(prog.scop, nest)}")
    for note in indirect.static_indirect_notes(prog.scop):
        lines.append(f"  static: {note}")
    lines += [f"  {p.describe()}" for p in _privatized(prog)]
    return "\n".join(lines)


def _privatized(prog: Program) -> tuple[expand.Privatized, ...]:
    """What transform_scop's scalar expansion privatizes (the false dependences listed above
    that the scheduler no longer sees), under the same conditions."""
    scop = drop_empty_statements(prog.scop)
    if not prog.options.expand_scalars or any(s.is_indirect() for s in scop.statements):
        return ()
    return expand.expand_noted(scop, with_removed=True)[1]


def _candidates_text(scheduled: dict) -> list[str]:
    """auto's choice as a small table: per candidate scheduler its cost terms (gpu/cost.py,
    compared in order, the least wins), or why it was skipped; then what each term counts."""
    heads = [head for _, head, _ in cost.COST_TERMS]
    width = max(len(c["scheduler"]) for c in scheduled["candidates"])
    lines = ["  auto's candidates (cost terms compared left to right, the least chosen; ties: "
             f"the first):", f"    {'scheduler':{width}s}  " + "  ".join(heads)]
    for c in scheduled["candidates"]:
        terms = [str(c["cost"][term]) if c["cost"] else "-" for term, _, _ in cost.COST_TERMS]
        cells = "  ".join(f"{v:>{len(h)}s}" for v, h in zip(terms, heads))
        note = "  chosen" if c["chosen"] else f"  {c['note']}" if c["note"] else ""
        lines.append(f"    {c['scheduler']:{width}s}  {cells}{note}")
    lines += [f"    {head}: {what}" for _, head, what in cost.COST_TERMS]
    return lines


def _statement_text(stmt: dict) -> list[str]:
    """A statement of schedule_of(): its line, each hyperplane and what its loop is, and the
    kernel that fuses or pairs it."""
    where = f"  line {stmt['line']}: {stmt['source']}" if "line" in stmt else ""
    lines = [f"  {stmt['name']}[{', '.join(stmt['iterators'])}]{where}"]
    reduction = stmt.get("reduction", {})
    for k, (row, _) in enumerate(zip(stmt["hyperplanes"], stmt["parallel"])):
        why = stmt["sequential"][k]
        kind = "parallel" if not why else (
            why if why == report.CONSTANT_ROW or why.startswith("sequential")
            else f"sequential: {why}")
        if reduction.get("row") == k:  # Shirako et al. 2017, Section 5.3: a reduction loop
            kind = f"reduction ({reduction['op']}), {reduction['kernel']}: {reduction['run']}"
        lines.append(f"    {row}  {kind}")
    fused = stmt.get("fused_producer")
    if fused:
        lines.append(f"    {fused['kernel']}: {fused['run']}, fused: each instance just "
                     f"before the instance of {fused['before']} that reads its element")
    dual = stmt.get("dual_reduction")
    if dual:
        lines.append(f"    {dual['kernel']}: {dual['run']} (one cell per matrix "
                     f"{dual['cells']}, with {dual['with']})")
    return lines


def _schedule_text(prog: Program) -> str:
    scheduled = schedule_of(prog)
    candidates = scheduled.get("candidates")
    choice = scheduled["choice"]
    if candidates:
        choice = "; ".join([f"auto: {scheduled['scheduler']}, the least cost of "
                            f"{len(candidates)} candidates (table below)"]
                           + scheduled["fallbacks"])
    lines = [f"region {prog.name} ({scheduled['scheduler']} scheduler; {choice}):"]
    lines += _candidates_text(scheduled) if candidates else []
    for stmt in scheduled["statements"]:
        lines += _statement_text(stmt)
    if "serial_region" in scheduled:
        lines.append(f"  {scheduled['serial_region']}")
    if "runtime_choice" in scheduled:
        both = scheduled["runtime_choice"]
        bounds = "; ".join(f"{name}'s launches (pc_launch_ns{k}): {bound}" for k, (name, bound)
                           in enumerate(zip(both["variants"], both["launch_ns"])))
        lines.append(f"  {both['note']}")
        lines.append(f"    rule: {both['rule']}; {bounds}; instances (pc_instances): "
                     f"{both['instance_bound']}")
    if "host_fallback" in scheduled:
        host = scheduled["host_fallback"]
        lines.append(f"  {host['rule']}")
        if host["mode"] == "auto":
            copies = ", ".join(f"{name} x{c['host_entry']} ({c['device_entry']} on device "
                               f"arrays)" for name, c in host["copies"].items())
            lines.append(f"    launch time (pc_launch_ns, the least of): "
                         f"{'; '.join(host['launch_ns'])}; instances (pc_instances): "
                         f"{host['instance_bound']}; copies: {copies or 'none'}")
    kernels = scheduled.get("kernels", [])
    for k in kernels if isinstance(kernels, list) else ():
        if not k["threads"]:
            lines.append(f"  {k['kernel']} [{', '.join(k['statements'])}]: one thread")
            continue
        threads = " ".join(f"{axis}={loop}" for axis, loop in reversed(k["threads"].items()))
        costs = ", ".join(f"{c['loop']} {c['cost']:.3g} ({c['kind']})" for c in k["candidates"])
        lines.append(f"  {k['kernel']} [{', '.join(k['statements'])}]: blocks: tiles "
                     f"{'x'.join(map(str, k['tile_sizes']))} of ({', '.join(k['blocks'])}); "
                     f"threads {threads}; in each thread {k['in_thread'] or 'nothing more'}; "
                     f"block level (Algorithm 3) {k['block_level']}; DL d cost/dt: {costs}")
    return "\n".join(lines)


def show(what: str, programs: tuple[Program, ...], as_json: bool = False) -> str:
    """Text (or JSON) for every program; JSON of several regions is keyed by region name."""
    if what == "code":
        return "\n".join(p.generate().source for p in programs)
    if as_json:
        pick = {"deps": deps_json, "schedule": schedule_of, "passes": passes_of,
                "sizes": sizes_of}[what]
        if len(programs) == 1:
            return json.dumps(pick(programs[0]), indent=2)
        return json.dumps({p.name: pick(p) for p in programs}, indent=2)
    render = {"deps": _deps_text, "schedule": _schedule_text, "passes": _passes_text,
              "sizes": _sizes_text}[what]
    return "\n".join(render(p) for p in programs)
