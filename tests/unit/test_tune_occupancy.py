"""Occupancy (Di & Xue 2011, Table 1; CUDA occupancy rules) against hand-computed cases, and
kernel resources read from ptxas's report of code built here."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from polycuda.tune import occupancy as occ

H100 = occ.reference_device()
# Di & Xue 2011, Table 1: Tesla C1060 (W = 32, W_SM = 32, T_SM = 1024, B_SM = 8, S_SM = 16 KB,
# R_SM = 16K); allocation units of 1 and no reserve give the table's plain floors.
C1060 = dataclasses.replace(
    H100, name="Tesla C1060", sm_count=30, max_threads_per_sm=1024, max_blocks_per_sm=8,
    max_threads_per_block=512, regs_per_sm=16384, max_regs_per_block=16384,
    max_regs_per_thread=124, reg_alloc_unit=1, warp_schedulers_per_sm=1, smem_per_sm=16384,
    max_smem_per_block=16384, reserved_smem_per_block=0, smem_alloc_unit=1)


def test_reference_h100_properties():
    assert (H100.sm_count, H100.max_threads_per_sm, H100.max_blocks_per_sm) == (132, 2048, 32)
    assert (H100.regs_per_sm, H100.smem_per_sm, H100.max_smem_per_block) == (
        65536, 228 * 1024, 227 * 1024)
    assert H100.max_warps_per_sm == 64


def test_table1_c1060():
    # K = 256, R_T = 16, S_TB = 4 KB: W_TB = 8, B_W = min(8, 32 // 8) = 4,
    # B_R = 16384 // (16 * 256) = 4, B_S = 16384 // 4096 = 4
    o = occ.occupancy(C1060, 256, 16, 4096)
    assert (o.warps_per_block, o.by_warps, o.by_registers, o.by_shared, o.blocks) == (
        8, 4, 4, 4, 4)
    # K = 128, R_T = 20, S_TB = 2 KB: B_W = min(8, 8) = 8, B_R = 16384 // 2560 = 6, B_S = 8
    o = occ.occupancy(C1060, 128, 20, 2048)
    assert (o.by_warps, o.by_registers, o.by_shared, o.blocks) == (8, 6, 8, 6)
    assert o.limited_by == "registers"


@pytest.mark.parametrize("threads, regs, smem, blocks, fraction, limit", [
    # 8 warps; 32 regs -> 1024 per warp, 16 warps per scheduler -> 64 warps -> 8 blocks
    (256, 32, 0, 8, 1.0, "warps"),
    # 64 regs -> 2048 per warp -> 8 warps per scheduler, 32 per SM -> 4 blocks
    (256, 64, 0, 4, 0.5, "registers"),
    # 37 regs -> 1184 -> 1280 per warp; 16384 // 1280 = 12 per scheduler, 48 warps -> 12 blocks
    (128, 37, 0, 12, 0.75, "registers"),
    # 224 regs -> 7168 per warp: 2 per scheduler = 8 warps (the plain 65536 // 7168 = 9)
    (32, 224, 0, 8, 0.125, "registers"),
    # 48 KiB + 1 KiB reserve = 50176 B: 233472 // 50176 = 4 blocks
    (128, 32, 48 * 1024, 4, 0.25, "shared memory"),
    # one warp per block: 32 blocks at most, half the SM's warps
    (32, 16, 0, 32, 0.5, "warps"),
])
def test_h100_hand_computed(threads, regs, smem, blocks, fraction, limit):
    o = occ.occupancy(H100, threads, regs, smem)
    assert (o.blocks, o.fraction, o.limited_by) == (blocks, fraction, limit)


def test_blocks_that_cannot_launch():
    assert occ.occupancy(H100, 1025, 32, 0).blocks == 0
    assert occ.occupancy(H100, 256, 256, 0).blocks == 0  # over 255 registers per thread
    assert occ.occupancy(H100, 1024, 128, 0).blocks == 0  # 128 K registers per block
    assert occ.occupancy(H100, 256, 32, 228 * 1024).blocks == 0  # over 227 KiB per block


def test_from_cuda_properties():
    props = {"name": b"NVIDIA H100 80GB HBM3", "major": 9, "minor": 0,
             "multiProcessorCount": 132, "maxThreadsPerMultiProcessor": 2048,
             "maxBlocksPerMultiProcessor": 32, "regsPerMultiprocessor": 65536,
             "sharedMemPerMultiprocessor": 233472, "sharedMemPerBlockOptin": 232448}
    dev = occ.from_cuda_properties(props)
    assert dataclasses.replace(dev, source="") == dataclasses.replace(H100, source="")


PTXAS = """\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z7kernel0iidPdi' for 'sm_90'
ptxas info    : Function properties for _Z7kernel0iidPdi
    0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem, 400 bytes cmem[0]
ptxas info    : Compiling entry function 'pc_probe' for 'sm_90'
ptxas info    : Used 8 registers, 364 bytes cmem[0]
"""
CUOBJDUMP = """\
Resource usage:
 Common:
  GLOBAL:0
 Function _Z7kernel1Pf:
  REG:26 STACK:0 SHARED:512 LOCAL:0 CONSTANT[0]:360 TEXTURE:0 SURFACE:0 SAMPLER:0
"""


def test_parse_resource_usage():
    found = occ.parse_resource_usage(PTXAS)
    assert found["kernel0"] == occ.KernelResources("kernel0", 40, 2048, 8)
    assert found["pc_probe"] == occ.KernelResources("pc_probe", 8, 0, 0)
    assert occ.parse_resource_usage(CUOBJDUMP)["kernel1"] == occ.KernelResources(
        "kernel1", 26, 512)
    with pytest.raises(occ.PolycudaError, match="no kernel resource usage"):
        occ.parse_resource_usage("nothing here")


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
def test_resources_of_a_kernel_built_with_nvcc():
    source = """
__global__ void probe(float *a, int n) {
  __shared__ float tile[300];
  int i = threadIdx.x;
  tile[i] = a[i];
  __syncthreads();
  a[i] = tile[(i + 1) % 300] * n;
}
"""
    found = occ.kernel_resources(source, arch="sm_90")
    probe = found["probe"]
    assert probe.smem_bytes == 1200  # 300 floats, as declared
    assert 1 <= probe.registers <= 255

