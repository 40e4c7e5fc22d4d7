"""Wavefront bands whose statements have different loop depths (fuzz seed 57, configuration
pluto-balanced, hand-reduced).

Pluto with balanced intra-tile wavefronts (Di et al. 2012, Theorem 2) gives the 3-deep S0 and
the 1-deep S1 the band [-4i + j + 6, -3i + j + 7] / [-i, 0]; S1 is of full rank after it, so
the band below, [k] / [0], is a band of its own, and it carries S1[i] -> S0[i', j, k] (i' < i)
where the outer band's values are equal, while the sequence below it runs S0 first. Tiling
and skewing the outer band is legal; moving the [P] band and the [k] band into each child of
that sequence (wavefront._sink_points) was not: the tiled schedule was refused and the isl
scheduler's untiled one used. The bands now stay above the sequence when sinking would
reverse a dependence (wavefront.sinkable).
"""

import warnings

import polycuda
from kernels import suite
from polycuda import show
from polycuda.errors import PolycudaWarning
from polycuda.options import Options

MIXED_DEPTHS = r"""
void f(int n, int m, double alpha, double A[64][64])
{
#pragma scop
  for (int i = m - 1; i >= 2; i--) {
    for (int j = 2; j < n - 1; j++)
      for (int k = 2; k < n; k++)
        if (j <= 5 && i + 2 >= 2 * j)
          A[2][k] = alpha * A[3][k];
    A[i - 1][2] = 0.5 * A[i - 2][m - i - 1] + 0.1;
  }
#pragma endscop
}
"""
# small tiles: many tiles per inter-tile wavefront, many intra-tile wavefronts per tile
BALANCED = Options(scheduler="pluto", balanced_wavefront=True, tile_sizes=(2, 4))


def _compile(options: Options = BALANCED) -> polycuda.Program:
    return polycuda.compile(MIXED_DEPTHS, function="f", options=options)


def test_band_of_mixed_depths_is_tiled_without_fallback():
    prog = _compile()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PolycudaWarning)  # a refused mapping warns
        scheduled = show.schedule_of(prog)
        kernels = prog.generate("cuda").kernels
    assert scheduled["choice"] == "pluto (requested)", scheduled["choice"]
    rows = {s["name"]: s["hyperplanes"] for s in scheduled["statements"]}
    assert rows["S0"][:2] == [[-4, 1, 0, 6], [-3, 1, 0, 7]] and rows["S1"][0] == [-1, 0]
    (kernel,) = kernels
    assert kernel.wavefront and kernel.tile_sizes == (2, 4)
    assert not kernel.sink_points  # the [P] and [k] bands above the sequence S0; S1


def test_band_of_mixed_depths_verifies():
    results = _compile().verify({"n": 13, "m": 23}, targets=("c", "openmp", "emulate"))
    assert [r.target for r in results] == ["c", "openmp", "emulate"]
    assert all(r.ok for r in results), results


def test_points_still_sink_where_legal():
    # fdtd-2d (Pluto) and jacobi-2d (balanced, barriers between its two statements): every
    # dependence at equal band values goes from an earlier statement of the sequence to a
    # later one, so each statement keeps [P] bands of its own
    for name, balanced in (("fdtd_2d", False), ("jacobi_2d", True)):
        kernel = suite.by_name(name)
        prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                                options=Options(scheduler="pluto", balanced_wavefront=balanced))
        wavefronts = [k for k in prog.generate("cuda").kernels if k.wavefront]
        assert wavefronts and all(k.sink_points for k in wavefronts), name
