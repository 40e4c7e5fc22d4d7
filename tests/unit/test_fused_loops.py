"""A host loop of kernel launches as one cooperative launch (codegen/fused_loops.py,
Options.host_loops): the loop runs inside one kernel, each launch of its body a section
followed by a grid-wide barrier. Each case is checked against the sequential program on random
inputs on the CUDA emulator, which runs cooperative launches with a real grid.sync()."""

import re

import pytest

import polycuda
from polycuda.codegen import fused_loops
from polycuda.errors import InvalidConfigError
from polycuda.options import Options
from polycuda.show import show
from kernels import suite
from tests.fuzz.generator import generate
from tests.fuzz.harness import CONFIGS, run_program


def _source(kernel, **options):
    prog = polycuda.compile(f"kernels/c/{kernel}.c",
                            options=Options(target="cuda", tuned_sizes=False, **options))
    return prog, prog.generate("cuda").source


def _emulated(prog, sizes):
    for one in sizes:
        (result,) = prog.verify(one, targets=("emulate",))
        assert result.ok, result


# trisolv: a one-thread kernel and a 1-D one per iteration; cholesky: one-thread, 1-D and
# 2-D (8 x 32) kernels; lu: a 1-D and a 2-D kernel whose threads are laid out again on the
# fused kernel's 1-D blocks
@pytest.mark.parametrize("kernel,sections", [("trisolv", ["kernel1", "kernel2"]),
                                             ("cholesky", ["kernel0", "kernel1", "kernel2"]),
                                             ("lu", ["kernel0", "kernel1"])])
def test_the_loop_runs_in_one_cooperative_launch_and_verifies(kernel, sections):
    prog, source = _source(kernel, scheduler="superposition", host_loops="grid")
    name = f"{sections[0]}_loop"
    fused = source[source.index(f"void __launch_bounds__(256) {name}("):]
    fused = fused[:fused.index("\n}\n")]
    # each launch of the loop a section, in order, each followed by the grid-wide barrier
    assert re.findall(r"/\* (kernel\d+) \*/", fused) == sections
    assert fused.count("pc_grid.sync();") == len(sections)
    assert f"cudaLaunchCooperativeKernel((void *){name}," in source
    assert not any(f"{k}<<<" in source for k in sections)  # none launched on the host
    _emulated(prog, ({"n": 37}, {"n": 1}))


def test_show_passes_names_the_fused_loops():
    prog = polycuda.compile("kernels/c/lu.c", options=Options(
        target="cuda", scheduler="superposition", tuned_sizes=False))
    text = show("passes", (prog,))
    assert "; host loops in one cooperative launch (from 128 iterations on): kernel0+kernel1" \
        in text
    launched = polycuda.compile("kernels/c/lu.c", options=Options(
        target="cuda", scheduler="superposition", tuned_sizes=False, host_loops="launches"))
    assert "cooperative" not in show("passes", (launched,))


def test_auto_keeps_the_launches_of_3d_kernels():
    # heat_3d's time loop: two kernels on 3-D grids, launched; fused only when asked
    _, auto = _source("heat_3d", scheduler="isl")
    assert "cudaLaunchCooperativeKernel" not in auto and "kernel0<<<" in auto
    _, grid = _source("heat_3d", scheduler="isl", host_loops="grid")
    assert "cudaLaunchCooperativeKernel((void *)kernel0_loop," in grid


def test_launches_keep_the_host_loop():
    prog, source = _source("lu", scheduler="superposition", host_loops="launches")
    assert "_loop(" not in source and "cudaLaunchCooperativeKernel" not in source
    assert "kernel1<<<" in source


