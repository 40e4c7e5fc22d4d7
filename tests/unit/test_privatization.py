"""Privatization per live range (schedule/expand.py, schedule/live_ranges.py): a local whose
values do not flow from one iteration of a loop to the next gets a copy per iteration of it,
even when its values flow along the loops inside (Verdoolaege and Janssens, IMPACT 2017).
PolyBench deriche's ym1 -> ym1_x0[i] (row pass) and ym1_x1[j] (column pass): the line loops
run in parallel, each line's recursion sequentially in its thread."""

from pathlib import Path

import numpy as np
import pytest

import polycuda
from polycuda import show
from polycuda.codegen import abi
from polycuda.pipeline import iterator_prefix
from polycuda.schedule import expand

pytestmark = pytest.mark.filterwarnings("ignore::polycuda.errors.PolycudaWarning")
TARGETS = ("c", "openmp", "emulate")
DERICHE = Path(__file__).parent / "c_inputs" / "deriche_polybench.c"
RECURRENCE_SCALARS = {"xm1", "tm1", "ym1", "ym2", "xp1", "xp2", "tp1", "tp2", "yp1", "yp2"}


def _verified(prog, sizes):
    results = prog.verify(sizes, targets=TARGETS)
    assert [r.target for r in results] == list(TARGETS) and all(r.ok for r in results)


def _top_loops_parallel(prog) -> list[bool]:
    """Per outermost loop of the OpenMP entry (not its as-written fallback): whether
    `#pragma omp parallel for` runs it."""
    source = prog.generate("openmp").source
    lines = source[source.index(f"int {abi.entry_name(prog.scop)}("):].splitlines()
    flags = []
    for previous, line in zip(lines, lines[1:]):
        if line == "}":
            break
        if line.startswith("  for ("):
            flags.append(previous.strip().startswith("#pragma omp parallel for"))
    return flags


def _privatized(prog) -> dict[str, list[tuple[str, ...]]]:
    """array -> the loops of each of its privatized copies."""
    found: dict[str, list[tuple[str, ...]]] = {}
    for p in expand.expand_noted(prog.scop)[1]:
        found.setdefault(p.array, []).append(p.loops)
    return found


def _parallel_rows(prog) -> dict[str, list[bool]]:
    return {s["name"]: s["parallel"] for s in show.schedule_of(prog)["statements"]}


@pytest.fixture(scope="module")
def deriche():
    return polycuda.compile(str(DERICHE))


def test_deriche_scalars_get_a_copy_per_line_not_per_point(deriche):
    found = _privatized(deriche)
    assert set(found) == RECURRENCE_SCALARS
    # reused by the row and the column pass: one copy per row i there, per column j here
    assert found["ym1"] == [("i",), ("j",)] and found["yp2"] == [("i",), ("j",)]
    assert found["xm1"] == [("i",)] and found["tp1"] == [("j",)]
    scop = expand.expand_scalars(deriche.scop)
    assert [len(scop.array(n).shape) for n in ("ym1_x0", "ym1_x1", "xm1_x0")] == [1, 1, 1]


def test_deriche_line_loops_are_parallel_on_openmp_and_cuda(deriche):
    assert _top_loops_parallel(deriche) and all(_top_loops_parallel(deriche))
    kernels = deriche.generate("cuda").kernels
    assert kernels and not any(k.serial for k in kernels)
    _verified(deriche, {"w": 37, "h": 29})


def test_show_deps_names_the_privatized_live_ranges(deriche):
    text = show.show("deps", (deriche,))
    assert "privatized: ym1 -> ym1_x0[i] in " in text
    assert "privatized: ym1 -> ym1_x1[j] in " in text
    line = next(t for t in text.splitlines() if "ym1 -> ym1_x1[j]" in t)
    # its output dependences carried by j, and those with the row pass's ym1
    assert "a copy per iteration of j (depth 1)" in line and "output 3" in line


