"""The tune cache holds measured results only, filed by GPU name: without a GPU, `polycuda
tune` files nothing (issue 40), and compiles take cached sizes only where they were measured
on the GPU they run on."""

from __future__ import annotations

import pytest

import polycuda
from polycuda.cli import main
from polycuda.options import Options
from polycuda.runtime import device
from polycuda.tune import calibrate, occupancy, search

SOR_1D = "kernels/c/sor_1d.c"
SIZES = {"T": 64, "n": 2048}


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("POLYCUDA_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(occupancy, "kernel_resources", lambda source, arch=None: {
        "kernel0": occupancy.KernelResources("kernel0", 32, 0)})


def _results(tmp_path) -> list:
    return sorted((tmp_path / "cache" / "tune" / "results").glob("*.json"))


def _file(prog, gpu: str, measured: bool, tiles=(32, 128), block=(32,)) -> None:
    """A result filed as tune files it (lookup's key and the sizes' key) under `gpu`."""
    top = (search.Ranked(tiles, block, 1e-3, 2e-3 if measured else None),)
    result = search.TuneResult(tiles, block, "NVIDIA H100 80GB HBM3", calibrate.ESTIMATED, 1,
                               {}, top, measured, 0.1)
    for sizes in (None, SIZES):
        search.store(search.cache_key(prog.scop, prog.options, gpu, sizes), result)


def test_tune_without_a_gpu_files_nothing_and_compiles_keep_their_sizes(
        tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(device, "gpu_info", lambda: None)
    assert main(["tune", SOR_1D, "--size", "T=64", "--size", "n=2048", "--layouts", "2000"]) == 0
    err = capsys.readouterr().err
    assert "not cached: the choice was not measured (no GPU)" in err and "--dump-sizes" in err
    assert _results(tmp_path) == []
    a, b = tmp_path / "a.cu", tmp_path / "b.cu"
    assert main(["compile", SOR_1D, "-o", str(a)]) == 0
    assert "tuned sizes" not in capsys.readouterr().err
    assert main(["compile", SOR_1D, "--no-tuned-sizes", "-o", str(b)]) == 0
    assert a.read_text() == b.read_text()


def test_an_unmeasured_result_of_an_older_polycuda_is_ignored(monkeypatch):
    monkeypatch.setattr(search, "gpu_name", lambda: "Test GPU")
    prog = polycuda.compile(SOR_1D, options=Options(target="cuda"))
    _file(prog, "Test GPU", measured=False)
    assert search.lookup(prog.scop, prog.options) is None
    again = polycuda.compile(SOR_1D, options=Options(target="cuda"))
    assert again.effective_options("cuda").tile_sizes == ()
    # tune does not take it as a cache hit: it tunes again, measuring
    calls = []
    result = search.tune(prog, SIZES, top_k=2, progress=None, refit=False, local_rounds=0,
                         measure=lambda opts: calls.append(opts) or 1.0)
    assert calls and result.measured


def test_a_measured_result_is_used_on_its_gpu_alone(monkeypatch):
    prog = polycuda.compile(SOR_1D, options=Options(target="cuda"))
    _file(prog, "GPU A", measured=True)
    for gpu, tiles in (("GPU A", (32, 128)), ("GPU B", None), (search.NO_GPU, None)):
        monkeypatch.setattr(search, "gpu_name", lambda gpu=gpu: gpu)
        found = search.lookup(prog.scop, prog.options)
        assert (found and found.tile_sizes) == tiles, gpu