def test_auto_chooses_at_run_time_by_the_loop_length():
    prog, source = _source("trisolv", scheduler="superposition")
    assert prog.options.host_loops == "auto"
    entry = source[source.index("kernel1_loop, dim3"):]
    # the cooperative launch when the loop runs MIN_TRIPS iterations or more, else launches
    assert f"if (pc_trips >= {fused_loops.MIN_TRIPS} && pc_cap >= 1) {{" in source
    assert "} else {" in entry and "kernel1<<<" in entry and "kernel2<<<" in entry
    # both branches verify: n - 0 iterations below and above the threshold
    _emulated(prog, ({"n": 20}, {"n": fused_loops.MIN_TRIPS + 3}))


def test_a_loop_with_a_reduction_kernel_is_not_fused_on_the_grid():
    # durbin's loop holds a many-block reduction (barriers, shared memory): no cooperative
    # launch; one block runs it instead (below)
    prog, source = _source("durbin", scheduler="superposition", host_loops="grid")
    assert "cudaLaunchCooperativeKernel" not in source and "_loop(" not in source
    assert re.search(r"kernel\d+_block<<<dim3\(1\), dim3\(256\)>>>", source)
    _emulated(prog, ({"n": 23},))


def _emulated_outputs(prog, sizes: dict[str, int]) -> dict[str, object]:
    """The arrays after the emulated entry ran on the verifier's random inputs (seed 0)."""
    import numpy as np

    from polycuda.verify import random_arguments

    args = random_arguments(prog.scop, sizes)
    prog.kernel("emulate")(**args)
    return {k: v.copy() for k, v in args.items() if isinstance(v, np.ndarray)}


# Shirako et al. 2017, Figure 3: the sequential loop inside one kernel, block barriers between
# its parallel loops. durbin's k loop (7 kernels per iteration, one a tree reduction),
# ludcmp's back substitution (a reduction and a one-thread kernel)
@pytest.mark.parametrize("kernel,scheduler,sections,sizes", [
    ("durbin", "auto", 7, {"n": 40}), ("durbin", "superposition", 7, {"n": 33}),
    ("ludcmp", "auto", 2, {"n": 30}), ("ludcmp", "isl", 2, {"n": 29})])
def test_a_loop_with_a_reduction_runs_in_one_block(kernel, scheduler, sections, sizes):
    prog, source = _source(kernel, scheduler=scheduler, host_loops="grid")
    name = re.search(r"void __launch_bounds__\(256\) (kernel\d+_block)\(", source).group(1)
    block = source[source.index(f"{name}("):]
    block = block[:block.index("\n}\n")]
    assert len(re.findall(r"/\* kernel\d+ \*/", block)) == sections
    assert block.count("\n    __syncthreads();") == sections  # after each section
    assert "pc_grid." not in block and "cooperative_groups" not in block
    assert not re.search(r"(?<!pc_)(gridDim|blockIdx)\.x", block)  # a grid of one block
    assert f"{name}<<<dim3(1), dim3(256)>>>" in source
    # the same arithmetic in the same order as the launches: equal to the last bit
    launched, _ = _source(kernel, scheduler=scheduler, host_loops="launches")
    one, many = _emulated_outputs(prog, sizes), _emulated_outputs(launched, sizes)
    assert one.keys() == many.keys()
    for array in one:
        assert (one[array] == many[array]).all(), array
    _emulated(prog, (dict(suite.by_name(kernel).small),))


def test_one_block_is_chosen_at_run_time_by_length_and_width():
    prog, source = _source("durbin")  # host_loops "auto"
    assert (f"if (pc_trips >= {fused_loops.MIN_TRIPS} && pc_g <= "
            f"{fused_loops.BLOCK_MAX_BLOCKS}) {{") in source
    entry = source[source.index("kernel1_block<<<"):]
    assert "} else {" in entry and "kernel3<<<" in entry  # the launches otherwise
    assert (f"; host loops in one block (from 128 iterations on, of at most "
            f"{fused_loops.BLOCK_MAX_BLOCKS} blocks per kernel): kernel1+kernel2+kernel3"
            ) in show("passes", (prog,))
    # above MIN_TRIPS (one block: kernel5's grid of (n + 254) / 256 = 1) and below: both verify
    # against the sequential program (durbin's recursion amplifies the reduction's rounding
    # past the tolerance from n ~ 200 on random inputs, fused or not: not a larger n)
    big = fused_loops.MIN_TRIPS + 5
    launched, _ = _source("durbin", host_loops="launches")
    one, many = _emulated_outputs(prog, {"n": big}), _emulated_outputs(launched, {"n": big})
    assert all((one[a] == many[a]).all() for a in one)
    _emulated(prog, ({"n": 20},))


