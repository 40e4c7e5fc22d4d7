"""Differential fuzzing in CI: random affine loop nests, each compiled with one scheduler
configuration for one target (rotated by seed over every pair), against the original C.

A failure prints the seed, the pair, the sizes, the C source and the command that reproduces
it. `python -m tests.fuzz --long` runs every pair on many more programs (outside CI).
"""

from __future__ import annotations

import islpy as isl
import pytest

from polycuda.errors import VerificationError
from polycuda.frontend import c as cfront
from polycuda.ir import isl_build
from polycuda.sizes import array_shape
from tests.fuzz.__main__ import rotation
from tests.fuzz.emit import layout
from tests.fuzz.generator import PROFILES, generate
from tests.fuzz.harness import CONFIGS, TARGETS, classify, report, run_program
from tests.fuzz.reduce import minimise, size
from tests.fuzz.tree import Access, Aff, Assign, FuzzProgram, Loop

CI_PROFILE = "full"
# rotation(): seed s runs pair s mod PAIRS, so whole rotations give every pair the same count
PAIRS = len(CONFIGS) * len(TARGETS)
CI_SEEDS = range(5 * PAIRS)
# Seeds of CI_SEEDS that hit a scheduler limitation being fixed now, with the class each
# hits (python -m tests.fuzz --profile ci --seed S --count 1 shows it); run them again once
# the fixes are merged. Every other seed must verify.
DEFERRED: dict[int, str] = {}
# A hang detector, not a compile-time target: compiles are bounded by counted work (Options'
# work limits), and the time that work takes depends on the machine and its load.
HANG_S = 600.0


@pytest.mark.parametrize("seed", CI_SEEDS)
def test_random_nest_matches_the_original(seed):
    if seed in DEFERRED:
        pytest.skip(f"known scheduler limitation: {DEFERRED[seed]}")
    prog = generate(seed, CI_PROFILE)
    configs, targets = rotation(seed, tuple(CONFIGS), TARGETS)
    (outcome,) = run_program(prog, configs, targets, time_limit_s=HANG_S)
    assert outcome.status == "ok", report(prog, outcome)


# C '/' and '%' with negative operands in subscripts, bounds, conditions and bodies (issue 40)
DIVMOD_SEEDS = range(PAIRS)  # one rotation: every pair on a divmod nest


@pytest.mark.parametrize("seed", DIVMOD_SEEDS)
def test_random_divmod_nest_matches_the_original(seed):
    prog = generate(seed, "divmod")
    configs, targets = rotation(seed, tuple(CONFIGS), TARGETS)
    (outcome,) = run_program(prog, configs, targets, time_limit_s=HANG_S)
    assert outcome.status == "ok", report(prog, outcome)


def test_rotation_covers_every_configuration_and_target_pair():
    pairs = {tuple(x[0] for x in rotation(s, tuple(CONFIGS), TARGETS))
             for s in range(len(CONFIGS) * len(TARGETS))}
    assert pairs == {(c, t) for c in CONFIGS for t in TARGETS}


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_generation_is_deterministic(profile):
    assert [generate(s, profile).source for s in range(5)] == [
        generate(s, profile).source for s in range(5)]


@pytest.mark.parametrize("profile", ["full", "divmod"])
@pytest.mark.parametrize("seed", range(40))
def test_every_access_stays_inside_its_array(seed, profile):
    """Checked with isl on polycuda's own parse, independently of the generator's layout
    (which computes C's truncating '/' and '%' itself: a floor translation reads below 0)."""
    prog = generate(seed, profile)
    (scop,) = cfront.parse_source(prog.source, "fuzz.c")
    ctx = isl.Context()
    fixed = " and ".join(f"{p} = {v}" for p, v in prog.sizes.items())
    params = isl.Set.read_from_str(ctx, f"{isl_build.param_prefix(scop)} -> {{ : {fixed} }}")
    for stmt in scop.statements:
        for acc in isl_build.statement_accesses(scop, stmt):
            if scop.array(acc.array).local:
                continue
            image = isl_build.access_map(acc, stmt, ctx, tagged=False).range()
            image = image.intersect_params(params)
            shape = array_shape(scop, acc.array, prog.sizes)
            for dim, extent in enumerate(shape):
                if image.is_empty():
                    continue
                low, high = image.dim_min(dim), image.dim_max(dim)
                assert low.is_cst() and high.is_cst(), (acc, prog.source)
                assert _bounds(low)[0] >= 0 and _bounds(high)[1] < extent, prog.source


def _bounds(pw: isl.PwAff) -> tuple[int, int]:
    values: list[int] = []
    pw.foreach_piece(lambda _s, aff: values.append(aff.get_constant_val().to_python()))
    return min(values), max(values)


def test_generator_uses_every_construct_it_promises():
    text = "\n".join(generate(s).source for s in range(60))
    for construct in ("--)", "min(", "max(", "if (", "} else {", "s0 +=", "int A", "* i",
                      "sqrt(", "+=", "alpha", "[n +", "j = i"):
        assert construct in text, construct


def test_a_nest_that_never_runs_is_not_laid_out_and_one_that_runs_is():
    store = Assign(Access("A", (Aff.of("i"),)), "=", (), "1.0", "double")
    def program(low: int, high: int) -> FuzzProgram:
        loop = Loop("i", (Aff.of(None, 0, low),), (Aff.of(None, 0, high),), False, (store,))
        return FuzzProgram(0, "full", (loop,), {"n": 5}, (("A", "double", 1),))

    assert layout(program(5, 2)) is None
    assert "double A[3]" in layout(program(-2, 0)).source  # shifted: A[i + 2]
    assert "A[i + 2] = 1.0;" in layout(program(-2, 0)).source


def test_minimise_keeps_the_failure_and_shrinks():
    prog = generate(3)
    assert "if (" in prog.source and size(prog) > 10
    small = minimise(prog, lambda p: "if (" in p.source)
    # what is left: the loops around one `if` and its one statement, without reads
    region = small.source.split("#pragma scop")[1].split("#pragma endscop")[0]
    statements = [line for line in region.splitlines() if line.endswith(";")]
    assert "if (" in region and len(statements) == 1 and size(small) <= 5


def test_crash_classes_by_message():
    assert classify(VerificationError("x")) == "other: VerificationError"
    assert classify(RuntimeError("tiled schedule violates dependences: {}")) == "tiled-illegal"
    assert classify(RuntimeError(
        "call to isl_set_coefficients failed: input set not allowed to have local variables")
    ) == "pluto-local-vars"
