"""Translate the pycparser AST of one `#pragma scop` region into ScopBuilder calls.

`ExprTranslator` turns C expressions into ir.expr nodes (rejecting side effects, pointers and
unsupported calls); `RegionTranslator` adds loops, conditions, local declarations and
assignments. Names resolve through `Binding`s that the caller (frontend.c) sets up for the
function's parameters, its other locals and the file's globals.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import islpy as isl
from pycparser import c_ast

from polycuda.errors import NotAffineError, UnsupportedConstruct, UserError
from polycuda.frontend.builder import ScopBuilder
from polycuda.frontend.c_preprocess import Unit
from polycuda.ir.affine import affine_text
from polycuda.ir.expr import (
    MATH_FUNCS,
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

_BINOPS = ("+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&&", "||")
_INCDEC = {"p++": "+=", "++": "+=", "p--": "-=", "--": "-="}
_ASSIGN_OPS = ("=", "+=", "-=", "*=", "/=")
_MINMAX_CALLS = {"min": "min", "max": "max", "MIN": "min", "MAX": "max",
                 "floord": "floordiv", "ceild": "ceildiv"}
_FLOAT_MATH = {f"{name}f": name for name in MATH_FUNCS if name != "abs"}
_FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
_DTYPE_NAMES = {(): "int", ("int",): "int", ("long",): "long", ("int", "long"): "long",
                ("long", "long"): "long", ("int", "long", "long"): "long",
                ("float",): "float", ("double",): "double"}
_AFFINE_CTX = ("bound", "subscript", "condition", "size")


# -- C types --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CType:
    """A declared C type: element dtype (None when unsupported), spelling and array dims."""

    dtype: str | None
    spelled: str
    quals: tuple[str, ...] = ()
    dims: tuple[c_ast.Node | None, ...] = ()
    pointer: bool = False


def c_type(node: c_ast.Node, typedefs: dict[str, c_ast.Node]) -> CType:
    """The CType of a declaration's type node (ArrayDecl / PtrDecl / TypeDecl chain)."""
    dims: list[c_ast.Node | None] = []
    pointer = False
    while not isinstance(node, c_ast.TypeDecl):
        if isinstance(node, c_ast.ArrayDecl):
            dims.append(node.dim)
        elif isinstance(node, c_ast.PtrDecl):
            pointer = True
        else:
            return CType(None, "a function type", pointer=pointer)
        node = node.type
    inner = node.type
    if not isinstance(inner, c_ast.IdentifierType):
        kind = type(inner).__name__.lower()
        return CType(None, f"{kind} {getattr(inner, 'name', '') or ''}".strip(),
                     tuple(node.quals), tuple(dims), pointer)
    spelled = " ".join(inner.names)
    return CType(_dtype_of(inner.names, typedefs), spelled, tuple(node.quals), tuple(dims),
                 pointer)


def _dtype_of(names: list[str], typedefs: dict[str, c_ast.Node]) -> str | None:
    if len(names) == 1 and names[0] in typedefs:
        target = c_type(typedefs[names[0]], {k: v for k, v in typedefs.items()
                                             if k != names[0]})
        return None if target.dims or target.pointer else target.dtype
    return _DTYPE_NAMES.get(tuple(sorted(n for n in names if n != "signed")))


# -- names ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Binding:
    """What a C name means inside the region.

    kind: "var" (integer parameter or scalar argument: read-only), "iter" (loop iterator),
        "array" (an array, or a scalar written in the region: ndim 0), "subst" (replaced by
        `expr`), "invalid" (using it raises an error that gives `reason`).
    """

    kind: str
    name: str = ""
    ndim: int = 0
    expr: Expr | None = None
    reason: str = ""


