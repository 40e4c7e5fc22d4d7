"""`polycuda cache`: the build cache's parts and sizes; --clear removes the built libraries
alone, --clear-all tune's files too, and never a file polycuda did not name."""

from polycuda import cli
from polycuda.runtime import build, cache


def test_cache_shows_and_clears_only_its_own_files(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("POLYCUDA_CACHE", str(tmp_path))
    lib = build.build_shared("int pc_f(void) { return 1; }", "c")
    (tmp_path / "tune" / "results").mkdir(parents=True)
    (tmp_path / "tune" / "results" / "k.json").write_text("{}")
    (tmp_path / "tune" / "calibration-gpu.json").write_text("{}")
    mine = tmp_path / "notes-of-the-user.txt"
    mine.write_text("keep")
    built, tuned, calibrations = cache.parts()
    assert set(built.files) == {lib, lib.with_suffix(".c")} and built.bytes > 0
    assert len(tuned.files) == 1 and len(calibrations.files) == 1
    emulated = build.build_shared('extern "C" int pc_g(void) { return 2; }', "emulate")
    header = next(tmp_path.glob(build.HEADER_PREFIX + "*.h"))
    built = cache.parts()[0]
    assert {header, header.with_name(header.name + ".gch"), header.with_suffix(".o"),
            emulated} < set(built.files)
    assert cli.main(["cache", "--clear"]) == 0
    assert f"removed {len(built.files)} files" in capsys.readouterr().out
    assert not header.exists() and not emulated.exists()
    lib = build.build_shared("int pc_f(void) { return 1; }", "c")
    assert cli.main(["cache"]) == 0
    out = capsys.readouterr().out
    assert f"build cache {tmp_path} " in out and "built libraries and their sources: 2 files" in out
    assert cli.main(["cache", "--clear"]) == 0
    assert "removed 2 files" in capsys.readouterr().out
    assert not lib.exists() and len(cache.parts()[1].files) == 1 and mine.exists()
    assert cli.main(["cache", "--clear-all"]) == 0
    assert "removed 2 files" in capsys.readouterr().out
    assert [len(p.files) for p in cache.parts()] == [0, 0, 0] and mine.read_text() == "keep"
    # rebuilt when needed
    assert build.build_shared("int pc_f(void) { return 1; }", "c") == lib and lib.exists()


def test_sizes_are_said_in_units():
    assert cache.size_text(999) == "999 bytes" and cache.size_text(1500) == "1.5 kB"
    assert cache.size_text(2_500_000_000) == "2.5 GB"
