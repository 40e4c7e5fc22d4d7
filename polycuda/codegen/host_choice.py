"""Target "cuda": the region's original program on the host beside its kernels, one of them run
per call (Options.host_fallback; the rule of gpu.cost.HostChoice). The host version is
overlap_guard's `pc_<name>_original` (the statements as written, sequential, compiled with the
file's host optimization); `pc_<name>_host_version` evaluates the rule at a call's parameters;
`pc_<name>_ran` says which ran last (1: the kernels, 2: the host version), for `polycuda run`;
`pc_<name>_force` (0: the rule; the emulator's default 1: the kernels, which it is there to
test) makes every call run one version, for Program.verify ("always" ignores it).
"""

from __future__ import annotations

import re

from polycuda.codegen import abi, host_driver, overlap_guard
from polycuda.codegen.cuda_host import accessed_args
from polycuda.gpu import cost
from polycuda.ir.c_expr import expr_to_c
from polycuda.ir.scop import Scop

RAN_GPU, RAN_HOST = 1, 2  # the values of pc_<name>_ran after a call


def add_host_version(scop: Scop, source: str, choice: cost.HostChoice) -> str:
    """`source` (a CUDA region's file, generated from the transformed `scop`; `scop`: the
    region as written) with the host version, the rule and the flag before its first entry,
    and at the start of the entries pc_<name> and pc_<name>_dev (after their index guards)
    the call of the host version where the rule picks it."""
    entry, dev = abi.entry_name(scop), abi.entry_name(scop, "_dev")
    names = ", ".join(a.name for a in scop.args)
    params = ", ".join(a.name for a in scop.args if a.kind == "param")
    rule = abi.entry_name(scop, "_host_version")
    flag = abi.entry_name(scop, "_ran")
    force = abi.entry_name(scop, "_force")
    defs = [f"/* polycuda: {flag}: what the last call ran ({RAN_GPU} the kernels, {RAN_HOST} the "
            f"host version); {force}: 0 the rule",
            f"   decides, {RAN_GPU} or {RAN_HOST} runs that version (Program.verify checks "
            "both) */",
            "#ifndef PC_HOST_VERSION_FORCE  /* the emulator's: the kernels (cuda_emu_api.h) */",
            "#define PC_HOST_VERSION_FORCE 0",
            "#endif",
            f'extern "C" {{ int {flag}; int {force} = PC_HOST_VERSION_FORCE; }}',
            *_original(scop, flag), *_distinct(scop, flag), *_rule_function(scop, choice),
            *_dev_on_host(scop),
            *_nonnegative_checks(scop, choice.nonnegative)]
    first = re.search(rf'^extern "C" int ({re.escape(entry)}|{re.escape(dev)})\(', source, re.M)
    assert first, f"host_choice: no entry {entry} in the source"
    source = source[:first.start()] + "\n".join(defs) + "\n" + source[first.start():]
    for name, on_device, host in ((entry, 0, abi.entry_name(scop, "_distinct")),
                                  (dev, 1, abi.entry_name(scop, "_dev_on_host"))):
        call = f"{rule}({', '.join(filter(None, [params, str(on_device)]))})"
        checked = []
        if choice.nonnegative:  # before the rule: no forced version runs the kernels there
            check = abi.entry_name(scop, "_dev_nonnegative" if on_device else "_nonnegative")
            checked = [f"  if (!{check}({names})) return {host}({names});"]
        source = _after_guard(source, name, [*checked, f"  if ({call}) return {host}({names});",
                                             _store(flag, RAN_GPU)])
    return source


def _nonnegative_checks(scop: Scop, arrays: tuple[str, ...]) -> list[str]:
    """`static int pc_<name>_nonnegative(ARGS)` (host arrays) and `pc_<name>_dev_nonnegative`
    (device arrays, each copied to a host buffer first): 1 where every element of `arrays` is
    >= 0, neither NaN nor -0.0 (Scop.nonnegative_inputs: the condition of the kernels' closure
    steps, schedule/closure.py); none for no arrays."""
    if not arrays:
        return []
    by_name = {a.name: a for a in scop.args}
    lines = [f"/* polycuda: the kernels compute region '{scop.name}' only where every element of "
             f"{', '.join(arrays)} is >= 0 at entry",
             "   (no NaN, no -0.0: their closure steps read row and column k as the step "
             "starts); elsewhere the host version runs */"]
    for suffix, on_device in (("_nonnegative", False), ("_dev_nonnegative", True)):
        lines += [f"static int {abi.entry_name(scop, suffix)}({abi.arg_decls(scop)}) {{",
                  "  int ok = 1;", *host_driver.byte_sizes(scop, [by_name[a] for a in arrays])]
        for name in arrays:
            ctype = abi.C_TYPES[by_name[name].dtype]
            data = name
            if on_device:
                data = f"h_{name}"
                lines += [f"  {ctype} *h_{name} = ({ctype} *)malloc(pc_bytes_{name} ? "
                          f"pc_bytes_{name} : 1);",
                          f"  if (!h_{name} || cudaMemcpy(h_{name}, {name}, pc_bytes_{name}, "
                          "cudaMemcpyDeviceToHost) != cudaSuccess) ok = 0;"]
            value = "pc_v"
            bad = (f"!({value} >= 0) || ({value} == 0 && 1.0 / (double){value} < 0.0)"
                   if by_name[name].dtype in ("float", "double") else f"{value} < 0")
            lines += [f"  for (size_t pc_e = 0; ok && pc_e < pc_bytes_{name} / sizeof({ctype}); "
                      "pc_e++) {",
                      f"    const {ctype} {value} = {data}[pc_e];",
                      f"    if ({bad}) ok = 0;", "  }"]
            if on_device:
                lines.append(f"  free(h_{name});")
        lines += ["  return ok;", "}"]
    return lines + [""]


