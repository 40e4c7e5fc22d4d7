"""polycuda's configurations in `polycuda bench`: each name's Options fields and label, the
entries of a run (`Variant`: a configuration with its default tiles or a swept tile size), and
the element types a run can compile the kernels with (`--dtype`).

Example:
    >>> Variant("intra", (16, 64)).name, Variant("intra", (16, 64), "grid", 48).name
    ('intra@16x64', 'intra@16x64+grid+smem')
    >>> Variant("inter").options().eliminate_false_deps
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from polycuda.options import WAVEFRONT_SYNCS, Options

# Di et al. 2012: "intra" is Theorem 2 / Algorithm 1 (balanced intra-tile wavefronts), "inter"
# adds Algorithm 2 (false-dependence elimination, which enables inter-tile parallelism).
CONFIG_OPTIONS: Mapping[str, Mapping[str, Any]] = {
    "isl": {"scheduler": "isl"},
    # private (register) promotion off / register tiles of 2x2 points per thread on (gpu/)
    "isl-noreg": {"scheduler": "isl", "private_promotion": False},
    "isl-rt2x2": {"scheduler": "isl", "register_tiles": (2, 2)},
    # shared-memory promotion of reused tiles in DOALL kernels (gpu/shared_promotion.py)
    "shared": {"shared_promotion": True},
    "no-shared": {"shared_promotion": False},
    "pluto": {"scheduler": "pluto"},
    # isl's scheduler, one loop nest per strongly connected component (no fusion across them)
    "isl-dist": {"scheduler": "isl-distributed"},
    # Shirako et al. 2017: block- and thread-level schedules superposed (schedule/superposition.py)
    "superposition": {"scheduler": "superposition"},
    # Di et al.'s baseline: PLUTO's CUDA orders a tile's points by the skewed sum (Figure 5)
    "pluto-sum": {"scheduler": "pluto", "intra_wavefront": "sum"},
    "intra": {"scheduler": "pluto", "balanced_wavefront": True},
    "inter": {"scheduler": "pluto", "balanced_wavefront": True, "eliminate_false_deps": True},
    # reduction loops on one block (as before many-block reductions) / always by the partial-
    # array pass (a fixed order), against the default: atomics for += and -= (gpu/mapping.py)
    "red-1block": {"reduction_blocks": 1},
    "red-pass": {"reduction_combine": "pass"},
    # a parallel loop of reductions with each row (or column) on one thread, against the
    # default's rows on blocks and the reduction loop on the row's threads
    # (gpu/row_reduction.py), columns on threads and chunks of the reduction loop on blocks
    # (gpu/column_reduction.py), and the distribution that lets them apply
    "no-rows": {"row_reductions": False, "column_reductions": False},
    # rows as the default, but no column-split reductions
    "no-columns": {"column_reductions": False},
    # a row and a column reduction of one matrix as two kernels (two passes over it), against
    # the default's one kernel (gpu/dual_reduction.py)
    "no-dual": {"dual_reductions": False},
    # a row reduction and the column reduction that reads its result as two kernels (two
    # passes over the matrix), against the default's one kernel (gpu/chain_reduction.py)
    "no-chain": {"chain_reductions": False},
    # a DOALL producer as its own kernel before the column-split reduction that reads what it
    # writes (a pass over the matrix more), against the default's fused kernel
    # (gpu/producer_fusion.py)
    "no-producer": {"producer_fusion": False},
    # a host loop of kernel launches as one cooperative launch, grid-wide barriers between the
    # kernels' parts (codegen/fused_loops.py), whatever its length (the default: from
    # fused_loops.MIN_TRIPS iterations on), with each scheduler; or never
    "grid-loops": {"host_loops": "grid"},
    "launch-loops": {"host_loops": "launches"},
    "isl-launches": {"scheduler": "isl", "host_loops": "launches"},
    "isl-grid": {"scheduler": "isl", "host_loops": "grid"},
    "sup-grid": {"scheduler": "superposition", "host_loops": "grid"},
    # Options() as it is: what `polycuda compile` does without flags, whatever that becomes
    "default": {},
}
CONFIG_LABELS: Mapping[str, str] = {
    "isl": "isl scheduler (PPCG-like)",
    "isl-noreg": "isl scheduler, without private (register) promotion",
    "isl-rt2x2": "isl scheduler, 2x2 points per thread in registers (register tiling)",
    "shared": "default options + shared-memory promotion of reused tiles (Baskaran et al.)",
    "no-shared": "default options without shared-memory promotion (each thread reads its tiles "
                 "from global memory)",
    "pluto": "Pluto hyperplanes (communication-minimal)",
    "isl-dist": "isl scheduler, each strongly connected component in its own loop nest",
    "superposition": "superposition of block- and thread-level schedules, the DL model's "
                     "coalescing loop on thread x (Shirako et al. 2017)",
    "pluto-sum": "Pluto hyperplanes (communication-minimal), intra-tile wavefronts the skewed "
                 "sum as PLUTO's CUDA (Di et al. Figure 5)",
    "intra": "Pluto + balanced intra-tile wavefronts (Di et al. 'intra')",
    "inter": "Pluto + balanced intra-tile wavefronts + false-dependence elimination "
             "(Di et al. 'intra+inter')",
    "grid-loops": "default options, host loops of kernel launches in one cooperative launch",
    "launch-loops": "default options, host loops of kernel launches launched per iteration",
    "isl-launches": "isl scheduler, host loops of kernel launches launched per iteration",
    "isl-grid": "isl scheduler, host loops of kernel launches in one cooperative launch",
    "sup-grid": "superposition, host loops of kernel launches in one cooperative launch",
    "red-1block": "reduction loops summed by one block of 256 threads",
    "red-pass": "reduction loops on many blocks, their totals combined by a partial-array pass",
    "no-rows": "parallel loops of reductions with each row or column on one thread (no row "
               "or column reductions)",
    "no-columns": "no column-split reductions (a column on one thread; rows as the default)",
    "no-dual": "a row and a column reduction of one matrix as two kernels (two passes over it)",
    "no-chain": "a row reduction and the column reduction that reads its result as two kernels "
                "(two passes over the matrix)",
    "no-producer": "an elementwise producer as its own kernel before the column-split reduction "
                   "that reads its result (a pass over the matrix more)",
    "default": "polycuda's default Options() (no flag)",
}

# The kernels declare `#ifndef DATA_TYPE / #define DATA_TYPE double` and write their literal
# constants as SCALAR_VAL(0.2), `x` by default: double needs no define; float, as PolyBench's
# float build, makes the literals float too (0.2f), so that no step converts to double and back.
DTYPE_DEFINES: Mapping[str, tuple[str, ...]] = {
    "double": (), "float": ("DATA_TYPE=float", "SCALAR_VAL(x)=x##f")}
DTYPE_BYTES: Mapping[str, int] = {"double": 8, "float": 4}
TILE_SEPARATOR = "@"


@dataclass(frozen=True)
class Variant:
    """One polycuda entry of a kernel: configuration `config` with tile sizes `tiles`
    (outermost first; () keeps polycuda's defaults), inter-tile wavefronts ordered by `sync`
    (Options.wavefront_sync) and wavefront tiles staged in `staging` KiB of shared memory per
    block (Options.shared_memory_kib; 0: in global memory), with `blocks` threads per block
    (Options.block_sizes; () derives them from the tiles)."""

    config: str
    tiles: tuple[int, ...] = ()
    sync: str = "kernels"
    staging: int = 0
    blocks: tuple[int, ...] = ()

    @property
    def name(self) -> str:
        """The entry's name: the configuration, then `@t1xt2...` when tiles are given, `+grid`
        for grid-wide barriers and `+smem` for staging in 48 KiB, `+smem<KiB>` in another size
        (`@grid`, `@smem`, `@grid+smem227` with the default tiles)."""
        parts = ["x".join(str(t) for t in self.tiles)] if self.tiles else []
        parts += ["b" + "x".join(str(b) for b in self.blocks)] if self.blocks else []
        parts += [self.sync] if self.sync != "kernels" else []
        parts += [_staging_name(self.staging)] if self.staging else []
        return f"{self.config}{TILE_SEPARATOR}{'+'.join(parts)}" if parts else self.config

    @property
    def label(self) -> str:
        """The configuration's label, with the tile sizes when given."""
        tiles = f", tiles {'x'.join(str(t) for t in self.tiles)}" if self.tiles else ""
        tiles += f", threads {'x'.join(str(b) for b in self.blocks)}" if self.blocks else ""
        sync = ", grid-wide barrier between wavefronts" if self.sync == "grid" else ""
        staging = (f", tiles staged in {self.staging} KiB of shared memory" if self.staging
                   else "")
        return CONFIG_LABELS[self.config] + tiles + sync + staging

    def options(self) -> Options:
        """The Options of this entry: CONFIG_OPTIONS[config] with its tiles, threads, order
        of wavefronts and staging."""
        return Options(**CONFIG_OPTIONS[self.config], tile_sizes=self.tiles,
                       block_sizes=self.blocks, wavefront_sync=self.sync,
                       shared_staging=bool(self.staging),
                       shared_memory_kib=self.staging or Options().shared_memory_kib)


def default_config(configs: tuple[str, ...]) -> str | None:
    """The first of `configs` whose Options are polycuda's default Options() ("isl" today, or
    "default" itself), None when none is.

    Example:
        >>> default_config(("pluto", "default"))
        'default'
    """
    return next((c for c in configs if Variant(c).options() == Options()), None)


def config_of(entry: str) -> str:
    """The configuration of an entry name: "pluto@16x64" -> "pluto", "isl" -> "isl"."""
    return entry.split(TILE_SEPARATOR, 1)[0]


def variants(configs: tuple[str, ...], tiles: tuple[tuple[int, ...], ...] = (),
             syncs: tuple[str, ...] = ("kernels",), stagings: tuple[int, ...] = (0,),
             blocks: tuple[tuple[int, ...], ...] = ()) -> tuple[Variant, ...]:
    """Every entry of a run: per configuration, its default tiles, then each tile candidate,
    each with the default threads per block and every candidate of `blocks`, each with every
    way `syncs` of ordering the inter-tile wavefronts and `stagings`.

    Any candidate applies to any kernel: polycuda takes the last entries it needs of
    Options.tile_sizes and pads shorter ones with its defaults (gpu.mapping.tile_sizes_for).
    """
    return tuple(Variant(c, t, s, st, b) for c in configs for t in ((), *tiles)
                 for b in ((), *blocks) for s in syncs for st in stagings)


def parse_configs(text: str) -> tuple[str, ...]:
    """"isl,pluto" -> ("isl", "pluto").

    Raises:
        ValueError: no name, or a name not in CONFIG_OPTIONS (the message lists the known ones).
    """
    return _parse_names(text, tuple(CONFIG_OPTIONS), "configuration")


def _parse_names(text: str, known: tuple[str, ...], what: str) -> tuple[str, ...]:
    """The comma-separated names of `text`, duplicates dropped.

    Raises:
        ValueError: no name, or one not in `known` (the message lists them).
    """
    names = _names(text)
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise ValueError(f"unknown {what}(s) {unknown or text!r}; known: {', '.join(known)}")
    return names


def _names(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))


