"""Smaller auxiliary arrays (indexed mod their size) and static / dynamic chunking of the
inspector (Anantpur & Govindarajan 2013, Sections 3.5.1-3.5.2; codegen/chunking_cuda.py):
against the sequential program on the CUDA emulator, levels never fewer than with the full
auxiliary array, and Table 6's levels of a loop without conflicts (1, 2, 4, 8)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import polycuda
from kernels.indirect import MOVE
from polycuda import cli
from polycuda.errors import InvalidConfigError
from polycuda.options import Options
from tests.unit.test_executors import N, PATTERNS, call_and_check, counter, move_args
from tests.unit.test_runtime import needs_nvcc

VARIANTS = {"aux8-static": {"aux_fraction": 8, "runtime_chunking": "static"},
            "aux4-dynamic": {"aux_fraction": 4, "runtime_chunking": "dynamic"}}

LEVELS = Options(cpu_fallback_per_level=0)  # the inspector's levels, not the host fallback


def _fresh(args):
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}


def test_options_are_checked():
    with pytest.raises(InvalidConfigError, match="aux_fraction"):
        Options(aux_fraction=3)
    with pytest.raises(InvalidConfigError, match="runtime_chunking"):
        Options(runtime_chunking="guided")
    opts = Options(aux_fraction=4, runtime_chunking="dynamic")
    assert Options.from_text(opts.to_text()) == opts


def test_cli_options_and_dump(tmp_path):
    args = cli.parser().parse_args(["compile", "x.c", "--aux-fraction", "8",
                                    "--chunking", "static"])
    opts = cli._options(args)
    assert (opts.aux_fraction, opts.runtime_chunking) == (8, "static")
    text = json.loads(opts.to_text())
    assert text["aux_fraction"] == 8 and text["runtime_chunking"] == "static"
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["compile", "x.c", "--aux-fraction", "3"])


def test_default_code_is_the_papers():
    """Without the options, no modulo, no chunk kernel: the code of Algorithms 2-4."""
    prog = polycuda.compile(MOVE, options=LEVELS)
    plain = prog.generate("cuda").source
    assert "pc_chunks0" not in plain and "%" not in plain.split("pc_writer0")[1][:2000]
    hashed = prog.generate("cuda", aux_fraction=4).source
    assert "/ 4" in hashed and "pc_chunks0" not in hashed
    dynamic = prog.generate("cuda", aux_fraction=2, runtime_chunking="dynamic").source
    assert "pc_chunks0" in dynamic and "PC_SHIFT" in dynamic


@needs_nvcc
@pytest.mark.parametrize("pattern", sorted(PATTERNS))
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_adversarial_patterns(pattern, variant):
    """All on one element, a chain, a permutation, duplicates: the sequential result, and at
    least the levels of the full auxiliary array (false conflicts and chunk starts only add)."""
    prog = polycuda.compile(MOVE, options=LEVELS)
    src, dst = PATTERNS[pattern]
    args = move_args(src, dst, N + 1)
    plain = prog.kernel("emulate")
    call_and_check(prog, plain, _fresh(args))
    kernel = prog.kernel("emulate", **VARIANTS[variant])
    call_and_check(prog, kernel, args)
    assert counter(kernel, "levels") >= counter(plain, "levels")
    if pattern in ("one_element", "chain"):  # each iteration depends on the one before
        assert counter(plain, "levels") == N


@needs_nvcc
@pytest.mark.parametrize("chunking", ["static", "dynamic"])
def test_table6_levels_without_conflicts(chunking):
    """Table 6 (doAll, 2dconv, fdtd-2d, gemm, mvt): a loop without conflicts whose iteration t
    writes cell t has 1, 2, 4, 8 levels with aux arrays of 1, 1/2, 1/4, 1/8 (one per chunk:
    the slots of a chunk's cells are distinct, so no false conflict; no conflict to step on)."""
    prog = polycuda.compile(MOVE, options=LEVELS)
    cells = np.arange(N)
    for divisor in (1, 2, 4, 8):
        kernel = prog.kernel("emulate", aux_fraction=divisor, runtime_chunking=chunking)
        call_and_check(prog, kernel, move_args(cells, cells, N))
        assert counter(kernel, "levels") == divisor
        if chunking == "dynamic":
            assert counter(kernel, "chunk_steps") == 0


@needs_nvcc
def test_rand_acc_levels_grow_with_smaller_aux():
    """randAcc (Table 6: 19 -> 24 -> 40 -> 64 levels): random writes and reads of one array;
    with dynamic chunking and aux arrays of 1 .. 1/8, the sequential result and never fewer
    levels than the full auxiliary array without chunking."""
    prog = polycuda.compile(MOVE, options=LEVELS)
    rng = np.random.default_rng(7)
    m = 4 * N
    args = move_args(rng.integers(0, m, N), rng.integers(0, m, N), m, seed=5)
    plain = prog.kernel("emulate")
    call_and_check(prog, plain, _fresh(args))
    base = counter(plain, "levels")
    assert base > 1
    for divisor in (1, 2, 4, 8):
        kernel = prog.kernel("emulate", aux_fraction=divisor, runtime_chunking="dynamic")
        call_and_check(prog, kernel, _fresh(args))
        assert counter(kernel, "levels") >= base


@needs_nvcc
def test_dynamic_steps_on_nearby_conflicts_with_other_executors():
    """A chain: every pass sees conflicts at distance 1, so dynamic chunking steps (Section
    3.5.2); with the one-launch executor and reused levels the result is still sequential's."""
    prog = polycuda.compile(MOVE, options=LEVELS)
    src, dst = PATTERNS["chain"]
    kernel = prog.kernel("emulate", aux_fraction=2, runtime_chunking="dynamic",
                         runtime_executor="syncfree", reuse_levels=True)
    args = move_args(src, dst, N + 1)
    call_and_check(prog, kernel, _fresh(args))
    assert counter(kernel, "chunk_steps") >= 1
    assert counter(kernel, "levels") >= N
    call_and_check(prog, kernel, args)  # the levels reused
    assert counter(kernel, "reused") == 1


def _emulated_bench(monkeypatch):
    """bench/anantpur_tables.py with the emulator in place of the GPU (no CuPy here)."""
    import bench.anantpur_tables as tables

    def on_device(prog, args, calls, repeats, changes):
        kernel = prog.kernel("emulate", **changes)
        result = _fresh(args)
        for _ in range(calls):
            kernel(*[result[a.name] for a in prog.scop.args])
        return (result, 1.0, tables._levels(kernel, prog),
                tables._counters_of(kernel, prog, prog.name))

    def from_host(prog, args, calls, repeats, changes):
        return on_device(prog, args, calls, repeats, changes)[0], 2.0

    monkeypatch.setattr(tables, "on_device", on_device)
    monkeypatch.setattr(tables, "from_host", from_host)
    monkeypatch.setattr(tables, "phases", lambda *a: (0.25, 0.5))
    return tables


@needs_nvcc
def test_bench_table6_variants_in_json(tmp_path, monkeypatch):
    """--tables: every benchmark gets aux1..aux8 (dynamic chunking) with levels and times in
    the JSON; the paper's phases only where the code has them (base)."""
    tables = _emulated_bench(monkeypatch)
    table6 = {k: tables.TABLE6[k] for k in ("aux1", "aux8")}  # two builds, not four
    assert sorted(tables.TABLE6) == ["aux1", "aux2", "aux4", "aux8"]
    monkeypatch.setattr(tables, "TABLE6", table6)
    out = tmp_path / "t.json"
    assert tables.main([str(out), "--scale", str(1 / 65536), "--repeats", "1", "--only",
                        "doAll", "--tables"]) == 0
    row, = json.loads(out.read_text())["benchmarks"]
    assert sorted(row["variants"]) == ["aux1", "aux8", "base"]
    base = row["variants"]["base"]["levels"]
    for d in (1, 8):
        entry = row["variants"][f"aux{d}"]
        assert entry["correct"] and entry["levels"][0] >= max(base[0], d)
        assert entry["options"]["aux_fraction"] == d and entry["total_s"] == 2.0
        assert entry["unpipelined_inspect_s"] is None and entry["chunk_steps"] is not None
    assert row["variants"]["base"]["unpipelined_inspect_s"] == 0.25


@needs_nvcc
def test_bench_table4_row_reuses_levels(monkeypatch):
    """Table 4's row: fdtd-2d's step called repeatedly, reuse off and on; with reuse on, the
    last call's levels are reused (the executors' counters are in the row)."""
    tables = _emulated_bench(monkeypatch)
    variants = {k: tables.TABLE4[k] for k in ("aux2-reuse-off", "aux2-reuse-on")}
    # 1/65536 as the Table 6 test: a 32 x 32 grid, 4 blocks of 256 per loop (1/8192's 90 x 90
    # took 8 s of emulation for the same checks)
    row = tables.measure("fdtd-2d", 1 / 65536, 1, variants, calls=2, host=False,
                         label="fdtd-2d x2")
    assert row["benchmark"] == "fdtd-2d x2" and sorted(row["variants"]) == sorted(
        ["base", *variants])
    on, off = row["variants"]["aux2-reuse-on"], row["variants"]["aux2-reuse-off"]
    assert on["correct"] and off["correct"] and "total_s" not in on
    assert all(reused for _, reused, _, _ in on["executors"])
    assert not any(reused for _, reused, _, _ in off["executors"])
    assert on["levels"] == off["levels"] and min(on["levels"]) >= 2
