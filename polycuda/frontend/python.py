"""Python frontend: a function of `for ... in range(...)` loops and array assignments -> Scop.

The source is read with `inspect`, parsed with `ast` and walked in source order, driving a
ScopBuilder. Python semantics are kept (true `/`, flooring `//` and `%`); array shapes become
integer parameters `<array>_d<k>` appended to the entry arguments.
"""

from __future__ import annotations

import ast
import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from polycuda.errors import (
    IndirectSubscriptError,
    NotAffineError,
    SourceLoc,
    UnsupportedConstruct,
    UserError,
)
from polycuda.frontend import python_ints
from polycuda.frontend.builder import ScopBuilder
from polycuda.ir import dtypes
from polycuda.ir.affine import affine_text, is_indirect
from polycuda.ir.expr import (
    BinOp,
    Call,
    Cast,
    Const,
    Expr,
    Ref,
    Ternary,
    UnaryOp,
    Var,
    walk,
)
from polycuda.ir.quasi_affine import check_subscript, is_piecewise
from polycuda.ir.scop import Scop, SourceInfo

_MATH_FUNCS = ("sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "floor", "ceil", "fabs", "pow")
_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau}
_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}
_AUG_OPS = {ast.Add: "+=", ast.Sub: "-=", ast.Mult: "*=", ast.Div: "/="}
_AUG_INVERSE = {v: k() for k, v in _AUG_OPS.items()}
_REWRITTEN_AUG_OPS = (ast.FloorDiv, ast.Mod, ast.Pow)  # `x //= e` becomes `x = x // e`
_CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_MAX_POW_UNROLL = 8  # x ** n for literal 0 <= n <= 8 is repeated multiplication

from polycuda.frontend.python_source import (  # noqa: F401 (public API)
    _CONSTRUCTS,
    ArgSpec,
    _flatten,
    _load_source,
    _Source,
    _value_spec,
    arg_specs_from_values,
    default_arg_specs,
    shape_values,
)
from polycuda.frontend.python_types import (
    _RANK,
    _arith_dtype,
    _assigned_names,
    _cast,
    _const_value,
    _float_floordiv,
    _float_mod,
    _int_const,
    _int_floordiv,
    _int_mod,
    _is_int,
    _join,
    _py_min_max,
    _shift,
    _Typed,
)


# -- the parser ------------------------------------------------------------------------------
def parse_function(fn: Callable, specs: Mapping[str, ArgSpec]) -> Scop:
    """The Scop of a Python function of loops.

    Args:
        fn: a function defined with `def` (decorators are ignored) whose source is available.
        specs: the kind of each of its arguments (`arg_specs_from_values`).
    Returns:
        Scop named fn.__name__; args are fn's parameters in order, then `<array>_d<k>`.
    Raises:
        UnsupportedConstruct, NotAffineError, IndirectSubscriptError: outside the subset;
            the location is the real file, line and column.
    """
    fn = inspect.unwrap(fn)
    return _Parser(fn, dict(specs), _load_source(fn)).parse()


