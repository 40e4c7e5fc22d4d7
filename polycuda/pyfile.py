"""Python files on the command line: their loop functions as Programs."""

from __future__ import annotations

import importlib.util
import inspect
from pathlib import Path

from polycuda.api import JitFunction
from polycuda.errors import UserError
from polycuda.options import Options
from polycuda.program import Program


def programs_of_file(path: Path, options: Options) -> tuple[Program, ...]:
    """The @polycuda.jit functions of the file, or else every function it defines.

    Argument kinds come from `frontend.python.default_arg_specs` (annotations, else usage:
    subscripted names are double arrays, names in bounds and subscripts are integers).
    """
    from polycuda.frontend import python as pyfront

    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise UserError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    jitted = [v for v in vars(module).values() if isinstance(v, JitFunction)]
    functions = [j.fn for j in jitted] or [
        v for v in vars(module).values()
        if inspect.isfunction(v) and v.__module__ == module.__name__]
    programs = []
    for fn in functions:
        scop = pyfront.parse_function(fn, pyfront.default_arg_specs(fn))
        jit = JitFunction(fn, options)
        programs.append(Program(scop, options, jit._reference(), "the Python function"))
    return tuple(programs)
