"""Generated C, OpenMP and CUDA (emulated on the CPU) against pure-Python oracles."""

import math
import shutil

import islpy as isl
import numpy as np
import pytest

import polycuda
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
    blocks = tuple(min(b, t) for b, t in zip((2, 4), tiles))  # a block larger than its tile
    prog = _program(hand_scops.jacobi_2d, tile_sizes=tiles, block_sizes=blocks)  # is refused
    assert all(r.ok for r in prog.verify(SIZES["jacobi_2d"], targets=TARGETS))


@pytest.mark.parametrize("scheduler", ["isl", "pluto"])
def test_tiles_of_more_than_1024_points_run_on_fewer_threads(scheduler):
    # 4x16x32 = 2048 points per tile: the block is 2x16x32 (regression: the H100 refused the
    # launch with cudaErrorInvalidValue); each thread strides over two of its tile's planes
    from kernels import suite

    kernel = suite.by_name("jacobi_3d")
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(scheduler=scheduler, tile_sizes=(4, 16, 32)))
    assert all(math.prod(k.block_sizes) <= 1024 for k in prog.generate("cuda").kernels)
    assert all(r.ok for r in prog.verify({"T": 2, "n": 20}, targets=("emulate",)))


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
    pragma = source.index("#pragma omp for")  # inside the region around the time loop
    loop = source[pragma:].splitlines()[1].strip()
    assert loop.startswith("for (long c1 = 0; c1 <= ")


def test_cuda_maps_tiles_to_blocks_and_points_to_threads():
    source = compile_scop(hand_scops.jacobi_2d(), Options(target="cuda", scheduler="isl")).source
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


def test_optional_main_runs_under_the_emulator(tmp_path):
    import subprocess

    from polycuda.runtime import device, emulate

    source = compile_scop(hand_scops.gemm_triangular(), Options(target="cuda")).source
    assert "#ifdef POLYCUDA_MAIN" in source
    cpp = tmp_path / "main.cpp"
    cpp.write_text(emulate.translate(source))
    exe = tmp_path / "main"
    subprocess.run([device.find_cxx(), "-std=c++20", "-O1", "-pthread", "-DPOLYCUDA_MAIN",
                    str(cpp), "-o", str(exe)], check=True)
    outputs = [subprocess.run([str(exe), "n=17"], check=True, capture_output=True,
                              text=True).stdout for _ in range(2)]
    checksum = [line for line in outputs[0].splitlines() if line.startswith("checksum C ")]
    assert len(checksum) == 1 and float(checksum[0].split()[2]) > 0
    assert [ln for ln in outputs[1].splitlines() if ln.startswith("checksum")] == checksum


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: CUDA not compiled")
def test_optional_main_compiles_with_nvcc():
    from polycuda.runtime import build

    source = compile_scop(hand_scops.jacobi_2d(), Options(target="cuda")).source
    build.compile_only(source, "cuda", flags=("-DPOLYCUDA_MAIN",))


def test_iterator_names_avoid_user_names():
    from polycuda.frontend.c import parse_source

    text = """
void f(int n, double c1, double c0[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      c0[i] = c0[i] * c1 + j;
#pragma endscop
}
"""
    (scop,) = parse_source(text, filename="clash.c")
    source = compile_scop(scop, Options(target="c")).source
    assert "pc_c0" in source
    import polycuda

    results = polycuda.compile(text, filename="clash.c").verify({"n": 9}, targets=("c", "openmp"))
    assert all(r.ok for r in results)


class _ForStub:
    """The two queries simple_upper_bound makes of an isl for node."""

    def __init__(self, it: isl.AstExpr, cond: isl.AstExpr):
        self.it, self.cond = it, cond

    def for_get_iterator(self) -> isl.AstExpr:
        return self.it

    def for_get_cond(self) -> isl.AstExpr:
        return self.cond


def test_simple_upper_bound_refuses_a_bound_of_the_loop_s_own_iterator():
    """Fuzz seed 61181: isl bounded `c5` by `min(7, ... floord(2 * c5 ...))`; the shuffled and
    OpenMP loops took it as a trip count and named c5 before declaring it."""
    from polycuda.codegen.printer import simple_upper_bound

    ctx = isl.Context()
    c5, c3 = (isl.AstExpr.from_id(isl.Id(n, context=ctx)) for n in ("c5", "c3"))
    seven = isl.AstExpr.from_val(isl.Val.int_from_si(ctx, 7))
    assert simple_upper_bound(_ForStub(c5, c5.le(c3.add(seven)))) == "(c3 + 7)"
    assert simple_upper_bound(_ForStub(c5, c5.lt(c3))) == "(c3 - 1)"
    assert simple_upper_bound(_ForStub(c5, c5.le(c5.add(c3)))) is None
    assert simple_upper_bound(_ForStub(c5, c5.le(isl.AstExpr.from_id(
        isl.Id("c55", context=ctx))))) == "c55"