def _original(scop: Scop, flag: str) -> list[str]:
    """overlap_guard's pc_<name>_original, setting the flag: the host version, also run where
    the arrays share memory."""
    lines = overlap_guard.original_function(scop)
    head = lines.index(next(line for line in lines if line.startswith("static int ")))
    return [f"/* polycuda: region '{scop.name}' as written: the host version, run where "
            f"{abi.entry_name(scop, '_host_version')} picks it",
            "   or where the arrays share memory */",
            lines[head], _store(flag, RAN_HOST), *lines[head + 1:]]


def _distinct(scop: Scop, flag: str) -> list[str]:
    """`pc_<name>_distinct`: pc_<name>_original with every array argument __restrict__, the
    host version where the entries run it, after their overlap check (no written array shares
    memory with another): without it the host compiler must assume that a store through one
    argument may change what another reads, keeps values in memory that the oracle's C keeps
    in registers and runs the loops slower than the program as written (doitgen's)."""
    lines = _original(scop, flag)
    head = next(k for k, line in enumerate(lines) if line.startswith("static int "))
    restricted = ", ".join(abi.arg_decl(a).replace(" *", " *__restrict__ ")
                           if a.kind == "array" else abi.arg_decl(a) for a in scop.args)
    return [f"/* polycuda: region '{scop.name}' as written, its arrays distinct: the host "
            "version where the entries run it */",
            f"static int {abi.entry_name(scop, '_distinct')}({restricted or 'void'}) {{",
            *lines[head + 1:]]


def _store(flag: str, value: int) -> str:
    """The line that sets the flag (atomic: calls from several threads may set it at once)."""
    return f"  __atomic_store_n(&{flag}, {value}, __ATOMIC_RELAXED);"


def _elements(scop: Scop, name: str) -> str:
    """C text (double) of an array's elements, 0 where an extent is negative."""
    shape = scop.array(name).shape
    return " * ".join(f"(double)pc_max(0LL, (long long)({expr_to_c(d)}))" for d in shape) or "1.0"


def _bytes(scop: Scop, choice: cost.HostChoice, on_device: bool) -> tuple[str, int]:
    """C text (double) of the bytes that a call's copies move, and the number of copies: the
    GPU's on host arrays, the host version's on device arrays (gpu.cost.Transfer)."""
    terms, count = [], 0
    for t in choice.transfers:
        n = t.device_entry if on_device else t.host_entry
        if n:
            terms.append(f"{n}.0 * {_elements(scop, t.array)} * {t.element_bytes}.0")
            count += n
    return " + ".join(terms) or "0.0", count