def deriche_py(w, h, a1, a2, a3, a4, a5, a6, a7, a8, b1, b2, c1, c2, imgIn, imgOut, y1, y2):
    """tests/unit/c_inputs/deriche_polybench.c as a Python region."""
    for i in range(w):
        ym1 = 0.0
        ym2 = 0.0
        xm1 = 0.0
        for j in range(h):
            y1[i, j] = a1 * imgIn[i, j] + a2 * xm1 + b1 * ym1 + b2 * ym2
            xm1 = imgIn[i, j]
            ym2 = ym1
            ym1 = y1[i, j]
    for i in range(w):
        yp1 = 0.0
        yp2 = 0.0
        xp1 = 0.0
        xp2 = 0.0
        for j in range(h - 1, -1, -1):
            y2[i, j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2
            xp2 = xp1
            xp1 = imgIn[i, j]
            yp2 = yp1
            yp1 = y2[i, j]
    for i in range(w):
        for j in range(h):
            imgOut[i, j] = c1 * (y1[i, j] + y2[i, j])
    for j in range(h):
        tm1 = 0.0
        ym1 = 0.0
        ym2 = 0.0
        for i in range(w):
            y1[i, j] = a5 * imgOut[i, j] + a6 * tm1 + b1 * ym1 + b2 * ym2
            tm1 = imgOut[i, j]
            ym2 = ym1
            ym1 = y1[i, j]
    for j in range(h):
        tp1 = 0.0
        tp2 = 0.0
        yp1 = 0.0
        yp2 = 0.0
        for i in range(w - 1, -1, -1):
            y2[i, j] = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2
            tp2 = tp1
            tp1 = imgOut[i, j]
            yp2 = yp1
            yp1 = y2[i, j]
    for i in range(w):
        for j in range(h):
            imgOut[i, j] = c2 * (y1[i, j] + y2[i, j])


def test_python_deriche_line_loops_are_parallel():
    w, h = 23, 19
    images = [np.zeros((w, h)) for _ in range(4)]
    coefficients = (0.3, 0.2, 0.25, -0.1, 0.3, 0.2, 0.25, -0.1, 0.6, -0.2, 1.0, 1.0)
    prog = polycuda.jit(deriche_py).program(w, h, *coefficients, *images)
    assert _privatized(prog)["ym1"] == [("i",), ("j",)]
    assert _top_loops_parallel(prog) and all(_top_loops_parallel(prog))
    assert not any(k.serial for k in prog.generate("cuda").kernels)
    _verified(prog, {"w": w, "h": h})


# deriche's row pass with ym1 reset once, before the rows: its value flows from the last
# point of row i to the first of row i + 1, so the row loop must stay sequential (one cell);
# the column pass resets it per column and is privatized as before.
CARRIED_ACROSS_ROWS = """
void smear(int w, int h, double b1, double A[w][h], double B[w][h], double C[w][h])
{
  int i, j;
  double ym1;
#pragma scop
  ym1 = 0.0;
  for (i = 0; i < w; i++)
    for (j = 0; j < h; j++) {
      B[i][j] = A[i][j] + b1 * ym1;
      ym1 = B[i][j];
    }
  for (j = 0; j < h; j++) {
    ym1 = 0.0;
    for (i = 0; i < w; i++) {
      C[i][j] = B[i][j] + b1 * ym1;
      ym1 = C[i][j];
    }
  }
#pragma endscop
}
"""


def test_a_value_carried_across_rows_is_not_privatized(tmp_path):
    path = tmp_path / "smear.c"
    path.write_text(CARRIED_ACROSS_ROWS)
    prog = polycuda.compile(str(path))
    notes = expand.expand_noted(prog.scop)[1]
    assert [(p.array, p.loops) for p in notes] == [("ym1", ("j",))]
    rows = _parallel_rows(prog)
    assert rows["S1"] == [False, False]  # the row pass: one cell, carried along i and j
    assert rows["S4"][0]  # the column pass: a copy per column j
    _verified(prog, {"w": 9, "h": 7})


# gramschmidt with its scalar nrm reused: the norm of column k, then the dot product of q_k
# with every later column j. The second live range is private to an iteration of (k, j):
# as one copy per k, it would keep the j loop sequential.
GRAMSCHMIDT_NRM = """
void gramschmidt(int m, int n, double A[m][n], double R[n][n], double Q[m][n])
{
  int i, j, k;
  double nrm;
#pragma scop
  for (k = 0; k < n; k++) {
    nrm = 0.0;
    for (i = 0; i < m; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = sqrt(nrm);
    for (i = 0; i < m; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (j = k + 1; j < n; j++) {
      nrm = 0.0;
      for (i = 0; i < m; i++)
        nrm += Q[i][k] * A[i][j];
      R[k][j] = nrm;
      for (i = 0; i < m; i++)
        A[i][j] = A[i][j] - Q[i][k] * nrm;
    }
  }
#pragma endscop
}
"""


def test_gramschmidt_dot_product_scalar_is_private_per_column(tmp_path):
    path = tmp_path / "gramschmidt.c"
    path.write_text(GRAMSCHMIDT_NRM)
    prog = polycuda.compile(str(path))
    assert _privatized(prog)["nrm"] == [("k",), ("k", "j")]
    rows = _parallel_rows(prog)
    assert rows["S5"][1] and rows["S7"][1]  # the j loop of the dot products and updates
    _verified(prog, {"m": 13, "n": 11})


ADI_HEAD = """
void adi(int tsteps, int n, double a, double b, double c, double d, double e, double f,
         double u[n][n], double v[n][n]{extra})
{{
  int t, i, j;
  {decl}
#pragma scop
  for (t = 1; t <= tsteps; t++) {{
    for (i = 1; i < n - 1; i++) {{
"""
# PolyBench adi's column and row sweeps, with the Thomas algorithm's denominator in a scalar
# that both sweeps reuse: private per (i, j) point in each.
ADI_DEN = ADI_HEAD.format(extra=", double p[n][n], double q[n][n]", decl="double den;") + """
      v[0][i] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = v[0][i];
      for (j = 1; j < n - 1; j++) {
        den = a * p[i][j - 1] + b;
        p[i][j] = -c / den;
        q[i][j] = (-d * u[j][i - 1] + (1.0 + 2.0 * d) * u[j][i] - f * u[j][i + 1]
                   - a * q[i][j - 1]) / den;
      }
      v[n - 1][i] = 1.0;
      for (j = n - 2; j >= 1; j--)
        v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
    }
    for (i = 1; i < n - 1; i++) {
      u[i][0] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = u[i][0];
      for (j = 1; j < n - 1; j++) {
        den = d * p[i][j - 1] + e;
        p[i][j] = -f / den;
        q[i][j] = (-a * v[i - 1][j] + (1.0 + 2.0 * a) * v[i][j] - c * v[i + 1][j]
                   - d * q[i][j - 1]) / den;
      }
      u[i][n - 1] = 1.0;
      for (j = n - 2; j >= 1; j--)
        u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
    }
  }
#pragma endscop
}
"""
# adi with its p and q as row buffers of the region, reset per line i and carried along j
# (forward), read back along j (backward): a copy per line; not per time step, since the
# time loop carries u's and v's flow and stays sequential anyway.
ADI_ROWS = ADI_HEAD.format(extra="", decl="double p[n];\n  double q[n];") + """
      v[0][i] = 1.0;
      p[0] = 0.0;
      q[0] = v[0][i];
      for (j = 1; j < n - 1; j++) {
        p[j] = -c / (a * p[j - 1] + b);
        q[j] = (-d * u[j][i - 1] + (1.0 + 2.0 * d) * u[j][i] - f * u[j][i + 1]
                - a * q[j - 1]) / (a * p[j - 1] + b);
      }
      v[n - 1][i] = 1.0;
      for (j = n - 2; j >= 1; j--)
        v[j][i] = p[j] * v[j + 1][i] + q[j];
    }
    for (i = 1; i < n - 1; i++) {
      u[i][0] = 1.0;
      p[0] = 0.0;
      q[0] = u[i][0];
      for (j = 1; j < n - 1; j++) {
        p[j] = -f / (d * p[j - 1] + e);
        q[j] = (-a * v[i - 1][j] + (1.0 + 2.0 * a) * v[i][j] - c * v[i + 1][j]
                - d * q[j - 1]) / (d * p[j - 1] + e);
      }
      u[i][n - 1] = 1.0;
      for (j = n - 2; j >= 1; j--)
        u[i][j] = p[j] * u[i][j + 1] + q[j];
    }
  }
#pragma endscop
}
"""


@pytest.mark.parametrize("source, expected", [
    (ADI_DEN, {"den": [("i", "j"), ("i", "j")]}),
    (ADI_ROWS, {"p": [("i",), ("i",)], "q": [("i",), ("i",)]}),
], ids=["scalar", "rows"])
def test_adi_line_temporaries_are_private_per_line(tmp_path, source, expected):
    path = tmp_path / "adi.c"
    path.write_text(source)
    prog = polycuda.compile(str(path))
    assert _privatized(prog) == expected
    rows = _parallel_rows(prog)
    assert all(row[1] for row in rows.values())  # every i loop (t stays sequential)
    assert not any(k.serial for k in prog.generate("cuda").kernels)
    _verified(prog, {"tsteps": 3, "n": 12})


def test_loop_iterators_never_take_the_carried_registers_names(deriche):
    # deriche's coefficients c1, c2 push the iterators off "c"; gpu/carry.py names its
    # registers pc_c0, pc_c1, ...
    assert iterator_prefix(deriche.scop) not in ("c", "pc_c")
