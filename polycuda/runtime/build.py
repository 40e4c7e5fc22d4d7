"""Building generated sources into shared libraries (gcc, g++, nvcc), cached on disk.

A library is cached under the sha256 of everything that determines it: the source text, the
target, the full compiler command, the compiler's version and the GPU arch. Writes go through
a temporary file and a rename, so parallel builds of the same source never see a half file.
Inside `with address_sanitizer():` the host targets c, openmp and reference build with
AddressSanitizer (no access may leave its array); the process must load libasan first
(LD_PRELOAD, see asan_preload), as tests/unit/test_asan.py does.
"""

from __future__ import annotations

import hashlib
import contextlib
import contextvars
import json
import os
import subprocess
import tempfile
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from polycuda.errors import BuildError, InvalidConfigError
from polycuda.runtime import device

TARGETS = ("c", "openmp", "cuda", "reference", "emulate")
_SUFFIX = {"c": ".c", "openmp": ".c", "reference": ".c", "cuda": ".cu", "emulate": ".cpp"}
_BASE_FLAGS = {
    "c": ("-O3",),
    "openmp": ("-O3", "-fopenmp"),
    # the original, built as the targets above: `polycuda run`'s speedup compares like with like
    "reference": ("-O3",),
    # the host compiler tuned to this machine, as the sequential oracle of `polycuda bench` is
    # (gcc -O3 -march=native): the host version of a region (codegen/host_choice.py) runs where
    # the rule predicts the kernels slower, and must not then lose to the program as written
    # built the usual way (durbin's lost to that oracle without it:
    # bench/results/2026-12-03-nvidia-h200-host-version-speed.json). A library is built on the
    # machine that loads it (the cache is per machine).
    "cuda": ("-O3", "-Xcompiler", "-march=native"),
    # -O1: fast to build; fibers and shuffled orders, not speed, are the point of emulation.
    "emulate": ("-std=c++20", "-O1", "-pthread"),
}
_COMPILE_TIMEOUT_S = 600
ASAN_TARGETS = ("c", "openmp", "reference")  # the emulator's fibers switch stacks
ASAN_FLAGS = ("-fsanitize=address", "-fno-omit-frame-pointer", "-g")
_SANITIZE: contextvars.ContextVar[bool] = contextvars.ContextVar("polycuda_asan", default=False)


@contextlib.contextmanager
def address_sanitizer() -> Iterator[None]:
    """Builds of c, openmp and reference inside the block use -fsanitize=address (cached
    apart: the flags are part of the command, hence of the key). Loading such a library
    needs libasan loaded first: run the process with LD_PRELOAD=asan_preload().

    Example:
        >>> with address_sanitizer():                                  # doctest: +SKIP
        ...     prog.verify(targets=("c", "openmp"))
    """
    token = _SANITIZE.set(True)
    try:
        yield
    finally:
        _SANITIZE.reset(token)


def asan_preload() -> str:
    """Path of the C compiler's libasan.so (for LD_PRELOAD of a process that loads
    libraries built under address_sanitizer()).

    Raises:
        ToolNotFoundError: no C compiler.
        BuildError: the compiler has no libasan.
    """
    cmd = [device.find_cc(), "-print-file-name=libasan.so"]
    path = run_compiler(cmd).strip()
    if not os.path.isabs(path):
        raise BuildError(cmd, f"no libasan.so next to the C compiler (it printed {path!r})")
    return path


def cache_dir() -> Path:
    """The build cache: $POLYCUDA_CACHE, else ~/.cache/polycuda (the runtime's only env read)."""
    env = os.environ.get("POLYCUDA_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "polycuda"


def build_shared(source: str, target: str, *, flags: tuple[str, ...] = (),
                 arch: str | None = None, cache: Path | None = None) -> Path:
    """Build `source` into a shared library for `target`, or return the cached one.

    Args:
        source: C source (targets c, openmp, reference) or CUDA source (cuda, emulate).
        target: one of TARGETS; "emulate" compiles CUDA source with g++ (see emulate.py).
        flags: extra compiler flags, appended after the target's own.
        arch: CUDA arch such as "sm_90"; default: the GPU's, or sm_90 when there is none.
        cache: directory of the cache; default `cache_dir()`.

    Returns:
        Path of the .so; its source is kept beside it (same stem) for debugging.

    Raises:
        BuildError: the compiler failed (carries the command and its stderr).
        ToolNotFoundError: the compiler is not installed.

    Example:
        >>> lib = build_shared("int pc_f(void) { return 0; }", "c")   # doctest: +SKIP
    """
    root = Path(cache) if cache is not None else cache_dir()
    text, compiler, arch, objects = _prepare(source, target, arch, flags, root)
    key = cache_key(text, target, flags, arch, compiler, objects)
    lib = root / f"{target}-{key[:32]}.so"
    if lib.exists():
        return lib
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root, prefix=".build-") as tmp:
        src = Path(tmp) / f"kernel{_SUFFIX[target]}"
        src.write_text(text)
        out = Path(tmp) / "lib.so"
        run_compiler(compile_command(target, compiler, src, out, flags, arch, objects=objects))
        atomic_write(lib.with_suffix(_SUFFIX[target]), text, root)
        os.replace(out, lib)  # atomic on one filesystem: readers see no file or a whole one
    return lib


