"""Shared-memory promotion in DOALL kernels (gpu/shared_promotion.py, codegen/shared_code.py):
which tiles go to shared memory, their sizes and padding (Baskaran et al. 2008), and the
emulator's verdict on the generated CUDA (c and openmp are unaffected by the option)."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

import polycuda
from kernels import suite
from polycuda.cli import main
from polycuda.gpu import shared_promotion
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
    prog = _program("gemm")
    tile_i, tile_j = 8, 32  # mapping.DEFAULT_TILES[2]
    k_tile = shared_promotion.SEQUENTIAL_TILE
    # C lives in a register (private promotion), so it is not copied to shared memory
    assert _shared(prog) == {"kernel0": [("A", (tile_i, k_tile), k_tile),
                                         ("B", (k_tile, tile_j), tile_j)]}
    kernel = prog.generate("cuda").source
    assert "__shared__ double pc_sh_A_0[256];" in kernel
    assert "__shared__ double pc_sh_B_0[1024];" in kernel
    assert kernel.count("__syncthreads();") == 2  # before and after the copy-in: A, B read-only
    # the k loop inside each thread reads only the copies
    inner = re.search(r"pc_p0 \+= [^\n]*", kernel).group(0)
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
    arrays = _shared(_program("syrk"))["kernel0"]
    assert sorted(arrays) == [("A", (8, 32), 32), ("A", (32, 32), 33)]


def test_a_stencil_promotes_its_neighbourhood():
    """jacobi-2d's DOALL kernels (no wavefront): the five neighbours' footprints meet, one
    copy of the 8 x 32 tile with its halo, reused across threads."""
    prog = _program("jacobi_2d", scheduler="isl", wavefront=False)
    assert _shared(prog) == {"kernel0": [("A", (10, 34), 34)],
                             "kernel1": [("B", (10, 34), 34)]}
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
    prog = polycuda.compile(TRANSPOSED, filename="transposed.c", options=SHARED)
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
    assert "__shared__" not in default.generate("cuda").source
    # register tiling takes the mapping's points: no shared promotion with it
    assert _shared(_program("gemm", register_tiles=(2, 2))) == {}
    out, dumped = tmp_path / "gemm.cu", tmp_path / "options.json"
    assert main(["compile", str(gemm.c_path), "--target", "cuda", "--shared-promotion",
                 "--dump-options", str(dumped), "-o", str(out)]) == 0
    assert "pc_sh_A_0" in out.read_text()
    assert Options.from_text(dumped.read_text()).shared_promotion is True
    assert main(["compile", str(gemm.c_path), "--target", "cuda", "--options", str(dumped),
                 "--no-shared-promotion", "-o", str(out)]) == 0
    assert "__shared__" not in out.read_text()
