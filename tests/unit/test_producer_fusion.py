"""Producer fusion (gpu/producer_fusion.py): gemver's A update runs in the column-split kernel
of x += beta A^T y, each instance just before the one that reads its element; variants that
isl does not prove fusable keep their own kernels. Every case is checked against the
sequential program on random inputs (C, OpenMP and the CUDA emulator)."""

import islpy as isl
import pytest

import polycuda
from polycuda import pipeline
from polycuda.analysis.reductions import reduction_ops
from polycuda.gpu import producer_fusion
from polycuda.gpu.mapping import COLUMNS, ROWS
from polycuda.gpu.plan import ColumnReductionKernel, ProducerFusionKernel, ReductionKernel
from polycuda.options import Options
from polycuda.show import show

with open("kernels/c/gemver.c") as f:
    GEMVER = f.read()
TARGETS = ("c", "openmp", "emulate")


def _kernels(prog):
    """(how, reduction statement, fused producers) of every kernel, in kernel order."""
    return [(k.reduction_combine, k.reduction_statement,
             k.producer_statements if isinstance(k, ColumnReductionKernel) else ())
            if isinstance(k, ReductionKernel) else ("", "", ())
            for k in prog.generate("cuda").kernels]


def _verify(prog, sizes):
    for one in sizes:
        results = prog.verify(one, targets=TARGETS)
        assert [r.target for r in results] == list(TARGETS) and all(r.ok for r in results)


@pytest.mark.parametrize("dtype", ["double", "float"])
def test_gemver_fuses_its_update_into_the_column_kernel_and_verifies(dtype):
    text = GEMVER.replace("#define DATA_TYPE double", f"#define DATA_TYPE {dtype}")
    prog = polycuda.compile(text, options=Options(target="cuda"))
    # A's update (S0) no longer a kernel of its own: three kernels, S0 in S1's
    assert _kernels(prog) == [(COLUMNS, "S1", ("S0",)), ("", "", ()), (ROWS, "S3", ())]
    source = prog.generate("cuda").source
    kernel0 = source[source.index("kernel0("):source.index("kernel1(")]
    update = "A[(c1) * (n) + (c0)] = ((A[(c1) * (n) + (c0)] + (u1[c1] * v1[c0]))"
    assert update in kernel0 and kernel0.index(update) < kernel0.index("pc_acc +=")
    _verify(prog, ({"n": 300}, {"n": 37}, {"n": 1}))


def test_option_off_gives_the_separate_kernels():
    off = polycuda.compile(GEMVER, options=Options(target="cuda", producer_fusion=False))
    assert _kernels(off) == [("", "", ()), (COLUMNS, "S1", ()), ("", "", ()), (ROWS, "S3", ())]
    _verify(off, ({"n": 37},))


def test_show_schedule_lists_the_producer_in_the_column_kernel():
    text = show("schedule", (polycuda.compile(GEMVER, options=Options(target="cuda")),))
    s0 = text[text.index("  S0[i, j]"):text.index("  S1[i, j]")]
    assert f"kernel0: {COLUMNS}, fused: each instance just before the instance of S1" in s0


# R reads the element one row below P's (j < n - 1): every R instance reads one P's element,
# but P's row 0 feeds no R (sigma not onto P's instances)
SHIFTED = GEMVER.replace("x[i] = x[i] + beta * A[j][i] * y[j];",
                         "x[i] = x[i] + beta * A[j + 1][i] * y[j];").replace(
    "for (j = 0; j < n; j++)\n      x[i]", "for (j = 0; j < n - 1; j++)\n      x[i]")
# P reads x, which R writes
READS_X = GEMVER.replace("u2[i] * v2[j];", "u2[i] * x[j];")


@pytest.mark.parametrize("text", [SHIFTED, READS_X], ids=["not-a-bijection", "reads-x"])
def test_variants_that_must_not_fuse_keep_their_kernels_and_verify(text):
    assert text != GEMVER
    prog = polycuda.compile(text, options=Options(target="cuda"))
    assert not any(isinstance(k, ProducerFusionKernel) for k in prog.generate("cuda").kernels)
    _verify(prog, ({"n": 37},))