def compile_only(source: str, target: str, *, flags: tuple[str, ...] = (),
                 arch: str | None = None) -> None:
    """Compile `source` to an object file and throw it away: checks that it compiles.

    Used in CI without a GPU, e.g. `compile_only(cu_text, "cuda")` runs `nvcc -c`.

    Raises:
        BuildError: the compiler rejected the source.
        ToolNotFoundError: the compiler is not installed.
    """
    text, compiler, arch, _ = _prepare(source, target, arch, flags, cache_dir())
    with tempfile.TemporaryDirectory(prefix="polycuda-check-") as tmp:
        src = Path(tmp) / f"kernel{_SUFFIX[target]}"
        src.write_text(text)
        out = Path(tmp) / "kernel.o"
        run_compiler(compile_command(target, compiler, src, out, flags, arch, shared=False))


def resource_usage_report(source: str, *, arch: str | None = None) -> str:
    """ptxas's resource report of CUDA `source` (`nvcc -c --resource-usage`): registers,
    shared memory and spills of every kernel as built, for the tuner's occupancy (Baskaran et
    al.: register usage read from the object code, not guessed). Compiles to a throw-away
    object; needs nvcc but no GPU.

    Raises:
        BuildError: nvcc rejected the source.
        ToolNotFoundError: nvcc is not installed.
    """
    text, compiler, arch, _ = _prepare(source, "cuda", arch)
    with tempfile.TemporaryDirectory(prefix="polycuda-usage-") as tmp:
        src = Path(tmp) / "kernel.cu"
        src.write_text(text)
        cmd = compile_command("cuda", compiler, src, Path(tmp) / "kernel.o", ("--resource-usage",),
                              arch, shared=False)
        return run_compiler(cmd)


def _prepare(source: str, target: str, arch: str | None, flags: tuple[str, ...] = (),
             root: Path | None = None) -> tuple[str, str, str | None, tuple[Path, ...]]:
    """(text to compile, compiler path, resolved arch, objects to link) of a build. When a
    root is given, an emulated build includes the emulator's headers precompiled in `root`
    and links its runtime compiled there (emulator_runtime); else the text holds both."""
    if target not in TARGETS:
        raise InvalidConfigError(f"{target=} is not one of {TARGETS}")
    text, compiler, objects = source, compiler_for(target), ()
    if target == "emulate":
        from polycuda.runtime import emulate  # here: emulate imports this module

        header = None
        if root is not None:
            header, runtime = emulator_runtime(compiler, tuple(flags), root)
            objects = (runtime,)
        text = emulate.translate(source, header=header)
    return text, compiler, resolve_arch(target, arch), objects


# The emulator, built once per flags: <name>.h (its headers), <name>.h.gch (them precompiled)
# and <name>.o (its runtime) in the build cache.
HEADER_PREFIX = "emulate-header-"


