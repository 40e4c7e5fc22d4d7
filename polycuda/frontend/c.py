"""The C frontend: `#pragma scop` regions of a C file -> Scops; drop-in rewriting of the file;
the sequential reference build (the user's own C, compiled as written) that verifies output.

Example:
    scops = parse_file("gemm.c", include_dirs=("include",), defines=("N=100",))
    text = rewrite_source(scops[0].source.text, scops, {"gemm": "{ pc_gemm(...); }\\n"})
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from pycparser import c_ast, c_generator

from polycuda.codegen import abi
from polycuda.errors import SourceLoc, UnsupportedConstruct, UserError
from polycuda.frontend import c_preprocess
from polycuda.frontend.builder import ScopBuilder
from polycuda.frontend.c_expression import (SUPPORTED_TYPES, Binding, CType, ExprTranslator,
                                            c_type, iterator_type_reason, typed_value)
from polycuda.frontend.c_preprocess import Unit
from polycuda.frontend.c_translate import RegionScan, RegionTranslator, scan_region
from polycuda.ir.dtypes import INTEGER
from polycuda.ir.expr import Const, Expr, Ref, walk
from polycuda.ir.scop import Scop, SourceInfo

_MAIN_RENAMED = "pc_user_main_unused"


@dataclass(frozen=True)
class CSourceInfo(SourceInfo):
    """SourceInfo of C input plus what the reference build needs.

    The region spans whole lines: from the start of the `#pragma scop` line through the end of
    the `#pragma endscop` line, its newline included.
    call_args: C text of each argument of the call of the user's function, e.g.
        "(double (*)[n])A" (casts of the flat entry arguments to the declared types).
    global_arrays: file-scope arrays the region uses (entry arguments; copied in and out).
    main_lines: first and last line of the file's `main`, left out of the reference build.
    params_text: the function's parameter list as C text ("int n, double A[n]").
    outer_decls: C text of the declarations outside the region (in the function) of the
        locals the region uses, in source order: the reference runs them, then the region.
    """

    include_dirs: tuple[str, ...] = ()  # absolute; the file's own directory first
    defines: tuple[str, ...] = ()
    call_args: tuple[str, ...] = ()
    global_arrays: tuple[str, ...] = ()
    main_lines: tuple[int, int] | None = None
    params_text: str = "void"
    outer_decls: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Region:
    items: tuple[c_ast.Node, ...]
    begin: c_ast.Pragma
    end: c_ast.Pragma


# -- public API -----------------------------------------------------------------------------------
def parse_file(path: str | os.PathLike, include_dirs: tuple[str, ...] = (),
               defines: tuple[str, ...] = ()) -> tuple[Scop, ...]:
    """Every region of a C file, in file order (see `parse_source`)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise UserError(f"cannot read C file '{path}': {err.strerror}") from None
    # offsets refer to the file as stored (CRLF kept)
    return parse_source(decode_source(data, str(path)), str(path), include_dirs, defines)


def decode_source(data: bytes, path: str) -> str:
    """The text of a source file as UTF-8 (ASCII included).

    Raises:
        UserError: at the line and column of the first byte that is not UTF-8 (a binary file,
            or text in another encoding), or of a NUL byte.
    """
    try:
        text = data.decode("utf-8")
        bad = text.find("\0")
        if bad < 0:
            return text
        start, why = len(text[:bad].encode()), "a NUL byte"
    except UnicodeDecodeError as err:
        start, why = err.start, f"byte 0x{data[err.start]:02x}, which is not UTF-8"
    line = data.count(b"\n", 0, start) + 1
    col = start - (data.rfind(b"\n", 0, start) + 1) + 1
    raise UserError(f"'{path}' is not a C source text file ({why}; binary file?)",
                    SourceLoc(path, line, col)) from None


def parse_source(text: str, filename: str = "<string>", include_dirs: tuple[str, ...] = (),
                 defines: tuple[str, ...] = ()) -> tuple[Scop, ...]:
    """One Scop per `#pragma scop` ... `#pragma endscop` region inside a function.

    Args:
        text: the C file's text; it may include system and own headers.
        filename: its name (errors point at it; `#include "..."` searches its directory).
        include_dirs, defines: as -I and -D of a C compiler ("N=100", "USE_X").
    Returns:
        The Scops in file order: a function's first region is named after the function,
        its k-th further region `<function>_<k>`.
    Raises:
        UserError: (subclasses UnsupportedConstruct, NotAffineError, IndirectSubscriptError)
            with the file:line:col of the user's text and the construct.
    """
    unit = c_preprocess.parse_unit(text, filename, tuple(include_dirs), tuple(defines))
    # where the preprocessor looked, made absolute: the file's own directory first
    search = (c_preprocess.source_dir(filename) or os.getcwd(),) + tuple(
        os.path.abspath(d) for d in include_dirs)
    flags = (search, tuple(defines))
    scope = _FileScope(unit)
    scops = []
    for func in scope.functions:
        for k, region in enumerate(_regions(func.body, unit)):
            name = func.decl.name if k == 0 else f"{func.decl.name}_{k}"
            scops.append(_build_scop(unit, scope, func, region, name, flags))
    return tuple(scops)


def rewrite_source(text: str, scops: tuple[Scop, ...] | list[Scop],
                   replacements: dict[str, str]) -> str:
    """`text` with the region of each named scop replaced; all else copied byte for byte.

    A replacement that does not end with a newline gets one when the region ended with one.
    Raises:
        UserError: a name is not among `scops`, or a region does not match `text`.
    """
    by_name = {s.name: s for s in scops}
    spans = []
    for name, new_text in replacements.items():
        src = by_name[name].source if name in by_name else None
        if src is None:
            raise UserError(f"no C region named '{name}' to replace")
        if src.text[src.start:src.end] != text[src.start:src.end]:
            raise UserError(f"region '{name}' is not where it was in {src.file}: the text "
                            "changed since it was parsed")
        if text[src.start:src.end].endswith("\n") and not new_text.endswith("\n"):
            new_text += "\n"
        spans.append((src.start, src.end, new_text))
    out, pos = [], 0
    for start, end, new_text in sorted(spans):
        if start < pos:
            raise UserError("two regions to replace overlap")
        out += [text[pos:start], new_text]
        pos = end
    return "".join(out) + text[pos:]


def reference_source(scop: Scop) -> str:
    """The user's file (its `main` renamed away) plus `int pc_ref_<name>(ARGS)`.

    ARGS are `abi.arg_decls(scop)`. The region's own code, as written, runs in
    `pc_ref_region_<name>`: a function with the user's function's parameters whose body is the
    declarations of the outer locals the region uses, then the region's lines. Code of the
    function outside the region, its other regions included, does not run: region k of a
    function is compared with region k alone. The wrapper copies global arrays in, calls it
    with each flat array cast to the declared parameter type, copies global arrays back and
    returns 0. The file's `main` is left out (its lines blanked, preprocessor directives kept),
    so that symbols only the program's other files define are not needed; should that fail,
    `#define main` renames it.
    """
    src = _c_source(scop)
    text = _without_lines(src.text, src.main_lines)
    file = src.file.replace("\\", "\\\\").replace('"', '\\"')
    region = src.text[src.start:src.end]
    parts = [f"/* polycuda: sequential reference of region '{scop.name}' (the original C) */",
             f"#define main {_MAIN_RENAMED}", f'#line 1 "{file}"', text + "#undef main", "",
             f"static void pc_ref_region_{scop.name}({src.params_text})\n{{"]
    parts += [f"  {decl};" for decl in src.outer_decls]
    parts += [f'#line {src.first_line} "{file}"', region.rstrip("\n"), "}", ""]
    for g in src.global_arrays:
        parts.append(f"static void pc_ref_copy_{g}(void *pc_arg, int pc_in)\n{{\n"
                     f"  unsigned char *pc_g = (unsigned char *){g};\n"
                     "  unsigned char *pc_a = (unsigned char *)pc_arg;\n"
                     f"  for (unsigned long pc_k = 0; pc_k < sizeof({g}); pc_k++) {{\n"
                     "    if (pc_in) pc_g[pc_k] = pc_a[pc_k]; else pc_a[pc_k] = pc_g[pc_k];\n"
                     "  }\n}\n")
    body = [f"  pc_ref_copy_{g}({g}, 1);" for g in src.global_arrays]
    body.append(f"  pc_ref_region_{scop.name}({', '.join(src.call_args)});")
    body += [f"  pc_ref_copy_{g}({g}, 0);" for g in src.global_arrays]
    parts.append(f"int pc_ref_{scop.name}({abi.arg_decls(scop)})\n{{\n" + "\n".join(body)
                 + "\n  return 0;\n}\n")
    return "\n".join(parts)