def test_a_missing_block_barrier_is_caught_by_the_emulator():
    # the check can fail: without the barrier after kernel4's section (thread 0: alpha =
    # -alpha / beta), kernel5's threads may read alpha before it is written (the emulator runs
    # a block's threads in a shuffled order)
    prog, source = _source("durbin", host_loops="grid")
    barrier = source.index("__syncthreads();", source.index("/* kernel4 */"))
    broken = source[:barrier] + source[barrier + len("__syncthreads();"):]
    from polycuda.runtime import emulate, launch
    from polycuda.verify import random_arguments

    run = launch.load(emulate.build_emulated(broken), prog.scop, "emulate")
    args = random_arguments(prog.scop, {"n": 40})
    run(**args)
    expected = _emulated_outputs(prog, {"n": 40})
    assert any(not (args[a] == expected[a]).all() for a in expected)


def test_a_loop_whose_threads_loop_keeps_its_launches():
    # gramschmidt under isl: the k loop's update kernel runs a loop over m in each thread;
    # in one block its 4 blocks' loops would run one after another (2.0x slower on the H100)
    _, source = _source("gramschmidt", scheduler="isl", host_loops="grid")
    assert "_block(" not in source and "kernel5<<<" in source
    assert not fused_loops.grid_strided_only(["for (int c2 = 0; (c2 < m); c2 += 1) {"])
    assert fused_loops.grid_strided_only(
        ["for (int c1 = (int)blockIdx.x; (c1 <= n / 256); c1 += (int)gridDim.x) {"])


def test_a_reduction_combined_by_a_pass_keeps_its_launches():
    # the partial-array pass (file-scope partials, the last block combines) is not a section
    _, source = _source("durbin", host_loops="grid", reduction_combine="pass")
    assert "_block(" not in source and "kernel3<<<" in source


def test_one_block_needs_every_barrier_section_at_the_block_threads():
    tree = fused_loops.Section("r", ("1",), (256,), ("__syncthreads();",))
    wide = fused_loops.Section("w", ("n",), (1024,), ("x[threadIdx.x] = 0;",))
    serial = fused_loops.Section("s", (), (), ("y[0] = 1;",))
    assert fused_loops.one_block_fusable([tree, serial])
    assert not fused_loops.one_block_fusable([tree, wide])  # 768 threads would skip the tree


def test_a_loop_that_isl_splits_gets_a_kernel_per_copy():
    # fuzz seed 1024: isl's AST runs kernel0 in three host loops; each became `kernel0_loop`,
    # and the emulator's build failed on the redefinition
    prog = generate(1024)
    program = polycuda.compile(prog.source, options=CONFIGS["grid-loops"], filename="fuzz.c")
    source = program.generate("cuda").source
    assert all(f"void __launch_bounds__(256) kernel0_loop{s}(" in source
               for s in ("", "_1", "_2"))
    (outcome,) = run_program(prog, ("grid-loops",), ("emulate",))
    assert outcome.status == "ok", outcome.message


def test_a_section_with_a_barrier_is_refused():
    assert fused_loops.fusable(["x[i] = 1;"])
    assert not fused_loops.fusable(["__syncthreads();"])
    assert not fused_loops.fusable(["v = __shfl_xor_sync(0xffffffffu, v, 1);"])


