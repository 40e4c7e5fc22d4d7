"""OpenMP target: one parallel region around a sequential loop that holds parallel loops
(issue 14, item 11); the code between its parallel loops runs once per step."""

import re

import pytest

import polycuda
from kernels import suite
from polycuda.options import Options
from polycuda.pipeline import compile_scop
from polycuda.program import _named_runner
from polycuda.runtime import build, launch
from polycuda.sizes import resolve_sizes
from polycuda.verify import check_against
from tests.unit import hand_scops

# Scalars written in the time loop, between two parallel loops and after them; `out` and
# `acc` accumulate, so a statement run by both threads (no `omp single`) gives a wrong result.
SCALARS_IN_TIME_LOOP = """
void steps(int T, int n, double A[n], double B[n], double out[1])
{
  int t, i;
  double s, acc;
#pragma scop
  acc = 1.0;
  for (t = 0; t < T; t++) {
    s = A[t] * 0.5 + out[0];
    acc = acc * 0.75 + s;
    for (i = 0; i < n; i++)
      B[i] = 0.5 * B[i] + 0.1 * s * A[i];
    for (i = 0; i < n; i++)
      A[i] = B[i] * 0.3 + 0.1 * acc;
    out[0] = out[0] * 0.5 + acc;
  }
#pragma endscop
}
"""


def _pragmas(source: str) -> list[str]:
    return re.findall(r"#pragma omp [a-z ]*", source)


def _verify_plain_and_shuffled(prog: polycuda.Program, sizes: dict[str, int]) -> None:
    """Shuffled (verify), and in the compiled order both as built and with every region
    forced onto all threads (PC_OMP_MIN_POINTS=0: small sizes would run in one thread)."""
    assert all(r.ok for r in prog.verify(sizes, targets=("c", "openmp")))
    values = resolve_sizes(prog.scop, sizes)
    source = prog.generate("openmp").source
    runners = {"omp": _named_runner(prog.scop, prog.kernel("openmp"))}
    forced = build.build_shared(source, "openmp", flags=("-DPC_OMP_MIN_POINTS=0",))
    runners["omp_forced"] = _named_runner(prog.scop, launch.load(forced, prog.scop, "openmp"))
    for seed in (1, 2):
        results = check_against(prog.scop, prog._reference, runners, values, seed)
        assert len(results) == 2 and all(r.ok for r in results)


def test_time_loop_runs_in_one_region_with_worksharing_loops():
    source = compile_scop(hand_scops.jacobi_2d(), Options(target="openmp")).source
    body_start = source.index("int pc_jacobi_2d(")
    body = source[body_start:]
    assert _pragmas(body) == ["#pragma omp parallel", "#pragma omp for schedule",
                              "#pragma omp for schedule"]
    lines = body.splitlines()
    region = next(k for k, ln in enumerate(lines) if ln.strip() == "#pragma omp parallel")
    assert lines[region - 1].strip() == "if (pc_points >= PC_OMP_MIN_POINTS * pc_barriers) {"
    assert lines[region + 1].strip() == "{"
    assert lines[region + 2].strip().startswith("for (long c0 = 0; (c0 < T)")
    # below the threshold: the sequential code, in a function of its own (regression: inlined
    # next to the region, gcc -fopenmp compiled doitgen's loops 30% slower than the c target)
    assert body[body.index("} else {"):].splitlines()[1].strip() == "pc_jacobi_2d_seq0(T, n, A, B);"
    helper = source[source.index("static PC_NOINLINE void pc_jacobi_2d_seq0("):body_start]
    assert "#pragma" not in helper and "for (long c0 = 0; (c0 < T)" in helper


def test_parallel_loop_outside_sequential_loops_keeps_parallel_for():
    kernel = suite.by_name("gemm")
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(target="openmp"))
    pragmas = _pragmas(prog.generate().source)
    assert pragmas and set(pragmas) == {"#pragma omp parallel for schedule"}
    assert "pc_points" not in prog.generate().source  # one fork each: no dry run, no guard


def test_dry_run_counts_the_loops_inside_the_points():
    # doitgen: each point of the first loop sums over nk (regression: counted as one point,
    # the guard also kept atax's matrix-vector loops sequential, 1.9x -> 1.0x); the row
    # buffer not expanded, so that the p loops are the parallel ones
    kernel = suite.by_name("doitgen")
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(target="openmp", expand_scalars=False))
    source = prog.generate().source
    points = "pc_points += pc_trip(0, pc_min(255, ((nk - (256 * c2)) - 1)), 1)"
    assert f"{points} * pc_trip(0, (nk - 1), 1);" in source
    assert f"{points};" in source  # the copy-back loop: one statement per point


def test_statements_between_parallel_loops_run_once_in_single():
    kernel = suite.by_name("trisolv")
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(target="openmp"))
    body = prog.generate().source.split("#pragma omp parallel\n", 1)[1]
    single = body.index("#pragma omp single")
    assert "x[c0] /= L[" in body[single:body.index("#pragma omp for")]
    _verify_plain_and_shuffled(prog, {"n": 300})


@pytest.mark.parametrize("scheduler", ["isl", "pluto"])
def test_scalars_written_in_a_sequential_loop(scheduler):
    prog = polycuda.compile(SCALARS_IN_TIME_LOOP, options=Options(target="openmp",
                                                                  scheduler=scheduler))
    _verify_plain_and_shuffled(prog, {"T": 9, "n": 700})


def test_verification_build_shuffles_worksharing_loops():
    source = compile_scop(hand_scops.jacobi_2d(),
                          Options(target="openmp", shuffle_parallel=True)).source
    lines = [ln.strip() for ln in source.splitlines()]
    loops = [lines[k + 1] for k, ln in enumerate(lines) if ln.startswith("#pragma omp for")]
    assert len(loops) == 2 and all(ln.startswith("for (long pc_k_c1 = 0;") for ln in loops)
    assert "#pragma omp parallel\n" in source and "pc_points" not in source  # no `if`


def test_dry_run_counts_the_tiles_and_barriers_of_each_step():
    # trisolv: per step, one `omp single` and one `omp for` over the tiles of x below the
    # diagonal (the points of each counted with its bounds); the sequential code runs unless they hold enough points
    kernel = suite.by_name("trisolv")
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(target="openmp"))
    source = prog.generate().source
    dry = source[source.rindex("double pc_points = 0.0"):source.rindex("#pragma omp parallel")]
    assert dry.count("pc_barriers += 1.0;") == 2 and dry.count("pc_points += pc_trip(") == 1
    assert "x[" not in dry
    assert "c0 += (1) * pc_stride" in dry  # about 1024 of the n row steps are visited


def test_region_result_is_the_sequential_one_with_many_steps():
    kernel = suite.by_name("sor_2d")  # a wavefront loop of many short parallel steps
    prog = polycuda.compile(str(kernel.c_path), function=kernel.function,
                            options=Options(target="openmp"))
    assert "#pragma omp parallel\n" in prog.generate().source
    _verify_plain_and_shuffled(prog, {"T": 6, "n": 70})