def _without_lines(text: str, span: tuple[int, int] | None) -> str:
    """`text` with the lines of `span` emptied, except preprocessor directives."""
    lines = text.split("\n")
    if span is not None:
        first, last = span
        in_directive = False
        for k in range(first - 1, min(last, len(lines))):
            keep = in_directive or lines[k].lstrip().startswith("#")
            in_directive = keep and lines[k].rstrip().endswith("\\")
            lines[k] = lines[k] if keep else ""
    text = "\n".join(lines)
    return text if text.endswith("\n") else text + "\n"


def reference_flags(scop: Scop) -> list[str]:
    """-I/-D flags for compiling `reference_source(scop)`: the file's directory first."""
    src = _c_source(scop)
    return c_preprocess.cpp_flags(src.include_dirs, src.defines)


def _c_source(scop: Scop) -> CSourceInfo:
    if not isinstance(scop.source, CSourceInfo):
        raise UserError(f"scop '{scop.name}' does not come from C source")
    return scop.source


# -- the file and its regions ---------------------------------------------------------------------
class _FileScope:
    """Typedefs, globals and enum constants of the file, and the functions holding regions."""

    def __init__(self, unit: Unit):
        self.typedefs: dict[str, c_ast.Node] = {}
        self.bindings: dict[str, Binding] = {}
        self.global_decls: dict[str, c_ast.Decl] = {}
        self.functions: list[c_ast.FuncDef] = []
        self.tr = ExprTranslator(unit, self.bindings, self.typedefs)
        for node in unit.ast.ext:
            if isinstance(node, c_ast.Typedef):
                self.typedefs[node.name] = node.type
            elif isinstance(node, c_ast.FuncDef):
                self.functions.append(node)
            elif isinstance(node, c_ast.Decl):
                self._declare(node)

    def _declare(self, decl: c_ast.Decl) -> None:
        for enum in (n for n in _walk(decl) if isinstance(n, c_ast.Enum) and n.values):
            self._enumerators(enum)
        if not decl.name or isinstance(decl.type, c_ast.FuncDecl):
            return
        ctype = c_type(decl.type, self.typedefs)
        self.global_decls[decl.name] = decl
        invalid = Binding("invalid", reason=f"global variable '{decl.name}' cannot be used in a "
                                            "region (only global arrays of fixed size and "
                                            "constants can)")
        if ctype.dtype and ctype.dims and None not in ctype.dims and not ctype.pointer \
                and "const" not in ctype.quals:
            self.bindings[decl.name] = Binding("array", decl.name, len(ctype.dims))
        elif ctype.dtype and not ctype.dims and "const" in ctype.quals and decl.init:
            value = self._value(decl.init)
            self.bindings[decl.name] = invalid if value is None else Binding(
                "subst", expr=typed_value(value, ctype))
        else:
            self.bindings[decl.name] = invalid

    def _enumerators(self, enum: c_ast.Enum) -> None:
        value: int | None = -1
        for item in enum.values.enumerators:
            if item.value is None:
                value = None if value is None else value + 1
            else:
                expr = self._value(item.value)
                value = _const_int(expr) if expr is not None else None
            self.bindings[item.name] = (
                Binding("invalid", reason=f"enumerator '{item.name}' has no integer value the "
                                          "frontend can compute")
                if value is None else Binding("subst", expr=Const(value)))

    def _value(self, node: c_ast.Node) -> Expr | None:
        """The expression of a constant's initializer; None where it is not supported."""
        try:
            return self.tr.expr(node)
        except UserError:
            return None


def _const_int(expr: Expr) -> int | None:
    from polycuda.ir.evaluate import eval_int

    try:
        return eval_int(expr, {})
    except (KeyError, ValueError, ZeroDivisionError):
        return None


def _walk(node: c_ast.Node | None, skip: frozenset[int] = frozenset()) -> Iterator[c_ast.Node]:
    """Pre-order walk of an AST, not entering nodes whose id() is in `skip`."""
    if node is None or id(node) in skip:
        return
    yield node
    for _, child in node.children():
        yield from _walk(child, skip)


def _pragma_word(node: c_ast.Pragma) -> str:
    text = node.string if isinstance(node.string, str) else node.string.value.strip('"')
    words = text.split()
    return words[0] if words else ""