class _Parser:
    """Walks one function's statements in order, driving a ScopBuilder."""

    def __init__(self, fn: Callable, specs: dict[str, ArgSpec], src: _Source):
        self.fn = fn
        self.specs = specs
        self.src = src
        self.builder = ScopBuilder(fn.__name__, src.file)
        self.globals: dict[str, Any] = getattr(fn, "__globals__", {})
        self.iters: list[str] = []  # active loop variables, outermost first
        self.ended: set[str] = set()  # loop variables whose loop has finished
        self.locals: dict[str, str] = {}  # local scalar -> its dtype (a 0-d local array)
        # names assigned once, outside any `if`, from values that read no array or local:
        # substituted where read, inside the loops (ids) enclosing their assignment
        self.aliases: dict[str, tuple[_Typed, tuple[int, ...]]] = {}
        self.loop_ids: list[int] = []
        self.loop_count = 0
        self.read_locals: set[str] = set()  # locals read by statements already added
        self.reading: set[str] = set()  # locals read by the statement being translated
        self.if_depth = 0
        self.assign_counts, self.loop_vars = _assigned_names(src.func)

    def loc(self, node: ast.AST) -> SourceLoc:
        return self.src.loc(node)

    def unsupported(self, node: ast.AST, what: str | None = None) -> UnsupportedConstruct:
        what = what or _CONSTRUCTS.get(type(node), f"'{type(node).__name__}'")
        return UnsupportedConstruct(f"{what} is not supported in a compiled function",
                                    self.loc(node))

    def parse(self) -> Scop:
        self._declare_args()
        body = self.src.func.body
        for k, stmt in enumerate(body):
            last_return = (isinstance(stmt, ast.Return) and k == len(body) - 1
                           and (stmt.value is None or _is_none(stmt.value)))
            if not last_return:
                self._stmt(stmt)
        if not self.builder.statements:
            raise UserError(f"'{self.fn.__name__}' assigns no array element or local variable",
                            self.loc(self.src.func))
        src = self.src
        return self.builder.build(SourceInfo(src.file, "".join(src.lines), self.fn.__name__,
                                             src.start, src.end))

    # -- arguments ---------------------------------------------------------------------------
    def _declare_args(self) -> None:
        a = self.src.func.args
        for extra in (a.vararg, a.kwarg):
            if extra is not None:
                raise self.unsupported(extra, f"variadic argument '{extra.arg}'")
        params = a.posonlyargs + a.args + a.kwonlyargs
        names = [p.arg for p in params]
        for name in self.specs:
            if name not in names:
                raise UserError(f"argument kind given for '{name}', which is not an argument "
                                f"of '{self.fn.__name__}'", self.loc(self.src.func))
        shapes: list[str] = []
        for param in params:
            spec = self.specs.get(param.arg)
            if spec is None:
                raise UserError(f"no kind given for argument '{param.arg}'", self.loc(param))
            dims = tuple(f"{param.arg}_d{k}" for k in range(spec.ndim))
            for dim in dims:
                if dim in names:
                    raise UserError(f"argument '{dim}' has the name of the shape parameter of "
                                    f"array '{param.arg}'", self.loc(param))
            shape = tuple(Var(d) for d in dims)
            self.builder.add_arg(param.arg, spec.kind, spec.dtype, shape, self.loc(param))
            shapes += dims
        for dim in shapes:
            self.builder.add_arg(dim, "param", "int")
            self.builder.add_context(f"{dim} >= 0")

    def _is_array(self, name: str) -> bool:
        spec = self.specs.get(name)
        return spec is not None and spec.kind == "array"

    # -- statements --------------------------------------------------------------------------
    def _stmt(self, node: ast.stmt) -> None:
        handlers: dict[type, Callable[[Any], None]] = {
            ast.For: self._for, ast.If: self._if, ast.Assign: self._assignment,
            ast.AugAssign: self._assignment, ast.AnnAssign: self._assignment,
            ast.Expr: self._expr_stmt, ast.Pass: lambda node: None,
        }
        handler = handlers.get(type(node))
        if handler is not None:
            handler(node)
        elif isinstance(node, ast.Return):
            what = ("'return' with a value" if node.value is not None and not _is_none(node.value)
                    else "'return' before the end of the function")
            raise self.unsupported(node, what)
        else:
            raise self.unsupported(node)

    def _expr_stmt(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring or a string used as a comment
        if isinstance(node.value, ast.Call):
            raise self.unsupported(node, f"call of '{ast.unparse(node.value.func)}'")
        raise self.unsupported(node, "an expression statement (its value is unused)")

    def _for(self, node: ast.For) -> None:
        if node.orelse:
            raise self.unsupported(node, "'for ... else'")
        if not isinstance(node.target, ast.Name):
            raise self.unsupported(node.target, "a loop target other than a single name")
        name = node.target.id
        self._check_loop_var(name, node.target)
        lower, upper, direction = self._range(node.iter)
        self.builder.enter_loop(name, lower, upper, direction, self.loc(node))
        self.iters.append(name)
        self.ended.discard(name)
        self.loop_ids.append(self.loop_count)
        self.loop_count += 1
        for stmt in node.body:
            self._stmt(stmt)
        self.loop_ids.pop()
        self.iters.pop()
        self.ended.add(name)
        self.builder.exit_loop()

    def _check_loop_var(self, name: str, node: ast.AST) -> None:
        if name in self.specs:
            raise UnsupportedConstruct(f"loop variable '{name}' reuses the name of an argument",
                                       self.loc(node))
        if name in self.iters:
            raise UnsupportedConstruct(f"loop variable '{name}' reuses the variable of an "
                                       "enclosing loop", self.loc(node))

    def _range(self, node: ast.expr) -> tuple[Expr, Expr, int]:
        """(lower, upper, direction): inclusive bounds of `range(...)` for enter_loop."""
        is_range = (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id == "range")
        if not is_range:
            raise self.unsupported(node, f"iteration over '{ast.unparse(node)}' (loops must "
                                         "iterate over range(...))")
        assert isinstance(node, ast.Call)
        if node.keywords or not 1 <= len(node.args) <= 3:
            raise self.unsupported(node, "this form of range() (use range(stop), "
                                         "range(start, stop) or range(start, stop, +-1))")
        step = 1
        if len(node.args) == 3:
            t = self._expr(node.args[2])
            step_value = _const_value(t.expr)
            if step_value not in (1, -1):
                raise self.unsupported(node.args[2], f"loop step '{ast.unparse(node.args[2])}'"
                                                     " (only the literal steps 1 and -1)")
            step = step_value
        # a bound may read index arrays (CSR: range(rowptr[i], rowptr[i + 1])); the builder
        # makes such a loop a CSR loop of its statements (codegen/csr.py)
        bounds = [self._int_expr(arg, "range() bound", arrays=True) for arg in node.args[:2]]
        start, stop = (Const(0), bounds[0]) if len(bounds) == 1 else bounds
        if step == 1:
            return start, _shift(stop, -1), 1
        return _shift(stop, 1), start, -1  # range(a, b, -1): a, a-1, ..., b+1

    def _int_expr(self, node: ast.expr, what: str, arrays: bool = False) -> Expr:
        t = self._expr(node)
        if not _is_int(t.dtype):
            raise UnsupportedConstruct(f"{what} '{ast.unparse(node)}' is a {t.dtype}, not an "
                                       "integer", self.loc(node))
        self._check_no_reads(t.expr, what, node, arrays=arrays)
        return t.expr

    def _if(self, node: ast.If) -> None:
        cond = self._cond(node.test)  # on data: if-converted by the builder
        loc = self.loc(node)
        self.if_depth += 1
        self.builder.enter_if(cond, loc)
        for stmt in node.body:
            self._stmt(stmt)
        self.builder.exit_if()
        if node.orelse:
            self.builder.enter_else(cond, loc)
            for stmt in node.orelse:
                self._stmt(stmt)
            self.builder.exit_if()
        self.if_depth -= 1

    # -- assignments -------------------------------------------------------------------------
    def _assignment(self, node: ast.Assign | ast.AugAssign | ast.AnnAssign) -> None:
        if isinstance(node, ast.AugAssign):
            op = _AUG_OPS.get(type(node.op))
            if op is None and not isinstance(node.op, _REWRITTEN_AUG_OPS):
                raise self.unsupported(node, f"augmented assignment '{_op_text(node.op)}='")
            return self._store(node.target, op, node.value, node, node.op)
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if len(targets) != 1 or node.value is None:
            raise self.unsupported(node, "chained assignment 'a = b = ...'" if len(targets) > 1
                                   else "an annotation without a value")
        self._store(targets[0], "=", node.value, node)

    def _store(self, target: ast.expr, op: str | None, value: ast.expr, node: ast.stmt,
               aug: ast.operator | None = None) -> None:
        """`target op value`; op None means `target = target <aug> value`."""
        self.reading = set()
        if isinstance(target, ast.Subscript):
            self._store_element(target, op, value, node, aug)
        elif isinstance(target, ast.Name):
            self._store_name(target, op, value, node, aug)
        elif isinstance(target, ast.Attribute):
            raise self.unsupported(target, f"attribute write '{ast.unparse(target)} = ...'")
        elif isinstance(target, (ast.Tuple, ast.List)):
            raise self.unsupported(target, "tuple assignment")
        else:
            raise self.unsupported(target)
        self.read_locals |= self.reading

    def _store_element(self, target: ast.Subscript, op: str | None, value: ast.expr,
                       node: ast.stmt, aug: ast.operator | None) -> None:
        base = _flatten(target)[0]
        if not (isinstance(base, ast.Name) and self._is_array(base.id)):
            raise self.unsupported(target, f"assignment to '{ast.unparse(target)}' (only "
                                           "elements of array arguments can be assigned)")
        lhs = self._ref(target)
        rhs = self._expr(value)
        loc = self.loc(node)
        numpy_ints = python_ints.is_np_int(lhs) or python_ints.is_np_int(rhs)
        if op is None or numpy_ints and op != "=":
            # NumPy's `A[i] op= e` is A[i] = A[i] op e: in A[i] op e's type, then stored
            aug = aug if op is None else _AUG_INVERSE[op]
            rhs, op = self._arith(aug, lhs, rhs, loc), "="
        if numpy_ints and lhs.dtype in dtypes.INTEGER:
            python_ints.check_store(lhs.dtype, rhs, self._np_kind, loc)
        expr = rhs.expr
        if op == "/=" and _is_int(lhs.dtype) and _is_int(rhs.dtype):
            expr = Cast("double", expr, loc)  # true division, truncated on the store
        assert isinstance(lhs.expr, Ref)
        self.builder.add_statement(lhs.expr, op, expr, loc)

    def _store_name(self, target: ast.Name, op: str | None, value: ast.expr, node: ast.stmt,
                    aug: ast.operator | None) -> None:
        name, loc = target.id, self.loc(node)
        self._check_assignable(name, target)
        rhs = self._expr(value)
        if python_ints.is_np_int(rhs):
            raise UnsupportedConstruct(
                f"local variable '{name}' holding a NumPy {python_ints.numpy_name(rhs.dtype)} "
                "value is not supported: use the expression in place, or int(...) of it", loc)
        has_refs = any(isinstance(e, Ref) for e in walk(rhs.expr))
        if op == "=" and not self.if_depth and self.assign_counts[name] == 1 and not has_refs:
            self.aliases[name] = (rhs, tuple(self.loop_ids))
            return
        if op != "=":
            if name not in self.locals:
                raise UserError(f"local variable '{name}' is used before it is assigned", loc)
            self.reading.add(name)
            lhs = _Typed(Ref(name, (), loc), self.locals[name])
            if op is None:
                rhs, op = self._arith(aug, lhs, rhs, loc), "="
            elif op == "/=":
                rhs = _Typed(_cast(rhs, "double") if _is_int(rhs.dtype) else rhs.expr,
                             _join(rhs.dtype, "double" if _is_int(lhs.dtype) else lhs.dtype))
            else:
                rhs = _Typed(rhs.expr, _arith_dtype(lhs.dtype, rhs.dtype))
        self._set_local_dtype(name, rhs.dtype, loc)
        self.builder.add_statement(Ref(name, (), loc), op, rhs.expr, loc)

    def _check_assignable(self, name: str, node: ast.Name) -> None:
        spec = self.specs.get(name)
        if spec is not None and spec.kind == "array":
            raise self.unsupported(node, f"rebinding array argument '{name}' (assign its "
                                         f"elements instead: {name}[...] = ...)")
        if spec is not None:
            raise self.unsupported(node, f"assignment to argument '{name}' (integer and "
                                         "scalar arguments are read-only)")
        if name in self.loop_vars:
            raise self.unsupported(node, f"assignment to loop variable '{name}'")

    def _set_local_dtype(self, name: str, dtype: str, loc: SourceLoc) -> None:
        """Declare local `name`, or widen it as Python would rebind it to a wider value."""
        want = "long" if _is_int(dtype) else dtype
        have = self.locals.get(name)
        if have is None:
            self.builder.add_local(name, want, (), loc)
            self.locals[name] = want
            return
        if _RANK[want] <= _RANK[have]:
            return
        if _is_int(have) and not _is_int(want) and name in self.read_locals:
            raise UnsupportedConstruct(
                f"local variable '{name}' holds an integer and is read as one before this "
                f"assignment makes it a float; initialize it with a float (e.g. {name} = 0.0)",
                loc)
        self.locals[name] = want
        arrays = self.builder.arrays
        arrays[name] = replace(arrays[name], dtype=want)

    # -- array references --------------------------------------------------------------------
    def _ref(self, node: ast.Subscript) -> _Typed:
        """A[i, j] or A[i][j] as a Ref with affine subscripts (A an array argument)."""
        base, indices = _flatten(node)
        if not isinstance(base, ast.Name):
            self._expr(base)  # raises for lists, calls, ...
        if not (isinstance(base, ast.Name) and self._is_array(base.id)):
            raise self.unsupported(node, f"subscript of '{ast.unparse(base)}', which is not "
                                         "an array argument")
        name, ndim = base.id, self.specs[base.id].ndim
        for index in indices:
            if isinstance(index, ast.Slice):
                raise self.unsupported(index, f"slice '{ast.unparse(node)}' (index every "
                                              "element in a loop)")
        if len(indices) != ndim:
            raise UnsupportedConstruct(
                f"'{name}' has {ndim} dimension(s) but '{ast.unparse(node)}' gives "
                f"{len(indices)} index(es) (whole rows or views are not supported)",
                self.loc(node))
        index = tuple(self._index(name, k, idx) for k, idx in enumerate(indices))
        return _Typed(Ref(name, index, self.loc(node)), self.specs[name].dtype)

    def _index(self, array: str, k: int, node: ast.expr) -> Expr:
        t = self._expr(node)
        loc = self.loc(node)
        if not _is_int(t.dtype):
            raise UnsupportedConstruct(f"subscript '{ast.unparse(node)}' is a {t.dtype}, not "
                                       "an integer", loc)
        value = _const_value(t.expr)
        if value is not None and value < 0:  # Python counts a negative literal from the end
            return BinOp("-", Var(f"{array}_d{k}", loc), Const(-value, loc=loc), loc)
        # a subscript may read index arrays (A[idx[i]]: the builder checks it and the
        # run-time inspector path orders its iterations); never locals
        self._check_no_reads(t.expr, "subscript", node, arrays=True)
        names = set(self.iters) | set(self.builder.params)
        if is_indirect(t.expr):
            return t.expr
        if is_piecewise(t.expr):  # min/max, `a if c else b`: one affine piece per condition
            check_subscript(t.expr, names)
        else:
            affine_text(t.expr, names, "subscript")
        return t.expr

    def _check_no_reads(self, expr: Expr, what: str, node: ast.expr,
                        arrays: bool = False) -> None:
        """Subscripts and bounds may not read locals (NotAffine); bounds may not read arrays
        (Indirect), subscripts may when `arrays`."""
        for e in walk(expr):
            if isinstance(e, Ref) and e.array in self.locals:
                raise NotAffineError(f"{what} '{ast.unparse(node)}' uses local variable "
                                     f"'{e.array}', whose value is only known at run time",
                                     self.loc(node))
            if isinstance(e, Ref) and not arrays:
                raise IndirectSubscriptError(
                    f"indirect {what} '{ast.unparse(node)}': it reads array '{e.array}'; only "
                    "subscripts and range() bounds may read index arrays (A[idx[i]], "
                    "range(rowptr[i], rowptr[i + 1])); conditions and sizes must be affine",
                    self.loc(node))

    # -- expressions -------------------------------------------------------------------------
    def _expr(self, node: ast.expr) -> _Typed:
        handlers: dict[type, Callable[[Any], _Typed]] = {
            ast.Constant: self._constant, ast.Name: self._name, ast.BinOp: self._binop,
            ast.UnaryOp: self._unary, ast.BoolOp: self._boolop, ast.Compare: self._compare,
            ast.IfExp: self._ifexp, ast.Call: self._call, ast.Subscript: self._subscript,
            ast.Attribute: self._attribute,
        }
        handler = handlers.get(type(node))
        if handler is None:
            raise self.unsupported(node)
        return handler(node)

    def _constant(self, node: ast.Constant) -> _Typed:
        value, loc = node.value, self.loc(node)
        if isinstance(value, bool):
            return _Typed(Const(int(value), "int", loc), "bool")
        if isinstance(value, int):
            return _int_const(value, loc)
        if isinstance(value, float) and math.isfinite(value):
            return _Typed(Const(value, "double", loc), "double")
        raise self.unsupported(node, f"constant {value!r}")

    def _name(self, node: ast.Name) -> _Typed:
        name, loc = node.id, self.loc(node)
        if name in self.aliases:
            value, scope = self.aliases[name]
            if tuple(self.loop_ids[:len(scope)]) != scope:
                raise UnsupportedConstruct(f"'{name}' is used after the loop that assigns it",
                                           loc)
            return value
        if name in self.iters:
            return _Typed(Var(name, loc), "long")
        if name in self.ended:
            raise UnsupportedConstruct(f"loop variable '{name}' is used after its loop",
                                       loc)
        spec = self.specs.get(name)
        if spec is not None and spec.kind == "array":
            raise UnsupportedConstruct(f"array '{name}' used without a subscript "
                                       "(whole-array operations are not supported)", loc)
        if spec is not None:
            return _Typed(Var(name, loc), "long" if spec.kind == "param" else spec.dtype)
        if name in self.locals:
            self.reading.add(name)
            return _Typed(Ref(name, (), loc), self.locals[name])
        if name in self.assign_counts or name in self.loop_vars:
            raise UserError(f"local variable '{name}' is used before it is assigned", loc)
        raise UnsupportedConstruct(
            f"name '{name}' is not an argument, loop variable or local variable of "
            f"'{self.fn.__name__}' (globals and closures are not supported: pass it as an "
            "argument)", loc)

    def _attribute(self, node: ast.Attribute) -> _Typed:
        base = node.value
        if isinstance(base, ast.Name) and self._module(base.id) and node.attr in _CONSTANTS:
            return _Typed(Const(_CONSTANTS[node.attr], "double", self.loc(node)), "double")
        raise self.unsupported(node, f"attribute '{ast.unparse(node)}'")

    def _subscript(self, node: ast.Subscript) -> _Typed:
        value = node.value
        if (isinstance(value, ast.Attribute) and value.attr == "shape"
                and isinstance(value.value, ast.Name) and self._is_array(value.value.id)):
            name = value.value.id
            ndim = self.specs[name].ndim
            k = _const_value(self._expr(node.slice).expr)
            if k is None or not -ndim <= k < ndim:
                raise self.unsupported(node, f"'{ast.unparse(node)}' (the index of .shape must"
                                             f" be a constant in range for {ndim} dimensions)")
            return _Typed(Var(f"{name}_d{k % ndim}", self.loc(node)), "long")
        return self._ref(node)

    def _binop(self, node: ast.BinOp) -> _Typed:
        return self._arith(node.op, self._expr(node.left), self._expr(node.right),
                           self.loc(node))

    def _np_kind(self, t: _Typed) -> str | None:
        """The kind of an operand for NumPy's rules (python_ints.KindOf): an integer typed as
        a Python int is a constant (weak), or reads int32 / int64 array elements (of that
        NumPy type), or is a Python integer known only at run time (None)."""
        if t.np_kind is not None or t.dtype not in ("int", "long"):
            return t.np_kind or t.dtype
        if isinstance(t.expr, Const):
            return python_ints.WEAK
        arrays = [e.array for e in walk(t.expr) if isinstance(e, Ref)]
        if not arrays or any(a in self.locals or self.specs[a].dtype not in ("int", "long")
                             for a in arrays):
            return None
        return "long" if any(self.specs[a].dtype == "long" for a in arrays) else "int"

    def _arith(self, op: ast.operator | None, a: _Typed, b: _Typed, loc: SourceLoc) -> _Typed:
        sym = _ARITH.get(type(op))
        if python_ints.is_np_int(a) or python_ints.is_np_int(b):
            if sym is None and not isinstance(op, ast.Div):
                python_ints.refuse(f"operator '{_op_text(op)}'", a if python_ints.is_np_int(a)
                                   else b, loc)
            return python_ints.arith(sym or "/", a, b, self._np_kind, loc)
        x, y = _const_value(a.expr), _const_value(b.expr)
        if sym is not None and x is not None and y is not None:  # exact, as Python's ints
            return _int_const(x + y if sym == "+" else x - y if sym == "-" else x * y, loc)
        if sym is not None:
            return _Typed(BinOp(sym, a.expr, b.expr, loc), _arith_dtype(a.dtype, b.dtype))
        if isinstance(op, ast.Div):
            if _is_int(a.dtype) and _is_int(b.dtype):  # Python's / is true division
                return _Typed(BinOp("/", _cast(a, "double"), _cast(b, "double"), loc),
                              "double")
            return _Typed(BinOp("/", a.expr, b.expr, loc), _join(a.dtype, b.dtype))
        if isinstance(op, (ast.FloorDiv, ast.Mod)):
            return self._floor_op(op, a, b, loc)
        if isinstance(op, ast.Pow):
            return self._pow(a, b, loc)
        raise UnsupportedConstruct(f"operator '{_op_text(op)}' is not supported in a compiled "
                                   "function", loc)

    def _floor_op(self, op: ast.operator, a: _Typed, b: _Typed, loc: SourceLoc) -> _Typed:
        """// and % with Python's rounding toward -inf (integers and floats)."""
        is_mod = isinstance(op, ast.Mod)
        if _is_int(a.dtype) and _is_int(b.dtype):
            dtype = _arith_dtype(a.dtype, b.dtype)
            expr = _int_mod(a.expr, b.expr, loc) if is_mod else _int_floordiv(a.expr, b.expr,
                                                                                loc)
            return _Typed(expr, dtype)
        dtype = _join(a.dtype, b.dtype)
        x, y = _cast(a, dtype), _cast(b, dtype)
        if is_mod:
            return _Typed(_float_mod(x, y, dtype, loc), dtype)
        return _Typed(_float_floordiv(x, y, dtype, loc), dtype)

    def _pow(self, a: _Typed, b: _Typed, loc: SourceLoc) -> _Typed:
        """x ** n: repeated multiplication for a literal 0 <= n <= 8, else pow() in floats."""
        n, base = _const_value(b.expr), _const_value(a.expr)
        if n is not None and base is not None and n >= 0:  # a literal such as 10**9
            return _int_const(base**n, loc)
        if n is not None and 0 <= n <= _MAX_POW_UNROLL:
            dtype = _arith_dtype(a.dtype)
            result: Expr = Const(1, "int", loc) if _is_int(dtype) else Const(1.0, "double", loc)
            for k in range(n):
                result = a.expr if k == 0 else BinOp("*", result, a.expr, loc)
            return _Typed(result, dtype)
        if _is_int(a.dtype) and _is_int(b.dtype) and (n is None or n > 0):
            raise UnsupportedConstruct(
                "integer power with a non-constant or large exponent (its exact integer value "
                "cannot be computed with pow()); write float(x) ** n", loc)
        dtype = "float" if (a.dtype, b.dtype) == ("float", "float") else "double"
        return _Typed(Call("pow", (_cast(a, dtype), _cast(b, dtype)), loc), dtype)

    def _unary(self, node: ast.UnaryOp) -> _Typed:
        loc = self.loc(node)
        if isinstance(node.op, ast.Not):
            return _Typed(UnaryOp("!", self._cond(node.operand), loc), "bool")
        if isinstance(node.op, ast.Invert):
            raise self.unsupported(node, "bitwise operator '~'")
        t = self._expr(node.operand)
        if python_ints.is_np_int(t):
            return t if isinstance(node.op, ast.UAdd) else python_ints.negate(t, loc)
        dtype = _arith_dtype(t.dtype)
        if isinstance(node.op, ast.UAdd):
            return _Typed(t.expr, dtype)
        if isinstance(t.expr, Const) and t.dtype != "bool":  # fold negative literals
            return _Typed(Const(-t.expr.value, t.expr.dtype, loc), dtype)
        return _Typed(UnaryOp("-", t.expr, loc), dtype)

    def _compare(self, node: ast.Compare) -> _Typed:
        loc = self.loc(node)
        operands = [self._expr(node.left)] + [self._expr(c) for c in node.comparators]
        result: Expr | None = None
        for k, op in enumerate(node.ops):
            sym = _CMP.get(type(op))
            if sym is None:
                raise self.unsupported(node, f"comparison '{_op_text(op)}'")
            a, b = operands[k], operands[k + 1]
            cmp = (python_ints.compare(sym, a, b, loc)
                   if python_ints.is_np_int(a) or python_ints.is_np_int(b)
                   else BinOp(sym, a.expr, b.expr, loc))
            result = cmp if result is None else BinOp("&&", result, cmp, loc)
        assert result is not None
        return _Typed(result, "bool")

    def _boolop(self, node: ast.BoolOp) -> _Typed:
        """`and`/`or`: && and || on truth values; on numbers the operand Python returns."""
        loc = self.loc(node)
        is_and = isinstance(node.op, ast.And)
        values = [self._expr(v) for v in node.values]
        for value in values:
            python_ints.refuse(f"'{'and' if is_and else 'or'}'", value, loc)
        result = values[0]
        for value in values[1:]:
            if result.dtype == "bool" and value.dtype == "bool":
                result = _Typed(BinOp("&&" if is_and else "||", result.expr, value.expr, loc),
                                "bool")
                continue
            truth = _truth(result, loc)
            then, other = (value, result) if is_and else (result, value)
            result = _Typed(Ternary(truth, then.expr, other.expr, loc),
                            _arith_dtype(then.dtype, other.dtype))
        return result

    def _cond(self, node: ast.expr) -> Expr:
        """A condition as a truth value (&&, ||, ! and comparisons; `x` means `x != 0`)."""
        loc = self.loc(node)
        if isinstance(node, ast.BoolOp):
            conds = [self._cond(v) for v in node.values]
            result = conds[0]
            for cond in conds[1:]:
                result = BinOp("&&" if isinstance(node.op, ast.And) else "||", result, cond, loc)
            return result
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return UnaryOp("!", self._cond(node.operand), loc)
        return _truth(self._expr(node), loc)

    def _ifexp(self, node: ast.IfExp) -> _Typed:
        cond = self._cond(node.test)
        then, other = self._expr(node.body), self._expr(node.orelse)
        if then.dtype != other.dtype:
            for t in (then, other):
                python_ints.refuse("'... if ... else ...' mixing types", t, self.loc(node))
        elif python_ints.is_np_int(then):
            return _Typed(Ternary(cond, then.expr, other.expr, self.loc(node)), then.dtype)
        dtype = "bool" if then.dtype == other.dtype == "bool" else _arith_dtype(then.dtype,
                                                                                other.dtype)
        return _Typed(Ternary(cond, then.expr, other.expr, self.loc(node)), dtype)

    # -- calls -------------------------------------------------------------------------------
    def _call(self, node: ast.Call) -> _Typed:
        name, module = self._callee(node.func)
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.unsupported(node, f"keyword or '*' arguments in the call of '{name}'")
        if module is not None:
            return self._math_call(name, module, node)
        if name in ("min", "max"):
            return self._minmax(name, node)
        if name in ("abs", "float", "int", "len"):
            if len(node.args) != 1:
                raise self.unsupported(node, f"{name}() with {len(node.args)} arguments")
            return self._builtin(name, node.args[0], self.loc(node))
        if name == "range":
            raise self.unsupported(node, "range() outside the header of a for loop")
        raise self.unsupported(node, f"call of '{name}' (only min, max, abs, float, int, len "
                                     "and math / numpy math functions can be called)")

    def _callee(self, func: ast.expr) -> tuple[str, str | None]:
        """(function name, "math" | "numpy" | None for builtins and unknown functions)."""
        if isinstance(func, ast.Name):
            obj = self.globals.get(func.id)
            for module in (math, np):
                if obj is not None and getattr(module, func.id, None) is obj:
                    return func.id, module.__name__
            return func.id, None
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            module_name = self._module(func.value.id)
            if module_name is not None:
                return func.attr, module_name
        return ast.unparse(func), None

    def _module(self, name: str) -> str | None:
        """"math" or "numpy" when `name` refers to that module in the function's globals."""
        obj = self.globals.get(name)
        if inspect.ismodule(obj):
            return obj.__name__ if obj.__name__ in ("math", "numpy") else None
        if obj is None:
            return {"math": "math", "np": "numpy", "numpy": "numpy"}.get(name)
        return None

    def _math_call(self, name: str, module: str, node: ast.Call) -> _Typed:
        loc = self.loc(node)
        if name not in _MATH_FUNCS and not (module == "numpy" and name == "abs"):
            raise self.unsupported(node, f"call of '{module}.{name}'")
        arity = 2 if name == "pow" else 1
        if len(node.args) != arity:
            raise self.unsupported(node, f"'{module}.{name}' with {len(node.args)} argument(s)")
        args = [self._expr(a) for a in node.args]
        for arg in args:
            python_ints.refuse(f"'{module}.{name}'", arg, loc)
        if name == "abs":
            return self._abs(args[0], loc)
        floating = all(not _is_int(a.dtype) for a in args)
        dtype = _join(*(a.dtype for a in args)) if module == "numpy" and floating else "double"
        call = Call(name, tuple(_cast(a, dtype) for a in args), loc)
        if module == "math" and name in ("floor", "ceil"):  # math.floor returns an int
            return _Typed(Cast("long", call, loc), "long")
        return _Typed(call, dtype)

    def _minmax(self, name: str, node: ast.Call) -> _Typed:
        """min/max of numbers: BinOp min/max on integers; on floats Python's comparisons
        (NaN rules of the builtins, not C's fmin/fmax)."""
        loc = self.loc(node)
        if len(node.args) < 2:
            raise self.unsupported(node, f"{name}() of fewer than two numbers")
        args = [self._expr(a) for a in node.args]
        for arg in args:
            python_ints.refuse(f"{name}()", arg, loc)
        dtype = _arith_dtype(*(a.dtype for a in args))
        if not _is_int(dtype):
            return _Typed(_py_min_max(name, [_cast(a, dtype) for a in args], loc), dtype)
        result = _cast(args[0], dtype)
        for arg in args[1:]:
            result = BinOp(name, result, _cast(arg, dtype), loc)
        return _Typed(result, dtype)

    def _abs(self, t: _Typed, loc: SourceLoc) -> _Typed:
        """fabs on floats; on integers a select, exact for 64-bit values (C's abs takes int)."""
        dtype = _arith_dtype(t.dtype)
        if not _is_int(dtype):
            return _Typed(Call("fabs", (t.expr,), loc), dtype)
        negative = BinOp("<", t.expr, Const(0, loc=loc), loc)
        return _Typed(Ternary(negative, UnaryOp("-", t.expr, loc), t.expr, loc), dtype)

    def _builtin(self, name: str, arg: ast.expr, loc: SourceLoc) -> _Typed:
        """abs(x), float(x), int(x) (truncates toward zero, like a C cast) and len(A)."""
        if name == "len":
            if not (isinstance(arg, ast.Name) and self._is_array(arg.id)):
                raise self.unsupported(arg, f"len({ast.unparse(arg)}) (len() of an array "
                                            "argument only)")
            return _Typed(Var(f"{arg.id}_d0", loc), "long")
        t = self._expr(arg)
        if name == "abs":
            python_ints.refuse("abs()", t, loc)
            return self._abs(t, loc)
        if name == "float":
            return _Typed(_cast(t, "double"), "double")
        if _is_int(t.dtype):
            return _Typed(t.expr, _arith_dtype(t.dtype))
        return _Typed(Cast("long", t.expr, loc), "long")


def _truth(t: _Typed, loc: SourceLoc) -> Expr:
    if t.dtype == "bool":
        return t.expr
    zero = Const(0, "int", loc) if _is_int(t.dtype) else Const(0.0, "double", loc)
    return BinOp("!=", t.expr, zero, loc)


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _op_text(op: ast.AST | None) -> str:
    texts = {ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<",
             ast.RShift: ">>", ast.MatMult: "@", ast.FloorDiv: "//", ast.Mod: "%",
             ast.Pow: "**", ast.Div: "/", ast.Is: "is", ast.IsNot: "is not", ast.In: "in",
             ast.NotIn: "not in"}
    return texts.get(type(op), type(op).__name__)
