"""Regression tests of issue 14: located errors instead of tracebacks, no silent drops."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import polycuda
from polycuda.cli import main
from polycuda.errors import NotAffineError, UnsupportedConstruct, UserError
from polycuda.frontend import c as cfront
from polycuda.options import Options

OK_C = """\
void f(int n, double A[n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = A[i] + 1.0;
#pragma endscop
}
"""


@pytest.fixture
def ok_c(tmp_path: Path) -> Path:
    path = tmp_path / "ok.c"
    path.write_text(OK_C)
    return path


def _fails(capsys, argv: list[str], *needles: str, code: int = 1) -> str:
    """Run the CLI in-process: exit code `code`, every needle in stderr, no traceback."""
    try:
        rc = main(argv)
    except SystemExit as stop:  # argparse's usage errors
        rc = stop.code
    err = capsys.readouterr().err
    assert rc == code, err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, err
    return err


# -- files and options -----------------------------------------------------------------------------
def test_output_into_a_missing_directory(capsys, ok_c, tmp_path):
    out = tmp_path / "missing" / "x.cu"
    _fails(capsys, ["compile", str(ok_c), "-o", str(out)], "error:", "does not exist")


def test_options_file_missing_garbage_or_mistyped(capsys, ok_c, tmp_path):
    _fails(capsys, ["compile", str(ok_c), "--options", str(tmp_path / "none.json")],
           "cannot read options file", "No such file")
    bad = tmp_path / "bad.json"
    bad.write_text('{"tile_sizes": [4,\n  oops]}')
    _fails(capsys, ["compile", str(ok_c), "--options", str(bad)], f"{bad}:2:3: error:",
           "not JSON")
    bad.write_text('{"tile_sizes": "4,8"}')
    _fails(capsys, ["compile", str(ok_c), "--options", str(bad)], "'tile_sizes' must be a list")
    bad.write_text('{"no_such_option": 1}')
    _fails(capsys, ["compile", str(ok_c), "--options", str(bad)], "unknown option",
           "no_such_option")


@pytest.mark.parametrize("suffix", [".c", ".py"])
def test_binary_input_file(capsys, tmp_path, suffix):
    path = tmp_path / f"bin{suffix}"
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00\xd0\xff\xfe\n")
    _fails(capsys, ["compile", str(path)], f"{path}:1:", "error:")


def test_python_file_whose_import_raises(capsys, tmp_path):
    path = tmp_path / "raises.py"
    path.write_text("import math\nx = 1 / 0\n\ndef f(A, n):\n    for i in range(n):\n"
                    "        A[i] = 1.0\n")
    _fails(capsys, ["compile", str(path)], f"{path}:2:", "ZeroDivisionError")


def test_directory_as_input(capsys, tmp_path):
    _fails(capsys, ["compile", str(tmp_path)], "is a directory")


def test_unknown_verify_target_lists_emulate_not_auto(capsys, ok_c):
    err = _fails(capsys, ["verify", str(ok_c), "--targets", "bogus"], "bogus", "emulate",
                 code=2)
    assert "auto" not in err.splitlines()[-1]


@pytest.mark.parametrize("argv", [["--tile-sizes", "-4,8"], ["--tile-sizes=-4,8"],
                                  ["--block-sizes", "0,8"]])
def test_negative_or_zero_sizes(capsys, ok_c, argv):
    _fails(capsys, ["compile", str(ok_c)] + argv, "sizes must be >= 1", code=2)


class _ClosedPipe:
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_show_into_a_closed_pipe_exits_quietly_in_process(capsys, ok_c, monkeypatch):
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    assert main(["show", "deps", str(ok_c)]) == 141
    assert "Traceback" not in capsys.readouterr().err


def test_show_into_a_closed_pipe_exits_quietly(ok_c):
    # `polycuda show code FILE | head -0`: the reader is gone before the first write
    cmd = [sys.executable, "-m", "polycuda.cli", "show", "code", str(ok_c), "--target", "c"]
    show = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env())
    assert show.stdout is not None and show.stderr is not None
    show.stdout.close()
    err = show.stderr.read().decode()
    assert show.wait(timeout=300) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def _env() -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[2])
    return {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}


# -- the C frontend: nothing inside a region is dropped --------------------------------------------
def _region(body: str, signature: str = "void f(int n, int m, double A[n], double B[n])",
            before: str = "") -> str:
    return f"{before}{signature}\n{{\n#pragma scop\n{body}\n#pragma endscop\n}}\n"


def _c_error(text: str, cls: type = UserError) -> UserError:
    with pytest.raises(cls) as info:
        cfront.parse_source(text, "t.c")
    return info.value


@pytest.mark.parametrize(("body", "before", "word", "where"), [
    ("  for (int i = 0; i < n; i++) {\n    __asm__ volatile(\"nop\");\n    A[i] += 1.0;\n  }",
     "", "__asm__", (5, 5)),
    ("  for (int i = 0; i < n; i++) {\n    A[i] += 1.0; FENCE;\n  }",
     "#define FENCE __asm__ __volatile__(\"\" ::: \"memory\")\n", "__asm__", (6, 18)),
    ("  for (int i = 0; i < n; i++) {\n    double t __attribute__((aligned(16))) = A[i];\n"
     "    B[i] = t;\n  }", "", "__attribute__", (5, 14)),
])
def test_gnu_extensions_inside_a_region_are_refused(body, before, word, where):
    # regression: `__asm__ volatile("nop");` compiled with exit code 0 and vanished
    err = _c_error(_region(body, before=before), UnsupportedConstruct)
    assert word in err.msg and "inside a region" in err.msg
    assert (err.loc.file, err.loc.line, err.loc.col) == ("t.c", *where)


def test_gnu_extensions_outside_regions_are_still_accepted():
    text = ("static inline int g(int x) { __asm__ volatile(\"nop\"); return x; }\n"
            "double G[8] __attribute__((aligned(64)));\n"
            + _region("  for (int i = 0; i < n; i++)\n    A[i] += 1.0;"))
    (scop,) = cfront.parse_source(text, "t.c")
    assert scop.name == "f"


def test_pragma_inside_a_region_is_refused():
    err = _c_error(_region("#pragma omp parallel for\n  for (int i = 0; i < n; i++)\n"
                           "    A[i] += 1.0;"), UnsupportedConstruct)
    assert "#pragma omp parallel for" in err.msg and err.loc.line == 4


def test_k_and_r_definition_is_refused():
    text = "void f(n, A)\nint n; double A[10];\n{\n#pragma scop\n  for (int i = 0; i < n; i++)" \
           "\n    A[i] += 1.0;\n#pragma endscop\n}\n"
    err = _c_error(text, UnsupportedConstruct)
    assert "K&R" in err.msg and err.loc.line == 1


MINMAX = "#define min(a, b) ((a) < (b) ? (a) : (b))\n#define max(a, b) ((a) > (b) ? (a) : (b))\n"


def test_min_inside_a_loop_bound_expression_compiles_and_verifies():
    body = ("  for (int i = 0; i < n; i++)\n    for (int j = 0; j < min(i, n - 1) + 1; j++)\n"
            "      A[j] = A[j] + B[i];\n"
            "  for (int i = 0; i < n; i++)\n    for (int j = -min(-i, -1); j <= n - 1 - max(0, "
            "m - i); j++)\n      B[j] = B[j] * 0.5 + A[i];")
    prog = polycuda.compile(_region(body, before=MINMAX), filename="t.c",
                            options=Options(target="c"))
    for sizes in ({"n": 13, "m": 4}, {"n": 7, "m": 11}):
        assert all(r.ok for r in prog.verify(sizes, targets=("c",)))


def test_max_in_an_upper_bound_names_the_real_problem():
    err = _c_error(_region("  for (int i = 0; i < n; i++)\n    for (int j = 0; j < max(i, m); j++)"
                           "\n      A[i] += 1.0;", before=MINMAX), NotAffineError)
    assert "upper bound of loop 'j' takes a max" in err.msg
    assert "only supported in loop bounds" not in err.msg


@pytest.mark.parametrize("name", ["max", "floor", "exists"])
def test_isl_keyword_as_a_name_is_refused(name):
    text = _region(f"  for (int i = 0; i < {name}; i++)\n    A[i] = 1.0;",
                   signature=f"void f(int {name}, double A[{name}])")
    err = _c_error(text, UnsupportedConstruct)
    assert f"'{name}'" in err.msg and "keyword" in err.msg and err.loc.line == 1


# -- the Python frontend and the jit ---------------------------------------------------------------
def test_non_ascii_python_parameter_is_refused(tmp_path, capsys):
    path = tmp_path / "uni.py"
    path.write_text("def f(\u00f1, A):\n    for i in range(\u00f1):\n        A[i] = A[i] + 1.0\n",
                    encoding="utf-8")
    _fails(capsys, ["compile", str(path), "--target", "c"], f"{path}:1:7: error:",
           "not an ASCII identifier")


def test_jit_call_without_a_defaulted_argument():
    @polycuda.jit(target="c")
    def scale(A, n, s=2.0):
        for i in range(n):
            A[i] = A[i] * s

    A = np.ones(6)
    scale(A, 4)
    np.testing.assert_array_equal(A, [2.0] * 4 + [1.0] * 2)
    scale(A, 4, s=0.5)
    np.testing.assert_array_equal(A, [1.0] * 6)
    assert all(r.ok for r in scale.verify(np.ones(6), 5))


# -- block sizes: honoured or refused, never silently shrunk ---------------------------------------
@pytest.mark.parametrize(("blocks", "needle"), [
    ("4096,4096", "block size 4096 along x"), ("2048", "block size 2048 along x"),
    ("128,1,1", "block size 128 along z"), ("64,32", "2048 threads per block"),
    ("1,1,1,1", "at most 3 dimensions"),
])
def test_block_sizes_no_gpu_launches_are_refused(capsys, ok_c, blocks, needle):
    # regression: --block-sizes 4096,4096 compiled with exit code 0 and 8x32 threads
    _fails(capsys, ["compile", str(ok_c), "--block-sizes", blocks], "error:", needle)


def test_block_larger_than_its_tile_is_refused_at_mapping(capsys, ok_c):
    _fails(capsys, ["compile", str(ok_c), "--block-sizes", "512"],
           "block size 512 exceeds tile size 256")
    prog = polycuda.compile(OK_C, filename="ok.c", options=Options(block_sizes=(64,)))
    (kernel,) = prog.generate("cuda").kernels
    assert kernel.block_sizes == (64,)  # honoured


# -- the oracle of a region is that region alone -------------------------------------------------
TWO_REGIONS = """\
void f(int n, double A[n], double B[n])
{
  int i;
  double m = 3.0;
  A[0] = 5.0;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = A[i] * 2.0;
#pragma endscop
  B[0] = m;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = A[i] + B[i];
#pragma endscop
}
"""


def test_two_regions_writing_the_same_array_verify(capsys, tmp_path):
    # regression: the reference of each region ran the whole function (both regions and the
    # code around them), so `verify` reported a false MISMATCH for both
    path = tmp_path / "two.c"
    path.write_text(TWO_REGIONS)
    assert main(["verify", str(path), "--targets", "c,emulate", "--size", "n=9"]) == 0
    out = capsys.readouterr().out
    assert out.count(" ok ") == 4 and "MISMATCH" not in out
    first, second = polycuda.compile_all(TWO_REGIONS, filename="two.c")
    region = cfront.reference_source(first.scop).split("pc_ref_region_f(")[1]
    assert "A[0] = 5.0" not in region and "A[i] + B[i]" not in region


# -- run: the reference and the target are timed alike ------------------------------------------
def test_run_times_reference_and_target_alike(monkeypatch):
    # regression: the reference ran once, cold (library load included), the target warm, so
    # `run` reported 3.3x for sequential generated C over the same sequential code
    from polycuda.run import WARMUP, run_and_time

    prog = polycuda.compile(OK_C, filename="ok.c", options=Options(target="c"))
    calls = {"target": 0, "reference": 0}
    kernel, reference = prog.kernel("c"), prog._reference

    def counted_kernel(*args: object) -> None:
        calls["target"] += 1
        kernel(*args)

    def counted_reference(args: dict[str, object]) -> None:
        calls["reference"] += 1
        reference(args)

    monkeypatch.setattr(prog, "kernel", lambda target=None: counted_kernel)
    monkeypatch.setattr(prog, "_reference", counted_reference)
    report = run_and_time(prog, {"n": 100}, repeats=7)
    assert calls == {"target": WARMUP + 7, "reference": WARMUP + 7}
    assert len(report.times_s) == len(report.reference_times_s) == 7 and report.verified
    text = report.render()
    assert text.count("median") >= 3 and text.count("min-max") == 2
    assert "7 runs after 1 warm-up" in text and "speedup" in text

    assert "(c against the gcc -O3 build of the C original; medians, " in text
    assert "over the paired runs)" in text  # the least and largest of the 7 pairs


def test_run_times_an_interpreted_reference_once_and_says_so(monkeypatch, caplog):
    # issue 44: the Python function (CPython, minutes for a 2-D stencil at n = 1024) ran 11
    # times with nothing printed; now once, verified and timed, announced (progress records)
    from polycuda.run import run_and_time

    caplog.set_level(logging.INFO, logger="polycuda")

    def scale(n: int, A, B):
        for i in range(n):
            B[i] = 2.0 * A[i]

    import numpy as np

    prog = polycuda.jit(scale, target="c").program(8, np.zeros(8), np.zeros(8))
    calls = []
    reference = prog._reference
    monkeypatch.setattr(prog, "_reference", lambda args: (calls.append(1), reference(args)))
    report = run_and_time(prog, {"n": 100}, repeats=5)
    assert len(calls) == 1 and len(report.reference_times_s) == 1 and report.verified
    assert len(report.times_s) == 5
    text = report.render()
    assert "1 run, the verified one; CPython interpreter" in text
    assert "(c against the CPython interpreter" in text
    said = [r.getMessage() for r in caplog.records if r.name == "polycuda.progress"]
    assert said[0].startswith("scale: running the reference once (CPython interpreter")
    assert said[1].startswith("scale: the reference took ")
    caplog.clear()
    prog.options = prog.options.replace(progress=False)
    run_and_time(prog, {"n": 100}, repeats=1)
    assert not [r for r in caplog.records if r.name == "polycuda.progress"]

# -- verify/run: the arguments' bytes are estimated before allocating ----------------------------
DEEP = "void f({params}, double A{dims})\n{{\n#pragma scop\n{loops}    A{subs} += 1.0;\n" \
       "#pragma endscop\n}}\n"


def _deep_nest(depth: int) -> str:
    names = [f"n{k}" for k in range(depth)]
    return DEEP.format(params=", ".join(f"int {n}" for n in names),
                       dims="".join(f"[{n}]" for n in names),
                       loops="".join(f"  for (int i{k} = 0; i{k} < {n}; i{k}++)\n"
                                     for k, n in enumerate(names)),
                       subs="".join(f"[i{k}]" for k in range(depth)))


def test_default_sizes_of_a_deep_nest_are_refused_before_allocating(capsys, tmp_path):
    # regression: 12^10 doubles (461 GiB) per array: numpy's _ArrayMemoryError traceback
    path = tmp_path / "deep.c"
    path.write_text(_deep_nest(10))
    err = _fails(capsys, ["verify", str(path), "--targets", "c"], "461.3 GiB", "--size n0=")
    assert "half of this machine's memory" in err


def test_memory_estimate_suggests_sizes_that_fit():
    from polycuda.host_memory import COPIES, argument_bytes, check_argument_bytes

    prog = polycuda.compile(_deep_nest(3), filename="deep.c")
    values = {"n0": 100, "n1": 100, "n2": 100}
    assert argument_bytes(prog.scop, values) == {"A": 8 * 10**6}
    check_argument_bytes(prog.scop, values, limit=COPIES * 8 * 10**6)  # fits exactly
    with pytest.raises(UserError) as info:
        check_argument_bytes(prog.scop, values, limit=COPIES * 8 * 10**6 - 1)
    assert "--size n0=99 --size n1=99 --size n2=99" in info.value.msg