def _regions(node: c_ast.Node, unit: Unit) -> list[_Region]:
    """The regions below `node` in source order; each lies within one block."""
    found: list[_Region] = []
    if isinstance(node, c_ast.Compound):
        items = node.block_items or []
        found = _block_regions(items, unit)
        inside = frozenset(id(item) for r in found for item in r.items)
        for item in items:
            if id(item) not in inside:
                found += _regions(item, unit)
    else:
        for _, child in node.children():
            found += _regions(child, unit)
    return sorted(found, key=lambda r: (r.begin.coord.line, r.begin.coord.column))


def _block_regions(items: list[c_ast.Node], unit: Unit) -> list[_Region]:
    regions: list[_Region] = []
    begin: c_ast.Pragma | None = None
    inside: list[c_ast.Node] = []
    for item in items:
        word = _pragma_word(item) if isinstance(item, c_ast.Pragma) else ""
        if word == "scop":
            if begin is not None:
                raise UnsupportedConstruct("'#pragma scop' inside a region (regions do not "
                                           "nest)", unit.loc(item.coord))
            begin, inside = item, []
        elif word == "endscop":
            if begin is None:
                raise UserError("'#pragma endscop' without a '#pragma scop' before it in the "
                                "same block", unit.loc(item.coord))
            regions.append(_Region(tuple(inside), begin, item))
            begin = None
        elif begin is not None:
            inside.append(item)
    if begin is not None:
        raise UserError("unterminated '#pragma scop': no '#pragma endscop' follows it in the "
                        "same block", unit.loc(begin.coord))
    return regions


# -- one region -----------------------------------------------------------------------------------
@dataclass
class _Outside:
    """What the function does outside the region (names by use).

    read_after: names whose first use after the region reads the value the region left
        (code after the region in source order; a loop around the region is not followed).
    """

    decls: dict[str, c_ast.Decl]
    assigned_before: set[str]
    assigned: set[str]
    before: set[str]
    after: set[str]
    read_after: set[str]


def _outside(func: c_ast.FuncDef, region: _Region) -> _Outside:
    skip = frozenset(id(n) for item in region.items for n in _walk(item))
    first, last = region.begin.coord.line, region.end.coord.line
    facts = _Outside({}, set(), set(), set(), set(), scan_region(_items_after(func.body, last))
                     .first_read)
    for node in _walk(func.body, skip):
        target = None
        if isinstance(node, c_ast.Decl) and node.name and \
                not isinstance(node.type, c_ast.FuncDecl):
            facts.decls[node.name] = node
        elif isinstance(node, c_ast.Assignment):
            target = node.lvalue
        elif isinstance(node, c_ast.UnaryOp) and node.op in ("p++", "++", "p--", "--", "&"):
            target = node.expr
        elif isinstance(node, c_ast.ID) and node.coord is not None:
            (facts.before if node.coord.line < first else
             facts.after if node.coord.line > last else set()).add(node.name)
        if isinstance(target, c_ast.ID):  # element writes (A[0] = ...) do not count
            facts.assigned.add(target.name)
            if target.coord is not None and target.coord.line < first:
                facts.assigned_before.add(target.name)
    return facts


def _items_after(node: c_ast.Node, last: int) -> list[c_ast.Node]:
    """The outermost nodes below `node` that start after line `last`, in source order."""
    found: list[c_ast.Node] = []
    for _, child in node.children():
        if child.coord is not None and child.coord.line > last:
            found.append(child)
        else:
            found += _items_after(child, last)
    return found


def _build_scop(unit: Unit, scope: _FileScope, func: c_ast.FuncDef, region: _Region,
                name: str, flags: tuple[tuple[str, ...], tuple[str, ...]]) -> Scop:
    if region.begin.coord.file != unit.file:
        raise UnsupportedConstruct(f"region in '{region.begin.coord.file}', an included file: "
                                   "regions must be in the compiled file itself",
                                   unit.loc(region.begin.coord))
    builder = ScopBuilder(name, unit.file)
    scan = scan_region(list(region.items))
    tr = RegionTranslator(unit, dict(scope.bindings), scope.typedefs, builder, scan)
    outside = _outside(func, region)
    call_args = _declare_params(tr, func, outside)
    shadowing = set(tr.scopes[0]) - set(scope.bindings) | set(outside.decls) | scan.declared
    global_arrays = _declare_globals(tr, scope, shadowing)
    _declare_outer_locals(tr, outside, func.decl.name)
    tr.translate(region.items)
    if not builder.statements:
        raise UserError(f"region '{name}' contains no statement", unit.loc(region.begin.coord))
    gen = c_generator.CGenerator()
    source = CSourceInfo(unit.file, unit.text, func.decl.name,
                         unit.line_start(region.begin.coord.line),
                         unit.line_end(region.end.coord.line), _signature(unit, func),
                         include_dirs=flags[0], defines=flags[1], call_args=tuple(call_args),
                         global_arrays=global_arrays,
                         main_lines=None if func.decl.name == "main"
                         else unit.function_lines.get("main"),
                         params_text=(gen.visit(func.decl.type.args) if func.decl.type.args
                                      else "") or "void",
                         outer_decls=tuple(gen.visit(d) for d in _needed_decls(outside, scan)))
    return builder.build(source)


