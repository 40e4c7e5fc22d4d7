"""`polycuda compile` of a C file with several regions: one generated file that builds (the
shared helpers defined once, each region's own CUDA definitions in a namespace of its own) and
gives every region's results; region names whose identifiers clash are refused, located."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from polycuda.cli import main
from polycuda.codegen import abi
from polycuda.errors import UnsupportedConstruct

# A wavefront (fig2), a row reduction over a triangle, a function of two regions, a run-time
# nest (move: the inspector/executor) and a CSR loop (its index check and a static part).
SOURCE = """\
#include <math.h>

void smooth(int T, int I, double A[I + 2])
{
#pragma scop
  for (int t = 1; t <= T; t++)
    for (int i = 1; i <= I; i++)
      A[i] = 0.5 * (A[i] + A[i + 1]);
#pragma endscop
}

void rows(int n, double L[n][n], double x[n], double y[n])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    y[i] = 0.0;
    for (int j = 0; j <= i; j++)
      y[i] += L[i][j] * x[j];
  }
#pragma endscop
}

void twice(int n, double a[n], double b[n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    a[i] = 3.0 * a[i] + 1.0;
#pragma endscop
#pragma scop
  for (int i = 1; i < n; i++)
    b[i] = a[i] - a[i - 1];
#pragma endscop
}

void move(int n, int m, double A[m], int src[n], int dst[n], double v[n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[dst[i]] = 0.5 * A[src[i]] + v[i];
#pragma endscop
}

void spmv(int n, int nnz, double y[n], int rowptr[n + 1], int col[nnz], double val[nnz],
          double x[n])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    y[i] = 0.0;
    for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
      y[i] += val[k] * x[col[k]];
  }
#pragma endscop
}
"""

# Calls every function of SOURCE (replaced by its generated entries) and the same loops written
# here, on pseudo-random inputs, and compares.
DRIVER = """\
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __cplusplus
extern "C" {
#endif
void smooth(int T, int I, double *A);
void rows(int n, double *L, double *x, double *y);
void twice(int n, double *a, double *b);
void move(int n, int m, double *A, int *src, int *dst, double *v);
void spmv(int n, int nnz, double *y, int *rowptr, int *col, double *val, double *x);
#ifdef __cplusplus
}
#endif
static unsigned long long seed = 88172645463325252ULL;
static double rnd(void) {
  seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
  return 0.5 + (seed >> 11) * (1.0 / 9007199254740992.0);
}
static double *fill(int n) {
  double *p = (double *)malloc(sizeof(double) * n);
  for (int k = 0; k < n; k++) p[k] = rnd();
  return p;
}
static double *copy(const double *p, int n) {
  double *q = (double *)malloc(sizeof(double) * n);
  for (int k = 0; k < n; k++) q[k] = p[k];
  return q;
}
static int differ(const char *what, const double *a, const double *b, int n) {
  for (int k = 0; k < n; k++)
    if (fabs(a[k] - b[k]) > 1e-9 * (1.0 + fabs(b[k]))) {
      printf("%s differs at %d: %g vs %g\\n", what, k, a[k], b[k]);
      return 1;
    }
  return 0;
}
int main(void) {
  int bad = 0, T = 7, I = 123, n = 37, m = 50, nnz = 0;
  double *A = fill(I + 2), *R = copy(A, I + 2);
  smooth(T, I, A);
  for (int t = 1; t <= T; t++) for (int i = 1; i <= I; i++) R[i] = 0.5 * (R[i] + R[i + 1]);
  bad |= differ("smooth", A, R, I + 2);

  double *L = fill(n * n), *x = fill(n), *y = fill(n), *ry = fill(n);
  rows(n, L, x, y);
  for (int i = 0; i < n; i++) {
    ry[i] = 0.0;
    for (int j = 0; j <= i; j++) ry[i] += L[i * n + j] * x[j];
  }
  bad |= differ("rows", y, ry, n);

  double *a = fill(n), *b = fill(n), *ra = copy(a, n), *rb = copy(b, n);
  twice(n, a, b);
  for (int i = 0; i < n; i++) ra[i] = 3.0 * ra[i] + 1.0;
  for (int i = 1; i < n; i++) rb[i] = ra[i] - ra[i - 1];
  bad |= differ("twice a", a, ra, n) | differ("twice b", b, rb, n);

  int *src = (int *)malloc(sizeof(int) * n), *dst = (int *)malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) { src[i] = (i * 7 + 3) % m; dst[i] = (i * 11 + 5) % m; }
  double *M = fill(m), *RM = copy(M, m), *v = fill(n);
  move(n, m, M, src, dst, v);
  for (int i = 0; i < n; i++) RM[dst[i]] = 0.5 * RM[src[i]] + v[i];
  bad |= differ("move", M, RM, m);

  int *rowptr = (int *)malloc(sizeof(int) * (n + 1)), *col = (int *)malloc(sizeof(int) * n * 3);
  rowptr[0] = 0;
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < i % 4; k++) col[nnz++] = (i * 5 + k * 13) % n;
    rowptr[i + 1] = nnz;
  }
  double *val = fill(nnz > 0 ? nnz : 1), *sy = fill(n), *rsy = fill(n);
  spmv(n, nnz, sy, rowptr, col, val, x);
  for (int i = 0; i < n; i++) {
    rsy[i] = 0.0;
    for (int k = rowptr[i]; k < rowptr[i + 1]; k++) rsy[i] += val[k] * x[col[k]];
  }
  bad |= differ("spmv", sy, rsy, n);
  printf(bad ? "differ\\n" : "same\\n");
  return bad;
}
"""


@pytest.fixture
def source_file(tmp_path: Path) -> Path:
    path = tmp_path / "several.c"
    path.write_text(SOURCE)
    (tmp_path / "driver.c").write_text(DRIVER)
    return path


def test_openmp_file_of_several_regions_builds_and_gives_each_region_its_results(
        tmp_path, source_file):
    out = tmp_path / "several_omp.c"
    assert main(["compile", str(source_file), "--target", "openmp", "-o", str(out)]) == 0
    text = out.read_text()
    assert text.count("#define PC_HELPERS_DEFINED") == 6  # six regions, defined once
    exe = tmp_path / "prog"
    subprocess.run(["gcc", "-O1", "-fopenmp", str(out), str(tmp_path / "driver.c"), "-o",
                    str(exe), "-lm"], check=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True)
    assert run.stdout.strip() == "same", run.stdout


@pytest.mark.parametrize("flags", [(), ("--host-overlap",)], ids=["default", "overlap"])
def test_cuda_file_of_several_regions_builds_and_gives_each_region_its_results(
        tmp_path, source_file, flags):
    """The .cu of six regions: each region's own definitions in its namespace, kernel0 in
    several of them; built under the emulator with the rewritten host file and the driver."""
    from polycuda.runtime import device, emulate

    out = tmp_path / "several.cu"
    assert main(["compile", str(source_file), "--target", "cuda", "-o", str(out),
                 *flags]) == 0
    text = out.read_text()
    for name in ("smooth", "rows", "twice", "twice_1", "move", "spmv"):
        assert f"namespace polycuda_region_{name} {{" in text
        assert f'extern "C" int pc_{name}(' in text
    assert text.count("int main(") == 1
    if shutil.which("nvcc"):
        subprocess.run(["nvcc", "-c", str(out), "-o", str(tmp_path / "dev.o")], check=True)
    cpp = tmp_path / "several_emu.cpp"
    cpp.write_text(emulate.translate(text))
    host = tmp_path / "several_host.c"
    objects = []
    for src, lang in ((host, "c"), (tmp_path / "driver.c", "c")):
        obj = tmp_path / (src.stem + ".o")
        subprocess.run(["gcc", "-O1", "-c", f"-x{lang}", str(src), "-o", str(obj)], check=True)
        objects.append(str(obj))
    exe = tmp_path / "prog"
    subprocess.run([device.find_cxx(), "-std=c++20", "-O1", "-pthread", str(cpp), *objects,
                    "-o", str(exe)], check=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert run.stdout.strip() == "same", run.stdout + run.stderr


@pytest.mark.gpu
def test_cuda_file_of_several_regions_runs_on_the_gpu(tmp_path, source_file):
    """The drop-in as a user builds it: nvcc for the .cu, gcc for the rewritten C and the
    driver, linked; every region's results compared on the GPU."""
    out = tmp_path / "several.cu"
    assert main(["compile", str(source_file), "--target", "cuda", "-o", str(out)]) == 0
    objects = []
    for src in (tmp_path / "several_host.c", tmp_path / "driver.c"):
        obj = tmp_path / (src.stem + ".o")
        subprocess.run(["gcc", "-O1", "-c", str(src), "-o", str(obj)], check=True)
        objects.append(str(obj))
    exe = tmp_path / "prog"
    subprocess.run(["nvcc", "-O2", "-arch=native", str(out), *objects, "-o", str(exe)],
                   check=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert run.stdout.strip() == "same", run.stdout + run.stderr


REGIONS = ("smooth", "rows", "twice", "twice_1", "move", "spmv")
# a polycuda identifier that a definition or declaration at file scope names
FILE_SCOPE = re.compile(r"\b(pc_\w+)\s*[(\[=;<]")


def _file_scope_identifiers(text: str) -> set[str]:
    """The pc_ identifiers that lines starting at column 0 define or declare (comments and
    preprocessor lines left out); in the regions' CUDA namespaces only those of C linkage
    (extern "C": one name across namespaces)."""
    names, inside = set(), False
    for line in text.splitlines():
        if line.startswith("namespace polycuda_region_"):
            inside = True
        elif line.startswith("}  // namespace polycuda_region_"):
            inside = False
        elif line[:1] not in ("", " ", "\t", "#", "/", "*", "}") and (
                not inside or line.startswith('extern "C"')):
            names |= {m.group(1) for m in FILE_SCOPE.finditer(line)}
    return names


@pytest.mark.parametrize("target, suffix, flags", [
    ("c", ".c", ()), ("openmp", ".c", ()), ("cuda", ".cu", ()),
    ("cuda", ".cu", ("--host-overlap",))])
def test_every_file_scope_identifier_is_in_the_clash_check(tmp_path, source_file, target,
                                                           suffix, flags):
    """abi's lists (REGION_SUFFIXES, REGION_NUMBERED, RUNTIME_IDENTIFIER) are kept by hand:
    an identifier that generated code defines at file scope and none of them has would not be
    checked for clashes (check_region_names)."""
    out = tmp_path / f"compiled{suffix}"  # several.c is the input: never written over
    assert main(["compile", str(source_file), "--target", target, "-o", str(out),
                 *flags]) == 0
    text = out.read_text()
    host = out.with_name(out.stem + "_host.c")
    if host.exists():
        text += host.read_text()
    found = _file_scope_identifiers(text)
    assert {f"pc_{name}" for name in REGIONS} <= found
    own = {i for name in REGIONS for i in abi.region_identifiers(name)}
    unknown = {i for i in found if i not in own and not abi.RUNTIME_IDENTIFIER.fullmatch(i)
               and abi.numbered_owner(i) not in REGIONS}
    assert not unknown, f"add these to polycuda/codegen/abi.py's lists: {sorted(unknown)}"


@pytest.mark.parametrize("functions, region, identifier", [
    (("host",), "host", "pc_host_release"),  # the host side's pc_host_release
    (("min",), "min", "pc_min"),
    (("f", "f_dev"), "f_dev", "pc_f_dev"),  # f's device entry
    (("g", "g_1"), "g_1", "pc_g_1"),  # g has two regions: the second is g_1
    (("f", "f_seq0"), "f_seq0", "pc_f_seq0"),  # f's sequential function (C, OpenMP)
    (("f_seq12", "f"), "f", "pc_f_seq12"),
])
def test_region_names_that_clash_are_refused_with_the_place(tmp_path, capsys, functions,
                                                            region, identifier):
    body = "#pragma scop\n  for (int i = 0; i < n; i++)\n    a[i] = 2.0 * a[i];\n#pragma endscop\n"
    text = "".join(f"void {f}(int n, double a[n]) {{\n{body * (1 + (f == 'g'))}}}\n"
                   for f in functions)
    path = tmp_path / "clash.c"
    path.write_text(text)
    assert main(["compile", str(path), "--target", "cuda", "-o", str(tmp_path / "o.cu")]) == 1
    err = capsys.readouterr().err
    line = text[:text.index(f"void {region}(")].count("\n") + 2
    assert f"clash.c:{line}" in err and f"region '{region}'" in err and identifier in err
    assert not (tmp_path / "o.cu").exists()


def test_a_clashing_region_name_is_refused_by_the_api_too():
    import polycuda

    source = ("void host(int n, double a[n]) {\n#pragma scop\n  for (int i = 0; i < n; i++)\n"
              "    a[i] = 2.0 * a[i];\n#pragma endscop\n}\n")
    prog = polycuda.compile(source, options=polycuda.Options(target="cuda"))
    with pytest.raises(UnsupportedConstruct, match="pc_host_release"):
        prog.generate("cuda")
