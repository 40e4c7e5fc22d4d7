"""Python frontend, part 1: argument kinds from call values or usage, source locations, and the
constructs a region may not hold."""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from polycuda.errors import (
    SourceLoc,
    UnsupportedConstruct,
    UserError,
)
from polycuda.ir.expr import (
    DTYPES,
)
from polycuda.ir.scop import Scop

ARG_KINDS = ("param", "scalar", "array")
# str(x.dtype) of NumPy / CuPy arrays, and of torch tensors without the "torch." prefix
ARRAY_DTYPES = {"float64": "double", "float32": "float", "int32": "int", "int64": "long",
                "int8": "schar", "uint8": "uchar", "int16": "short", "uint16": "ushort",
                "uint32": "uint"}  # the narrow and unsigned ones: frontend/python_ints.py
# the Python constructs a region may not hold, as its errors name them
_CONSTRUCTS = {
    ast.While: "'while' loop", ast.Break: "'break'", ast.Continue: "'continue'",
    ast.FunctionDef: "nested function definition", ast.AsyncFunctionDef: "nested function",
    ast.ClassDef: "class definition", ast.Lambda: "lambda", ast.With: "'with' statement",
    ast.Try: "'try' statement", ast.Raise: "'raise'", ast.Assert: "'assert'",
    ast.Import: "'import'", ast.ImportFrom: "'import'", ast.Global: "'global'",
    ast.Nonlocal: "'nonlocal'", ast.Delete: "'del'", ast.AsyncFor: "'async for'",
    ast.List: "list", ast.Dict: "dict", ast.Set: "set", ast.Tuple: "tuple",
    ast.ListComp: "list comprehension", ast.DictComp: "dict comprehension",
    ast.SetComp: "set comprehension", ast.GeneratorExp: "generator expression",
    ast.JoinedStr: "f-string", ast.NamedExpr: "':=' assignment expression",
    ast.Starred: "'*' unpacking", ast.Yield: "'yield'", ast.YieldFrom: "'yield from'",
    ast.Await: "'await'", ast.Slice: "slice", ast.Match: "'match' statement",
}


# -- argument kinds --------------------------------------------------------------------------
@dataclass(frozen=True)
class ArgSpec:
    """The kind of one function argument: "param" (int), "scalar" (float) or "array".

    dtype: one of ir.expr.DTYPES; ndim: number of dimensions (arrays only).
    """

    kind: str
    dtype: str
    ndim: int = 0

    def __post_init__(self) -> None:
        if self.kind not in ARG_KINDS or self.dtype not in DTYPES:
            raise ValueError(f"bad ArgSpec: {self.kind=} {self.dtype=}")
        if (self.kind == "array") != (self.ndim > 0):
            raise ValueError(f"bad ArgSpec: {self.kind=} with {self.ndim=}")


def arg_specs_from_values(fn: Callable, args: tuple, kwargs: Mapping[str, Any] | None = None
                          ) -> dict[str, ArgSpec]:
    """The kind of every argument of `fn` from the values of one call.

    Python / NumPy integers are "param" ints; Python floats are "double" scalars (a NumPy
    float32 scalar is "float"); objects with `.shape` and `.dtype` (NumPy, CuPy, torch) are
    arrays of float64 / float32 / int64 / int32 / int16 / int8 / uint32 / uint16 / uint8
    elements (ARRAY_DTYPES).

    Raises:
        UserError: the values do not match the signature.
        UnsupportedConstruct: a value of another type or dtype (names the argument).
    """
    fn = inspect.unwrap(fn)
    try:
        bound = inspect.signature(fn).bind(*args, **dict(kwargs or {}))
    except TypeError as err:
        raise UserError(f"cannot call '{fn.__name__}' with these arguments: {err}") from None
    bound.apply_defaults()
    return {name: _value_spec(name, value) for name, value in bound.arguments.items()}


def _value_spec(name: str, value: object) -> ArgSpec:
    if isinstance(value, (bool, int, np.integer)):
        return ArgSpec("param", "int")
    if isinstance(value, np.floating):
        dtype = ARRAY_DTYPES.get(str(value.dtype))
        if dtype not in ("float", "double"):
            raise UnsupportedConstruct(
                f"argument '{name}': scalars of dtype {value.dtype} are not supported "
                "(use float32 or float64)")
        return ArgSpec("scalar", dtype)
    if isinstance(value, float):
        return ArgSpec("scalar", "double")
    shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
    if shape is None or dtype is None:
        raise UnsupportedConstruct(
            f"argument '{name}' of type {type(value).__name__} is not supported (pass an int, "
            "a float or an array with .shape and .dtype)")
    text = str(dtype).removeprefix("torch.")
    if text not in ARRAY_DTYPES:
        raise UnsupportedConstruct(
            f"argument '{name}': arrays of dtype {text} are not supported (supported: "
            f"{', '.join(ARRAY_DTYPES)})")
    if len(shape) == 0:
        raise UnsupportedConstruct(f"argument '{name}' is a 0-d array: pass a Python number")
    return ArgSpec("array", ARRAY_DTYPES[text], len(shape))