def _needed_decls(outside: _Outside, scan: RegionScan) -> list[c_ast.Decl]:
    """Declarations outside the region of the locals it uses, and of the locals their sizes
    and initializers use, in source order (the reference runs them before the region)."""
    needed: dict[str, c_ast.Decl] = {}
    todo = sorted(scan.used & set(outside.decls))
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        needed[name] = outside.decls[name]
        todo += [n.name for n in _walk(needed[name]) if isinstance(n, c_ast.ID)
                 and n.name in outside.decls and n.name not in needed]
    return sorted(needed.values(), key=lambda d: (d.coord.line, d.coord.column))


def _signature(unit: Unit, func: c_ast.FuncDef) -> str:
    """The function header as written (from its line through the body's '{'), else printed."""
    first = unit.function_lines.get(func.decl.name, (0, 0))[0] or \
        min(n.coord.line for n in _walk(func.decl) if n.coord is not None)
    body = unit.loc(func.body.coord)
    if func.decl.coord.file == unit.file and body.file == unit.file:
        text = unit.text[unit.line_start(first):unit.line_start(body.line) + body.col - 1]
        if func.decl.name in text:
            return " ".join(text.split())
    return c_generator.CGenerator().visit(func.decl)


def _declare_params(tr: RegionTranslator, func: c_ast.FuncDef, outside: _Outside) -> list[str]:
    """Add every parameter as an entry argument; returns the C text of each call argument."""
    call_args = []
    params = func.decl.type.args.params if func.decl.type.args else []
    if func.param_decls or any(isinstance(p, c_ast.ID) for p in params):
        tr.reject(func.decl, f"old-style (K&R) definition of '{func.decl.name}': declare the "
                             "parameters' types inside the parentheses, e.g. "
                             "'void f(int n, double A[n])'")
    for p in params:
        if isinstance(p, c_ast.EllipsisParam):
            tr.reject(p, f"variadic function '{func.decl.name}' ('...') is not supported")
        ctype = c_type(p.type, tr.typedefs)
        if isinstance(p, c_ast.Typename) or not p.name:
            if ctype.spelled == "void" and not ctype.pointer and len(params) == 1:
                continue
            tr.reject(p, f"unnamed parameter of '{func.decl.name}'")
        if p.name in outside.assigned_before:
            tr.reject(p, f"parameter '{p.name}' is assigned in '{func.decl.name}' before the "
                         "region: the region's entry would see the value passed in")
        call_args.append(_declare_param(tr, p, ctype))
    return call_args


def _declare_param(tr: RegionTranslator, p: c_ast.Decl, ctype: CType) -> str:
    name, loc = p.name, tr.loc(p)
    if ctype.pointer:
        tr.reject(p, f"pointer parameter '{name}' has no shape: declare it as an array with its "
                     f"sizes, e.g. '{ctype.spelled} {name}[n]' or '{ctype.spelled} {name}[N][M]'")
    if ctype.dtype is None:
        tr.reject(p, f"parameter '{name}' of type '{ctype.spelled}' is not supported "
                     f"(supported: {SUPPORTED_TYPES} and arrays of them)")
    assert ctype.dtype is not None
    if not ctype.dims:
        kind = "param" if ctype.dtype in ("int", "long") else "scalar"
        if ctype.dtype in INTEGER and kind == "scalar":
            tr.scalar_types[name] = ctype.spelled
        tr.b.add_arg(name, kind, ctype.dtype, loc=loc)
        tr.scopes[0][name] = Binding("var", name)
        return f"({ctype.spelled}){name}"
    if None in ctype.dims:
        tr.reject(p, f"the first dimension of array parameter '{name}' has no size: write it, "
                     f"e.g. '{ctype.spelled} {name}[n]...'")
    shape = tuple(tr.expr(d, "size") for d in ctype.dims)
    tr.b.add_arg(name, "array", ctype.dtype, shape, loc)
    tr.scopes[0][name] = Binding("array", name, len(shape))
    gen = c_generator.CGenerator()
    base = " ".join([q for q in ctype.quals if q in ("const", "volatile")] + [ctype.spelled])
    inner = "".join(f"[{gen.visit(d)}]" for d in ctype.dims[1:])
    return f"({base} (*){inner}){name}" if inner else f"({base} *){name}"


