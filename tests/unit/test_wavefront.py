"""Two-level wavefronts (Di et al. 2012, Section III; Di & Xue 2011, Section 2): tiled permutable
bands without a parallel member, the tiles of one inter-tile wavefront on blocks and the points
of one intra-tile wavefront on threads, a barrier between intra-tile wavefronts.

Oracle: the user's own C (gcc) on random inputs; targets c and openmp (parallel loops shuffled)
and the CUDA code run by the CPU emulator (every block and thread, real barriers). Tile sizes
are small so that every run has many tiles per wavefront and many wavefronts per tile.
"""

import re
import shutil

import islpy as isl
import pytest

import polycuda
from kernels import suite
from polycuda.errors import IllegalScheduleError, InvalidConfigError
from polycuda.gpu import wavefront
from polycuda.options import Options
from polycuda.schedule import legality

TARGETS = ("c", "openmp", "emulate")
PLUTO = {"pluto": {}, "intra": {"balanced_wavefront": True},
         "inter": {"balanced_wavefront": True, "eliminate_false_deps": True}}


def _kernel_program(name: str, config: str, tiles: tuple[int, ...], sync: str = "kernels",
                    staging: bool = False, shared_kib: int = 48) -> polycuda.Program:
    kernel = suite.by_name(name)
    options = Options(scheduler="pluto", tile_sizes=tiles, wavefront_sync=sync,
                      shared_staging=staging, shared_memory_kib=shared_kib, **PLUTO[config])
    return polycuda.compile(str(kernel.c_path), function=kernel.function, options=options)


def _kernels_of(prog: polycuda.Program) -> list:
    return list(prog.generate("cuda").kernels)


# (kernel, configuration, tile sizes, sizes): the stencils of Table II and 3-D SOR
CASES = [
    ("sor_1d", "pluto", (2, 4), {"T": 5, "n": 23}),
    ("sor_1d", "intra", (3, 4), {"T": 5, "n": 23}),
    ("jacobi_1d", "pluto", (2, 4), {"T": 4, "n": 21}),
    ("jacobi_1d", "inter", (2, 4), {"T": 4, "n": 21}),
    ("sor_2d", "pluto", (2, 3, 4), {"T": 3, "n": 11}),
    ("sor_2d", "intra", (2, 3, 4), {"T": 3, "n": 9}),
    ("jacobi_2d", "intra", (2, 3, 4), {"T": 3, "n": 10}),
    ("heat_2d", "inter", (2, 3, 4), {"T": 2, "n": 9}),
    ("fdtd_2d", "pluto", (2, 3, 4), {"T": 3, "nx": 8, "ny": 9}),
    ("sor_3d", "pluto", (2, 2, 3), {"T": 2, "n": 6}),
    # 4-member bands: threads on the last two members, a loop over the second in each thread
    ("jacobi_3d", "intra", (2, 3, 4), {"T": 3, "n": 9}),
    ("sor_3d", "inter", (2, 3, 4), {"T": 2, "n": 8}),
    # rows i + k, j, -i: the initialisation C[i][j] *= beta has one point per intra-tile
    # wavefront, which isl scans with no loop; it must still run on the thread of its point
    # (regression: it ran on thread 0 and raced with the updates of C[i][j])
    ("gemm", "intra", (2, 3, 4), {"ni": 7, "nj": 9, "nk": 8}),
]


def _over_cases(cases: list) -> pytest.MarkDecorator:
    """A test run once per case of `cases` (kernel, configuration, tile sizes, sizes)."""
    return pytest.mark.parametrize(("name", "config", "tiles", "sizes"), cases,
                                   ids=[f"{c[0]}-{c[1]}" for c in cases])


@_over_cases(CASES)
def test_wavefront_kernel_verifies(name, config, tiles, sizes):
    prog = _kernel_program(name, config, tiles)
    assert any(k.wavefront for k in _kernels_of(prog)), "expected a wavefront kernel"
    results = prog.verify(sizes, targets=TARGETS)
    assert [r.target for r in results] == list(TARGETS)
    assert all(r.ok for r in results), results


# Grid-wide barriers and shared-memory staging, on the emulator: every thread of a cooperative
# launch a fiber, blocks drifting apart between barriers (2 emulated SMs: few resident blocks,
# each running several tiles of a wavefront).
VARIANTS = [("kernels", True), ("grid", False), ("grid", True)]
OVER_VARIANTS = pytest.mark.parametrize(
    ("sync", "staging"), VARIANTS, ids=[f"{s}-{'smem' if st else 'global'}" for s, st in VARIANTS])
VARIANT_CASES = [c for c in CASES if c[0] in ("sor_1d", "jacobi_2d", "fdtd_2d", "sor_2d", "gemm")]


@OVER_VARIANTS
@_over_cases(VARIANT_CASES)
def test_grid_sync_and_staging_verify(name, config, tiles, sizes, sync, staging):
    prog = _kernel_program(name, config, tiles, sync, staging)
    kernels = [k for k in _kernels_of(prog) if k.wavefront]
    assert kernels and all(k.grid_sync == (sync == "grid") for k in kernels)
    assert not staging or any(k.staged for k in kernels), "expected a staged array"
    assert all(r.ok for r in prog.verify(sizes, targets=("emulate",)))


def test_staged_tile_reads_and_writes_shared_memory_only():
    prog = _kernel_program("jacobi_1d", "pluto", (16, 64), staging=True)
    (kernel,) = [k for k in _kernels_of(prog) if k.wavefront]
    # tiles of 16 time steps x 64 points of the skewed space row: a box of 96 elements per
    # array; both arrays are written, each by one statement
    assert [(s.array, s.sizes, s.writers) for s in kernel.staged] == [
        ("A", (96,), ("S1",)), ("B", (96,), ("S0",))]
    # a write-back pass after each tile over the hull of its write footprint, which no other
    # tile of its wavefront writes into: not a guard per write
    assert all(s.write_back and s.final is None for s in kernel.staged)
    source = prog.generate("cuda").source
    body = source[source.index("for (int c2 = "):source.index('extern "C"')]
    assert "pc_s_A[" in body and "pc_s_B[" in body
    passes = re.findall(r"if \(pc_in && \((.*)\)\) ([AB])\[pc_x0\] = pc_s_\2\[pc_e\];", body)
    assert sorted(array for _, array in passes) == ["A", "B"]
    rest = re.sub(r"if \(pc_in && .*", "", body)
    assert "pc_in" in rest  # the loads
    loads = re.sub(r"pc_s_([AB])\[pc_e\] = \1\[pc_x0\]", "", rest)
    assert " A[" not in loads.replace("pc_s_A[", "") and " B[" not in loads.replace("pc_s_B[", "")
    # without room (a 3-D band's middle member loops inside the threads: no fixed box)
    assert not any(k.staged for k in _kernels_of(
        _kernel_program("jacobi_3d", "intra", (2, 3, 4), staging=True)))


# Two halves of one array updated in one band: a tile's writes are two runs 32 apart, and
# the hull between them holds writes of other tiles of its wavefront
HALVES = """
void f(int T, double A[64]) {
#pragma scop
  for (int t = 0; t < T; t++)
    for (int i = 1; i < 32; i++) {
      A[i] = 0.5 * (A[i - 1] + A[i]);
      A[i + 32] = 0.25 * (A[i + 31] + A[i + 32]) + 0.5;
    }
#pragma endscop
}
"""


def _halves(sync: str = "kernels") -> polycuda.Program:
    return polycuda.compile(HALVES, function="f", options=Options(
        scheduler="pluto", tile_sizes=(4, 8), shared_staging=True, wavefront_sync=sync))


@pytest.mark.parametrize("sync", ["kernels", "grid"])
def test_staged_tile_without_a_safe_hull_stores_its_last_writes(sync):
    """No write-back pass (it would overwrite other tiles' results with stale values):
    each write that is the tile's last of its element also goes to global memory, under a
    condition in the AST's iterators. With the pass forced, both runs fail on the
    emulator, whose resident blocks interleave (A at 13 for T = 9)."""
    prog = _halves(sync)
    (kernel,) = [k for k in _kernels_of(prog) if k.wavefront]
    (staged,) = kernel.staged
    assert staged.writers == ("S0", "S1") and staged.write_back is None
    source = prog.generate("cuda").source
    body = source[source.index("__global__"):source.index('extern "C"')]
    assert "pc_in &&" not in body
    stores = re.findall(r"; if \((.*?)\) A\[.*?\] = pc_s_A\[", body)
    assert len(stores) == 2 and all("c2" in c or "c3" in c for c in stores)
    assert all(r.ok for r in prog.verify({"T": 9}, targets=("emulate",)))


@pytest.mark.gpu
@pytest.mark.parametrize("sync", ["kernels", "grid"])
def test_staged_tile_without_a_safe_hull_verifies_on_the_gpu(sync):
    assert all(r.ok for r in _halves(sync).verify({"T": 9}, targets=("cuda",)))


@pytest.mark.parametrize("sync", ["kernels", "grid"])
def test_staging_beyond_48_kib_opts_in_and_verifies(sync):
    """2-D Jacobi, tiles of 8 time steps x 40 x 40: boxes of 56 x 56 doubles per array (the
    skewed rows 2t + i, 2t + j: 40 + 2 * 8; 24.5 KiB each). A 32 KiB budget stages A only;
    64 KiB both, in dynamic shared memory above the 48 KiB that a kernel gets without asking: the driver raises the
    kernel's limit before any launch and passes the size to each (cooperative) launch."""
    def staged(kib):
        prog = _kernel_program("jacobi_2d", "inter", (8, 40, 40), sync, True, kib)
        (kernel,) = [k for k in _kernels_of(prog) if k.wavefront]
        return prog, [(s.array, s.sizes) for s in kernel.staged]

    assert staged(32)[1] == [("A", (56, 56))]
    prog, arrays = staged(64)
    assert arrays == [("A", (56, 56)), ("B", (56, 56))]
    source = prog.generate("cuda").source
    size = 2 * 56 * 56 * 8  # the copies, each a multiple of 16
    assert size > 48 * 1024
    attribute = f"cudaFuncSetAttribute(kernel0, cudaFuncAttributeMaxDynamicSharedMemorySize, {size})"
    assert attribute in source
    assert source.index(attribute) < source.index("kernel0<<<" if sync == "kernels"
                                                  else "cudaLaunchCooperativeKernel(")
    assert (f", {size}>>>(" in source) if sync == "kernels" else (f"pc_args, {size}, 0)" in source)
    assert all(r.ok for r in prog.verify({"T": 9, "n": 47}, targets=("emulate",)))


# Shapes of our own: a negative distance (skewed by the scheduler), a triangular domain with
# parametric bounds, and a two-statement nest whose statements have different domains.
HIDDEN = {
    "negative_distance": ("""
void f(int n, int m, double A[n][m]) {
#pragma scop
  for (int i = 1; i < n; i++)
    for (int j = 1; j < m - 1; j++)
      A[i][j] = 0.5 * A[i - 1][j + 1] + 0.3 * A[i][j - 1] + 0.2 * A[i - 1][j - 1];
#pragma endscop
}
""", {"n": 13, "m": 15}),
    "triangular": ("""
void f(int n, double A[n][n]) {
#pragma scop
  for (int i = 1; i < n; i++)
    for (int j = 1; j <= i; j++)
      A[i][j] = A[i - 1][j] * 0.6 + A[i][j - 1] * 0.4 + A[i - 1][j - 1] * 0.1;
#pragma endscop
}
""", {"n": 17}),
    "two_statements": ("""
void f(int T, int n, double A[n], double B[n]) {
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n; i++)
      A[i] = A[i] + 0.5 * A[i - 1] + 0.25 * B[i];
    for (int i = 2; i < n - 1; i++)
      B[i] = B[i - 1] * 0.5 + A[i + 1] * 0.5;
  }
#pragma endscop
}
""", {"T": 5, "n": 19}),
}


@pytest.mark.parametrize("shape", sorted(HIDDEN))
@pytest.mark.parametrize("balanced", [False, True])
def test_hidden_shapes_verify(shape, balanced):
    source, sizes = HIDDEN[shape]
    prog = polycuda.compile(source, function="f", options=Options(
        scheduler="pluto", balanced_wavefront=balanced, tile_sizes=(3, 4)))
    assert any(k.wavefront for k in _kernels_of(prog))
    assert all(r.ok for r in prog.verify(sizes, targets=TARGETS))


def test_cuda_code_has_one_launch_per_wavefront_and_a_barrier_per_intra_tile_wavefront():
    source = _kernel_program("sor_2d", "pluto", (2, 3, 4)).generate("cuda").source
    kernel = source[source.index("__global__"):source.index('extern "C"')]
    host = source[source.index('static int pc_sor_2d_run('):]
    assert kernel.count("__syncthreads();") == 1
    # tiles 3 x 4 points on 3 x 4 threads: thread (y, x) runs the points (y, x), a guard
    assert "pc_mod((int)blockIdx.x" in kernel and "= (int)threadIdx.x;" in kernel
    assert "pc_mod((int)threadIdx" not in kernel
    assert "blockDim" not in kernel  # the block size is a literal: a division by a constant
    # the launch sits in the host loop over inter-tile wavefronts, with the wavefront's index
    assert host.index("for (long long c0 = ") < host.index("kernel0<<<")
    assert "(int)c0);" in host


def test_fewer_threads_than_points_stride_over_them():
    kernel = suite.by_name("sor_2d")
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function, options=Options(
        scheduler="pluto", tile_sizes=(2, 3, 8), block_sizes=(3, 4)))
    source = prog.generate("cuda").source
    # x: 4 threads over 8 points, each the points congruent to it mod 4; y: one point each
    assert "pc_mod((int)threadIdx.x" in source and "= (int)threadIdx.y;" in source
    assert "pc_mod((int)threadIdx.y" not in source
    assert all(r.ok for r in prog.verify({"T": 3, "n": 13}, targets=("emulate",)))


# a Jacobi step whose second sweep updates row 1 on its own: in a tile, the row is one point
# along the rows (P1), which isl scans with no loop, so its thread comes from the owner guard
ROW_STEP = """
void f(int T, int n, double A[n][n], double B[n][n]) {
#pragma scop
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (int j = 1; j < n - 1; j++)
      A[1][j] = 0.5 * (B[1][j] + B[2][j]);
    for (int i = 2; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = B[i][j];
  }
#pragma endscop
}
"""


@pytest.mark.parametrize("source", ["jacobi_2d", "row_step"])
def test_rows_of_a_box_wavefront_run_in_blocks_of_consecutive_points(source):
    options = Options(scheduler="pluto", balanced_wavefront=True, tile_sizes=(2, 6, 4),
                      block_sizes=(2, 4))
    if source == "jacobi_2d":
        kernel = suite.by_name(source)
        prog = polycuda.compile(str(kernel.c_path), function=kernel.function, options=options)
        sizes = {"T": 4, "n": 17}
    else:
        prog, sizes = polycuda.compile(ROW_STEP, function="f", options=options), {"T": 5, "n": 19}
    text = prog.generate("cuda").source
    # y: 2 threads over 6 rows, thread t the rows 3t .. 3t+2, unrolled; x: one column each
    assert "#pragma unroll 3" in text and "c4 < 3 * (int)threadIdx.y + 3; c4 += 1)" in text
    assert "pc_mod((int)threadIdx.y" not in text and "= (int)threadIdx.x;" in text
    if source == "row_step":
        assert ") / 3 == (int)threadIdx.y" in text  # the owner of the single row, the same
    assert all(r.ok for r in prog.verify(sizes, targets=("emulate",)))


@pytest.mark.parametrize(("config", "mode"), [("pluto", "sum"), ("intra", "hyperplane")])
def test_diagonal_or_in_place_wavefronts_stay_cyclic_over_threads(config, mode):
    # SOR with Pluto's hyperplanes: the intra-tile wavefronts are diagonals of the tile, which
    # blocks would deal to few threads; with the balanced ones they are boxes, but SOR
    # updates A in place, so consecutive points would not share loads
    kernel = suite.by_name("sor_2d")
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function, options=Options(
        scheduler="pluto", tile_sizes=(2, 6, 4), block_sizes=(2, 4), **PLUTO[config]))
    assert [k.intra for k in _kernels_of(prog) if k.wavefront] == [mode]
    text = prog.generate("cuda").source
    assert "(int)threadIdx.y - (" in text  # the first point congruent to the thread
    assert "* (int)threadIdx.y" not in text and "#pragma unroll" not in text


def test_grid_sync_runs_every_wavefront_in_one_cooperative_launch():
    source = _kernel_program("sor_2d", "pluto", (2, 3, 4), "grid").generate("cuda").source
    kernel = source[source.index("__global__"):source.index('extern "C"')]
    host = source[source.index('static int pc_sor_2d_run('):
                  source.index('extern "C" int pc_sor_2d(')]
    assert "#include <cooperative_groups.h>" in source
    # the loop over inter-tile wavefronts moved into the kernel: a grid barrier closes each
    assert kernel.index("for (int c0 = ") < kernel.index("__syncthreads();")
    assert kernel.count("pc_grid.sync();") == 1
    assert "int c0" not in kernel[:kernel.index("{")]  # not a parameter any more
    assert "<<<" not in host and host.count("cudaLaunchCooperativeKernel((void *)kernel0") == 1
    # the grid fits the co-resident blocks (occupancy API) and the largest wavefront
    assert "cudaOccupancyMaxActiveBlocksPerMultiprocessor(&pc_per_sm, kernel0, 12, 0)" in host
    default = _kernel_program("sor_2d", "pluto", (2, 3, 4)).generate("cuda").source
    assert "cooperative" not in default and "pc_grid" not in default


def test_equal_linear_rows_get_equal_tile_sizes():
    # fdtd-2d's ey[0][j] = fict[t] has rows t, t + j, t: its two t rows must be tiled alike
    ctx = isl.Context()
    phi = isl.MultiUnionPwAff.read_from_str(
        ctx, "[T, ny] -> [{ S0[t, j] -> [(t)]; S1[t, i, j] -> [(t)] }, "
             "{ S0[t, j] -> [(t + j)]; S1[t, i, j] -> [(t + j)] }, "
             "{ S0[t, j] -> [(t)]; S1[t, i, j] -> [(t + i)] }]")
    domain = isl.UnionSet.read_from_str(
        ctx, "[T, ny] -> { S0[t, j] : 0 <= t < T and 0 <= j < ny; "
             "S1[t, i, j] : 0 <= t < T and 0 < i < ny and 0 <= j < ny }")
    assert wavefront.harmonized((8, 8, 32), phi, domain) == (8, 8, 8)
    assert wavefront.harmonized((4, 16, 4), phi, domain) == (4, 16, 4)
    assert wavefront.tied_rows(phi, domain, 3) == ((0, 2),)
    assert wavefront.with_ties((2, 64, 5), ((0, 2),)) == (2, 64, 2)


def test_thread_x_takes_the_row_of_the_contiguous_subscript():
    # Pluto's (and isl's) band for fdtd-2d is [t, t + j, t + i]: thread x on its last row put
    # neighbouring threads ny elements apart in every access (H100, LARGE: 28.6 ms against
    # PPCG's 19.7). Moved last, t + j scans the contiguous subscript j on thread x.
    prog = polycuda.compile("kernels/c/fdtd_2d.c", options=Options(target="cuda",
                                                                   runtime_choice=False))
    gen = prog.generate("cuda")
    (kernel,) = [k for k in gen.kernels if k.wavefront]
    assert kernel.tile_sizes == (8, 8, 32) and kernel.tied_rows == ((0, 1),)
    # the kernels: from the first one to the host code (the original region, run on
    # overlapping arrays, indexes ey by its own iterators)
    body = gen.source[gen.source.index("__global__"):
                      gen.source.index("static int pc_fdtd_2d_original")]
    x = set(re.findall(r"const int (c\d+) = \(int\)threadIdx\.x;", body))
    assert x
    subscripts = [t for t in re.findall(r"\bey\[([^\[\]]*)\]", body) if "* (ny) + " in t]
    assert len(subscripts) >= 4
    for text in subscripts:
        row, col = text.split("* (ny) + ", 1)
        assert any(v in col for v in x) and not any(re.search(rf"\b{v}\b", row) for v in x)
    # jacobi-2d's last row is already its contiguous one: its band is left as it was
    jac = polycuda.compile("kernels/c/jacobi_2d.c", options=Options(target="cuda"))
    assert [k.tile_sizes for k in jac.generate("cuda").kernels if k.wavefront] == [(8, 8, 32)]


def test_racing_dependences_are_found():
    # S[i] -> S[i + 1] under a band [i]: running the band's members in parallel races
    ctx = isl.Context()
    schedule = isl.Schedule.read_from_str(
        ctx, '{ domain: "[n] -> { S[i] : 0 <= i < n }", '
             'child: { schedule: "[n] -> [{ S[i] -> [(i)] }]" } }')
    band = schedule.get_root().child(0)
    deps = isl.UnionMap.read_from_str(ctx, "[n] -> { S[i] -> S[i + 1] : 0 <= i < n - 1 }")
    assert not legality.racing(band, deps).is_empty()
    with pytest.raises(IllegalScheduleError, match="in parallel"):
        legality.check_parallel(band, deps, "kernel0: threads")
    independent = isl.UnionMap.read_from_str(ctx, "[n] -> { S[i] -> S[i] : 0 <= i < n }")
    assert legality.racing(band, independent).is_empty()



@pytest.mark.parametrize(("name", "config", "mode"), [
    # Pluto's SOR band (t, t + i) leaves phi_0 = t constant along the i-dependence: the sum
    ("sor_1d", "pluto", wavefront.SUM),
    # the balanced band (Algorithm 1, Di et al. 2012) carries every dependence on its first row
    ("sor_1d", "intra", wavefront.HYPERPLANE),
    ("sor_2d", "inter", wavefront.HYPERPLANE),
    # B = f(A) then A = f(B) in one time step: only statement order carries B -> A
    ("jacobi_2d", "intra", wavefront.HYPERPLANE_BARRIERS),
    ("jacobi_2d", "pluto", wavefront.HYPERPLANE_BARRIERS),
])
def test_intra_tile_wavefront_mode(name, config, mode):
    kernels = [k for k in _kernels_of(_kernel_program(name, config, (2, 3, 4))) if k.wavefront]
    assert [k.intra for k in kernels] == [mode]


@pytest.mark.parametrize(("name", "sizes"), [
    ("jacobi_2d", {"T": 3, "n": 10}), ("heat_2d", {"T": 2, "n": 9}),
    # 4-member band: the skewed sum keeps the first rows on the wavefront
    ("jacobi_3d", {"T": 3, "n": 9})])
def test_skewed_sum_wavefronts_on_request_verify(name, sizes):
    """Options.intra_wavefront="sum": the points of a tile ordered by the skewed sum even where
    the first hyperplane would do (PLUTO's CUDA, Di et al. 2012, Figure 5): more, shorter
    intra-tile wavefronts, the same results."""
    kernel = suite.by_name(name)
    options = Options(scheduler="pluto", tile_sizes=(2, 3, 4), intra_wavefront="sum")
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function, options=options)
    assert [k.intra for k in _kernels_of(prog) if k.wavefront] == [wavefront.SUM]
    assert all(r.ok for r in prog.verify(sizes, targets=TARGETS))


def test_unknown_intra_wavefront_is_refused():
    with pytest.raises(InvalidConfigError, match="intra_wavefront"):
        Options(scheduler="pluto", intra_wavefront="diagonal")


def test_wide_band_keeps_its_first_and_last_members_on_the_wavefront():
    # 3-D Jacobi's band (t, 2t + i, 2t + j, 2t + k): threads on (j, k), k on x, and a loop
    # over i inside each thread; the two statements still get a barrier between them
    kernel = suite.by_name("jacobi_3d")
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(scheduler="pluto"))
    [wave] = [k for k in _kernels_of(prog) if k.wavefront]
    assert wave.intra == wavefront.HYPERPLANE_BARRIERS
    source = prog.generate("cuda").source
    body = source[source.index("__global__"):source.index('extern "C"')]
    x_loop = body[body.index("threadIdx.x"):]
    inner = x_loop[x_loop.index("for (int "):]
    loop_var = inner.split()[2]
    # the thread's own loop scans i: the first subscript of B, n * n elements apart
    statement = inner[inner.index("B["):]
    assert statement.index(loop_var) < statement.index("* (n)")
    ctx = isl.Context()
    schedule = isl.Schedule.read_from_str(
        ctx, '{ domain: "{ S[a, b, c, d] : 0 <= a, b, c, d < 4 }", child: { schedule: '
             '"[{ S[a, b, c, d] -> [(a)] }, { S[a, b, c, d] -> [(b)] }, '
             '{ S[a, b, c, d] -> [(c)] }, { S[a, b, c, d] -> [(d)] }]", permutable: 1, '
             'coincident: [0, 1, 0, 1] } }')
    band = wavefront.inner_members_last(schedule.get_root().child(0), 3)
    assert str(band.band_get_partial_schedule_union_map()) == (
        "{ S[a, b, c, d] -> [a, c, d, b] }")
    assert [band.band_member_get_coincident(k) for k in range(4)] == [False, False, True, True]
    assert band.band_get_permutable()


def test_barrier_between_statements_of_one_intra_tile_wavefront():
    source = _kernel_program("jacobi_2d", "intra", (2, 3, 4)).generate("cuda").source
    kernel = source[source.index("__global__"):source.index('extern "C"')]
    # one between B = f(A) and A = f(B), one after each intra-tile wavefront
    assert kernel.count("__syncthreads();") == 2
    write_b, write_a = kernel.index("B["), kernel.index("A[", kernel.index("__syncthreads();"))
    assert write_b < kernel.index("__syncthreads();") < write_a
    assert kernel[write_a:].split("=")[1].count("A[") == 0  # A = f(B) after the barrier


def test_threads_race_unless_a_barrier_separates_the_statements():
    # S[t, i] -> R[t, i + 1] in the same intra-tile wavefront t, on different threads i
    ctx = isl.Context()
    schedule = isl.Schedule.read_from_str(
        ctx, '{ domain: "[n] -> { S[t, i] : 0 <= t, i < n; R[t, i] : 0 <= t, i < n }", '
             'child: { schedule: "[n] -> [{ S[t, i] -> [(t)]; R[t, i] -> [(t)] }]" } }')
    w_band = schedule.get_root().child(0)
    points = isl.UnionMap.read_from_str(ctx, "{ S[t, i] -> [i]; R[t, i] -> [i] }")
    deps = isl.UnionMap.read_from_str(ctx, "[n] -> { S[t, i] -> R[t, i + 1] : 0 <= t, i < n - 1 }")
    none = isl.UnionMap.empty(deps.get_space())
    assert not legality.racing_threads(w_band, points, none, deps).is_empty()
    with pytest.raises(IllegalScheduleError, match="in parallel"):
        legality.check_threads(w_band, points, none, deps, "kernel0: threads")
    barrier = isl.UnionMap.read_from_str(ctx, "{ S[t, i] -> R[t', i'] }")
    assert legality.racing_threads(w_band, points, barrier, deps).is_empty()
    same_thread = isl.UnionMap.read_from_str(ctx, "[n] -> { S[t, i] -> R[t, i] : 0 <= t, i < n }")
    assert legality.racing_threads(w_band, points, none, same_thread).is_empty()


@pytest.mark.gpu
@_over_cases(CASES)
def test_wavefront_kernel_verifies_on_the_gpu(name, config, tiles, sizes):
    prog = _kernel_program(name, config, tiles)
    assert all(r.ok for r in prog.verify(sizes, targets=("cuda",)))


@pytest.mark.gpu
@OVER_VARIANTS
@_over_cases(CASES)
def test_grid_sync_and_staging_verify_on_the_gpu(name, config, tiles, sizes, sync, staging):
    prog = _kernel_program(name, config, tiles, sync, staging)
    assert all(r.ok for r in prog.verify(sizes, targets=("cuda",)))


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["sor_2d", "jacobi_2d", "fdtd_2d"])
def test_wavefront_kernel_with_default_tiles_verifies_on_the_gpu(name):
    kernel = suite.by_name(name)
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(scheduler="pluto", balanced_wavefront=True))
    sizes = {k: (5 if k == "T" else 70) for k in kernel.small}  # several default tiles
    assert all(r.ok for r in prog.verify(sizes, targets=("cuda",)))


NVCC = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")


@NVCC
@pytest.mark.parametrize("sync", ["kernels", "grid"])
@pytest.mark.parametrize("name", ["covariance", "sor_2d", "fdtd_2d"])
def test_wavefront_cuda_compiles_with_nvcc(name, sync):
    # covariance: a wavefront band whose inter-tile wavefront loop isl does not realise (a
    # single wavefront): the grid must not name its iterator (regression: nvcc failed)
    from polycuda.runtime import build

    kernel = suite.by_name(name)
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(scheduler="pluto", wavefront_sync=sync))
    build.compile_only(prog.generate("cuda").source, "cuda")


def test_covariance_with_a_wavefront_verifies():
    kernel = suite.by_name("covariance")
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(scheduler="pluto", tile_sizes=(3, 4)))
    assert any(k.wavefront for k in _kernels_of(prog))
    assert all(r.ok for r in prog.verify(dict(kernel.small), targets=TARGETS))


# Found by the fuzzer (seed 10224, reduced): the k loop inside one statement of a wavefront
# band's sequence. Its thread band was sunk below the k loop, which then ran on threads.
INNER_LOOP_IN_ONE_STATEMENT = """
void fuzz(int n, double A[n + 2][n + 3])
{
  int i, j, k;
  double s0;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 2; j <= 6; j++) {
      for (k = 0; k <= n - 2; k++) {
        s0 = 0.5 * A[k][j - 2] + 0.0;
      }
      A[i + 2][2 * j - 3] = 0.5 * s0 + 0.1;
    }
  }
#pragma endscop
}
"""


@pytest.mark.parametrize("expand", [True, False])
def test_statement_loops_stay_inside_the_thread_of_a_wavefront_point(expand):
    prog = polycuda.compile(INNER_LOOP_IN_ONE_STATEMENT, filename="fuzz.c",
                            options=Options(scheduler="pluto", expand_scalars=expand))
    results = prog.verify({"n": 7}, targets=("c", "openmp", "emulate"))
    assert len(results) == 3 and all(r.ok for r in results), [r.message for r in results]
    # the thread loop comes first below the intra-tile wavefront, the k loop inside it
    source = prog.generate("openmp").source
    body = source[source.index("#pragma omp parallel\n"):]
    assert body.index("#pragma omp for") < body.index("for (long c4 = 0;")