def _gemver_parts():
    """gemver's pieces for a hand-made schedule: the tree (S0's band, then S1's, as the
    isl-distributed scheduler makes them), its reductions, accesses and dependences."""
    prog = polycuda.compile(GEMVER, options=Options(target="cuda"))
    ctx = isl.Context()
    tree = ('{ domain: "[n] -> { S0[i, j] : 0 <= i < n and 0 <= j < n; '
            'S1[i, j] : 0 <= i < n and 0 <= j < n }", child: { sequence: [ '
            '{ filter: "[n] -> { S0[i, j] }", child: { schedule: "[n] -> [{ S0[i, j] -> [(i)] }, '
            '{ S0[i, j] -> [(j)] }]", permutable: 1, coincident: [ 1, 1 ] } }, '
            '{ filter: "[n] -> { S1[i, j] }", child: { schedule: "[n] -> [{ S1[i, j] -> [(i)] }, '
            '{ S1[i, j] -> [(j)] }]", permutable: 1, coincident: [ 1, 0 ] } } ] } }')
    seq = isl.Schedule.read_from_str(ctx, tree).get_root().child(0)
    deps = pipeline.dependence_map(prog.scop, ctx)
    context = isl.Set("[n] -> { : n >= 0 }", context=ctx)
    return seq, reduction_ops(prog.scop), pipeline._accesses(prog.scop, ctx), deps, context


def test_fusion_is_checked_with_isl():
    """The fused order P(c, r); R(c, r) keeps gemver's dependences; a dependence from R(c, r)
    to the producer of an earlier row of the same column would go backward: refused."""
    seq, reductions, accesses, deps, context = _gemver_parts()
    found = producer_fusion.fuse(seq, reductions, accesses, deps, context)
    assert found is not None and (found.producer, found.reduction) == ("S0", "S1")
    # S0[a, b] runs at column b, row a: S0[j - 1, i] just before R's iteration j - 1
    backward = isl.UnionMap("[n] -> { S1[i, j] -> S0[j - 1, i] : 0 <= i < n and 0 < j < n }",
                            context=deps.get_ctx())
    assert producer_fusion.fuse(seq, reductions, accesses, deps.union(backward),
                                context) is None


def test_sigma_is_the_bijection_between_the_instances():
    seq, _, accesses, _, context = _gemver_parts()
    p_domain, r_domain = seq.child(0).child(0).get_domain(), seq.child(1).child(0).get_domain()
    sigma = producer_fusion.sigma_of(p_domain, r_domain, accesses, context)
    want = isl.UnionMap("[n] -> { S0[a, b] -> S1[b, a] : 0 <= a < n and 0 <= b < n }",
                        context=sigma.get_ctx())
    assert sigma.is_equal(want.intersect_params(context))
    # one row of R fewer: P's last row feeds no R
    fewer = r_domain.intersect(isl.UnionSet("[n] -> { S1[i, j] : j < n - 1 }",
                                            context=sigma.get_ctx()))
    assert producer_fusion.sigma_of(p_domain, fewer, accesses, context) is None


def test_a_sequence_of_only_the_pair_fuses_into_one_kernel():
    """P and R alone: the fused band takes the whole sequence's place."""
    body = GEMVER[GEMVER.index("#pragma scop"):GEMVER.index("  for (i = 0; i < n; i++)\n    x[i]")]
    text = GEMVER[:GEMVER.index("#pragma scop")] + body + "#pragma endscop\n}\n"
    prog = polycuda.compile(text, options=Options(target="cuda"))
    assert _kernels(prog) == [(COLUMNS, "S1", ("S0",))]
    _verify(prog, ({"n": 300}, {"n": 37}))


def test_the_option_is_validated_written_out_and_read_from_the_command_line():
    from polycuda import cli
    from polycuda.errors import InvalidConfigError

    with pytest.raises(InvalidConfigError, match="producer_fusion"):
        Options(producer_fusion="no")
    off = Options(target="cuda", producer_fusion=False)
    assert Options.from_text(off.to_text()) == off and '"producer_fusion": false' in off.to_text()
    args = cli.parser().parse_args(["compile", "kernels/c/gemver.c", "--no-producer-fusion"])
    assert cli._options(args).producer_fusion is False