# -- the region scan ------------------------------------------------------------------------------
@dataclass
class RegionScan:
    """Names a region uses, writes, declares and uses as iterators (before translating it).

    first_read: names whose first use in source order reads a value set before the region.
    """

    used: set[str] = field(default_factory=set)
    written: set[str] = field(default_factory=set)
    iterators: set[str] = field(default_factory=set)
    declared: set[str] = field(default_factory=set)
    first_read: set[str] = field(default_factory=set)
    _seen: set[str] = field(default_factory=set)

    def use(self, name: str, read: bool) -> None:
        self.used.add(name)
        if name not in self._seen:
            self._seen.add(name)
            if read:
                self.first_read.add(name)


def scan_region(items: list[c_ast.Node]) -> RegionScan:
    scan = RegionScan()
    for item in items:
        _scan(item, scan)
    return scan


def _scan(node: c_ast.Node | None, s: RegionScan) -> None:
    if node is None:
        return
    if isinstance(node, c_ast.ID):
        s.use(node.name, read=True)
    elif isinstance(node, c_ast.Assignment):
        _scan(node.rvalue, s)
        _scan_lvalue(node.lvalue, s, compound=node.op != "=")
    elif isinstance(node, c_ast.UnaryOp) and node.op in _INCDEC:
        _scan_lvalue(node.expr, s, compound=True)
    elif isinstance(node, c_ast.Decl):
        _scan(node.init, s)
        s.declared.add(node.name)
        s.use(node.name, read=False)
    elif isinstance(node, c_ast.For):
        _scan_for(node, s)
    elif isinstance(node, c_ast.StructRef):
        _scan(node.name, s)
    else:
        for _, child in node.children():
            _scan(child, s)


def _scan_for(node: c_ast.For, s: RegionScan) -> None:
    name = for_iterator_name(node)
    if name is None:
        for _, child in node.children():
            _scan(child, s)
        return
    s.iterators.add(name)
    init = node.init
    if isinstance(init, c_ast.Assignment):
        _scan(init.rvalue, s)
    elif isinstance(init, c_ast.DeclList):
        _scan(init.decls[0].init, s)
    s.use(name, read=False)
    _scan(node.cond, s)
    _scan(node.stmt, s)


def _scan_lvalue(node: c_ast.Node, s: RegionScan, compound: bool) -> None:
    if isinstance(node, c_ast.ID):
        if compound:
            s.use(node.name, read=True)
        s.use(node.name, read=False)
        s.written.add(node.name)
        return
    base = node
    while isinstance(base, c_ast.ArrayRef):
        _scan(base.subscript, s)
        base = base.name
    if isinstance(base, c_ast.ID) and base is not node:
        s.used.add(base.name)
        s.written.add(base.name)
    else:
        _scan(node, s)


def for_iterator_name(node: c_ast.For) -> str | None:
    init = node.init
    if isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
        return init.decls[0].name
    return None


