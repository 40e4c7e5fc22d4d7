"""Property tests (hypothesis) of the isl helpers and the size plan: C's truncating '/' and '%'
by constants as isl builds them (ir/quasi_affine.py) and as the parameter evaluator computes
them (ir/evaluate.py), against C's semantics written out here, on random integers with
negatives; and the tile and block sizes every kernel gets from the options (options.fit_sizes,
gpu/mapping.block_sizes_for). Deterministic (derandomize): the same examples on every run."""

import math

import islpy as isl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from polycuda.errors import InvalidConfigError
from polycuda.gpu.mapping import block_sizes_for
from polycuda.ir import quasi_affine
from polycuda.ir.evaluate import eval_int
from polycuda.ir.expr import BinOp, Const, Var
from polycuda.options import MAX_BLOCK_DIMS, MAX_BLOCK_THREADS, Options, fit_sizes

FAST = settings(max_examples=60, derandomize=True, deadline=None, database=None)
divisors = st.integers(-9, 9).filter(bool)


def c_div(a: int, d: int) -> int:
    """C99 6.5.5: the quotient truncated toward zero; (a / d) * d + a % d == a."""
    q = abs(a) // abs(d)
    return q if (a < 0) == (d < 0) else -q


def c_mod(a: int, d: int) -> int:
    return a - d * c_div(a, d)


def _isl_value(expr, point: int) -> int:
    space = isl.Set("{ S[i] }").get_space()
    pw = quasi_affine.pw_aff(expr, space, "test")
    return pw.eval(isl.Set(f"{{ S[{point}] }}").sample_point()).to_python()


@FAST
@given(a=st.integers(-6, 6), b=st.integers(-40, 40), d=divisors, i=st.integers(-50, 50),
       op=st.sampled_from(["/", "%"]))
def test_isl_c_division_matches_c(a, b, d, i, op):
    # (a * i + b) / d and % d: isl's tdiv_q / tdiv_r pieces, evaluated at i
    numerator = BinOp("+", BinOp("*", Const(a), Var("i")), Const(b))
    expected = (c_div if op == "/" else c_mod)(a * i + b, d)
    assert _isl_value(BinOp(op, numerator, Const(d)), i) == expected


@FAST
@given(a=st.integers(-40, 40), d1=divisors, d2=divisors, i=st.integers(-60, 60))
def test_isl_nested_c_division_matches_c(a, d1, d2, i):
    # ((i + a) / d1) % d2: a division inside a division keeps C's rounding at each
    inner = BinOp("/", BinOp("+", Var("i"), Const(a)), Const(d1))
    assert _isl_value(BinOp("%", inner, Const(d2)), i) == c_mod(c_div(i + a, d1), d2)


@FAST
@given(a=st.integers(-(1 << 62), 1 << 62), d=st.integers(-(1 << 40), 1 << 40).filter(bool))
@example(a=10**17 + 3, d=1)  # past 2^53: a float quotient loses the last digits
@example(a=-(1 << 62) - 1, d=7)
def test_evaluated_c_division_is_exact_at_any_size(a, d):
    env = {"n": a}
    assert eval_int(BinOp("/", Var("n"), Const(d)), env) == c_div(a, d)
    assert eval_int(BinOp("%", Var("n"), Const(d)), env) == c_mod(a, d)
    assert eval_int(BinOp("floordiv", Var("n"), Const(d)), env) == a // d


sizes = st.lists(st.integers(1, 512), min_size=0, max_size=4).map(tuple)
defaults = st.lists(st.integers(1, 512), min_size=1, max_size=3).map(tuple)


@FAST
@given(given_sizes=sizes, default=defaults)
def test_fit_sizes_takes_the_innermost_given_and_pads_outside(given_sizes, default):
    fitted = fit_sizes(given_sizes, default)
    assert len(fitted) == len(default)
    kept = min(len(given_sizes), len(default))
    assert fitted[len(default) - kept:] == given_sizes[len(given_sizes) - kept:]
    assert fitted[:len(default) - kept] == default[:len(default) - kept]


@FAST
@given(tiles=st.lists(st.integers(1, 4096), min_size=1, max_size=3).map(tuple))
def test_derived_blocks_fit_their_tiles_and_cuda_limits(tiles):
    blocks = block_sizes_for(tiles, Options())
    assert len(blocks) == len(tiles)
    assert all(1 <= b <= t for b, t in zip(blocks, tiles))
    assert math.prod(blocks) <= MAX_BLOCK_THREADS
    axes = ("x", "y", "z")
    assert all(b <= MAX_BLOCK_DIMS[axes[min(len(blocks) - 1 - k, 2)]]
               for k, b in enumerate(blocks))


@FAST
@given(tiles=st.lists(st.integers(1, 64), min_size=1, max_size=3).map(tuple),
       data=st.data())
def test_given_blocks_are_kept_or_refused_never_shrunk(tiles, data):
    given_blocks = tuple(data.draw(st.integers(1, 64)) for _ in range(
        data.draw(st.integers(1, len(tiles)))))
    if math.prod(given_blocks) > MAX_BLOCK_THREADS:
        return  # Options refuses such a block itself (test_options)
    options = Options(block_sizes=given_blocks)
    inner = tiles[len(tiles) - len(given_blocks):]
    if any(b > t for b, t in zip(given_blocks, inner)):
        with pytest.raises(InvalidConfigError, match="exceeds tile size"):
            block_sizes_for(tiles, options)
        return
    blocks = block_sizes_for(tiles, options)
    assert blocks[len(tiles) - len(given_blocks):] == given_blocks
