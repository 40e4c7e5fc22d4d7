"""The model's Problem of each kernel, found again in the schedule tree at fixed sizes."""

from __future__ import annotations

import itertools

import polycuda
from polycuda.options import Options
from polycuda.tune import problem
from polycuda.tune.occupancy import KernelResources

KERNELS = "kernels/c"


def _models(name: str, sizes: dict[str, int], scheduler: str = "auto"):
    prog = polycuda.compile(f"{KERNELS}/{name}.c", options=Options(target="cuda",
                                                                   scheduler=scheduler))
    gen = prog.generate("cuda")
    fake = {k.name: KernelResources(k.name, 40, 0) for k in gen.kernels}
    return problem.kernel_models(gen, sizes, fake)


def _points(prob):
    box = itertools.product(*[range(lo, hi + 1) for lo, hi in zip(prob.lower, prob.upper)])
    return {y for y in box if all(sum(a * v for a, v in zip(row, y)) + c >= 0
                                  for row, c in prob.constraints)}


def test_sor_1d_wavefront_band_is_the_skewed_domain():
    (km,) = _models("sor_1d", {"T": 3, "n": 7})
    prob = km.problem
    assert (prob.kind, prob.launches, prob.repeat, km.registers) == ("wavefront", 1, 1, 40)
    # Pluto's band for 1-D SOR: y = (t, t + i), 0 <= t < 3, 1 <= i <= 5 (Di & Xue, Fig. 2)
    assert _points(prob) == {(t, t + i) for t in range(3) for i in range(1, 6)}


def test_doall_kernels_in_a_host_loop():
    models = _models("jacobi_2d", {"T": 4, "n": 10}, scheduler="isl")
    assert [m.problem.kind for m in models] == ["doall", "doall"]
    assert all(m.problem.launches == 4 for m in models)  # one launch per time step
    assert _points(models[0].problem) == set(itertools.product(range(1, 9), repeat=2))


def test_untiled_band_member_repeats_the_work():
    (km,) = _models("sor_3d", {"T": 3, "n": 8}, scheduler="pluto")
    assert km.problem.kind == "wavefront" and km.problem.n == 3
    assert km.problem.repeat == 6  # the k loop (1 <= k <= 6) runs inside each thread


def test_doall_band_accesses_as_byte_strides():
    # 3-D SOR under isl: a host loop over w = 2t + i + j + k, the band (t, i, j) parallel;
    # at fixed w, A[i][j][k] moves by k = -2 along t (-16 bytes), by n^2 - 1 elements
    # along i and n - 1 along j: the contiguous member is the first, not the last
    (km,) = _models("sor_3d", {"T": 5, "n": 16}, scheduler="isl")
    assert km.problem.kind == "doall" and len(km.problem.statements) == 1
    (accesses,) = km.problem.statements
    assert len(accesses) == 8  # the write and 7 reads
    assert {a.strides for a in accesses} == {(-16, (16 * 16 - 1) * 8, (16 - 1) * 8)}
    # the neighbours' offsets differ by their subscripts' shifts
    offsets = sorted(a.offset for a in accesses)
    center = accesses[0].offset
    assert sorted(o - center for o in offsets) == sorted(
        8 * d for d in (0, 0, -256, 256, -16, 16, -1, 1))


def test_wavefront_bands_keep_no_warp_accesses():
    (km,) = _models("sor_1d", {"T": 3, "n": 7})
    assert km.problem.kind == "wavefront" and km.problem.statements == ()


def test_gemm_accesses_hold_the_inner_loop_fixed():
    # gemm's band (i, j); k runs inside each thread: A[i][k] moves along i only, B[k][j]
    # along j only, C[i][j] along both
    (km,) = _models("gemm", {"ni": 32, "nj": 48, "nk": 40}, scheduler="isl")
    strides = {a.array: a.strides for st in km.problem.statements for a in st}
    assert strides["C"] == (48 * 8, 8)
    assert strides["A"] == (40 * 8, 0)
    assert strides["B"] == (0, 8)
