"""Python files on the command line: their loop functions as Programs."""

from __future__ import annotations

import importlib.util
import inspect
import traceback
from pathlib import Path
from types import ModuleType

from polycuda.api import PYTHON_REFERENCE_NAME, JitFunction
from polycuda.errors import SourceLoc, UserError
from polycuda.options import Options
from polycuda.program import Program


def programs_of_file(path: Path, options: Options, function: str | None = None
                     ) -> tuple[Program, ...]:
    """The @polycuda.jit functions of the file, or else every function it defines; only the
    one named `function` when given (other functions, e.g. helpers, are not parsed).

    Argument kinds come from `frontend.python.default_arg_specs` (annotations, else usage:
    subscripted names are double arrays, names in bounds and subscripts are integers).
    """
    from polycuda.frontend import python as pyfront

    module = _import(path)
    jitted = [v for v in vars(module).values() if isinstance(v, JitFunction)]
    functions = [j.fn for j in jitted] or [
        v for v in vars(module).values()
        if inspect.isfunction(v) and v.__module__ == module.__name__]
    if function is not None:
        functions = [fn for fn in functions if fn.__name__ == function]
    programs = []
    for fn in functions:
        scop = pyfront.parse_function(fn, pyfront.default_arg_specs(fn))
        jit = JitFunction(fn, options)
        programs.append(Program(scop, options, jit._reference(), PYTHON_REFERENCE_NAME))
    return tuple(programs)


def _import(path: Path) -> ModuleType:
    """Run the file as a module. A syntax error, or an exception its top-level code raises,
    is a UserError at its line in the file (the user's program, not a polycuda traceback)."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise UserError(f"cannot read Python file '{path}': {err.strerror}") from None
    try:
        compile(data, str(path), "exec")
    except (SyntaxError, ValueError) as err:  # ValueError: NUL bytes (Python < 3.12)
        line = getattr(err, "lineno", None) or 1
        col = getattr(err, "offset", None) or 1
        text = (getattr(err, "text", None) or "").rstrip("\n")
        msg = getattr(err, "msg", None) or str(err)
        raise UserError(f"'{path}' is not a Python source file that parses: {msg}",
                        SourceLoc(str(path), line, col, text)) from None
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise UserError(f"{path}: cannot be imported")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # noqa: BLE001 -- the user's module code may raise anything
        frames = [f for f in traceback.extract_tb(err.__traceback__)
                  if Path(f.filename) == path]
        where = (SourceLoc(str(path), frames[-1].lineno or 1, 1, frames[-1].line or "")
                 if frames else SourceLoc(str(path), 1))
        raise UserError(f"importing '{path}' raised {type(err).__name__}: {err}",
                        where) from None
    return module