def _rule_function(scop: Scop, choice: cost.HostChoice) -> list[str]:
    """`static int pc_<name>_host_version(PARAMS, int pc_on_device)`: 1 where the host
    version runs (gpu.cost.host_and_gpu_ns in C; "always": 1)."""
    decls = [abi.arg_decl(a) for a in scop.args if a.kind == "param"] + ["int pc_on_device"]
    head = [f"/* polycuda: where a call of region '{scop.name}' runs (gpu.cost.HostChoice): the "
            "original program on the host",
            "   when its estimated time (ns) is below the kernels' (copies + launches + work) "
            "*/",
            f"static int {abi.entry_name(scop, '_host_version')}({', '.join(decls)}) {{",
            ]
    if choice.mode == "always":
        return head + ["  (void)pc_on_device;  /* Options.host_fallback 'always' */",
                       "  return 1;", "}"]
    head += [f"  const int pc_force = __atomic_load_n(&{abi.entry_name(scop, '_force')}, "
             "__ATOMIC_RELAXED);",
             f"  if (pc_force) return pc_force == {RAN_HOST};"]
    launch = choice.launch_ns[0] if len(choice.launch_ns) == 1 else (
        f"fmin({choice.launch_ns[0]}, {choice.launch_ns[1]})")
    host_bytes, host_copies = _bytes(scop, choice, on_device=False)
    dev_bytes, dev_copies = _bytes(scop, choice, on_device=True)
    return head + [
        f"  const double pc_instances = {choice.instances};",
        f"  const double pc_launch_ns = {launch};",
        "  const double pc_bytes = " + (host_bytes if host_bytes == dev_bytes else
                                         f"pc_on_device ? ({dev_bytes}) : ({host_bytes})") + ";",
        "  const double pc_copies = " + (f"{host_copies}.0" if host_copies == dev_copies else
                                          f"pc_on_device ? {dev_copies}.0 : {host_copies}.0")
        + ";",
        f"  const double pc_copy_ns = pc_bytes / {cost.HOST_COPY_BYTES_PER_NS!r} + pc_copies * "
        f"{cost.COPY_CALL_NS!r};",
        f"  const double pc_pinned = {_pinned(scop, choice)};",
        f"  const double pc_host_ns = pc_instances * {cost.HOST_INSTANCE_NS!r} + "
        "(pc_on_device ? pc_copy_ns : 0.0);",
        f"  const double pc_gpu_ns = pc_launch_ns * {cost.HOST_LAUNCH_FACTOR!r} + pc_instances * "
        f"{cost.INSTANCE_NS!r} + (pc_on_device ? 0.0 : {cost.GPU_CALL_NS!r} + pc_copy_ns + "
        f"pc_pinned * {cost.PIN_CALL_NS!r});",
        "  return pc_host_ns < pc_gpu_ns;", "}"]


def _pinned(scop: Scop, choice: cost.HostChoice) -> str:
    """C text (double) of the arrays that the host entry page-locks for its copies (those of
    at least choice.pin_min_bytes bytes; HostChoice.terms' "pinned")."""
    if not choice.pin_min_bytes:
        return "0.0"
    terms = [f"({_elements(scop, t.array)} * {t.element_bytes}.0 >= {choice.pin_min_bytes}.0 "
             "? 1.0 : 0.0)" for t in choice.transfers if t.host_entry]
    return " + ".join(terms) or "0.0"


def _dev_on_host(scop: Scop) -> list[str]:
    """`static int pc_<name>_dev_on_host(ARGS)`: the host version on device arrays: each
    accessed array copied to a host buffer, pc_<name>_original on the buffers, each written
    array copied back (the copies that the rule counts on device arrays)."""
    accessed, written = accessed_args(scop)
    lines = [f"/* polycuda: the host version on device arrays ({abi.entry_name(scop, '_dev')}): "
             "copied out, run, the written ones copied back */",
             f"static int {abi.entry_name(scop, '_dev_on_host')}({abi.arg_decls(scop)}) {{",
             "  int err = 0;", *host_driver.byte_sizes(scop, accessed)]
    for a in accessed:
        ctype = abi.C_TYPES[a.dtype]
        lines += [f"  {ctype} *h_{a.name} = ({ctype} *)malloc(pc_bytes_{a.name} ? "
                  f"pc_bytes_{a.name} : 1);",
                  f"  if (!h_{a.name}) err = (int)cudaErrorMemoryAllocation;"]
    lines += [f"  if (!err) err = (int)cudaMemcpy(h_{a.name}, {a.name}, pc_bytes_{a.name}, "
              "cudaMemcpyDeviceToHost);" for a in accessed]
    names = {a.name for a in accessed}
    args = ", ".join(f"h_{a.name}" if a.name in names else "NULL" if a.kind == "array"
                     else a.name for a in scop.args)
    lines.append(f"  if (!err) err = {abi.entry_name(scop, '_distinct')}({args});")
    lines += [f"  if (!err) err = (int)cudaMemcpy({a.name}, h_{a.name}, pc_bytes_{a.name}, "
              "cudaMemcpyHostToDevice);" for a in accessed if a.name in written]
    lines += [f"  free(h_{a.name});" for a in accessed]
    return lines + ["  return err;", "}", ""]


def _after_guard(source: str, entry: str, lines: list[str]) -> str:
    """`source` with `lines` after the opening line of the one definition of `entry` (at a
    line's start: the outermost one, not a variant's) and its index guard."""
    found = list(re.finditer(rf'^extern "C" int {re.escape(entry)}\(.*\) \{{\n', source, re.M))
    assert len(found) == 1, f"host_choice: {len(found)} definitions of {entry}"
    end = host_driver.INDEX_GUARD_LINES.match(source, found[0].end()).end()
    return source[:end] + "".join(line + "\n" for line in lines) + source[end:]

