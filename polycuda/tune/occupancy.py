"""Occupancy: thread blocks resident per SM (Di & Xue 2011, Table 1, with the allocation
granularities of the CUDA occupancy calculator) from device properties and the resources of
the kernel as built (registers and shared memory read from ptxas's report, never guessed)."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from polycuda.errors import InvalidConfigError, PolycudaError

REFERENCE_DEVICE = "device_h100_sm90.json"


@dataclass(frozen=True)
class DeviceProps:
    """What bounds residency on one GPU (Di & Xue 2011, Table 1, rows marked H).

    reg_alloc_unit: registers are given to a warp in multiples of this (256 since sm_50);
    warp_schedulers_per_sm: the register file is split evenly between them, so each one's
    share is rounded down to whole warps separately. 1 and 1 reproduce Table 1's plain
    floor(R_SM / R_TB).
    """

    name: str
    arch: str
    sm_count: int
    warp_size: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    max_threads_per_block: int
    regs_per_sm: int
    max_regs_per_block: int
    max_regs_per_thread: int
    reg_alloc_unit: int
    warp_schedulers_per_sm: int
    smem_per_sm: int
    max_smem_per_block: int
    reserved_smem_per_block: int
    smem_alloc_unit: int
    source: str = ""

    @property
    def max_warps_per_sm(self) -> int:
        return self.max_threads_per_sm // self.warp_size

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True)

    @staticmethod
    def from_dict(data: dict) -> DeviceProps:
        names = {f.name for f in dataclasses.fields(DeviceProps)}
        missing = names - set(data) - {"source"}
        if missing:
            raise InvalidConfigError(f"device properties lack {sorted(missing)}")
        return DeviceProps(**{k: v for k, v in data.items() if k in names})


def reference_device() -> DeviceProps:
    """The committed properties of the reference GPU (NVIDIA H100 80GB HBM3, sm_90)."""
    text = resources.files("polycuda.tune").joinpath("data", REFERENCE_DEVICE).read_text()
    return DeviceProps.from_dict(json.loads(text))


def from_cuda_properties(props: dict) -> DeviceProps:
    """DeviceProps from cudaGetDeviceProperties' fields (as CuPy's getDeviceProperties gives
    them); the allocation units, which CUDA does not report, come from the reference file
    (they are the same on every GPU since sm_50)."""
    ref = reference_device()
    name = props.get("name", b"")
    name = name.decode() if isinstance(name, bytes) else str(name)

    def get(key: str, default: int) -> int:
        value = props.get(key)
        return int(value) if value else default

    return DeviceProps(
        name=name, arch=f"sm_{props.get('major', 9)}{props.get('minor', 0)}",
        sm_count=get("multiProcessorCount", ref.sm_count), warp_size=get("warpSize", 32),
        max_threads_per_sm=get("maxThreadsPerMultiProcessor", ref.max_threads_per_sm),
        max_blocks_per_sm=get("maxBlocksPerMultiProcessor", ref.max_blocks_per_sm),
        max_threads_per_block=get("maxThreadsPerBlock", ref.max_threads_per_block),
        regs_per_sm=get("regsPerMultiprocessor", ref.regs_per_sm),
        max_regs_per_block=get("regsPerBlock", ref.max_regs_per_block),
        max_regs_per_thread=ref.max_regs_per_thread, reg_alloc_unit=ref.reg_alloc_unit,
        warp_schedulers_per_sm=ref.warp_schedulers_per_sm,
        smem_per_sm=get("sharedMemPerMultiprocessor", ref.smem_per_sm),
        max_smem_per_block=get("sharedMemPerBlockOptin", ref.max_smem_per_block),
        reserved_smem_per_block=get("reservedSharedMemPerBlock", ref.reserved_smem_per_block),
        smem_alloc_unit=ref.smem_alloc_unit, source="cudaGetDeviceProperties (CuPy)")


def current_device() -> tuple[DeviceProps, bool]:
    """(properties of GPU 0, True) through CuPy when a GPU and CuPy are present, else
    (reference_device(), False)."""
    from polycuda.runtime import device

    if device.gpu_info() is None:
        return reference_device(), False
    try:
        cupy = device.require_cupy()
        return from_cuda_properties(cupy.cuda.runtime.getDeviceProperties(0)), True
    except (PolycudaError, RuntimeError, AttributeError):
        return reference_device(), False


# -- kernel resources, from the built code ---------------------------------------------------------
@dataclass(frozen=True)
class KernelResources:
    """Per-thread registers and per-block static shared memory of one kernel, as built."""

    name: str
    registers: int
    smem_bytes: int
    spill_bytes: int = 0


_ENTRY = re.compile(r"Compiling entry function '(\w+)' for '(\w+)'")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_SPILL = re.compile(r"(\d+) bytes spill stores")
_CUOBJ = re.compile(r"Function (\w+):\s*REG:(\d+)\s+STACK:(\d+)\s+SHARED:(\d+)")


def parse_resource_usage(text: str) -> dict[str, KernelResources]:
    """Kernels' resources from `nvcc --resource-usage` (ptxas info lines) or from
    `cuobjdump --dump-resource-usage`; keys are the kernels' source names (demangled
    `_Z7kernel0iidPdi` -> `kernel0`).

    Raises:
        PolycudaError: no kernel found in the text.
    """
    found: dict[str, KernelResources] = {}
    for match in _CUOBJ.finditer(text):
        name = _demangle(match.group(1))
        found[name] = KernelResources(name, int(match.group(2)), int(match.group(4)))
    current: str | None = None
    spill = 0
    for line in text.splitlines():
        entry = _ENTRY.search(line)
        if entry:
            current, spill = _demangle(entry.group(1)), 0
            continue
        if current and _SPILL.search(line):
            spill = int(_SPILL.search(line).group(1))  # type: ignore[union-attr]
        used = _USED.search(line)
        if current and used:
            smem = _SMEM.search(line)
            found[current] = KernelResources(current, int(used.group(1)),
                                             int(smem.group(1)) if smem else 0, spill)
            current = None
    if not found:
        raise PolycudaError(f"no kernel resource usage in compiler output: {text[:300]!r}")
    return found


def _demangle(symbol: str) -> str:
    """`_Z7kernel0iidPdi` -> `kernel0`; an extern "C" name stays as it is."""
    match = re.match(r"_Z(\d+)(\w+)", symbol)
    if not match:
        return symbol
    return match.group(2)[: int(match.group(1))]


def kernel_resources(cuda_source: str, arch: str | None = None) -> dict[str, KernelResources]:
    """Resources of every kernel of `cuda_source`, compiled by the project's nvcc command with
    --resource-usage (runtime/build.py). Needs nvcc, not a GPU.

    Raises:
        BuildError, ToolNotFoundError: as runtime.build.resource_usage_report.
    """
    from polycuda.runtime import build

    return parse_resource_usage(build.resource_usage_report(cuda_source, arch=arch))


def library_resources(lib: Path) -> dict[str, KernelResources]:
    """Resources of the kernels of a built library, by `cuobjdump --dump-resource-usage`.

    Raises:
        ToolNotFoundError: cuobjdump is not installed (kernel_resources needs only nvcc).
        BuildError: cuobjdump failed.
    """
    import shutil

    from polycuda.errors import ToolNotFoundError
    from polycuda.runtime import build

    tool = shutil.which("cuobjdump")
    if tool is None:
        raise ToolNotFoundError("cuobjdump (CUDA toolkit) was not found on PATH")
    return parse_resource_usage(build.run_compiler([tool, "--dump-resource-usage", str(lib)]))


# -- occupancy (Table 1) ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Occupancy:
    """Blocks per SM and what limits them (Di & Xue 2011, Table 1, rows marked B)."""

    warps_per_block: int  # W_TB
    by_warps: int  # B_W
    by_registers: int  # B_R
    by_shared: int  # B_S
    blocks: int  # B = min(B_W, B_R, B_S); 0: the block cannot launch at all
    fraction: float  # resident warps / max warps per SM
    limited_by: str


def occupancy(props: DeviceProps, threads: int, regs_per_thread: int,
              smem_per_block: int) -> Occupancy:
    """Resident blocks per SM of a kernel with `threads` threads per block (K), registers per
    thread (R_T) and shared memory per block (S_TB, bytes).

    Example (reference H100, 256 threads, 64 registers): B_W = 8, B_R = 4, so B = 4 (50%).
    """
    if threads < 1:
        raise InvalidConfigError(f"{threads=} must be >= 1")
    w_tb = math.ceil(threads / props.warp_size)
    b_w = min(props.max_blocks_per_sm, props.max_warps_per_sm // w_tb)  # Table 1: B_W
    if threads > props.max_threads_per_block:
        b_w = 0
    b_r = _blocks_by_registers(props, threads, w_tb, regs_per_thread)
    b_s = _blocks_by_shared(props, smem_per_block)
    blocks = min(b_w, b_r, b_s)
    limits = {"warps": b_w, "registers": b_r, "shared memory": b_s}
    limited_by = min(limits, key=lambda k: limits[k])
    fraction = blocks * w_tb / props.max_warps_per_sm
    return Occupancy(w_tb, b_w, b_r, b_s, blocks, fraction, limited_by)


def _blocks_by_registers(props: DeviceProps, threads: int, w_tb: int, regs: int) -> int:
    """Table 1's B_R = floor(R_SM / R_TB), with R_TB rounded to the allocation unit per warp
    and the register file split between the warp schedulers (CUDA occupancy calculator)."""
    if regs > props.max_regs_per_thread:
        return 0
    if regs == 0:
        return props.max_blocks_per_sm
    per_warp = _round_up(regs * props.warp_size, props.reg_alloc_unit)
    if per_warp * w_tb > props.max_regs_per_block:
        return 0
    if props.reg_alloc_unit == 1 and props.warp_schedulers_per_sm == 1:
        return props.regs_per_sm // (regs * threads)  # Table 1 as printed: R_TB = R_T * K
    share = props.regs_per_sm // props.warp_schedulers_per_sm
    warps = (share // per_warp) * props.warp_schedulers_per_sm
    return warps // w_tb


def _blocks_by_shared(props: DeviceProps, smem: int) -> int:
    """Table 1's B_S = floor(S_SM / S_TB), S_TB with the driver's reserve, rounded up."""
    if smem > props.max_smem_per_block:
        return 0
    if smem == 0:
        return props.max_blocks_per_sm
    per_block = _round_up(smem + props.reserved_smem_per_block, props.smem_alloc_unit)
    return props.smem_per_sm // per_block


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit
