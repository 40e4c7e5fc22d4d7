"""Shared-memory promotion in DOALL kernels (gpu/shared_promotion.py, codegen/shared_code.py):
which tiles go to shared memory, their sizes and padding (Baskaran et al. 2008), and the
emulator's verdict on the generated CUDA (c and openmp are unaffected by the option)."""

from __future__ import annotations

import ctypes
import re

import islpy as isl
import numpy as np
import pytest

import polycuda
from kernels import suite
from polycuda.cli import main
from polycuda.gpu import shared_promotion
from polycuda.errors import InvalidConfigError
from polycuda.options import Options
from polycuda.runtime import emulate

SHARED = Options(target="cuda", shared_promotion=True)


def _program(name: str, **options: object) -> polycuda.Program:
    kernel = suite.by_name(name)
    return polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=SHARED.replace(**options))


def _shared(prog: polycuda.Program) -> dict[str, list[tuple[str, tuple[int, ...], int]]]:
    """kernel -> [(array, box sizes, pitch)] of its shared copies."""
    return {k.name: [(a.array, a.sizes, a.pitch) for a in k.shared.arrays]
            for k in prog.generate("cuda").kernels if k.shared is not None}


def _verified(prog: polycuda.Program, sizes: dict[str, int],
              targets: tuple[str, ...] = ("emulate",)) -> bool:
    results = prog.verify(sizes, targets=targets, raise_on_mismatch=False)
    return len(results) == len(targets) and all(r.ok for r in results)


def test_gemm_tiles_of_a_and_b_per_k_tile_have_the_tile_sizes():
    prog = _program("gemm", tile_sizes=(8, 32))  # the layout of mapping.DEFAULT_TILES[2]
    tile_i, tile_j = 8, 32
    k_tile = shared_promotion.SEQUENTIAL_TILE
    # C lives in a register (carried across the k tiles), so it is not copied to shared memory
    assert _shared(prog) == {"kernel0": [("A", (tile_i, k_tile), k_tile),
                                         ("B", (k_tile, tile_j), tile_j)]}
    kernel = prog.generate("cuda").source
    assert "__shared__ double pc_sh_A_0[256];" in kernel
    assert "__shared__ double pc_sh_B_0[1024];" in kernel
    assert kernel.count("__syncthreads();") == 2  # before and after the copy-in: A, B read-only
    # the k loop inside each thread reads only the copies
    inner = re.search(r"pc_c0 \+= [^\n]*", kernel).group(0)
    assert "pc_sh_A_0[" in inner and "pc_sh_B_0[" in inner and " A[" not in inner, inner


def test_gemm_with_sizes_not_multiples_of_the_tiles():
    assert _verified(_program("gemm"), {"ni": 37, "nj": 65, "nk": 45}, ("emulate", "c"))


@pytest.mark.parametrize("name, expected", [
    ("two_mm", {"kernel0": {"A", "B"}, "kernel1": {"tmp", "C"}}),
    ("syrk", {"kernel0": {"A"}}),
    ("syr2k", {"kernel0": {"A", "B"}}),
    ("trmm", {"kernel1": {"A", "B0"}}),
    ("doitgen", {"kernel0": {"A", "C4"}}),
])
def test_linear_algebra_kernels_promote_their_reused_tiles(name, expected):
    prog = _program(name)
    found = {k: {a for a, _, _ in arrays} for k, arrays in _shared(prog).items()}
    assert found == expected
    assert _verified(prog, dict(suite.by_name(name).small))


def test_syrk_reads_of_one_array_keep_one_copy_per_reference_padded_where_threads_walk_rows():
    """A[i][k] and A[j][k] overlap on diagonal tiles but only read: a copy each. Threads along x
    run j, so A[j][k]'s copy is read down a column: its rows are padded (33 doubles), the
    broadcast A[i][k]'s are not."""
    arrays = _shared(_program("syrk", tile_sizes=(8, 32)))["kernel0"]
    assert sorted(arrays) == [("A", (8, 32), 32), ("A", (32, 32), 33)]


def test_a_stencil_keeps_global_memory():
    """jacobi-2d's DOALL kernels (no wavefront) have no sequential loop inside: their reuse is
    only between neighbouring threads, which the L1 cache serves, so no shared tile (heat-3d
    was 2.9x slower with one on the H100); still correct."""
    prog = _program("jacobi_2d", scheduler="isl", wavefront=False)
    assert _shared(prog) == {}
    assert _verified(prog, {"T": 3, "n": 37}, ("emulate", "c", "openmp"))


TRANSPOSED = """
void transposed(int n, int m, float A[m][4], float B[n][m], float C[4][n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      for (int k = 0; k < 4; k++)
        B[i][j] += A[j][k] * C[k][i];
#pragma endscop
}
"""


def test_transposed_access_is_padded_and_correct():
    """Threads along x (j) read A[j][k] down a column of A's copy (4 floats a row): the
    slides' rule pads the rows so that the stride across threads is odd (no bank conflict);
    C[k][i] is a broadcast along x, unpadded."""
    prog = polycuda.compile(TRANSPOSED, filename="transposed.c",
                            options=SHARED.replace(tile_sizes=(8, 32)))
    arrays = {a: (sizes, pitch) for arrays in _shared(prog).values() for a, sizes, pitch in arrays}
    assert arrays["A"] == ((32, 4), 5), arrays
    assert arrays["C"][1] == arrays["C"][0][-1], arrays
    assert _verified(prog, {"n": 37, "m": 65}, ("emulate", "c"))


EMPTY = """
void empty(int n, int p, double A[n][n], double B[n][n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      B[i][j] *= 2.0;
      for (int k = 0; k < p; k++)
        B[i][j] += A[i][k] * A[k][j];
    }
#pragma endscop
}
"""


def test_empty_domains_run_and_copy_nothing_wrong():
    """The k loop empty (p = 0): no tile of A is loaded, B's statement still runs."""
    prog = polycuda.compile(EMPTY, filename="empty.c", options=SHARED)
    assert {a for arrays in _shared(prog).values() for a, _, _ in arrays} == {"A"}
    assert _verified(prog, {"n": 37, "p": 0})
    assert _verified(prog, {"n": 37, "p": 37})


def test_padding_rule():
    # float: 32 floats per row put a column in one bank (32-way); 33 spreads it
    assert shared_promotion.padded_pitch((32, 32), "float", [(1, 0)]) == 33
    assert shared_promotion.conflict_degree(32, "float") == 32
    assert shared_promotion.conflict_degree(33, "float") == 1
    # a row walked by consecutive threads, or a broadcast, needs no padding
    assert shared_promotion.padded_pitch((32, 32), "float", [(0, 1), (0, 0)]) == 32
    # double: 2 words per element; stride 16 doubles is 16-way, 17 conflict-free
    assert shared_promotion.conflict_degree(16, "double") == 16
    assert shared_promotion.padded_pitch((8, 16), "double", [(1, 0)]) == 17
    # references that pull different ways: the least summed degree
    assert shared_promotion.padded_pitch((4, 8), "float", [(1, 0), (0, 1)]) == 9


def test_no_shared_copy_touches_memory_past_an_array():
    """Sizes that leave partial tiles in every dimension; each array followed by sentinels,
    which neither the copy-in nor the copy-out may read into the result or overwrite."""
    prog = _program("gemm")
    lib = ctypes.CDLL(str(emulate.build_emulated(prog.generate("cuda").source, seed=3)))
    ni, nj, nk, pad = 13, 37, 41, 64
    rng = np.random.default_rng(1)
    a, b = rng.uniform(0.5, 1.5, (ni, nk)), rng.uniform(0.5, 1.5, (nk, nj))
    c0 = rng.uniform(0.5, 1.5, (ni, nj))
    buffers = [np.concatenate([x.ravel(), np.full(pad, np.nan)]) for x in (c0, a, b)]
    lib.pc_gemm.restype = ctypes.c_int
    assert lib.pc_gemm(ctypes.c_longlong(ni), ctypes.c_longlong(nj), ctypes.c_longlong(nk),
                       ctypes.c_double(1.5), ctypes.c_double(1.2),
                       *(buf.ctypes.data_as(ctypes.c_void_p) for buf in buffers)) == 0
    for buf, x in zip(buffers, (c0, a, b)):
        assert np.isnan(buf[x.size:]).all()  # nothing written past an array
    expected = 1.2 * c0 + 1.5 * a @ b
    assert np.allclose(buffers[0][:c0.size].reshape(ni, nj), expected)  # no NaN read in


def test_the_option_flag_and_defaults(tmp_path):
    gemm = suite.by_name("gemm")
    default = polycuda.compile(str(gemm.c_path), function=gemm.function,
                               options=Options(target="cuda"))
    assert "pc_sh_A_0" in default.generate("cuda").source  # on by default
    off = polycuda.compile(str(gemm.c_path), function=gemm.function,
                           options=Options(target="cuda", shared_promotion=False))
    assert "__shared__" not in off.generate("cuda").source
    # register tiling combines with it: the units below the shared mark
    assert _shared(_program("gemm", register_tiles=(2, 2))) == {
        "kernel0": [("A", (8, 32), 32), ("B", (32, 32), 32)]}
    out, dumped = tmp_path / "gemm.cu", tmp_path / "options.json"
    assert main(["compile", str(gemm.c_path), "--target", "cuda", "--shared-promotion",
                 "--dump-options", str(dumped), "-o", str(out)]) == 0
    assert "pc_sh_A_0" in out.read_text()
    assert Options.from_text(dumped.read_text()).shared_promotion is True
    assert main(["compile", str(gemm.c_path), "--target", "cuda", "--shared-promotion",
                 "--sequential-tile", "8", "--dump-options", str(dumped), "-o", str(out)]) == 0
    assert Options.from_text(dumped.read_text()).sequential_tile == 8
    assert "pc_sh_A_0[512]" in out.read_text()  # 64 x 8 doubles: the gemm-like layout, k 8
    with pytest.raises(InvalidConfigError):
        Options(sequential_tile=-1)
    assert main(["compile", str(gemm.c_path), "--target", "cuda", "--options", str(dumped),
                 "--no-shared-promotion", "-o", str(out)]) == 0
    assert "__shared__" not in out.read_text()


# -- shared promotion with register tiles, C carried across the k tiles (gpu/carry.py) --------

def _carried(prog: polycuda.Program) -> dict[str, list[str]]:
    return {k.name: [e.array for e in k.carried] for k in prog.generate("cuda").kernels
            if k.carried}


def _loaded_and_stored_outside_the_k_tiles(source: str, array: str) -> bool:
    """Every carried register of `array` is loaded before the kernel's first barrier (the
    k-tile loop's copy-in) and stored after its last one: once per block tile, not per k
    tile."""
    for kernel in source.split("__global__")[1:]:
        loads = [m.start() for m in re.finditer(rf"pc_c\d+(_\d+)* = {array}\[", kernel)]
        stores = [m.start() for m in re.finditer(rf"{array}\[[^\n]*\] = pc_c\d+", kernel)]
        barriers = [m.start() for m in re.finditer(r"__syncthreads\(\);", kernel)]
        if loads and barriers:
            if max(loads) > min(barriers) or (stores and min(stores) < max(barriers)):
                return False
    return True


def test_the_gemm_like_default_layout():
    """--shared-promotion alone on gemm: 64x64 tiles on 16x32 threads, 4x2 points per thread,
    k tile 32 (A's and B's tiles fit 48 KiB); the 8 accumulators are loaded once before the k-tile loop, stored once after
    it, and the k loop reads only registers and shared copies."""
    prog = _program("gemm")
    kernel = prog.generate("cuda").kernels[0]
    assert (kernel.tile_sizes, kernel.block_sizes, kernel.register_tiles,
            kernel.sequential_tiles) == ((64, 64), (16, 32), (4, 2), (32,))
    assert _shared(prog) == {"kernel0": [("A", (64, 32), 32), ("B", (32, 64), 64)]}
    assert _carried(prog) == {"kernel0": ["C"]}
    source = prog.generate("cuda").source
    assert len(re.findall(r"pc_c0_\d_\d = C\[", source)) == 8
    assert _loaded_and_stored_outside_the_k_tiles(source, "C")
    assert "pc_p0" not in source  # no per-k-tile private scope of C any more
    # given sizes win over the layout
    given = _program("gemm", tile_sizes=(32, 32), register_tiles=(2, 2)).generate("cuda")
    assert (given.kernels[0].tile_sizes, given.kernels[0].block_sizes,
            given.kernels[0].sequential_tiles) == ((32, 32), (16, 16), (32,))


@pytest.mark.parametrize("name, layout", [
    ("gemm", ((64, 64), (4, 2))), ("two_mm", ((64, 64), (4, 2))),
    # triangular in the mapped (i, j): the default 8x32 tiles, one point per thread
    # (rectangular(mapped_points()))
    ("syrk", ((8, 32), ())), ("syr2k", ((8, 32), ())), ("correlation", ((8, 32), ())),
    # triangular only along k (k > i, k <= i): the mapped points are a box
    ("trmm", ((64, 64), (4, 2))), ("symm", ((64, 64), (4, 2))),
    # its final C[i][j] placed at sequential value i (fixed_sequential_places())
    ("symm_scatter", ((8, 32), ())),
])
def test_the_gemm_like_layout_needs_full_tiles(name, layout):
    kernels = _program(name).generate("cuda").kernels
    # the 2-D kernel whose sequential loops are tiled: the gemm-like candidate
    candidate = next(k for k in kernels if len(k.tile_sizes) == 2 and k.sequential_tiles)
    assert (candidate.tile_sizes, candidate.register_tiles) == layout


def test_the_gemm_like_k_tile_is_16_where_the_read_tiles_overflow_at_32(tmp_path):
    """Four read arrays: 4 x 64 x 32 doubles would be 64 KiB, over the static 48 KiB."""
    source = tmp_path / "gemm4.c"
    source.write_text("""
void gemm4(int n, double C[n][n], double A[n][n], double B[n][n], double D[n][n],
           double E[n][n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += A[i][k] * B[k][j] + D[i][k] * E[k][j];
#pragma endscop
}
""")
    prog = polycuda.compile(str(source), options=SHARED)
    kernel = prog.generate("cuda").kernels[0]
    assert (kernel.register_tiles, kernel.sequential_tiles) == ((4, 2), (16,))
    assert {a for a, _, _ in _shared(prog)["kernel0"]} == {"A", "B", "D", "E"}
    assert _verified(prog, {"n": 70})


def _band_of(text: str, n: int = 2) -> isl.ScheduleNode:
    """The band of the schedule { S[x] -> [...] } on the domain `text`'s first map."""
    umap = isl.UnionMap(text)
    schedule = isl.Schedule.from_domain(umap.domain()).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(umap))
    return schedule.get_root().child(0)


def test_sequential_places_that_follow_the_mapped_members():
    loop = "S[i, j, k] -> [i, j, k] : 0 <= i, j, k < n"
    assert shared_promotion.fixed_sequential_places(_band_of(
        f"[n] -> {{ {loop}; T[i, j] -> [i, j, 0] : 0 <= i, j < n }}"), 2)
    assert shared_promotion.fixed_sequential_places(_band_of(
        f"[n] -> {{ {loop}; T[i, j] -> [i, j, n - 1] : 0 <= i, j < n }}"), 2)
    assert not shared_promotion.fixed_sequential_places(_band_of(
        f"[n] -> {{ {loop}; T[i, j] -> [i, j, i] : 0 <= i, j < n }}"), 2)
    # a loop whose bounds follow i (trmm's k > i) is a loop, not a place
    assert shared_promotion.fixed_sequential_places(_band_of(
        "[n] -> { S[i, j, k] -> [i, j, k] : 0 <= i, j < n and i < k < n }"), 2)


def test_rectangular_domains():
    assert shared_promotion.rectangular(isl.UnionSet(
        "[n] -> { S[i, j, k] : 0 <= i, j, k < n; T[i, j] : 0 <= i < n and 0 <= j < 2 * n }"))
    assert not shared_promotion.rectangular(isl.UnionSet(
        "[n] -> { S[i, j] : 0 <= i < n and 0 <= j < n; T[i, j] : 0 <= j <= i < n }"))
    assert not shared_promotion.rectangular(isl.UnionSet("[n] -> { S[i, j] : 0 <= i + j < n }"))


@pytest.mark.parametrize("name, carried", [
    ("gemm", {"kernel0": ["C"]}),
    ("two_mm", {"kernel0": ["tmp"], "kernel1": ["D"]}),
    ("syrk", {"kernel0": ["C"]}),
    ("syr2k", {"kernel0": ["C"]}),
    ("trmm", {"kernel1": ["B"]}),
])
@pytest.mark.parametrize("layout", [
    {},  # the default: gemm-like (64x64 tiles, 4x2 points, k tile 32) on gemm and 2mm,
    # 8x32 tiles on the triangular domains
    {"tile_sizes": (16, 32), "register_tiles": (2, 4), "sequential_tile": 8},
])
def test_register_tiles_with_shared_copies_and_carried_accumulators(name, carried, layout):
    """Sizes that are no multiple of any tile (37, 65, 129), on the emulator against the
    sequential program; the accumulators are carried (the test fails on a silent fallback)."""
    prog = _program(name, **layout)
    assert _carried(prog) == carried
    source = prog.generate("cuda").source
    for arrays in carried.values():
        for array in arrays:
            assert _loaded_and_stored_outside_the_k_tiles(source, array), array
    params = list(suite.by_name(name).small)
    sizes = {p: (37, 65, 129, 37)[k] for k, p in enumerate(params)}
    if name in ("syrk", "syr2k", "trmm"):
        sizes = {p: (65, 37)[k] for k, p in enumerate(params)}
    assert _verified(prog, sizes)


def test_carried_registers_touch_no_memory_past_the_arrays():
    """gemm in the combined mode (and 8x32 tiles, one point per thread) with sentinels after
    each array: the loads and stores of the carried registers stay inside C."""
    for options in ({}, {"tile_sizes": (8, 32)}):
        prog = _program("gemm", **options)
        assert _carried(prog) == {"kernel0": ["C"]}
        lib = ctypes.CDLL(str(emulate.build_emulated(prog.generate("cuda").source, seed=5)))
        ni, nj, nk, pad = 65, 37, 29, 64
        rng = np.random.default_rng(2)
        a, b = rng.uniform(0.5, 1.5, (ni, nk)), rng.uniform(0.5, 1.5, (nk, nj))
        c0 = rng.uniform(0.5, 1.5, (ni, nj))
        buffers = [np.concatenate([x.ravel(), np.full(pad, np.nan)]) for x in (c0, a, b)]
        lib.pc_gemm.restype = ctypes.c_int
        assert lib.pc_gemm(ctypes.c_longlong(ni), ctypes.c_longlong(nj), ctypes.c_longlong(nk),
                           ctypes.c_double(1.5), ctypes.c_double(1.2),
                           *(buf.ctypes.data_as(ctypes.c_void_p) for buf in buffers)) == 0
        for buf, x in zip(buffers, (c0, a, b)):
            assert np.isnan(buf[x.size:]).all()
        expected = 1.2 * c0 + 1.5 * a @ b
        assert np.allclose(buffers[0][:c0.size].reshape(ni, nj), expected)


def test_no_carry_where_a_thread_runs_several_points():
    """Fewer threads than the thread band's points (block 4x16 for 8x32 tiles): a register per
    point is not one per thread, so nothing is carried; C stays in a private scope per k
    tile, and the result is still right."""
    prog = _program("gemm", tile_sizes=(8, 32), block_sizes=(4, 16))
    assert _carried(prog) == {}
    assert "pc_p0 +=" in prog.generate("cuda").source
    assert _verified(prog, {"ni": 37, "nj": 65, "nk": 45})


ANOTHER_THREAD = """
void another(int n, double A[n][n], double B[n][n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        B[i][j] += A[i][k] * A[k][j] + A[j][i];
#pragma endscop
}
"""


def test_only_the_one_element_per_thread_array_is_carried():
    """B[i][j] is one element per thread across the k tiles: carried. A is not (condition 1:
    each thread reads many of its elements, A[i][k], A[k][j] and A[j][i])."""
    prog = polycuda.compile(ANOTHER_THREAD, filename="another.c", options=SHARED)
    assert _carried(prog) == {"kernel0": ["B"]}
    assert _verified(prog, {"n": 37})


def test_the_gpu_sweep_script_checks_its_layouts_on_the_emulator(tmp_path):
    """bench/gemm_sweep.py --emulate: the lead's GPU sweep runs its layouts here, checked."""
    import importlib.util
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "gemm_sweep.py"
    spec = importlib.util.spec_from_file_location("gemm_sweep", path)
    sweep = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sweep)
    out = tmp_path / "sweep.json"
    assert sweep.main([str(out), "--emulate", "--n", "21", "--kernels", "syrk",
                       "--only", "default,sh64-r4x4-k16", "--config", "32,32/16,16/2,2/8/1"]) == 0
    report = json.loads(out.read_text())
    entries = report["kernels"]["syrk"]["configs"]
    assert set(entries) == {"default", "sh64-r4x4-k16", "32,32/16,16/2,2/8/1"}
    assert all(e["correct"] for e in entries.values())
    assert entries["sh64-r4x4-k16"]["carried"] == {"kernel0": ["C"]}


def _k_point_loops(source: str) -> list[str]:
    """The bodies of the kernel's k point loops (`for (int c5 ...) { ... }`), as text."""
    bodies = []
    for start in [m.end() for m in re.finditer(r"for \(int c5 = [^{]*\{", source)]:
        depth, k = 1, start
        while depth:
            depth += {"{": 1, "}": -1}.get(source[k], 0)
            k += 1
        bodies.append(source[start:k - 1])
    return bodies


def test_full_tiles_are_isolated_without_guards_in_their_k_loop():
    """gemm: isl's isolate option on the thread band of its full 64 x 64 tiles (gpu/tiling.py)
    gives them a k loop of the 8 updates alone; the partial tiles keep theirs, guarded; both
    verify at sizes with full and partial tiles."""
    prog = _program("gemm")
    source = prog.generate("cuda").source
    assert "if (((ni >= ((64 * c0) + 64)) && (nj >= ((64 * c1) + 64))))" in source
    loops = _k_point_loops(source)
    assert len(loops) >= 2
    assert "if (" not in loops[0] and loops[0].count("+=") == 8
    assert all("if (" in body for body in loops[1:])
    assert _verified(prog, {"ni": 130, "nj": 70, "nk": 40})
    # trmm: its k > i bounds the points of full tiles too, so nothing is isolated: one
    # thread loop nest, one k point loop
    trmm = _program("trmm").generate("cuda").source
    assert trmm.count("for (int c3 =") == 1 and len(_k_point_loops(trmm)) == 1


# fuzz seed 7005 (isl scheduler): a box extent of 11 pieces whose union's hull took 36 s, twice,
# until the operation quota gave the promotion up (72 s, no shared copy)
SEED_7005 = """
void fuzz(int n, double alpha, int A[10][n + 7][15], double B[n], double C[n][8])
{
  int i, j;
  double s0;
#pragma scop
  for (i = 0; i <= n - 1; i++) {
    for (j = i - 1; j >= 1; j--) {
      A[1][j + 1][j + i + 1] += (A[0][j + 2][j + i + 1] + A[i + 1][j + 3][j - 1] + 1) / 3;
    }
    s0 = 0.0;
    for (j = n - 1; j >= 0; j--) {
      s0 += 0.5 * A[i + 2][2 * j][1] + 0.25 * B[j] + 0.0;
    }
    C[i][i] += 0.5 * sqrt(s0) + 0.25 * A[i + 2][i + 1][i] + 0.3 * A[i][n - i + 2][i] + alpha;
  }
  for (i = 0; i < (n - 1 < 4 ? n - 1 : 4); i++) {
    A[2 * i + 1][i + 1][i] += (A[2 * i + 2][i + 1][i + 1] + 1) / 2;
  }
#pragma endscop
}
"""


@pytest.mark.parametrize("text, largest", [
    ("[n] -> { [(n)] : 0 <= n <= 10; [(5)] : n > 10 }", 10),
    ("[n] -> { [(2n)] : 0 <= n <= 3; [(n + 1)] : 4 <= n <= 6 }", 7),
    ("[n] -> { [(3)] : n <= 0; [(n)] : n > 0 }", None),  # one unbounded piece
    ("[n, m] -> { [(n - m)] : 0 <= m <= n <= 8 }", 8),
])
def test_the_largest_box_extent_is_the_largest_over_the_pieces(text, largest):
    from polycuda.gpu import staging

    assert staging._largest(isl.PwAff.read_from_str(isl.DEFAULT_CONTEXT, text)) == largest


def test_an_extent_of_many_pieces_is_promoted_and_verifies():
    prog = polycuda.compile(SEED_7005, filename="seed7005.c", options=Options(target="cuda"))
    assert ("B", (32,)) in {(a, sizes) for arrays in _shared(prog).values()
                            for a, sizes, _ in arrays}
    assert _verified(prog, {"n": 8}) and _verified(prog, {"n": 5})


def test_largest_box_extent_projects_single_basic_sets():
    # the hull of a union of many basic sets did not finish in minutes (fuzz profile "large",
    # seed 3, isl scheduler); the maximum is the largest over each basic set's projection,
    # whose existentials are dropped by remove_divs: polyhedral_hull looped on the nested
    # divisions of fuzz seed 60914 (divmod profile), its isl operation limit not reached
    import islpy as isl

    from polycuda.gpu import staging

    pw = isl.PwAff.read_from_str(isl.Context(), "[n, m] -> { [(n + m)] : 0 <= n <= 5 and "
                                 "0 <= m <= 2 or 10 <= n <= 12 and m = 1; [(3)] : n > 12 }")
    assert staging._largest(pw) == 13
    nested = isl.PwAff.read_from_str(isl.Context(), (
        "[p] -> { [(p)] : exists (e0, e1: e0 > 0 and 8e0 <= e1 <= 7 + 8e0 and "
        "3*floor((-1 - e0)/3) >= -37 + 3p + 255e0 - 32e1 and "
        "3*floor((-1 - e0)/3) <= -35 + 3p + 255e0 - 32e1) }"))
    assert staging._largest(nested) == 86
    unbounded = isl.PwAff.read_from_str(isl.Context(), "[n] -> { [(n)] : n >= 0 }")
    assert staging._largest(unbounded) is None
