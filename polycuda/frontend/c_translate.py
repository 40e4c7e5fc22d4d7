"""Translate the statements of one `#pragma scop` region into ScopBuilder calls.

`scan_region` first finds the names a region uses, writes and loops over (frontend.c uses it
to decide what the function's other locals mean inside the region); `RegionTranslator` then
adds loops, conditions, local declarations and assignments in source order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pycparser import c_ast

from polycuda.errors import NotAffineError, UserError
from polycuda.frontend.builder import ScopBuilder
from polycuda.frontend.c_expression import (
    ASSIGN_OPS,
    FLIP,
    INCDEC,
    SUPPORTED_TYPES,
    Binding,
    CType,
    ExprTranslator,
    c_type,
    describe,
    iterator_type_reason,
)
from polycuda.frontend.c_preprocess import Unit
from polycuda.ir.dtypes import (math_arguments_as_double, pin_compound_operand,
                                pin_signed_operands)
from polycuda.ir.expr import BinOp, Const, Expr, Ref, Var, walk


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
    elif isinstance(node, c_ast.UnaryOp) and node.op in INCDEC:
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
        self.iterator_types: dict[str, str] = {}  # declared type of each loop iterator

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
        # dropping it would change nothing polycuda computes, but the user asked for something
        self.reject(node, f"'#pragma {text.strip()}' inside a region is not translated "
                          "(polycuda decides parallelism and unrolling itself): move it out of "
                          "the region or remove it")

    def _s_FuncCall(self, node: c_ast.FuncCall) -> None:
        name = node.name.name if isinstance(node.name, c_ast.ID) else "a function pointer"
        self.reject(node, f"call to '{name}' is not supported inside a region (function calls "
                          "may have side effects)")

    # -- assignments and declarations ----------------------------------------------------------
    def _s_Assignment(self, node: c_ast.Assignment) -> None:
        if node.op not in ASSIGN_OPS:
            self.reject(node, f"assignment operator '{node.op}' is not supported "
                              f"(supported: {' '.join(ASSIGN_OPS)})")
        inner = node.rvalue
        if isinstance(inner, c_ast.Assignment) and inner.op == "=":
            # a = b = e: the statement b = e, then a = b
            self._s_Assignment(inner)
            rhs: Expr = self.lvalue(inner.lvalue)
        else:
            rhs = self.expr(inner)
        self.add(self.lvalue(node.lvalue), node.op, rhs, node)

    def _s_UnaryOp(self, node: c_ast.UnaryOp) -> None:
        if node.op not in INCDEC:
            self.reject(node, f"expression statement (operator '{node.op}') is not supported "
                              "inside a region")
        self.add(self.lvalue(node.expr), INCDEC[node.op], Const(1, loc=self.loc(node)), node)

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
        known = {a.name: a.dtype for a in self.b.args}
        known.update({name: arr.dtype for name, arr in self.b.arrays.items()})
        known.update(self.iterator_types)

        def dtype_of(name: str) -> str:
            return known.get(name, "int")

        rhs = math_arguments_as_double(pin_signed_operands(rhs, dtype_of), dtype_of)
        if op != "=":
            rhs = pin_compound_operand(rhs, dtype_of(lhs.array), dtype_of)
        self.b.add_statement(lhs, op, rhs, self.loc(node))

    def _s_Decl(self, node: c_ast.Decl) -> None:
        ctype = c_type(node.type, self.typedefs)
        if node.storage:
            self.reject(node, f"'{' '.join(node.storage)}' declaration inside a region")
        if ctype.dtype is None or ctype.pointer:
            self.reject(node, f"declaration of '{node.name}' of type '{ctype.spelled}"
                              f"{' *' if ctype.pointer else ''}' is not supported inside a "
                              f"region (supported: {SUPPORTED_TYPES} and their arrays)")
        name = node.name
        if not ctype.dims and name in self.scan.iterators:
            self.scopes[-1][name] = (
                Binding("iterdecl", name, dtype=ctype.dtype,
                        reason=f"'{name}' is read outside of a loop over it: not supported")
                if ctype.dtype in ("int", "long") else
                Binding("invalid", reason=iterator_type_reason(name, ctype)))
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
                self.reject(decl, iterator_type_reason(it, ctype))
            if decl.init is None:
                self.reject(decl, f"loop iterator '{it}' declared without a start value")
            self.iterator_types[it] = ctype.dtype
            return self.expr(decl.init, "bound")
        b = self.find(it)
        self.iterator_types[it] = b.dtype if b is not None and b.dtype else "int"
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
        if isinstance(nxt, c_ast.UnaryOp) and nxt.op in INCDEC and _is_id(nxt.expr, it):
            return 1 if "+" in nxt.op else -1
        if isinstance(nxt, c_ast.Assignment) and _is_id(nxt.lvalue, it):
            value = nxt.rvalue
            if nxt.op == "=" and isinstance(value, c_ast.BinaryOp) and value.op in ("+", "-"):
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
        if not (isinstance(term, c_ast.BinaryOp) and term.op in FLIP and
                (_is_id(term.left, it) or _is_id(term.right, it))):
            self.reject(term, f"loop condition must compare the iterator '{it}' with <, <=, > "
                              "or >= (joined by &&)", NotAffineError)
        op, other = ((term.op, term.right) if _is_id(term.left, it)
                     else (FLIP[term.op], term.left))
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