# -- expressions ----------------------------------------------------------------------------------
class ExprTranslator:
    """C expression -> ir.expr, in a context: "value", "bound", "subscript", "condition", "size"."""

    def __init__(self, unit: Unit, bindings: dict[str, Binding],
                 typedefs: dict[str, c_ast.Node]):
        self.unit = unit
        self.typedefs = typedefs
        self.scopes: list[dict[str, Binding]] = [bindings]
        self.divisions: list[tuple[Expr, c_ast.Node]] = []  # C '/' taken as floor in subscripts

    def loc(self, node: c_ast.Node):
        return self.unit.loc(node.coord)

    def reject(self, node: c_ast.Node, msg: str, cls: type[UserError] = UnsupportedConstruct):
        raise cls(msg, self.loc(node))

    def lookup(self, name: str, node: c_ast.Node) -> Binding:
        for scope in reversed(self.scopes):
            if name in scope:
                binding = scope[name]
                if binding.kind in ("invalid", "iterdecl"):
                    self.reject(node, binding.reason)
                return binding
        self.reject(node, f"'{name}' is not declared", UserError)
        raise AssertionError  # unreachable: reject raises

    def expr(self, node: c_ast.Node, ctx: str = "value") -> Expr:
        method = getattr(self, f"_x_{type(node).__name__}", None)
        if method is None:
            self.reject(node, f"{describe(node)} is not supported inside a region")
        return method(node, ctx)

    def _x_Constant(self, node: c_ast.Constant, ctx: str) -> Expr:
        return Const(*parse_constant(node, self), loc=self.loc(node))

    def _x_ID(self, node: c_ast.ID, ctx: str) -> Expr:
        b = self.lookup(node.name, node)
        if b.kind == "subst":
            assert b.expr is not None
            return b.expr if ctx == "value" else self._to_affine(b.expr, ctx, node)
        if b.kind == "array":
            if b.ndim:
                self.reject(node, f"array '{node.name}' is used without subscripts")
            return Ref(b.name, (), self.loc(node))
        return Var(b.name, self.loc(node))

    def _x_ArrayRef(self, node: c_ast.ArrayRef, ctx: str) -> Expr:
        subs: list[c_ast.Node] = []
        base = node
        while isinstance(base, c_ast.ArrayRef):
            subs.insert(0, base.subscript)
            base = base.name
        if not isinstance(base, c_ast.ID):
            self.reject(node, f"subscript of {describe(base)} (only named arrays are supported)")
        b = self.lookup(base.name, base)
        if b.kind != "array" or b.ndim == 0:
            self.reject(node, f"'{base.name}' is subscripted but is not an array")
        if len(subs) != b.ndim:
            self.reject(node, f"'{base.name}' has {b.ndim} dimension(s) but is subscripted with "
                              f"{len(subs)} (pointer arithmetic on arrays is not supported)")
        index = tuple(self.expr(s, "subscript") for s in subs)
        return Ref(b.name, index, self.loc(base))

    def _x_BinaryOp(self, node: c_ast.BinaryOp, ctx: str) -> Expr:
        if node.op not in _BINOPS:
            self.reject(node, f"operator '{node.op}' is not supported inside a region")
        lhs, rhs = self.expr(node.left, ctx), self.expr(node.right, ctx)
        if node.op == "/" and ctx in _AFFINE_CTX:
            return self._division(node, lhs, rhs, ctx)
        return BinOp(node.op, lhs, rhs, self.loc(node))

    def _division(self, node: c_ast.BinaryOp, lhs: Expr, rhs: Expr, ctx: str) -> Expr:
        """C '/' in affine positions: floor division, valid where the numerator is >= 0."""
        if ctx == "condition":
            self.reject(node, "C division '/' in a condition (it rounds toward zero): use "
                              "floord(a, d) / ceild(a, d)", NotAffineError)
        if ctx == "subscript":
            self.divisions.append((lhs, node))
        elif not looks_nonnegative(lhs):
            self.reject(node, f"C division '/' in a {'loop bound' if ctx == 'bound' else ctx} "
                              "of a possibly negative value (it rounds toward zero): use "
                              "floord(a, d) / ceild(a, d)", NotAffineError)
        return BinOp("floordiv", lhs, rhs, self.loc(node))

    def _x_UnaryOp(self, node: c_ast.UnaryOp, ctx: str) -> Expr:
        op = node.op
        if op in _INCDEC:
            text = f"{describe(node.expr)}{op[1:]}" if op.startswith("p") else op
            self.reject(node, f"'{text}' (increment/decrement inside an expression) is not "
                              "supported; write it as a separate statement")
        if op in ("*", "&"):
            what = "pointer dereference '*'" if op == "*" else "address-of operator '&'"
            self.reject(node, f"{what} is not supported inside a region")
        if op not in ("-", "+", "!"):
            self.reject(node, f"operator '{op}' is not supported inside a region")
        operand = self.expr(node.expr, ctx)
        if op == "+":
            return operand
        if op == "-" and isinstance(operand, Const):
            return Const(-operand.value, operand.dtype, self.loc(node))
        return UnaryOp(op, operand, self.loc(node))

    def _x_TernaryOp(self, node: c_ast.TernaryOp, ctx: str) -> Expr:
        # Branches are read with C semantics first: the min/max/floord/ceild macro patterns
        # are matched on the C text, then divisions are checked in the affine context.
        result = Ternary(self.expr(node.cond, "value"), self.expr(node.iftrue, "value"),
                         self.expr(node.iffalse, "value"), self.loc(node))
        return result if ctx == "value" else self._to_affine(result, ctx, node)

    def _to_affine(self, e: Expr, ctx: str, node: c_ast.Node) -> Expr:
        if isinstance(e, Ternary):
            matched = affine_ternary(e)
            return e if matched is e else self._to_affine(matched, ctx, node)
        if isinstance(e, BinOp):
            lhs, rhs = self._to_affine(e.lhs, ctx, node), self._to_affine(e.rhs, ctx, node)
            if e.op == "/":
                return self._division(node, lhs, rhs, ctx)
            return BinOp(e.op, lhs, rhs, e.loc)
        if isinstance(e, UnaryOp):
            return UnaryOp(e.op, self._to_affine(e.operand, ctx, node), e.loc)
        if isinstance(e, Cast):
            return Cast(e.dtype, self._to_affine(e.operand, ctx, node), e.loc)
        return e

    def _x_Cast(self, node: c_ast.Cast, ctx: str) -> Expr:
        ctype = c_type(node.to_type.type, self.typedefs)
        if ctype.dtype is None or ctype.dims or ctype.pointer:
            self.reject(node, f"cast to '{ctype.spelled}' is not supported "
                              "(supported: int, long, float, double)")
        return Cast(ctype.dtype, self.expr(node.expr, ctx), self.loc(node))

    def _x_FuncCall(self, node: c_ast.FuncCall, ctx: str) -> Expr:
        if not isinstance(node.name, c_ast.ID):
            self.reject(node, "call through a function pointer is not supported")
        name = node.name.name
        args = tuple(self.expr(a, ctx) for a in (node.args.exprs if node.args else []))
        loc = self.loc(node)
        if name in _MINMAX_CALLS and len(args) == 2:
            return BinOp(_MINMAX_CALLS[name], args[0], args[1], loc)
        if name in MATH_FUNCS:
            return Call(name, args, loc)
        if name in _FLOAT_MATH:
            return Cast("float", Call(_FLOAT_MATH[name], args, loc), loc)
        self.reject(node, f"call to '{name}' is not supported inside a region: calls may have "
                          f"side effects (allowed: the math functions {', '.join(MATH_FUNCS)}, "
                          "min/max, floord/ceild)")
        raise AssertionError  # unreachable

    def _x_Assignment(self, node: c_ast.Assignment, ctx: str) -> Expr:
        self.reject(node, f"assignment '{node.op}' inside an expression is not supported")
        raise AssertionError  # unreachable

    def _x_ExprList(self, node: c_ast.ExprList, ctx: str) -> Expr:
        self.reject(node, "comma expression is not supported inside a region")
        raise AssertionError  # unreachable