def _declare_globals(tr: RegionTranslator, scope: _FileScope, shadowing: set[str]
                     ) -> tuple[str, ...]:
    """Global arrays the region uses become entry arguments (after the parameters)."""
    used = []
    for name, decl in scope.global_decls.items():
        binding = scope.bindings[name]
        if binding.kind != "array" or name in shadowing or name not in tr.scan.used:
            continue
        ctype = c_type(decl.type, tr.typedefs)
        assert ctype.dtype is not None
        shape = tuple(tr.expr(d, "size") for d in ctype.dims)
        tr.b.add_arg(name, "array", ctype.dtype, shape, tr.loc(decl))
        used.append(name)
    return tuple(used)


def _declare_outer_locals(tr: RegionTranslator, outside: _Outside, func: str) -> None:
    """Bind the function's locals declared outside the region that the region uses."""
    for name in sorted((tr.scan.used & set(outside.decls)) - tr.scan.declared):
        decl = outside.decls[name]
        tr.scopes[0][name] = _outer_binding(tr, decl, c_type(decl.type, tr.typedefs), outside,
                                            func)


def _outer_binding(tr: RegionTranslator, decl: c_ast.Decl, ctype: CType, outside: _Outside,
                   func: str) -> Binding:
    name, scan = decl.name, tr.scan
    where = f"'{name}' is a local variable of '{func}' declared outside the region"
    if name in scan.iterators:  # assignments to it outside its loops are rejected too
        if name in outside.read_after:
            return Binding("invalid", reason=f"{where} and its value after the region's loops "
                                             "is read after the region (not supported)")
        if ctype.dtype in ("int", "long") and not ctype.dims and not ctype.pointer:
            return Binding("iterdecl", name, dtype=ctype.dtype,
                           reason=f"'{name}' is read outside of a loop over it: its value "
                                  "comes from outside the region")
        return Binding("invalid", reason=iterator_type_reason(name, ctype))
    if ctype.dtype is None or ctype.pointer:
        return Binding("invalid", reason=f"{where}, of type '{ctype.spelled}"
                                         f"{' *' if ctype.pointer else ''}' (not supported)")
    if name in scan.written:
        return _promote(tr, decl, ctype, outside, where)
    if not ctype.dims and decl.init is not None and name not in outside.assigned:
        try:
            value = tr.expr(decl.init)
        except UserError:
            value = None
        if value is not None and _is_parameter_expr(value, tr, outside):
            return Binding("subst", name, expr=typed_value(value, ctype))
    return Binding("invalid", reason=f"{where}; the region cannot read values set outside it "
                                     "(only parameters, constants and variables initialized "
                                     "from them)")


def _is_parameter_expr(value: Expr, tr: RegionTranslator, outside: _Outside) -> bool:
    for e in walk(value):
        if isinstance(e, Ref):
            return False
        name = getattr(e, "name", None)
        if name is not None and (name in outside.assigned or tr.find(name) is None):
            return False
    return True


def _promote(tr: RegionTranslator, decl: c_ast.Decl, ctype: CType, outside: _Outside,
             where: str) -> Binding:
    """A function local written in the region becomes a local of the region, if that is safe."""
    name = decl.name
    if name in (outside.after if ctype.dims else outside.read_after):
        return Binding("invalid", reason=f"{where} and is read after it: a value the region "
                                         "writes to it would be lost")
    if ctype.dims and (decl.init is not None or name in outside.before) \
            or not ctype.dims and name in tr.scan.first_read:
        return Binding("invalid", reason=f"{where}, and the region reads the value it holds "
                                         "before the region (not supported)")
    if None in ctype.dims:
        return Binding("invalid", reason=f"{where}, without a size")
    assert ctype.dtype is not None
    shape = tuple(tr.expr(d, "size") for d in ctype.dims)
    tr.b.add_local(name, ctype.dtype, shape, tr.loc(decl))
    return Binding("array", name, len(shape))
