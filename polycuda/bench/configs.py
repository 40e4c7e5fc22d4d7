"""polycuda's configurations in `polycuda bench`: each name's Options fields and label; the
element types a run can compile the kernels with (`--dtype`).

Example:
    >>> options_for("inter").eliminate_false_deps
    True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from polycuda.options import Options

# Di et al. 2012: "intra" is Theorem 2 / Algorithm 1 (balanced intra-tile wavefronts), "inter"
# adds Algorithm 2 (false-dependence elimination, which enables inter-tile parallelism).
CONFIG_OPTIONS: Mapping[str, Mapping[str, Any]] = {
    "isl": {"scheduler": "isl"},
    "pluto": {"scheduler": "pluto"},
    "intra": {"scheduler": "pluto", "balanced_wavefront": True},
    "inter": {"scheduler": "pluto", "balanced_wavefront": True, "eliminate_false_deps": True},
}
CONFIG_LABELS: Mapping[str, str] = {
    "isl": "isl scheduler (PPCG-like)",
    "pluto": "Pluto hyperplanes (communication-minimal)",
    "intra": "Pluto + balanced intra-tile wavefronts (Di et al. 'intra')",
    "inter": "Pluto + balanced intra-tile wavefronts + false-dependence elimination "
             "(Di et al. 'intra+inter')",
}

# The kernels declare `#ifndef DATA_TYPE / #define DATA_TYPE double`: double needs no define.
DTYPE_DEFINES: Mapping[str, tuple[str, ...]] = {"double": (), "float": ("DATA_TYPE=float",)}
DTYPE_BYTES: Mapping[str, int] = {"double": 8, "float": 4}


def options_for(config: str) -> Options:
    """The Options of configuration `config` (a key of CONFIG_OPTIONS)."""
    return Options(**CONFIG_OPTIONS[config])


def parse_configs(text: str) -> tuple[str, ...]:
    """"isl,pluto" -> ("isl", "pluto").

    Raises:
        ValueError: no name, or a name not in CONFIG_OPTIONS (the message lists the known ones).
    """
    names = tuple(dict.fromkeys(c.strip() for c in text.split(",") if c.strip()))
    unknown = [c for c in names if c not in CONFIG_OPTIONS]
    if unknown or not names:
        raise ValueError(f"unknown configuration(s) {unknown or text!r}; "
                         f"known: {', '.join(CONFIG_OPTIONS)}")
    return names


def dtype_defines(dtype: str) -> tuple[str, ...]:
    """The -D defines that compile the suite's kernels with element type `dtype`.

    Raises:
        ValueError: a dtype other than "double" or "float".
    """
    if dtype not in DTYPE_DEFINES:
        raise ValueError(f"{dtype=} is not one of {tuple(DTYPE_DEFINES)}")
    return DTYPE_DEFINES[dtype]