def describe(node: c_ast.Node) -> str:
    """A short name of a construct for error messages."""
    if isinstance(node, c_ast.ID):
        return node.name
    if isinstance(node, c_ast.StructRef):
        return f"struct member access '{node.type}{node.field.name}'"
    if isinstance(node, c_ast.Constant) and node.type == "string":
        return f"string literal {node.value}"
    names = {"FuncCall": "function call", "InitList": "initializer list",
             "CompoundLiteral": "compound literal", "Typename": "type name"}
    return names.get(type(node).__name__, type(node).__name__)


def parse_constant(node: c_ast.Constant, tr: ExprTranslator) -> tuple[int | float, str]:
    text = node.value
    if node.type == "char":
        body = text[1:-1].encode().decode("unicode_escape")
        if len(body) != 1:
            tr.reject(node, f"character constant {text} is not supported")
        return ord(body), "int"
    if node.type == "string":
        tr.reject(node, f"string literal {text} is not supported inside a region")
    lower = text.lower()
    if node.type in ("float", "double", "long double"):
        if lower.endswith("l"):
            tr.reject(node, f"long double literal '{text}' is not supported")
        digits = text.rstrip("fF")
        value = float.fromhex(digits) if lower.startswith("0x") else float(digits)
        return value, "float" if lower.endswith("f") else "double"
    if "u" in lower:
        tr.reject(node, f"unsigned literal '{text}' is not supported (unsigned arithmetic)")
    digits = lower.rstrip("l")
    if digits.startswith(("0x", "0b")):
        return int(digits, 0), "int"
    return (int(digits, 8) if len(digits) > 1 and digits.startswith("0") else int(digits)), "int"


