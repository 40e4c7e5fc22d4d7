"""The public entry points: compile C regions, and the jit decorator for Python functions."""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from typing import Any

from polycuda.errors import UserError
from polycuda.ir.scop import Scop
from polycuda.options import Options
from polycuda.program import Program, require_one
from polycuda.verify import Comparison, Runner


# What `polycuda run` compares against: the user's C built as the targets are (build.py)
C_REFERENCE_NAME = "gcc -O3 build of the C original"
PYTHON_REFERENCE_NAME = "CPython interpreter (the Python function, as written)"


def _c_reference(scop: Scop) -> Runner:
    """The user's own C function, compiled sequentially, as the oracle."""
    cache: dict[str, Callable] = {}

    def run(args: dict[str, object]) -> None:
        if "kernel" not in cache:
            from polycuda.frontend import c as cfront
            from polycuda.runtime import build, launch

            path = build.build_shared(cfront.reference_source(scop), "reference",
                                      flags=tuple(cfront.reference_flags(scop)))
            cache["kernel"] = launch.load(path, scop, "reference")
        cache["kernel"](*[args[a.name] for a in scop.args])

    return run


def compile_all(source: str, *, options: Options | None = None, filename: str | None = None,
                include_dirs: tuple[str, ...] = (), defines: tuple[str, ...] = ()
                ) -> tuple[Program, ...]:
    """Every `#pragma scop` region of a C file (a path) or C source text, as Programs."""
    from polycuda.frontend import c as cfront

    options = options or Options()
    if filename is None and "\n" not in source and os.path.isfile(source):
        scops = cfront.parse_file(source, include_dirs=include_dirs, defines=defines)
    else:
        scops = cfront.parse_source(source, filename=filename or "<string>",
                                    include_dirs=include_dirs, defines=defines)
    return tuple(Program(s, options, _c_reference(s), C_REFERENCE_NAME) for s in scops)


def compile(source: str, *, function: str | None = None, options: Options | None = None,
            **kwargs: Any) -> Program:
    """The region of a C file or C text (the one named `function` if there are several)."""
    programs = compile_all(source, options=options, **kwargs)
    return require_one(programs, function, kwargs.get("filename") or "C source")


class JitFunction:
    """A Python loop function compiled on its first call for each argument signature."""

    def __init__(self, fn: Callable, options: Options):
        self.fn = fn
        self.options = options
        self._programs: dict[tuple, Program] = {}
        functools.update_wrapper(self, fn)

    def program(self, *args: object, **kwargs: object) -> Program:
        """The Program specialised for these arguments' kinds and dtypes."""
        from polycuda.frontend import python as pyfront

        specs = pyfront.arg_specs_from_values(self.fn, args, kwargs)
        key = tuple(sorted((k, v) for k, v in specs.items()))
        if key not in self._programs:
            scop = pyfront.parse_function(self.fn, specs)
            self._programs[key] = Program(scop, self.options, self._reference(),
                                          PYTHON_REFERENCE_NAME)
        return self._programs[key]

    def _reference(self) -> Runner:
        names = list(inspect.signature(self.fn).parameters)

        def run(args: dict[str, object]) -> None:
            self.fn(*[args[n] for n in names])

        return run

    def entry_arguments(self, prog: Program, args: tuple, kwargs: dict) -> list[object]:
        from polycuda.frontend import python as pyfront

        bound = inspect.signature(self.fn).bind(*args, **kwargs)
        bound.apply_defaults()  # a defaulted argument not passed is an entry argument too
        values: dict[str, object] = dict(bound.arguments)
        values.update(pyfront.shape_values(prog.scop, values))
        return [values[a.name] for a in prog.scop.args]

    def __call__(self, *args: object, **kwargs: object) -> None:
        prog = self.program(*args, **kwargs)
        prog.kernel()(*self.entry_arguments(prog, args, kwargs))

    def verify(self, *args: object, sizes: dict[str, int] | None = None, **kwargs: object
               ) -> list[Comparison]:
        """Verify on random inputs shaped like these example arguments."""
        prog = self.program(*args, **kwargs)
        if sizes is None:
            call = inspect.signature(self.fn).bind(*args, **kwargs)
            call.apply_defaults()
            bound = call.arguments
            sizes = {a.name: int(bound[a.name]) for a in prog.scop.args
                     if a.kind == "param" and a.name in bound}
        return prog.verify(sizes=sizes)


def jit(fn: Callable | None = None, *, options: Options | None = None, **option_fields: Any
        ) -> Any:
    """Decorator: `@polycuda.jit` or `@polycuda.jit(target="openmp", tile_sizes=(32, 32))`."""
    opts = (options or Options()).replace(**option_fields) if option_fields else (
        options or Options())

    def wrap(f: Callable) -> JitFunction:
        if not inspect.isfunction(f):
            raise UserError(f"polycuda.jit decorates plain Python functions, not {f!r}")
        return JitFunction(f, opts)

    return wrap(fn) if fn is not None else wrap