def default_arg_specs(fn: Callable) -> dict[str, ArgSpec]:
    """Argument kinds without call values: annotations `int` / `float`, else usage.

    Subscripted names are double arrays (as many dimensions as subscripts), int arrays when
    subscripted inside a subscript (index arrays, A[idx[i]]); names used in
    range() bounds, subscripts or `.shape` are int params; any other name is a double scalar.
    """
    fn = inspect.unwrap(fn)
    func = _load_source(fn).func
    ndims: dict[str, int] = {}
    ints: set[str] = set()
    index_arrays: set[str] = set()  # read in a subscript (A[idx[i]]): int arrays
    for node in ast.walk(func):
        base, indices = _flatten(node) if isinstance(node, ast.Subscript) else (None, [])
        if isinstance(base, ast.Name):
            ndims[base.id] = max(ndims.get(base.id, 0), len(indices))
            ints |= {n.id for i in indices for n in ast.walk(i) if isinstance(n, ast.Name)}
            index_arrays |= {_flatten(n)[0].id for i in indices for n in ast.walk(i)
                             if isinstance(n, ast.Subscript)
                             and isinstance(_flatten(n)[0], ast.Name)}
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "range":
            ints |= {n.id for a in node.args for n in ast.walk(a) if isinstance(n, ast.Name)}
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            ndims.setdefault(node.value.id, 1)  # A.shape
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
            base, k = node.value.value, getattr(node.slice, "value", None)
            if isinstance(base, ast.Name) and isinstance(k, int) and k >= 0:  # A.shape[k]
                ndims[base.id] = max(ndims.get(base.id, 0), k + 1)
    specs = {}
    for name, param in inspect.signature(fn).parameters.items():
        note = param.annotation
        if note in (float, "float"):  # the annotation wins over usage: range(s) is an error
            specs[name] = ArgSpec("scalar", "double")
        elif note in (int, "int") or (name in ints and name not in ndims):
            specs[name] = ArgSpec("param", "int")
        elif name not in ndims:
            specs[name] = ArgSpec("scalar", "double")
        else:
            dtype = "int" if name in index_arrays else "double"
            specs[name] = ArgSpec("array", dtype, ndims[name])
    return specs


def _flatten(node: ast.Subscript) -> tuple[ast.expr, list[ast.expr]]:
    """(base, indices) of `A[i, j]` or `A[i][j]`: (A, [i, j])."""
    indices: list[ast.expr] = []
    base: ast.expr = node
    while isinstance(base, ast.Subscript):
        sl = base.slice
        indices[:0] = list(sl.elts) if isinstance(sl, ast.Tuple) else [sl]
        base = base.value
    return base, indices


def shape_values(scop: Scop, values: Mapping[str, object]) -> dict[str, int]:
    """The `<array>_d<k>` parameters of `scop` from the actual array arguments in `values`.

    Raises:
        UserError: an array is missing or has another number of dimensions than compiled for.
    """
    result: dict[str, int] = {}
    for arg in scop.args:
        if arg.kind != "array":
            continue
        ndim = len(scop.array(arg.name).shape)
        if arg.name not in values:
            raise UserError(f"no value for array argument '{arg.name}' of '{scop.name}'")
        shape = tuple(getattr(values[arg.name], "shape", ()))
        if len(shape) != ndim:
            raise UserError(f"argument '{arg.name}' has {len(shape)} dimension(s); "
                            f"'{scop.name}' was compiled for {ndim}")
        for k in range(ndim):
            result[f"{arg.name}_d{k}"] = int(shape[k])
    return result


# -- source ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Source:
    """The function's syntax tree and where it lies in its file."""

    file: str
    lines: tuple[str, ...]  # every line of the file, with line ends
    first_line: int  # 1-based file line of the function's first line (decorators included)
    indent: int  # columns removed by dedenting
    start: int  # character offsets of the function in the file text
    end: int
    func: ast.FunctionDef

    def loc(self, node: ast.AST) -> SourceLoc:
        line = self.first_line + getattr(node, "lineno", 1) - 1
        col = getattr(node, "col_offset", 0) + self.indent + 1
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return SourceLoc(self.file, line, col, text.rstrip("\r\n"))


def _load_source(fn: Callable) -> _Source:
    name = getattr(fn, "__name__", repr(fn))
    try:
        file = inspect.getsourcefile(fn) or inspect.getfile(fn)
        src_lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as err:
        raise UserError(f"cannot read the source of '{name}': {err}") from None
    file_lines = linecache.getlines(file, getattr(fn, "__globals__", None)) or src_lines
    first = max(first, 1)
    indent = len(src_lines[0]) - len(src_lines[0].lstrip())
    try:
        tree = ast.parse(textwrap.dedent("".join(src_lines)))
    except SyntaxError as err:
        raise UserError(f"cannot parse the source of '{name}': {err}",
                        SourceLoc(file, first)) from None
    start = sum(len(line) for line in file_lines[:first - 1])
    end = start + sum(len(line) for line in src_lines)
    func = tree.body[0] if tree.body else None
    if not isinstance(func, ast.FunctionDef):
        what = "an async function" if isinstance(func, ast.AsyncFunctionDef) else "a lambda"
        raise UnsupportedConstruct(f"'{name}' is {what}: only functions defined with 'def' "
                                   "can be compiled", SourceLoc(file, first))
    return _Source(file, tuple(file_lines), first, indent, start, end, func)