def looks_nonnegative(expr: Expr) -> bool:
    """False for a negative constant or a negation: C '/' of those does not round down."""
    if isinstance(expr, Const):
        return expr.value >= 0
    if isinstance(expr, UnaryOp):
        return False
    if isinstance(expr, BinOp):
        return looks_nonnegative(expr.lhs) and (expr.op == "-" or looks_nonnegative(expr.rhs))
    return True


def affine_ternary(t: Ternary) -> Expr:
    """`a > b ? a : b` -> max(a, b) (and min), and the floord/ceild macros of PPCG/Pluto."""
    cond = t.cond
    if isinstance(cond, BinOp) and cond.op in _FLIP:
        a, b = cond.lhs, cond.rhs
        greater = cond.op in (">", ">=")
        if (t.then, t.other) == (a, b):
            return BinOp("max" if greater else "min", a, b, t.loc)
        if (t.then, t.other) == (b, a):
            return BinOp("min" if greater else "max", a, b, t.loc)
        if cond.op == "<" and b == Const(0):
            return _floord_ceild(t, a)
    return t


def _floord_ceild(t: Ternary, x: Expr) -> Expr:
    # floord(n,d): n < 0 ? -((-n + d - 1) / d) : n / d
    # ceild(n,d):  n < 0 ? -((-n) / d) : (n + d - 1) / d
    other = t.other
    if not (isinstance(other, BinOp) and other.op in ("/", "floordiv")
            and isinstance(other.rhs, Const)):
        return t
    d = other.rhs
    neg = UnaryOp("-", x)
    for op in ("/", "floordiv"):
        floor_then = UnaryOp("-", BinOp(op, BinOp("-", BinOp("+", neg, d), Const(1)), d))
        if other == BinOp(op, x, d) and t.then == floor_then:
            return BinOp("floordiv", x, d, t.loc)
        ceil_else = BinOp(op, BinOp("-", BinOp("+", x, d), Const(1)), d)
        if other == ceil_else and t.then == UnaryOp("-", BinOp(op, neg, d)):
            return BinOp("ceildiv", x, d, t.loc)
    return t


# -- statements -----------------------------------------------------------------------------------
_STATEMENT_NAMES = {"While": "'while' loop", "DoWhile": "'do-while' loop", "Goto": "'goto'",
                    "Break": "'break'", "Continue": "'continue'", "Return": "'return'",
                    "Switch": "'switch'", "Label": "label", "Case": "'case'",
                    "Default": "'default'"}