def test_a_section_lays_its_grid_and_threads_on_the_fused_kernel():
    section = fused_loops.Section("k", ("(n + 31) / 32", "(n + 7) / 8"), (32, 8),
                                  ("a[threadIdx.y][threadIdx.x] = blockIdx.y + gridDim.x;",))
    text = "\n".join(fused_loops.section_lines(section, ""))
    assert "const unsigned pc_gy = (unsigned)pc_min(pc_max((long long)((n + 7) / 8), 1LL), " \
           "(long long)(pc_blocks / (pc_gx)));" in text
    assert "if (blockIdx.x < pc_gx * pc_gy && threadIdx.x < 256u) {" in text
    assert "const unsigned pc_threadIdx_y = (threadIdx.x / 32u) % 8u;" in text
    assert "const unsigned pc_blockIdx_y = (blockIdx.x / (pc_gx)) % pc_gy;" in text
    assert "a[pc_threadIdx_y][pc_threadIdx_x] = pc_blockIdx_y + pc_gridDim_x;" in text
    assert text.endswith("pc_grid.sync();")


def test_an_unknown_value_is_refused():
    with pytest.raises(InvalidConfigError, match="host_loops"):
        Options(host_loops="threads")


@pytest.mark.gpu
@pytest.mark.parametrize("kernel,scheduler", [
    ("trisolv", "isl"), ("trisolv", "superposition"), ("cholesky", "isl"),
    ("cholesky", "superposition"), ("lu", "superposition"), ("ludcmp", "isl"),
    ("ludcmp", "superposition"), ("jacobi_2d", "isl"), ("sor_2d", "isl"), ("adi", "auto")])
def test_fused_loops_verify_on_the_gpu(kernel, scheduler):
    # real co-residency, occupancy and grid.sync(): always fused at the suite's small sizes;
    # auto also at a length above MIN_TRIPS, where it fuses too. Not lu and ludcmp there:
    # without pivoting, on the verifier's random matrices, their rounding (nvcc contracts
    # a * b + c into one fma, gcc does not) grows past the tolerance at n = 137 whether the
    # loop is fused or not
    sizes = dict(suite.by_name(kernel).small)
    longer = {**sizes, **{k: fused_loops.MIN_TRIPS + 9 for k in ("n", "T") if k in sizes}}
    cases = [("grid", sizes)]
    if kernel not in ("lu", "ludcmp"):
        cases.append(("auto", longer))
    for host_loops, one in cases:
        prog, source = _source(kernel, scheduler=scheduler, host_loops=host_loops)
        assert "cudaLaunchCooperativeKernel" in source
        (result,) = prog.verify(one, targets=("cuda",))
        assert result.ok, result


@pytest.mark.gpu
@pytest.mark.parametrize("kernel,scheduler", [("durbin", "auto"), ("ludcmp", "auto"),
                                              ("ludcmp", "superposition"),
                                              ("durbin", "superposition")])
def test_one_block_loops_verify_on_the_gpu(kernel, scheduler):
    # forced at the suite's small sizes, against the sequential program; at a length above
    # MIN_TRIPS under auto (one block at run time), against the launches, to the last bit
    # (the same operations in the same order; not against the sequential program there, as
    # for lu and ludcmp above)
    prog, source = _source(kernel, scheduler=scheduler, host_loops="grid")
    assert "_block<<<dim3(1)" in source
    (result,) = prog.verify(dict(suite.by_name(kernel).small), targets=("cuda",))
    assert result.ok, result
    sizes = {k: fused_loops.MIN_TRIPS + 9 for k in suite.by_name(kernel).small}
    auto, _ = _source(kernel, scheduler=scheduler)
    launched, _ = _source(kernel, scheduler=scheduler, host_loops="launches")
    import numpy as np

    from polycuda.verify import random_arguments

    outputs = []
    for one in (auto, launched):
        args = random_arguments(one.scop, sizes)
        one.kernel("cuda")(**args)
        outputs.append({k: v for k, v in args.items() if isinstance(v, np.ndarray)})
    assert all((outputs[0][a] == outputs[1][a]).all() for a in outputs[0])