def emulator_runtime(compiler: str, flags: tuple[str, ...], root: Path) -> tuple[Path, Path]:
    """(header, object): the emulator's headers as one file in `root`, precompiled beside it
    (<file>.gch), and its runtime (emulate.RUNTIME) compiled into an object beside them, both
    with the flags of the builds that use them. g++ then reads the .gch instead of parsing and
    instantiating the emulator's templates in every emulated build, and compiles the kernels
    and host code of a generated file but not the launcher, fibers and runtime API again: the
    larger part of the cost of building a small kernel. Made once per emulator text, flags
    and compiler. Where the .gch does not fit a build, g++ reads the header itself: slower,
    never different code.
    """
    from polycuda.runtime import emulate  # here: emulate imports this module

    header_text, runtime_text = emulate.emulation_header(), emulate.emulation_runtime()
    cmd = [compiler, *_BASE_FLAGS["emulate"], "-fPIC", *flags]
    blob = json.dumps([header_text, runtime_text, cmd, compiler_version(compiler)])
    header = root / f"{HEADER_PREFIX}{hashlib.sha256(blob.encode()).hexdigest()[:32]}.h"
    pch, runtime = header.with_name(header.name + ".gch"), header.with_suffix(".o")
    if header.exists() and pch.exists() and runtime.exists():
        return header, runtime
    root.mkdir(parents=True, exist_ok=True)
    atomic_write(header, header_text, root)
    with tempfile.TemporaryDirectory(dir=root, prefix=".build-") as tmp:
        src, obj, gch = Path(tmp) / "runtime.cpp", Path(tmp) / "runtime.o", Path(tmp) / "h.gch"
        src.write_text(f'#include "{header}"\n#line 1 "{emulate.RUNTIME}"\n{runtime_text}')
        run_compiler([*cmd, "-x", "c++-header", str(header), "-o", str(gch)])
        os.replace(gch, pch)  # concurrent builders write whole files under one name
        run_compiler([*cmd, "-c", str(src), "-o", str(obj)])
        os.replace(obj, runtime)
    return header, runtime


def compiler_for(target: str) -> str:
    """Path of the compiler that builds `target`.

    Raises:
        ToolNotFoundError: it is not installed.
    """
    if target == "cuda":
        return device.find_nvcc()
    if target == "emulate":
        return device.find_cxx()
    return device.find_cc()


def resolve_arch(target: str, arch: str | None) -> str | None:
    """The CUDA arch of a build: the given one, the GPU's, or sm_90; None for CPU targets."""
    if target != "cuda":
        return None
    if arch:
        return arch
    info = device.gpu_info()
    return info.arch if info else device.DEFAULT_ARCH


def compile_command(target: str, compiler: str, src: Path, out: Path,
                    flags: tuple[str, ...] = (), arch: str | None = None,
                    shared: bool = True, objects: tuple[Path, ...] = ()) -> list[str]:
    """The compiler command line building `src` into `out` (a .so linking `objects`, or a .o
    if not shared)."""
    cmd = [compiler, *_BASE_FLAGS[target]]
    if _SANITIZE.get() and target in ASAN_TARGETS:
        cmd += ASAN_FLAGS
    if target == "cuda":
        cmd += [f"-arch={arch or device.DEFAULT_ARCH}", "-Xcompiler", "-fPIC"]
    else:
        cmd.append("-fPIC")
    cmd += ["-shared"] if shared else ["-c"]
    cmd += [str(src), *(map(str, objects) if shared else ()), "-o", str(out), *flags]
    if shared and target != "cuda":
        cmd.append("-lm")
    return cmd


def cache_key(text: str, target: str, flags: tuple[str, ...], arch: str | None,
              compiler: str, objects: tuple[Path, ...] = ()) -> str:
    """sha256 (hex) of everything that determines the built library (an object's name says
    what it was built from: emulator_runtime)."""
    template = compile_command(target, compiler, Path("SRC"), Path("OUT"), tuple(flags), arch,
                               objects=objects)
    blob = json.dumps([text, target, template, compiler_version(compiler)])
    return hashlib.sha256(blob.encode()).hexdigest()


@lru_cache(maxsize=16)
def compiler_version(compiler: str) -> str:
    """`compiler --version`, the part of the cache key that changes with an upgrade."""
    try:
        done = subprocess.run([compiler, "--version"], capture_output=True, text=True,
                              timeout=60, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unknown ({exc})"
    return done.stdout.strip()


def run_compiler(cmd: list[str]) -> str:
    """Run one compiler command; returns what it printed (stderr, then stdout).

    Raises:
        BuildError: nonzero exit, timeout or failure to start (command and stderr attached).
    """
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=_COMPILE_TIMEOUT_S,
                              check=False)
    except subprocess.TimeoutExpired:
        raise BuildError(cmd, f"timed out after {_COMPILE_TIMEOUT_S} s") from None
    except OSError as exc:
        raise BuildError(cmd, str(exc)) from exc
    if done.returncode != 0:
        raise BuildError(cmd, (done.stderr + done.stdout).strip())
    return done.stderr + done.stdout


def atomic_write(path: Path, text: str, directory: Path | None = None) -> None:
    """Write `text` to `path` through a temporary file of this process's own in `directory`
    (default: path's), renamed into place: concurrent writers (test workers, parallel runs)
    never write into one file, and a reader sees the old or the new text, whole."""
    fd, tmp = tempfile.mkstemp(dir=directory or path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.replace(tmp, path)
