"""C types, name bindings and expressions of the C frontend: pycparser nodes -> ir.expr.

`ExprTranslator` turns C expressions into ir.expr nodes in a context ("value", "bound",
"subscript", "condition", "size"), rejecting side effects, pointers and calls other than the
math functions; in affine contexts it recognises min/max and the floord/ceild macros.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

from pycparser import c_ast

from polycuda.errors import NotAffineError, SourceLoc, UnsupportedConstruct, UserError
from polycuda.frontend.c_preprocess import Unit
from polycuda.ir.dtypes import BYTES, NARROW, UNSIGNED
from polycuda.ir.expr import MATH_FUNCS, BinOp, Call, Cast, Const, Expr, Ref, Ternary, UnaryOp, Var

_BINOPS = ("+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&&", "||")
INCDEC = {"p++": "+=", "++": "+=", "p--": "-=", "--": "-="}
ASSIGN_OPS = ("=", "+=", "-=", "*=", "/=")
_MINMAX_CALLS = {"min": "min", "max": "max", "MIN": "min", "MAX": "max",
                 "floord": "floordiv", "ceild": "ceildiv"}
_FLOAT_MATH = {f"{name}f": name for name in MATH_FUNCS if name != "abs"}
FLIP = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
# the sorted type specifiers (without "signed") of each dtype; "signed char" is told apart
_DTYPE_NAMES = {(): "int", ("int",): "int", ("long",): "long", ("int", "long"): "long",
                ("long", "long"): "long", ("int", "long", "long"): "long",
                ("float",): "float", ("double",): "double", ("char",): "char",
                ("char", "unsigned"): "uchar", ("short",): "short", ("int", "short"): "short",
                ("short", "unsigned"): "ushort", ("int", "short", "unsigned"): "ushort",
                ("unsigned",): "uint", ("int", "unsigned"): "uint",
                ("long", "unsigned"): "ulong", ("int", "long", "unsigned"): "ulong",
                ("long", "long", "unsigned"): "ulong", ("int", "long", "long", "unsigned"): "ulong"}
SUPPORTED_TYPES = ("char, short, int, long, their unsigned forms, float, double "
                   "(and typedefs of them)")
_AFFINE_CTX = ("bound", "subscript", "condition", "size")
_CTX_NAMES = {"bound": "loop bound", "subscript": "subscript", "condition": "condition",
              "size": "array size"}


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
    if sorted(names) == ["char", "signed"]:
        return "schar"
    return _DTYPE_NAMES.get(tuple(sorted(n for n in names if n != "signed")))


def iterator_type_reason(name: str, ctype: CType) -> str:
    """Why a loop iterator of this type is refused: only int and long iterators are exact."""
    spelled = ctype.spelled + (" *" if ctype.pointer else "")
    if ctype.dtype in UNSIGNED and not ctype.dims and not ctype.pointer:
        return (f"loop iterator '{name}' of type '{spelled}' (unsigned): C's unsigned "
                "iterator wraps around at 0 (`for (i = n - 1; i >= 0; i--)` never ends) and "
                "compares with signed bounds in unsigned arithmetic, isl counts on unbounded "
                "integers; declare it int or long")
    if ctype.dtype in NARROW and not ctype.dims and not ctype.pointer:
        return (f"loop iterator '{name}' of type '{spelled}': C truncates it to "
                f"{8 * BYTES[ctype.dtype]} bits at each step, isl does not; declare it int or "
                "long")
    return f"loop iterator '{name}' of type '{spelled}' (int or long required)"


def typed_value(value: Expr, ctype: CType) -> Expr:
    """The value of a variable of type `ctype` initialized with `value`: converted as C
    converts on initialization (`const unsigned u = 5;` is unsigned wherever `u` is used)."""
    if ctype.dtype in ("int", "long") or isinstance(value, Const) and value.dtype == ctype.dtype:
        return value
    assert ctype.dtype is not None
    return Cast(ctype.dtype, value, value.loc)


# -- names ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Binding:
    """What a C name means inside the region.

    kind: "var" (integer parameter or scalar argument: read-only), "iter" (loop iterator),
        "array" (an array, or a scalar written in the region: ndim 0), "subst" (replaced by
        `expr`), "iterdecl" (a variable the region uses as a loop iterator: valid inside its
        loops only), "invalid" (using it raises an error that gives `reason`).
    """

    kind: str
    name: str = ""
    ndim: int = 0
    expr: Expr | None = None
    reason: str = ""
    dtype: str = ""  # an "iterdecl": its declared type (int or long)


# -- expressions ----------------------------------------------------------------------------------
class ExprTranslator:
    """C expression -> ir.expr, in a context: "value", "bound", "subscript", "condition", "size"."""

    def __init__(self, unit: Unit, bindings: dict[str, Binding],
                 typedefs: dict[str, c_ast.Node]):
        self.unit = unit
        self.typedefs = typedefs
        self.scopes: list[dict[str, Binding]] = [bindings]
        # scalar arguments of a type other than int and long: name -> spelling (refused in
        # affine positions with the reason)
        self.scalar_types: dict[str, str] = {}

    def loc(self, node: c_ast.Node) -> SourceLoc:
        return self.unit.loc(node.coord)

    def reject(self, node: c_ast.Node, msg: str,
               cls: type[UserError] = UnsupportedConstruct) -> NoReturn:
        raise cls(msg, self.loc(node))

    def lookup(self, name: str, node: c_ast.Node) -> Binding:
        for scope in reversed(self.scopes):
            if name in scope:
                binding = scope[name]
                if binding.kind in ("invalid", "iterdecl"):
                    self.reject(node, binding.reason)
                return binding
        self.reject(node, f"'{name}' is not declared", UserError)

    def expr(self, node: c_ast.Node, ctx: str = "value") -> Expr:
        method = getattr(self, f"_x_{type(node).__name__}", None)
        if method is None:
            self.reject(node, f"{describe(node)} is not supported inside a region")
        return method(node, ctx)

    def _x_Constant(self, node: c_ast.Constant, ctx: str) -> Expr:
        value, dtype = parse_constant(node, self)
        if ctx in _AFFINE_CTX and dtype in UNSIGNED:
            self.reject(node, f"unsigned constant '{node.value}' in a {_CTX_NAMES[ctx]}: C "
                              "would compare and compute there in unsigned (wrapping) "
                              "arithmetic, isl on unbounded integers")
        return Const(value, dtype, loc=self.loc(node))

    def _x_ID(self, node: c_ast.ID, ctx: str) -> Expr:
        b = self.lookup(node.name, node)
        if b.kind == "subst":
            assert b.expr is not None
            return b.expr if ctx == "value" else self._to_affine(b.expr, ctx, node)
        if b.kind == "array":
            if b.ndim:
                self.reject(node, f"array '{node.name}' is used without subscripts")
            return Ref(b.name, (), self.loc(node))
        if ctx in _AFFINE_CTX and b.kind == "var" and b.name in self.scalar_types:
            spelled = self.scalar_types[b.name]
            self.reject(node, f"'{node.name}' of type '{spelled}' in a {_CTX_NAMES[ctx]}: only "
                              "int and long parameters can be (isl computes on unbounded "
                              "integers, not in C's unsigned or narrow arithmetic)")
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
        """C '/' in affine positions. In bounds, conditions and subscripts it stays C's
        truncating '/', which ir.quasi_affine translates exactly for isl (a case split on
        the sign of the numerator); an array size is floor division, refused where the
        numerator may be negative (where trunc and floor differ the size is not positive)."""
        if ctx != "size":
            return BinOp("/", lhs, rhs, self.loc(node))
        if not looks_nonnegative(lhs):
            self.reject(node, "C division '/' in an array size of a possibly negative value "
                              "(it rounds toward zero): use floord(a, d) / ceild(a, d)",
                        NotAffineError)
        return BinOp("floordiv", lhs, rhs, self.loc(node))

    def _x_UnaryOp(self, node: c_ast.UnaryOp, ctx: str) -> Expr:
        op = node.op
        if op in INCDEC:
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
        if op == "-" and isinstance(operand, Const) and operand.dtype not in UNSIGNED:
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
                              f"(supported: {SUPPORTED_TYPES})")
        if ctx in _AFFINE_CTX and ctype.dtype not in ("int", "long"):
            self.reject(node, f"cast to '{ctype.spelled}' in a {_CTX_NAMES[ctx]}: isl computes "
                              "on unbounded integers, not on its wrapping or truncated values")
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

    def _x_Assignment(self, node: c_ast.Assignment, ctx: str) -> Expr:
        self.reject(node, f"assignment '{node.op}' inside an expression is not supported")

    def _x_ExprList(self, node: c_ast.ExprList, ctx: str) -> Expr:
        self.reject(node, "comma expression is not supported inside a region")


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
    digits = lower.rstrip("ul")
    if digits.startswith(("0x", "0b")):
        value = int(digits, 0)
    else:
        value = int(digits, 8) if len(digits) > 1 and digits.startswith("0") else int(digits)
    return value, _literal_dtype(value, lower[len(digits):], digits[:2] in ("0x", "0b")
                                 or len(digits) > 1 and digits.startswith("0"))


def _literal_dtype(value: int, suffix: str, based: bool) -> str:
    """The type of an integer literal (C11 6.4.4.1p5): the first of int, unsigned (only for
    hexadecimal, octal and binary), long long, unsigned long long that holds it, as allowed
    by its suffix."""
    unsigned = "u" in suffix
    if "l" not in suffix and value < 2**32 and (unsigned or based and value >= 2**31):
        return "uint" if unsigned or value >= 2**31 else "int"
    if "l" not in suffix and not unsigned and value < 2**31:
        return "int"
    return "ulong" if unsigned or value >= 2**63 else "long"


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
    if isinstance(cond, BinOp) and cond.op in FLIP:
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
