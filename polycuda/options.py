"""The frozen Options that steer code generation; written out and read back as text."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import json
import math
from dataclasses import dataclass
from typing import Any

from polycuda.errors import InvalidConfigError, UnknownOptionError

TARGETS = ("auto", "c", "openmp", "cuda")  # auto: cuda when a GPU is present, else openmp
SCHEDULERS = ("auto", "isl", "pluto", "isl-distributed", "superposition")
# How the inter-tile wavefronts of a wavefront kernel are ordered (Di et al. 2012, Section
# III-C): one launch per wavefront, or one cooperative launch whose blocks loop over the
# wavefronts with a grid-wide barrier between them.
WAVEFRONT_SYNCS = ("kernels", "grid")
# A host loop of kernel launches: in one cooperative kernel when it runs many iterations
# (auto), launched per iteration, or always in one cooperative kernel (codegen/fused_loops.py)
HOST_LOOPS = ("auto", "launches", "grid")
# How the points of a wavefront tile are ordered: "auto" along the band's first hyperplane when
# it strictly increases along every dependence inside the tile (Di et al. 2012, Theorem 2),
# else along the skewed sum of the point coordinates; "sum" always the skewed sum, as PLUTO's
# CUDA (Di et al. 2012, Figure 5: the baseline of their Figures 12-13).
INTRA_WAVEFRONTS = ("auto", "sum")
# How the blocks of a many-block reduction kernel combine their results into the cell
# (gpu/mapping.py, reduction_combine): "auto" by atomicAdd for `+=` and `-=` (floating-point
# results then depend on the order in which blocks finish), and by a pass over a partial array
# for `*=` (no atomic multiply in hardware); "pass" always by the pass, in a fixed order (the
# same result on every run at one grid size).
REDUCTION_COMBINES = ("auto", "pass")
# Most blocks of a reduction kernel: its partial array (one entry per block) is this long.
MAX_REDUCTION_BLOCKS = 1024
# The Options fields that bound a solver's work (counted, machine-independent; see the fields)
WORK_LIMITS = ("schedule_operations", "schedule_max_constraints", "ast_operations",
               "auto_candidate_operations", "pluto_ilp_solves")
# CUDA host entry `pc_<name>` (codegen/host_driver.py): device buffers allocated and freed in
# every call, or kept in the generated file across calls (grown when a call needs more bytes,
# freed by `pc_<name>_release()` and at exit).
HOST_BUFFERS = ("per-call", "reuse")
# How the host entry copies the user's arrays: pageable cudaMemcpy; the arrays page-locked for
# the call (cudaHostRegister); or through a reused page-locked staging buffer, in chunks whose
# copy engine transfer overlaps the CPU's memcpy of the next chunk (double buffering).
HOST_COPIES = ("pageable", "register", "staged")
# The options of the host entry alone: they change no kernel (tune results, sub-regions of the
# inspector/executor's entry ignore them).
HOST_SIDE_FIELDS = ("host_buffers", "host_copies", "host_pin_min_kib", "host_chunk_kib",
                    "host_overlap", "serial_region", "host_fallback")
# Where the CUDA entries run a region with no parallel loop (every kernel one thread): on the
# CPU (the host entry on the host arrays; the device entry by a rule), or in one-thread kernels.
SERIAL_REGIONS = ("cpu", "gpu")
# Whether a call of a CUDA region may run its original program on the host (Options.host_fallback)
HOST_FALLBACKS = ("auto", "never", "always")
# How the levels of a run-time nest run on cuda (codegen/inspector_cuda.py): one launch per
# level (Anantpur & Govindarajan 2013, Algorithms 5-6, pipelined with the inspection), one
# launch for all levels whose iterations wait on done-counters (codegen/executor_cuda.py), or
# per call by the rule of executor_cuda.SYNCFREE_MIN_LEVELS.
RUNTIME_EXECUTORS = ("levels", "syncfree", "syncfree-affine", "syncfree-affine-warp", "auto")
# Run-time nests on cuda: the inspector's auxiliary array of each monitored array holds
# 1/aux_fraction of its cells, indexed by cell mod its size (Anantpur & Govindarajan 2013,
# Section 3.5.1, Tables 4 and 6: 1, 1/2, 1/4, 1/8).
AUX_FRACTIONS = (1, 2, 4, 8)
# Run-time nests on cuda: the inspector's chunking (codegen/chunking_cuda.py): none; static
# (Section 3.5.1: aux_fraction chunks of the iterations, chunk k starting at level k); dynamic
# (Section 3.5.2: static, plus more levels per chunk when a pass sees many nearby conflicts).
RUNTIME_CHUNKINGS = ("none", "static", "dynamic")


def fit_sizes(given: tuple[int, ...], default: tuple[int, ...]) -> tuple[int, ...]:
    """Per-dimension sizes for len(default) dimensions, outermost first: the last entries of
    `given` (tile_sizes / block_sizes apply to the innermost dimensions), padded on the
    outside with `default`'s; `default` itself when nothing is given.

    Example:
        >>> fit_sizes((16, 64), (4, 4, 32)), fit_sizes((8, 16, 64), (256,))
        ((4, 16, 64), (64,))
    """
    n = len(default)
    if not given:
        return default
    if len(given) >= n:
        return tuple(given[len(given) - n:])
    return default[: n - len(given)] + tuple(given)


def option(default: object, *, help: str | None = None, command: str | None = None,
           api_only: str | None = None, flag: str | None = None, metavar: str | None = None,
           choices: tuple | None = None, parse: str | None = None, code: bool = True,
           alias: str | None = None) -> Any:
    """An Options field declared once: its default and, in the field's metadata, what the
    command line derives from it (polycuda/cli.py, add_option_flags): the help text (which
    never states the default: the help shows the field's own), the flag (default `--` + the
    field's name with dashes; a bool field gets `--name` / `--no-name`), its metavar and
    choices, and `parse` for a value that is neither the default's type nor a tuple of sizes.
    `command`: the flag is declared by each command itself (why, instead of help); `api_only`:
    no flag (why). `code=False`: the field changes no generated code (not compared, not in
    to_text, so it is in no cache key). `alias`: one more flag, for a bool field the one that
    sets it False (`--quiet` for progress).

    Example:
        >>> [flag_of(f) for f in dataclasses.fields(Options)[1:3]]
        ['--scheduler', '--tile-sizes']
    """
    given = sum(x is not None for x in (help, command, api_only))
    assert given == 1, "an option has exactly one of help, command and api_only"
    metadata = {"help": help, "command": command, "api_only": api_only, "flag": flag,
                "metavar": metavar, "choices": choices, "parse": parse, "code": code,
                "alias": alias}
    return dataclasses.field(default=default, compare=code, metadata=metadata)


def flag_of(f: dataclasses.Field) -> str:
    """The command-line flag of an Options field (`--tile-sizes` for tile_sizes)."""
    return f.metadata.get("flag") or "--" + f.name.replace("_", "-")


def shown_default(value: object) -> str:
    """An option's default as the command line's help shows it."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple):
        return ",".join(map(str, value)) or "none"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


# CUDA's limits on one block (every GPU since compute capability 2.0): threads in all, and
# threads along x, y, z. block_sizes lists the mapped dimensions outermost first and the
# innermost goes to x, so the limits apply to the entries from the last one backwards.
MAX_BLOCK_THREADS = 1024
MAX_BLOCK_DIMS = {"x": 1024, "y": 1024, "z": 64}


def _check_block_sizes(sizes: tuple[int, ...]) -> None:
    """Refuse a block that no GPU launches, rather than shrinking it behind the user's back."""
    if any(b < 1 for b in sizes):
        raise InvalidConfigError(f"block_sizes={sizes} must all be >= 1")
    if len(sizes) > len(MAX_BLOCK_DIMS):
        raise InvalidConfigError(f"block_sizes={sizes} has {len(sizes)} entries: a block has at "
                                 "most 3 dimensions (z, y, x)")
    for axis, size in zip(("x", "y", "z"), reversed(sizes)):
        if size > MAX_BLOCK_DIMS[axis]:
            raise InvalidConfigError(f"block size {size} along {axis} (block_sizes={sizes}) "
                                     f"exceeds CUDA's limit of {MAX_BLOCK_DIMS[axis]}")
    threads = 1
    for b in sizes:
        threads *= b
    if threads > MAX_BLOCK_THREADS:
        raise InvalidConfigError(f"block_sizes={sizes} is {threads} threads per block: CUDA "
                                 f"allows at most {MAX_BLOCK_THREADS}")


@dataclass(frozen=True)
class Options:
    """Everything that changes the generated code.

    Example:
        >>> Options(target="cuda", tile_sizes=(32, 32)).to_text()
        '{"scheduler": "auto", "target": "cuda", "tile_sizes": [32, 32]}'
    """

    target: str = option("auto",
        command="each command declares its own --target (compile and show: cuda, c or openmp, "
        "default cuda; run and demo: also auto, default auto)")
    # "isl" (isl's scheduler, PPCG's), "pluto" (Farkas ILP, schedule/pluto.py),
    # "isl-distributed" (isl's, one loop nest per strongly connected component), "superposition"
    # (Shirako et al. 2017: block-level and thread-level schedules superposed, the DL model's
    # coalescing loop on thread x; schedule/superposition.py) or "auto": on the cuda target
    # each of pipeline.AUTO_SCHEDULERS (superposition only where AUTO_MIN_DEPTH says), and the
    # one whose mapping has the fewest loops of parametric
    # length outside blocks and threads, then in threads, then the fewest launches
    # (gpu/cost.py; ties: the first of pipeline.AUTO_SCHEDULERS); on c and openmp, isl.
    scheduler: str = option("auto", choices=SCHEDULERS,
        help="auto (on cuda: whichever of isl, pluto, isl-distributed and superposition maps with "
        "the fewest sequential loops of parametric length, then launches, superposition tried only "
        "where the others leave 2 or more such loops on the longest path; `show schedule` gives the "
        "table; isl on c and openmp), isl (PPCG-like), pluto (Farkas ILP), isl-distributed (isl's, "
        "each strongly connected component of the dependence graph in its own loop nest) or "
        "superposition (Shirako et al. 2017: separate block- and thread-level schedules "
        "superposed, the DL model's coalescing loop on thread x)")
    # Tile sizes of the mapped band, outermost first; () picks the defaults of gpu.mapping.
    tile_sizes: tuple[int, ...] = option((),
        help="e.g. 8,32 (outermost first; the last entries apply to each kernel's innermost mapped "
        "loops); none: gpu/mapping's sizes, or those of an earlier `polycuda tune`")
    # Threads per block along each mapped dimension, outermost first; () derives from tiles.
    block_sizes: tuple[int, ...] = option((),
        help="threads per block, e.g. 8,32 (outermost first, as --tile-sizes; at most 1024 "
        "threads, z <= 64, each at most its tile size); none: derived from the tile sizes")
    # Per-kernel sizes (polycuda/size_plan.py: PPCG's --sizes notation, an isl union map from
    # kernel[k] to tile / block / registers / sequential): each kernel's entries act as
    # tile_sizes, block_sizes, register_tiles and sequential_tile for that kernel alone.
    # The command line's --sizes also takes a file holding a plan, or the JSON of --dump-sizes.
    sizes: str = option("", metavar="PLAN|FILE",
        help="per-kernel sizes in PPCG's notation, e.g. '{ kernel[0] -> tile[64,64]; kernel[0] "
        "-> block[16,32]; kernel[1] -> registers[4,2]; kernel[1] -> sequential[16] }' (kernel[k] "
        "is the region's kernel<k>; each entry acts as --tile-sizes, --block-sizes, "
        "--register-tiles or --sequential-tile for that kernel alone), or a file holding one or "
        "written by --dump-sizes; none: each kernel as the other size options say")
    # Most band members mapped to the CUDA grid/block (1..3).
    max_mapped_dims: int = option(3, choices=(1, 2, 3),
        help="CUDA: most band members mapped to the grid and the block")
    # Verification builds: run parallel loops of CPU targets in a permuted order.
    shuffle_parallel: bool = option(False,
        help="builds of the c and openmp targets: run parallel loops in a permuted order (what "
        "`verify` does to catch a wrongly parallel loop)")
    # pluto scheduler: Di et al. 2012 Theorem 2 (first hyperplane strictly satisfies every
    # self dependence: balanced intra-tile wavefronts), Algorithm 1.
    balanced_wavefront: bool = option(False,
        help="pluto: Di et al. 2012 Theorem 2 constraint (balanced intra-tile wavefronts); needs "
        "--scheduler pluto")
    # Di et al. 2012 Algorithm 2: copy arrays to remove parallelism-hindering false deps.
    eliminate_false_deps: bool = option(False,
        help="copy arrays to remove parallelism-hindering false dependences (Di et al. 2012, "
        "Algorithm 2)")
    # Give region-local scalars, and arrays, written and read in one iteration of their loops
    # a cell per iteration (schedule/expand.py), and let reads of values from before their
    # loop nest read a copy taken there (false_deps.copy_original_reads), so that those loops
    # can run in parallel.
    expand_scalars: bool = option(True,
        help="give each region-local scalar or array set and read in one iteration of its loops a "
        "cell per iteration, and let reads of values from before their loop nest read a copy taken "
        "there, so that the loops can run in parallel")
    # CUDA: a loop of one reduction statement (`x += e`, `x *= e`) that would run in one
    # thread is summed by blocks of threads instead, in a different order: floating-point
    # results differ from the sequential ones by rounding (verify's tolerance allows it).
    allow_reassociation: bool = option(True,
        help="cuda: sum a reduction loop that would run in one thread with a block of threads, in "
        "another order (floating-point results then differ by rounding)")
    # CUDA, with allow_reassociation: blocks of a reduction kernel. 0: enough to fill the GPU,
    # min(ceil(L / 1024), 4 x SMs) for a loop of L iterations, read at run time; N: at most N
    # (1: one block, no atomics and no partial array). At most MAX_REDUCTION_BLOCKS.
    reduction_blocks: int = option(0, metavar="N",
        help=f"cuda: blocks of a reduction kernel: 0 fills the GPU, min(ceil(L / 1024), 4 x SMs) "
        f"for L iterations; N: at most N (1: one block); at most {MAX_REDUCTION_BLOCKS}")
    # REDUCTION_COMBINES: how the blocks of a reduction kernel combine their partial results.
    reduction_combine: str = option("auto", choices=REDUCTION_COMBINES,
        help="cuda: the blocks of a reduction kernel combine their results by atomicAdd for += and "
        "-= and a pass over a partial array for *= (auto), or always by the pass, in a fixed order "
        "(pass: the same floating-point result on every run)")
    # Tile permutable bands that have no parallel member and run them as two-level wavefronts
    # (tiles of one wavefront on blocks, points of one intra-tile wavefront on threads).
    wavefront: bool = option(True,
        help="tile permutable bands that have no parallel member and run them as two-level "
        "wavefronts (tiles of one wavefront on blocks, points of one intra-tile wavefront on "
        "threads)")
    # WAVEFRONT_SYNCS: the inter-tile wavefronts ordered by kernel boundaries or a grid barrier.
    wavefront_sync: str = option("kernels", choices=WAVEFRONT_SYNCS,
        help="order inter-tile wavefronts by kernel launches (kernels) or by a grid-wide barrier "
        "in one cooperative launch (grid)")
    # HOST_LOOPS: a host loop whose body is kernel launches, one launch per iteration and
    # kernel, or the whole loop in one cooperative launch with a grid-wide barrier after each
    # kernel's part (codegen/fused_loops.py; kernels with reductions, shared memory or
    # barriers keep their launches); auto: the second when the loop's kernels have at most
    # 2 grid dimensions and it runs at least fused_loops.MIN_TRIPS iterations (decided at run
    # time).
    host_loops: str = option("auto", choices=HOST_LOOPS,
        help="a host loop whose body is kernel launches: the whole loop in one cooperative launch, "
        "a grid-wide barrier after each kernel's part, when its kernels have at most 2 grid "
        "dimensions and it runs 128 iterations or more (auto), always (grid), or one launch per "
        "iteration (launches)")
    # INTRA_WAVEFRONTS: the intra-tile wavefronts of a wavefront tile.
    intra_wavefront: str = option("auto", choices=INTRA_WAVEFRONTS,
        help="points of a wavefront tile: along the first hyperplane where Theorem 2 holds, else "
        "the skewed sum (auto), or always the skewed sum (sum, as PLUTO's CUDA in Di et al. 2012, "
        "Figure 5)")
    # Stage each wavefront tile's data in shared memory when it fits (gpu/staging.py).
    shared_staging: bool = option(False,
        help="stage each wavefront tile's data in shared memory when it fits")
    # Shared memory (KiB) that the staged tiles of one block may use. Staged copies live in
    # dynamic shared memory; above 48 KiB the kernel opts in (cudaFuncSetAttribute), which
    # the GPU must allow (H100: 227 KiB, A100: 163 KiB), else the launch reports an error.
    shared_memory_kib: int = option(48, flag="--shared-memory", metavar="KIB",
        help="shared memory per block, KiB, for staged tiles (above 48 the kernel opts in to more: "
        "H100 allows 227, A100 163) and promoted ones (at most 48)")
    # CUDA: hold one block's tile of an array that its threads reuse in shared memory in DOALL
    # kernels, the band's sequential members tiled too so that a tile is loaded per tile of
    # them (gpu/shared_promotion.py); within shared_memory_kib, at most 48 KiB. Combined with
    # register_tiles, the array that one thread updates across those tiles (gemm's C) stays in
    # registers across them (gpu/carry.py). On by default: kernel-only on the H100 at n = 1024,
    # the gemm-like layout (64x64 tiles, 4x2 points per thread, k tiles of 16) took gemm from
    # 0.643 to 0.348 ms (39% of cuBLAS), 2mm 1.30 -> 0.70, syrk 2.29 -> 0.43, syr2k 4.58 -> 0.78
    # (bench/results/2026-11-25-nvidia-h100-80gb-hbm3-gemm-sweep.json).
    shared_promotion: bool = option(True,
        help="CUDA: hold each block's tile of an array that its threads reuse in shared memory in "
        "DOALL kernels, loaded per tile of the loops inside the kernel (gemm's k), when it fits "
        "--shared-memory (at most 48 KiB)")
    # shared_promotion: tile size of the band members after the mapped ones (gemm's k), the
    # depth of one block's A and B tiles; 0: automatic (16 in the gemm-like default layout of
    # 64x64 tiles with 4x4 register tiles, else PPCG's 32: gpu/shared_promotion.py).
    sequential_tile: int = option(0, metavar="N",
        help="with --shared-promotion: tile size of the loops inside the kernel (gemm's k), the "
        "depth of each block's shared tiles; 0: automatic (16 in the gemm-like layout of 64x64 "
        "tiles with 4x4 register tiles, else 32)")
    # CUDA: hold an array element that one thread accesses repeatedly (and no other thread
    # touches) in a register over the loops that reuse it (gpu/promotion.py).
    private_promotion: bool = option(True,
        help="CUDA: hold in a register an array element that one thread accesses repeatedly and no "
        "other thread touches, over the loops that reuse it")
    # CUDA, with allow_reassociation: a parallel loop whose body reduces along the loop that
    # makes its reads coalesce (y[i] += A[i][j] * x[j]) runs its rows on blocks and the
    # reduction loop on the threads of each row, a tree per row (gpu/row_reduction.py).
    row_reductions: bool = option(True,
        help="CUDA: run a parallel loop of reductions along the loop that makes its reads coalesce "
        "(y[i] += A[i][j] * x[j]) with its rows on blocks and the reduction loop on the threads of "
        "each row (off: each thread sums its row)")
    # CUDA, with allow_reassociation and atomics (reduction_combine "auto", reduction_blocks not
    # 1): a parallel loop that makes the reads coalesce, whose body is a `+=` / `-=` reduction
    # loop of parametric length (y[j] += A[i][j] * x[i]), runs its columns on threads and
    # chunks of the reduction loop on blockIdx.y, each chunk's sum added with atomicAdd
    # (gpu/column_reduction.py). With row_reductions or this: a fused nest of statements that
    # would run as row or column reductions alone is distributed where isl proves it legal.
    column_reductions: bool = option(True,
        help="CUDA: run a parallel loop of `+=` / `-=` reductions along another loop (y[j] += "
        "A[i][j] * x[i]) with its columns on threads and chunks of the reduction loop on blocks "
        "with atomicAdd (off: one column per thread)")
    # CUDA, with row_reductions and column_reductions' conditions: a row and a column reduction
    # of one matrix (bicg: q[i] += A[i][j] * p[j] and s[j] += r[i] * A[i][j]) run as one kernel
    # that reads the matrix once (gpu/dual_reduction.py), where isl proves the fused order legal.
    dual_reductions: bool = option(True,
        help="CUDA: run a row and a column reduction of one matrix (bicg's q[i] += A[i][j] * p[j] "
        "and s[j] += r[i] * A[i][j]) as one kernel that reads the matrix once (off: two kernels)")
    # CUDA, with row_reductions and column_reductions' conditions: a row reduction and a
    # column reduction of one matrix that reads the row's result (atax: tmp[i] += A[i][j] *
    # x[j], then y[j] += A[i][j] * tmp[i]) run as one kernel that reads the matrix once, rows
    # on blocks and each thread's elements of the row in registers (gpu/chain_reduction.py),
    # where isl proves the fused order legal.
    chain_reductions: bool = option(True,
        help="CUDA: run a row reduction and a column reduction of one matrix that reads its result "
        "(atax's tmp[i] += A[i][j] * x[j], then y[j] += A[i][j] * tmp[i]) as one kernel that reads "
        "the matrix once (off: two kernels)")
    # CUDA, with column_reductions' conditions: a DOALL statement that writes, one to one, the
    # elements a column-split reduction right after it reads (gemver: A's update, then x +=
    # A^T y) runs in the reduction's kernel, each instance just before the one that reads its
    # element (gpu/producer_fusion.py), where isl proves the fused order legal: one pass over
    # the matrix fewer.
    producer_fusion: bool = option(True,
        help="CUDA: run a DOALL statement that writes the elements a column-split reduction right "
        "after it reads (gemver's A update, then x += A^T y) in the reduction's kernel, each "
        "instance just before the one that reads its element (off: its own kernel)")
    # CUDA: points per thread along each mapped dimension of a DOALL kernel, outermost first (the
    # last entries apply to the innermost, as tile_sizes), unrolled and jammed into the thread's
    # innermost code (gpu/register_tiling.py); each must divide its tile size. () or 1s: off.
    register_tiles: tuple[int, ...] = option((),
        help="CUDA: points per thread along each mapped loop of a parallel kernel, e.g. 2,2 "
        "(outermost first, as --tile-sizes; each divides its tile size), unrolled and jammed with "
        "their accumulators in registers; none or 1s: off")
    # CUDA, scheduler "auto", no size given: where the candidate of least cost and the next one
    # differ in kernel launches alone, and which is faster depends on the parameters (1-D
    # Jacobi: two launches per time step under isl, one per wavefront of tiles under Pluto,
    # whose number grows with n), both are compiled into one file and each call of the entries
    # runs the one that a rule on bounds of their launches' time and of the work picks at its
    # parameters (gpu.cost.LAUNCH_NS, pipeline.runtime_choice). On the H100, 1-D Jacobi at
    # n = 2^24 x 100 steps: 21.3 ms against Pluto's 2,026 ms alone; over 29 sizes of 4 stencils
    # the default was within 2% of the faster schedule but once (8%) (bench/results/2026-11-26-
    # nvidia-h100-80gb-hbm3-runtime-choice.json). False: the least cost's alone.
    runtime_choice: bool = option(True,
        help="CUDA, --scheduler auto: also compile the runner-up schedule that differs from the "
        "least-cost one in kernel launches alone, and choose per call by the launch and work "
        "bounds at its sizes (1-D Jacobi)")
    # Work limits of the bounded solver calls, in isl operations (every allocation and every
    # simplex pivot isl makes: schedule/budget.py), so that a compile hits or misses a limit
    # alike on every machine and under any load. Past one, a simpler step is used, with a
    # PolycudaWarning and a note in `show schedule`. Each scheduler of the fallback chain
    # (schedule/fallback.py), the false-dependence elimination and the superposition report of
    # `show schedule`:
    schedule_operations: int = option(600_000, metavar="N",
        help="work limit, in isl operations, of each scheduler of the fallback chain, the "
        "false-dependence elimination and the superposition report (past it: a simpler step, with "
        "a warning)")
    # The size of the scheduling problem that each scheduler of the chain accepts: constraints
    # and dimensions of the dependence polyhedra, summed (fallback.problem_size): isl counts a
    # pivot of a large tableau as one operation, so large problems are refused before any
    # solver runs.
    schedule_max_constraints: int = option(8_000, metavar="N",
        help="the largest scheduling problem (constraints and dimensions of the dependence "
        "polyhedra, summed) that each scheduler of the fallback chain accepts")
    # The AST build of the mapped schedule (past it: the original order's code). Above the
    # default configuration's largest build of the suite (bench/solver_operations.py counts
    # them; bench/results/2026-12-02-cpu-ast-operations.json), not far above: isl's time per
    # operation varies by more than an order of magnitude between schedules (integer
    # sampling on sets with many existentials, from `/`, `%` and skewed tiles, works on large
    # coefficients), so a give-up at a much higher limit takes minutes.
    ast_operations: int = option(5_000_000, metavar="N",
        help="work limit, in isl operations, of the AST build (past it: the original order's code, "
        "with a warning)")
    # Scheduler "auto": each candidate after the first (past it: skipped, no warning: the
    # first candidate's whole fallback chain already gave a schedule).
    auto_candidate_operations: int = option(600_000, metavar="N",
        help="--scheduler auto: work limit, in isl operations, of each candidate after the first "
        "(past it: that candidate is skipped)")
    # Scheduler "pluto": ILP solves (feasibility tests and lexmins of the Farkas ILP, pluto.py)
    # per schedule, a bound on its Python-level search that isl's count does not see.
    pluto_ilp_solves: int = option(5_000, metavar="N",
        help="--scheduler pluto: ILP solves of the Farkas ILP per schedule (past it: the fallback "
        "chain's next step)")
    # Wall-clock seconds one bounded call may run (schedule/budget.run_bounded): a safety net far
    # above any normal compile, not a budget. The work limits above alone decide the code: a
    # call past the net fails the compile (SolverTimeoutError, also from inside another bounded
    # call), it is never a give-up that falls back to other code, and a result the solver has
    # already sent is used however late the parent reads it. So the field changes no code
    # (code=False: not in to_text or the tune cache key).
    solver_timeout_s: float = option(600.0, flag="--solver-timeout", metavar="SECONDS",
        code=False,
        help="wall-clock safety net of one bounded solver call (a runaway): past it the compile "
        "fails with an error; it never falls back to other code, so on a loaded machine the "
        "code is the same or there is none (the work limits decide the code)")
    # CUDA: when neither tile_sizes nor block_sizes is given, take those of the latest
    # `polycuda tune` of this region (same options) on this GPU, from the tune cache
    # (Program.effective_options; tune/search.lookup). False: the defaults of gpu/mapping.
    tuned_sizes: bool = option(True,
        help="cuda: when no --tile-sizes / --block-sizes is given, take the sizes of the latest "
        "`polycuda tune` of this region on this GPU")
    # CUDA host entry: HOST_BUFFERS (device buffers per call or reused across calls). Default
    # reuse, with register copies: measured on the H100 (bench/host_side.py, 2026-11-25:
    # gemm, gemver, atax, jacobi-2d, doitgen at PolyBench LARGE), the whole drop-in function
    # took 0.49-0.76 of its time with per-call buffers and pageable copies; staged copies were
    # slower than pageable ones (1.04-1.16).
    host_buffers: str = option("reuse", choices=HOST_BUFFERS,
        help="cuda host entry: allocate and free the device arrays in every call (per-call) or "
        "keep them across calls (reuse: grown when a call needs more, freed by pc_<name>_release() "
        "and at exit)")
    # CUDA host entry: HOST_COPIES (pageable, register or staged copies in and out).
    host_copies: str = option("register", choices=HOST_COPIES,
        help="cuda host entry: copy the arrays in and out as pageable memory (pageable), "
        "page-locked for the call (register: cudaHostRegister), or through a reused page-locked "
        "buffer in double-buffered chunks (staged)")
    # host_copies register / staged: arrays of fewer KiB are copied as pageable memory (pinning
    # or staging costs more than it saves on a small copy).
    host_pin_min_kib: int = option(1024, flag="--host-pin-min", metavar="KIB",
        help="--host-copies register/staged: arrays under KIB KiB are copied as pageable memory")
    # host_copies staged: KiB per chunk; the staging buffer holds two chunks.
    host_chunk_kib: int = option(4096, flag="--host-chunk", metavar="KIB",
        help="--host-copies staged: KiB per chunk of the staging buffer (the buffer holds two)")
    # CUDA host entry: copies overlapped with the kernels where the dependences allow
    # (codegen/host_driver.py, "overlap"): each array's copy in on a copy stream, waited for
    # by the first top-level part of the driver that uses it; each written array's copy out
    # started after the last part that writes it, while later parts run. Not with staged
    # copies (they go through the staging buffer in stream order): ignored there. Default on:
    # measured on the H100 (bench/host_side.py, 2026-11-25, PolyBench LARGE, 14 kernels, the
    # whole function against reuse+register), 0.83 (3mm), 0.86 (correlation), 0.90
    # (covariance), 0.91 (2mm) of the time, 0.96-1.01 on the 10 others.
    host_overlap: bool = option(True,
        help="cuda host entry: copy each array in on a stream of its own, waited for by the first "
        "part of the driver that uses it, and each written array out after the last part that "
        "writes it, while later parts run (not with --host-copies staged)")
    # SERIAL_REGIONS: a region in which no loop is parallel (cuda_host.serial_region) runs, in
    # the host entry pc_<name>, on the CPU ("cpu", default) or in one-thread kernels ("gpu").
    # With "cpu", pc_<name>_dev (device arrays) runs the kernels, or the CPU on copies of the
    # arrays when a rule predicts that faster (cuda_host.SERIAL_GPU_NS). Measured on the H100
    # (bench/serial_region.py, 2026-11-26): the CPU took 1/72-1/11 of the kernels' time with
    # copies in the host entry.
    serial_region: str = option("cpu", choices=SERIAL_REGIONS,
        help="cuda, a region in which no loop is parallel: pc_<name> runs it on the CPU on the "
        "host arrays and pc_<name>_dev in one-thread kernels or, when predicted faster, on the CPU "
        "after copying the arrays out (cpu); or both entries in one-thread kernels (gpu)")
    # HOST_FALLBACKS: every CUDA region keeps its original program, sequential, beside its
    # kernels, and each call of its entries runs the one that the rule of gpu.cost.HostChoice
    # predicts faster at its parameters ("auto": copies, launches and work against the host's
    # time per statement instance, gpu.cost.HOST_INSTANCE_NS), or always the host version
    # ("always"), or never ("never": the kernels alone, no host version in the file).
    host_fallback: str = option("auto", choices=HOST_FALLBACKS,
        help="cuda: keep the region's original program beside its kernels and run it on the host "
        "where a rule on each call's sizes predicts it faster (auto: copies + launches + work "
        "against the host's time per statement instance; `show schedule` prints the rule), always "
        "(always), or never (never: the kernels alone)")
    # RUNTIME_EXECUTORS: the executor of run-time nests (indirect subscripts) on cuda. "auto":
    # no inspector where the writes are affine and injective (SpTRSV 27x faster than the levels
    # on the H100, 2.1x faster than cuSPARSE; README), else the paper's levels.
    runtime_executor: str = option("auto", choices=RUNTIME_EXECUTORS,
        help="cuda, loops with run-time dependences: one launch per level (levels), one launch "
        "whose iterations wait on done-counters (syncfree), one launch without inspector whose "
        "reads wait on their writer when the writes are affine and injective (syncfree-affine; the "
        "levels when a check finds a read of a later iteration's cell), the same with one warp per "
        "iteration whose lanes split its CSR reductions (syncfree-affine-warp), or per call (auto: "
        "syncfree-affine(-warp) where it applies, else levels, and syncfree when reused levels are "
        "many)")
    # Run-time nests on cuda: keep each nest's levels on the GPU and reuse them in later outer
    # iterations and calls whose index arrays are equal (compared element by element on the
    # GPU against a saved copy) at the same parameters (Anantpur & Govindarajan 2013,
    # Section 3.5.4).
    reuse_levels: bool = option(False,
        help="cuda, loops with run-time dependences: reuse the levels of an earlier outer "
        "iteration or call when the index arrays are equal (compared on the GPU) at the same "
        "parameters")
    # Run-time nests on cuda: when the inspector has found more than n / this many levels
    # (the average level then holds fewer iterations than this), it stops and the iterations
    # not yet executed run in order on the host (Section 3.5.2, last paragraph). 0: never.
    # "auto": this many = the GPU's cost of one level / the host's cost of one iteration of
    # the loop, decided at run time (tune/level_cost.py: where each cost comes from).
    cpu_fallback_per_level: float | str = option(
        "auto", metavar="auto|ITERATIONS", parse="auto-or-number",
        help="cuda, loops with run-time dependences: run the rest of the loop in order on the host "
        "once the inspector has found more than n / ITERATIONS levels; 0: never; auto: ITERATIONS "
        "= the GPU's measured cost of one level / the host's cost of one iteration")
    # AUX_FRACTIONS: the divisor of the size of each auxiliary array (1: the array's size).
    aux_fraction: int = option(1, choices=AUX_FRACTIONS,
        help="cuda, loops with run-time dependences: the inspector's auxiliary array of each "
        "monitored array holds 1/N of its cells, indexed by cell mod its size (false conflicts add "
        "levels, never lose one)")
    # RUNTIME_CHUNKINGS: how the inspector spreads the iterations over its passes.
    runtime_chunking: str = option("none", flag="--chunking", choices=RUNTIME_CHUNKINGS,
        help="cuda, loops with run-time dependences: none; static: N chunks of the iterations (N = "
        "--aux-fraction), chunk k from level k; dynamic: static, and more levels per chunk when a "
        "pass sees many nearby conflicts")
    # Progress records (progress.py, Python's logging, logger "polycuda.progress"): each
    # pass's time, the region and the candidate scheduler. Where they go is logging's
    # configuration (nowhere from the Python API until it is configured; the command line's
    # stderr); False makes none. Changes no code.
    progress: bool = option(True, code=False, alias="--quiet",
        help="progress lines (Python logging, logger polycuda.progress; the command line shows "
        "them on stderr, the Python API only where logging is configured): each pass, its region "
        "and candidate scheduler once a compile has run 2 s (every pass with --verbose); `polycuda "
        "run`: before the reference's one run; `polycuda tune`: its steps")

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise InvalidConfigError(f"{self.target=} is not one of {TARGETS}")
        for f in dataclasses.fields(self):  # the options of a few words (their `choices`)
            value = getattr(self, f.name)
            if isinstance(f.default, str) and f.metadata["choices"] and \
                    value not in f.metadata["choices"]:
                raise InvalidConfigError(f"self.{f.name}={value!r} is not one of "
                                         f"{f.metadata['choices']}")
        self._check_sizes()
        for flag in ("column_reductions", "dual_reductions", "chain_reductions",
                     "producer_fusion"):
            if not isinstance(getattr(self, flag), bool):
                raise InvalidConfigError(f"{flag}={getattr(self, flag)!r} must be true or false")
        if self.balanced_wavefront and self.scheduler != "pluto":
            raise InvalidConfigError("balanced_wavefront needs scheduler='pluto'")
        self._check_limits()

    def _check_sizes(self) -> None:
        """Tile, block and register sizes, the size plan, the k tile, the mapped dimensions."""
        if any(r < 1 for r in self.register_tiles):
            raise InvalidConfigError(f"{self.register_tiles=} must all be >= 1")
        if any(t < 1 for t in self.tile_sizes):
            raise InvalidConfigError(f"{self.tile_sizes=} must all be >= 1")
        _check_block_sizes(self.block_sizes)
        if self.sizes:
            from polycuda import size_plan

            size_plan.check(self.sizes)
        if not 0 <= self.sequential_tile <= 1024:
            raise InvalidConfigError(f"{self.sequential_tile=} must be 0 (automatic) .. 1024")
        if not 1 <= self.max_mapped_dims <= 3:
            raise InvalidConfigError(f"{self.max_mapped_dims=} must be 1, 2 or 3")

    def _check_limits(self) -> None:
        """The numeric options: work limits, memory, blocks, the host side's sizes."""
        if not 1 <= self.shared_memory_kib <= 1024:
            raise InvalidConfigError(f"{self.shared_memory_kib=} must be 1..1024 (KiB)")
        for limit in WORK_LIMITS:
            value = getattr(self, limit)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidConfigError(f"{limit}={value!r} must be an integer >= 1")
        if not 0 < self.solver_timeout_s < math.inf:
            raise InvalidConfigError(f"{self.solver_timeout_s=} must be > 0 and finite "
                                     "(seconds)")
        if not 0 <= self.reduction_blocks <= MAX_REDUCTION_BLOCKS:
            raise InvalidConfigError(f"{self.reduction_blocks=} must be 0 (fill the GPU) .. "
                                     f"{MAX_REDUCTION_BLOCKS}")
        if not 0 <= self.host_pin_min_kib <= 1 << 30:
            raise InvalidConfigError(f"{self.host_pin_min_kib=} must be 0..2^30 (KiB)")
        if not 1 <= self.host_chunk_kib <= 1 << 20:
            raise InvalidConfigError(f"{self.host_chunk_kib=} must be 1..2^20 (KiB)")
        if self.cpu_fallback_per_level != "auto" and not (
                isinstance(self.cpu_fallback_per_level, (int, float))
                and not isinstance(self.cpu_fallback_per_level, bool)
                and 0 <= self.cpu_fallback_per_level < math.inf):
            raise InvalidConfigError(f"{self.cpu_fallback_per_level=} must be 'auto' or a number "
                                     ">= 0 and finite (iterations per level; 0: never)")
        if self.aux_fraction not in AUX_FRACTIONS:
            raise InvalidConfigError(f"{self.aux_fraction=} is not one of {AUX_FRACTIONS} "
                                     "(the divisor of the auxiliary array's size)")

    def replace(self, **changes: object) -> Options:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def plain_host_side(self) -> Options:
        """These options with the host entry's (HOST_SIDE_FIELDS) plain: buffers per call,
        pageable copies, a serial region's entries in its kernels (no host helpers in the
        generated file: the inspector/executor's static sub-regions, whose host entries are
        dropped and whose device entries run between its kernels; one tune cache key for every
        host side). host_fallback keeps its default: the sub-regions get no host version
        (pipeline._static_generated without `original`), and the tune keys stay as they were."""
        default = Options()
        plain = {name: getattr(default, name) for name in HOST_SIDE_FIELDS}
        return self.replace(**{**plain, "host_buffers": "per-call", "host_copies": "pageable",
                               "host_overlap": False, "serial_region": "gpu"})

    def to_text(self) -> str:
        """Only the fields that differ from the defaults, as sorted JSON."""
        default = Options()
        diff = {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self) if f.metadata["code"] and (
                getattr(self, f.name) != getattr(default, f.name)
                or f.name in ("target", "scheduler"))
        }
        return json.dumps({k: list(v) if isinstance(v, tuple) else v for k, v in diff.items()},
                          sort_keys=True)

    @staticmethod
    def from_text(text: str) -> Options:
        data = json.loads(text)
        _check_names(data)
        return Options(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items()})


def _check_names(given: object) -> None:
    """Refuse names that are no Options field, naming the closest fields (difflib), rather
    than the dataclass's bare TypeError."""
    names = [f.name for f in dataclasses.fields(Options)]
    unknown = sorted(set(given) - set(names))  # type: ignore[call-overload]
    if not unknown:
        return
    said = []
    for name in unknown:
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
        said.append(f"'{name}'" + (f" (did you mean {' or '.join(close)}?)" if close else ""))
    listed = "" if all("did you mean" in x for x in said) else (
        f"; the options are Options' fields: {', '.join(names)}")
    raise UnknownOptionError(f"unknown option{'s' if len(unknown) > 1 else ''} "
                             f"{', '.join(said)}{listed}")


_DATACLASS_INIT = Options.__init__


@functools.wraps(_DATACLASS_INIT)
def _checked_init(self: Options, *args: object, **kwargs: object) -> None:
    _check_names(kwargs)
    _DATACLASS_INIT(self, *args, **kwargs)


Options.__init__ = _checked_init  # type: ignore[method-assign]
