"""Generated C, OpenMP and CUDA (emulated on the CPU) against pure-Python oracles."""

import shutil

import numpy as np
import pytest

from polycuda.errors import VerificationError
from polycuda.options import Options
from polycuda.pipeline import compile_scop
from polycuda.program import Program
from tests.unit import hand_scops

SIZES = {"fig2": {"T": 5, "I": 300}, "jacobi_2d": {"T": 3, "n": 37},
         "trigemm": {"n": 23}, "sor_1d": {"T": 4, "n": 41}, "rscan": {"n": 29}}
TARGETS = ("c", "openmp", "emulate")


def _program(make, **options):
    scop = make()
    return Program(scop, Options(**options), hand_scops.numpy_reference(scop.name))


@pytest.mark.parametrize("make", hand_scops.ALL, ids=lambda m: m.__name__)
def test_every_target_matches_the_oracle(make):
    prog = _program(make)
    results = prog.verify(SIZES[prog.name], targets=TARGETS)
    assert [r.target for r in results] == list(TARGETS)
    assert all(r.ok for r in results)


@pytest.mark.parametrize("tiles", [(1, 1), (3, 5), (64, 64)])
def test_tile_and_block_sizes_do_not_change_results(tiles):
    prog = _program(hand_scops.jacobi_2d, tile_sizes=tiles, block_sizes=(2, 4))
    assert all(r.ok for r in prog.verify(SIZES["jacobi_2d"], targets=TARGETS))


def test_a_wrong_result_is_reported():
    prog = _program(hand_scops.sor_1d)

    def stale_oracle(args):  # one time step fewer than the program runs
        hand_scops.numpy_reference("sor_1d")({**args, "T": args["T"] - 1})

    wrong = Program(prog.scop, prog.options, stale_oracle)
    with pytest.raises(VerificationError, match="mismatch"):
        wrong.verify({"T": 2, "n": 9}, targets=("c",))


def test_generated_code_is_deterministic():
    scop = hand_scops.jacobi_2d()
    first = compile_scop(scop, Options(target="cuda")).source
    assert compile_scop(hand_scops.jacobi_2d(), Options(target="cuda")).source == first


def test_openmp_parallel_loop_is_in_canonical_form():
    source = compile_scop(hand_scops.jacobi_2d(), Options(target="openmp")).source
    pragma = source.index("#pragma omp parallel for")
    loop = source[pragma:].splitlines()[1].strip()
    assert loop.startswith("for (long c1 = 0; c1 <= ")


def test_cuda_maps_tiles_to_blocks_and_points_to_threads():
    source = compile_scop(hand_scops.jacobi_2d(), Options(target="cuda")).source
    assert "blockIdx.y" in source and "blockIdx.x" in source
    assert "threadIdx.x" in source and "gridDim.x" in source
    assert source.count("<<<") == 2  # two kernels, launched inside the host time loop
    assert 'extern "C" int pc_jacobi_2d_dev(' in source


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: CUDA not compiled")
@pytest.mark.parametrize("make", hand_scops.ALL, ids=lambda m: m.__name__)
def test_generated_cuda_compiles_with_nvcc(make):
    from polycuda.runtime import build

    build.compile_only(compile_scop(make(), Options(target="cuda")).source, "cuda")


def test_serial_kernel_runs_with_one_thread():
    source = compile_scop(hand_scops.reverse_scan(), Options(target="cuda")).source
    assert "<<<dim3(1), dim3(1)>>>" in source
    prog = _program(hand_scops.reverse_scan)
    values = prog.verify(SIZES["rscan"], targets=("emulate",))
    assert values[0].ok and np.isfinite(values[0].worst["y"])