def parse_tiles(text: str, what: str = "tile sizes") -> tuple[tuple[int, ...], ...]:
    """"16,64;32,32;8,8,32" -> ((16, 64), (32, 32), (8, 8, 32)); duplicates dropped. `what`
    names the sizes in messages (also threads per block).

    Raises:
        ValueError: no candidate, or a size that is not an integer >= 1.
    """
    candidates = []
    for part in text.split(";"):
        if not part.strip():
            continue
        try:
            sizes = tuple(int(s) for s in part.split(","))
        except ValueError:
            raise ValueError(f"{what} {part.strip()!r}: expected integers like 16,64") from None
        if any(s < 1 for s in sizes):
            raise ValueError(f"{what} {part.strip()!r}: every size must be >= 1")
        candidates.append(sizes)
    if not candidates:
        raise ValueError(f"no candidate {what} in {text!r}; expected e.g. '16,64;32,32'")
    return tuple(dict.fromkeys(candidates))


def parse_syncs(text: str) -> tuple[str, ...]:
    """"kernels,grid" -> ("kernels", "grid").

    Raises:
        ValueError: no name, or one not in options.WAVEFRONT_SYNCS.
    """
    return _parse_names(text, WAVEFRONT_SYNCS, "wavefront order")


def parse_stagings(text: str) -> tuple[int, ...]:
    """"global,smem,smem227" -> (0, 48, 227): tiles in global memory, staged in shared memory
    of the default 48 KiB per block or of the KiB given.

    Raises:
        ValueError: no name, or one other than global, smem and smem<KiB>.
    """
    stagings = []
    for name in _names(text):
        kib = name[len("smem"):]
        if name == "global":
            stagings.append(0)
        elif name.startswith("smem") and (not kib or kib.isdigit() and 1 <= int(kib) <= 1024):
            stagings.append(int(kib) if kib else Options().shared_memory_kib)
        else:
            raise ValueError(f"unknown staging {name!r}; known: global, smem, smem<KiB> "
                             "(e.g. smem227)")
    if not stagings:
        raise ValueError(f"no staging in {text!r}; known: global, smem, smem<KiB>")
    return tuple(dict.fromkeys(stagings))


def _staging_name(kib: int) -> str:
    return "smem" if kib == Options().shared_memory_kib else f"smem{kib}"


def dtype_defines(dtype: str) -> tuple[str, ...]:
    """The -D defines that compile the suite's kernels with element type `dtype`.

    Raises:
        ValueError: a dtype other than "double" or "float".
    """
    if dtype not in DTYPE_DEFINES:
        raise ValueError(f"{dtype=} is not one of {tuple(DTYPE_DEFINES)}")
    return DTYPE_DEFINES[dtype]
