"""`polycuda cache`: what the build cache holds (built libraries and their sources, tune
results, calibrations) and clearing it. Only files polycuda names are counted or removed: the
cache folder may be one the user chose ($POLYCUDA_CACHE) and hold other files."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from polycuda.runtime import build

# build.build_shared's names: <target>-<32 hex digits of the key>.so and its source beside it
# and the emulator's headers, precompiled headers and runtime object, <HEADER_PREFIX><32 hex
# digits>.h, .h.gch and .o
_BUILT = re.compile(rf"({'|'.join(build.TARGETS)})-[0-9a-f]{{32}}\.(so|c|cu|cpp)"
                    rf"|{build.HEADER_PREFIX}[0-9a-f]{{32}}\.(h|h\.gch|o)")
TUNE = "tune"  # tune/results/*.json: tune's results; tune/*.json: calibrations


@dataclass(frozen=True)
class Part:
    """One kind of cached file: how many and their bytes."""

    name: str
    files: tuple[Path, ...]

    @property
    def bytes(self) -> int:
        return sum(f.stat().st_size for f in self.files if f.is_file())


def parts(root: Path | None = None) -> tuple[Part, Part, Part]:
    """The cache's built libraries (with their sources), tune results and calibrations."""
    root = root or build.cache_dir()
    built = tuple(sorted(f for f in root.glob("*-*.*") if _BUILT.fullmatch(f.name)))
    tuned = tuple(sorted((root / TUNE / "results").glob("*.json")))
    calibrations = tuple(sorted((root / TUNE).glob("*.json")))
    return (Part("built libraries and their sources", built),
            Part("tune results (sizes later compiles use)", tuned),
            Part("GPU calibrations (measured by tune)", calibrations))


def report(root: Path | None = None) -> str:
    """The cache's folder and, per part, its files and size."""
    root = root or build.cache_dir()
    lines = [f"build cache {root} ($POLYCUDA_CACHE, else ~/.cache/polycuda):"]
    for part in parts(root):
        lines.append(f"  {part.name}: {len(part.files)} files, {size_text(part.bytes)}")
    return "\n".join(lines)


def clear(root: Path | None = None, everything: bool = False) -> tuple[int, int]:
    """Remove the built libraries and their sources (they are rebuilt when needed); with
    `everything`, tune results and calibrations too (later compiles then use the default
    sizes, and tune measures again). Returns (files, bytes) removed."""
    chosen = parts(root) if everything else parts(root)[:1]
    files = [f for part in chosen for f in part.files]
    size = sum(part.bytes for part in chosen)
    for f in files:
        f.unlink(missing_ok=True)  # a library in use stays mapped by its process
    return len(files), size


def size_text(n: int) -> str:
    for unit in ("bytes", "kB", "MB"):
        if n < 1000:
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} GB"