class RegionTranslator(ExprTranslator):
    """Walks the statements of one region in source order and drives the ScopBuilder."""

    def __init__(self, unit: Unit, bindings: dict[str, Binding],
                 typedefs: dict[str, c_ast.Node], builder: ScopBuilder, scan: RegionScan):
        super().__init__(unit, bindings, typedefs)
        self.b = builder
        self.scan = scan

    def translate(self, items: tuple[c_ast.Node, ...] | list[c_ast.Node]) -> None:
        for item in items:
            self.stmt(item)

    def stmt(self, node: c_ast.Node) -> None:
        handler = getattr(self, f"_s_{type(node).__name__}", None)
        if handler is None:
            what = _STATEMENT_NAMES.get(type(node).__name__)
            if what is None:
                what = f"expression statement ({describe(node)})"
            self.reject(node, f"{what} is not supported inside a region")
        handler(node)

    def find(self, name: str) -> Binding | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def _s_Compound(self, node: c_ast.Compound) -> None:
        self.scopes.append({})
        self.translate(node.block_items or [])
        self.scopes.pop()

    def _s_EmptyStatement(self, node: c_ast.EmptyStatement) -> None:
        return

    def _s_Pragma(self, node: c_ast.Pragma) -> None:
        text = node.string if isinstance(node.string, str) else str(node.string.value)
        if text.strip().strip('"').split()[:1] in (["scop"], ["endscop"]):
            self.reject(node, f"'#pragma {text.strip()}' inside a region (regions do not nest)")

    def _s_FuncCall(self, node: c_ast.FuncCall) -> None:
        name = node.name.name if isinstance(node.name, c_ast.ID) else "a function pointer"
        self.reject(node, f"call to '{name}' is not supported inside a region (function calls "
                          "may have side effects)")

    # -- assignments and declarations ----------------------------------------------------------
    def _s_Assignment(self, node: c_ast.Assignment) -> None:
        if node.op not in _ASSIGN_OPS:
            self.reject(node, f"assignment operator '{node.op}' is not supported "
                              f"(supported: {' '.join(_ASSIGN_OPS)})")
        inner = node.rvalue
        if isinstance(inner, c_ast.Assignment) and inner.op == "=":
            # a = b = e: the statement b = e, then a = b
            self._s_Assignment(inner)
            self.divisions = []
            rhs: Expr = self.lvalue(inner.lvalue)
        else:
            self.divisions = []
            rhs = self.expr(inner)
        self.add(self.lvalue(node.lvalue), node.op, rhs, node)

    def _s_UnaryOp(self, node: c_ast.UnaryOp) -> None:
        if node.op not in _INCDEC:
            self.reject(node, f"expression statement (operator '{node.op}') is not supported "
                              "inside a region")
        self.divisions = []
        self.add(self.lvalue(node.expr), _INCDEC[node.op], Const(1, loc=self.loc(node)), node)

    def lvalue(self, node: c_ast.Node) -> Ref:
        if isinstance(node, c_ast.ID):
            b = self.find(node.name) or self.lookup(node.name, node)
            if b.kind in ("iter", "iterdecl"):
                self.reject(node, f"assignment to loop iterator '{node.name}'")
            if b.kind == "var":
                self.reject(node, f"assignment to parameter '{node.name}': parameters are "
                                  "read-only inside a region")
            if b.kind == "subst":
                self.reject(node, f"assignment to '{node.name}', which is a constant")
        target = self.expr(node)
        if not isinstance(target, Ref):
            self.reject(node, f"assignment to {describe(node)} is not supported")
        return target

    def add(self, lhs: Ref, op: str, rhs: Expr, node: c_ast.Node) -> None:
        name = self.b.add_statement(lhs, op, rhs, self.loc(node))
        self._check_divisions(name)

    def _check_divisions(self, stmt_name: str) -> None:
        """C '/' in subscripts rounds toward zero: it is floor only where the value is >= 0."""
        stmt = self.b.statements[-1]
        names = set(stmt.iterators) | set(self.b.params)
        params, iters = ", ".join(self.b.params), ", ".join(stmt.iterators)
        for numerator, node in self.divisions:
            text = affine_text(numerator, names, "subscript")
            negative = isl.Set(f"[{params}] -> {{ {stmt_name}[{iters}] : {text} < 0 }}")
            if not isl.Set(stmt.domain).intersect(negative).is_empty():
                self.reject(node, "C division '/' in a subscript of a value that can be "
                                  "negative here (it rounds toward zero): use floord(a, d)",
                            NotAffineError)
        self.divisions = []

    def _s_Decl(self, node: c_ast.Decl) -> None:
        ctype = c_type(node.type, self.typedefs)
        if node.storage:
            self.reject(node, f"'{' '.join(node.storage)}' declaration inside a region")
        if ctype.dtype is None or ctype.pointer:
            self.reject(node, f"declaration of '{node.name}' of type '{ctype.spelled}"
                              f"{' *' if ctype.pointer else ''}' is not supported inside a "
                              "region (supported: int, long, float, double and their arrays)")
        name = node.name
        if not ctype.dims and name in self.scan.iterators:
            self.scopes[-1][name] = Binding("iterdecl", name, reason=(
                f"'{name}' is read outside of a loop over it: not supported"))
            return
        if not ctype.dims and node.init is not None and name not in self.scan.written \
                and ctype.dtype in ("int", "long"):
            value = self.expr(node.init)
            if not any(isinstance(e, Ref) for e in walk(value)):
                self.scopes[-1][name] = Binding("subst", name, expr=value)
                return
        self._declare_local(node, ctype)

    def _declare_local(self, node: c_ast.Decl, ctype: CType) -> None:
        if None in ctype.dims:
            self.reject(node, f"array '{node.name}' declared without a size")
        shape = tuple(self.expr(d, "size") for d in ctype.dims)
        ir_name = self.fresh(node.name)
        assert ctype.dtype is not None
        self.b.add_local(ir_name, ctype.dtype, shape, self.loc(node))
        self.scopes[-1][node.name] = Binding("array", ir_name, len(shape))
        if node.init is None:
            return
        if ctype.dims:
            self.reject(node.init, f"initializer of array '{node.name}' inside a region")
        self.divisions = []
        self.add(Ref(ir_name, (), self.loc(node)), "=", self.expr(node.init), node)

    def fresh(self, name: str) -> str:
        """A name for a region-local variable that no argument, array or iterator uses."""
        taken = {a.name for a in self.b.args} | set(self.b.arrays) | self.scan.iterators
        candidate, k = name, 0
        while candidate in taken:
            k += 1
            candidate = f"{name}_{k}"
        return candidate

    # -- control flow --------------------------------------------------------------------------
    def _s_If(self, node: c_ast.If) -> None:
        cond = self.expr(node.cond, "condition")
        loc = self.loc(node)
        self.b.enter_if(cond, loc)
        self.stmt(node.iftrue)
        self.b.exit_if()
        if node.iffalse is not None:
            self.b.enter_else(cond, loc)
            self.stmt(node.iffalse)
            self.b.exit_if()

    def _s_For(self, node: c_ast.For) -> None:
        it = for_iterator_name(node)
        if it is None:
            self.reject(node, "for loop without an initialization 'i = start' of its iterator")
        start = self._for_start(node, it)
        step = self._for_step(node, it)
        self.scopes.append({it: Binding("iter", it)})
        bound = self._for_bound(node, it, step)
        lower, upper = (start, bound) if step == 1 else (bound, start)
        self.b.enter_loop(it, lower, upper, step, self.loc(node))
        self.stmt(node.stmt)
        self.b.exit_loop()
        self.scopes.pop()

    def _for_start(self, node: c_ast.For, it: str) -> Expr:
        init = node.init
        if isinstance(init, c_ast.DeclList):
            decl = init.decls[0]
            ctype = c_type(decl.type, self.typedefs)
            if ctype.dtype not in ("int", "long") or ctype.dims or ctype.pointer:
                self.reject(decl, f"loop iterator '{it}' of type '{ctype.spelled}' (int or "
                                  "long required)")
            if decl.init is None:
                self.reject(decl, f"loop iterator '{it}' declared without a start value")
            return self.expr(decl.init, "bound")
        b = self.find(it)
        if b is None:
            self.reject(init, f"'{it}' is not declared", UserError)
        elif b.kind == "var":
            self.reject(init, f"loop iterator '{it}' is a parameter of the function")
        elif b.kind in ("array", "subst"):
            self.reject(init, f"'{it}' is used both as a loop iterator and as a variable "
                              "of the region")
        elif b.kind == "invalid":
            self.reject(init, b.reason)
        return self.expr(init.rvalue, "bound")

    def _for_step(self, node: c_ast.For, it: str) -> int:
        nxt = node.next
        if nxt is None:
            self.reject(node, "for loop without an increment of its iterator")
        if isinstance(nxt, c_ast.UnaryOp) and nxt.op in _INCDEC and _is_id(nxt.expr, it):
            return 1 if "+" in nxt.op else -1
        if isinstance(nxt, c_ast.Assignment) and _is_id(nxt.lvalue, it):
            value = nxt.rvalue
            if nxt.op == "=" and isinstance(value, c_ast.BinaryOp) and value.op in "+-":
                if _is_id(value.left, it):
                    sign, value = (1 if value.op == "+" else -1), value.right
                elif _is_id(value.right, it) and value.op == "+":
                    sign, value = 1, value.left
                else:
                    sign = 0
            else:
                sign = {"+=": 1, "-=": -1}.get(nxt.op, 0)
            step = self.expr(value, "bound") if sign else None
            if isinstance(step, Const) and isinstance(step.value, int):
                if sign * step.value in (1, -1):
                    return sign * step.value
                self.reject(nxt, f"loop step {sign * step.value} of '{it}' is not supported "
                                 "(only +1 and -1)")
        self.reject(nxt, f"loop increment of '{it}' is not supported (use {it}++, {it}--, "
                         f"{it} += 1 or {it} -= 1)")
        raise AssertionError  # unreachable

    def _for_bound(self, node: c_ast.For, it: str, step: int) -> Expr:
        """The last value of the iterator from the loop condition (a && of comparisons)."""
        if node.cond is None:
            self.reject(node, f"for loop without a condition on '{it}'")
        terms: list[c_ast.Node] = []
        _conjuncts(node.cond, terms)
        bounds = [self._bound_term(term, it, step) for term in terms]
        result = bounds[0]
        for other in bounds[1:]:
            result = BinOp("min" if step == 1 else "max", result, other, result.loc)
        return result

    def _bound_term(self, term: c_ast.Node, it: str, step: int) -> Expr:
        if not (isinstance(term, c_ast.BinaryOp) and term.op in _FLIP and
                (_is_id(term.left, it) or _is_id(term.right, it))):
            self.reject(term, f"loop condition must compare the iterator '{it}' with <, <=, > "
                              "or >= (joined by &&)", NotAffineError)
        op, other = ((term.op, term.right) if _is_id(term.left, it)
                     else (_FLIP[term.op], term.left))
        bound = self.expr(other, "bound")
        if any(isinstance(e, Var) and e.name == it for e in walk(bound)):
            self.reject(term, f"loop bound of '{it}' depends on '{it}' itself", NotAffineError)
        if (step == 1) != (op in ("<", "<=")):
            direction = "up" if step == 1 else "down"
            self.reject(term, f"loop counts {direction} but its condition '{it} {op} ...' "
                              "does not bound it in that direction")
        if op in ("<", ">"):
            bound = _offset(bound, -1 if op == "<" else 1)
        return bound


def _is_id(node: c_ast.Node, name: str) -> bool:
    return isinstance(node, c_ast.ID) and node.name == name


def _conjuncts(node: c_ast.Node, out: list[c_ast.Node]) -> None:
    if isinstance(node, c_ast.BinaryOp) and node.op == "&&":
        _conjuncts(node.left, out)
        _conjuncts(node.right, out)
    else:
        out.append(node)


def _offset(expr: Expr, k: int) -> Expr:
    """expr + k, pushed inside min/max so that bounds stay splittable into terms."""
    if isinstance(expr, BinOp) and expr.op in ("min", "max"):
        return BinOp(expr.op, _offset(expr.lhs, k), _offset(expr.rhs, k), expr.loc)
    if isinstance(expr, Const) and isinstance(expr.value, int):
        return Const(expr.value + k, loc=expr.loc)
    return BinOp("+" if k > 0 else "-", expr, Const(abs(k)), expr.loc)
