"""Run the system C preprocessor on a user's file and parse the result with pycparser.

pycparser cannot read glibc headers (GNU extensions), so the lines that come from system
headers are dropped while the typedef names they declare stay known to the parser; of the
user's own code only declarations that parse and the functions holding `#pragma scop` regions
are kept. Line markers keep every node's coordinates in the user's files, and columns are
mapped back through macro expansions, so errors point at the text the user wrote.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from pycparser import c_ast, c_parser

from polycuda.errors import (
    SourceLoc,
    ToolNotFoundError,
    UnsupportedConstruct,
    UserError,
)

_MARKER = re.compile(r'^#\s*(\d+)\s+"((?:\\.|[^"\\])*)"((?:\s+\d+)*)\s*$')
_PRAGMA_REGION = re.compile(r"^\s*#\s*pragma\s+(scop|endscop)\b")
_TOKEN = re.compile(r"[A-Za-z_]\w*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|\d[\w.]*|\S")
_C_KEYWORDS = frozenset((
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "_Bool", "_Complex", "_Alignas",
    "_Alignof", "_Atomic", "_Noreturn", "_Static_assert", "_Thread_local"))
# GNU spellings the user's own code may contain after macro expansion: respelled or blanked.
_GNU_WORDS = {"__restrict__": "restrict", "__restrict": "restrict", "__inline__": "inline",
              "__inline": "inline", "__const": "const", "__volatile__": "volatile",
              "__signed__": "signed", "__extension__": ""}
_GNU_GROUPS = ("__attribute__", "__attribute", "__asm__", "__asm", "__declspec")
_SKIP_IN_TYPEDEF = _GNU_GROUPS + ("__typeof__", "__typeof", "typeof", "_Alignas")


@dataclass(frozen=True)
class _Line:
    """One output line of the preprocessor and the user's line it stands for."""

    file: str
    line: int
    text: str


@dataclass
class Unit:
    """A parsed translation unit: the AST and what is needed to point back at the user's text.

    ast: the kept declarations and the functions holding regions, in file order.
    function_lines: first and last line of each function defined in the main file.
    """

    file: str
    text: str
    ast: c_ast.FileAST
    pp_lines: dict[tuple[str, int], str] = field(default_factory=dict)
    function_lines: dict[str, tuple[int, int]] = field(default_factory=dict)
    _file_lines: dict[str, list[str]] = field(default_factory=dict)
    _line_starts: list[int] = field(default_factory=list, repr=False, compare=False)

    def lines_of(self, file: str) -> list[str]:
        if file not in self._file_lines:
            try:
                text = Path(file).read_text(errors="replace") if file != self.file else self.text
            except OSError:
                text = ""
            self._file_lines[file] = text.split("\n")
        return self._file_lines[file]

    def loc(self, coord: c_parser.Coord | None) -> SourceLoc:
        """The user's file:line:col (and line text) of a pycparser coordinate."""
        if coord is None:
            return SourceLoc(self.file, 1, 1, "")
        file, line, col = coord.file or self.file, coord.line, coord.column or 1
        lines = self.lines_of(file)
        text = lines[line - 1].rstrip("\r") if 0 < line <= len(lines) else ""
        pp_text = self.pp_lines.get((file, line))
        if text and pp_text is not None and pp_text != text:
            col = _column_map(pp_text, text).get(col, col)
        return SourceLoc(file, line, col, text)

    def line_start(self, line: int) -> int:
        """Character offset of the start of 1-based `line` in the main file's text."""
        if not self._line_starts:  # once per file: a file of many regions asks for each
            self._line_starts.append(0)
            self._line_starts.extend(m.end() for m in re.finditer("\n", self.text))
        if line > len(self._line_starts):
            raise ValueError(f"line {line} is not in {self.file} "
                             f"({len(self._line_starts)} lines)")
        return self._line_starts[max(line, 1) - 1]

    def line_end(self, line: int) -> int:
        """Offset just past the end of `line` in the main file's text, its newline included."""
        end = self.text.find("\n", self.line_start(line))
        return len(self.text) if end < 0 else end + 1


def map_column(pp_text: str, orig_text: str, col: int) -> int:
    """Map a 1-based column of a preprocessed line back onto the line as written.

    Tokens of both lines are aligned; a token produced by a macro expansion maps to the
    macro's name.
    """
    return _column_map(pp_text, orig_text).get(col, col)


@lru_cache(maxsize=4096)
def _column_map(pp_text: str, orig_text: str) -> dict[int, int]:
    """{column of each token of the preprocessed line: column in the line as written}."""
    pp_toks = [(m.start(), m.group()) for m in _TOKEN.finditer(pp_text)]
    orig_toks = [(m.start(), m.group()) for m in _TOKEN.finditer(orig_text)]
    if not pp_toks or not orig_toks:
        return {}
    matcher = difflib.SequenceMatcher(None, [t for _, t in pp_toks], [t for _, t in orig_toks],
                                      autojunk=False)
    result = {}
    for tag, i1, i2, j1, _j2 in matcher.get_opcodes():
        for index in range(i1, i2):
            j = j1 + (index - i1) if tag == "equal" else j1
            start = orig_toks[min(j, len(orig_toks) - 1)][0]
            for offset in range(len(pp_toks[index][1])):
                result[pp_toks[index][0] + offset + 1] = start + 1
    return result


# -- running the preprocessor -----------------------------------------------------------------
def _cpp_command() -> list[str]:
    for tool in ("gcc", "cc", "clang", "cpp"):
        path = shutil.which(tool)
        if path:
            return [path, "-E", "-x", "c"]
    raise ToolNotFoundError("no C preprocessor found (gcc, cc, clang or cpp): install gcc, "
                            "e.g. `apt-get install gcc`")


def cpp_flags(include_dirs: tuple[str, ...] | list[str],
              defines: tuple[str, ...] | list[str]) -> list[str]:
    """-I/-D flags as a C compiler takes them (include dirs made absolute)."""
    flags = [f"-I{os.path.abspath(d)}" for d in include_dirs]
    flags += [f"-D{d.removeprefix('-D')}" for d in defines]
    return flags


def source_dir(filename: str) -> str | None:
    """The directory `#include "..."` searches first for this file, when it exists."""
    if filename.startswith("<"):
        return None
    directory = os.path.dirname(os.path.abspath(filename))
    return directory if os.path.isdir(directory) else None


def run_cpp(text: str, filename: str, include_dirs: tuple[str, ...] | list[str] = (),
            defines: tuple[str, ...] | list[str] = ()) -> str:
    """The preprocessed text (with line markers); the file's directory is searched first."""
    cmd = _cpp_command() + cpp_flags(include_dirs, defines) + ["-"]
    proc = subprocess.run(cmd, input=text, capture_output=True, text=True, check=False,
                          cwd=source_dir(filename))
    if proc.returncode != 0:
        raise _cpp_error(proc.stderr, filename, text)
    return proc.stdout


def _cpp_error(stderr: str, filename: str, text: str) -> UserError:
    for line in stderr.splitlines():
        m = re.match(r"^(.*?):(\d+):(?:(\d+):)? (?:fatal )?error: (.*)$", line)
        if m:
            file = filename if m.group(1) == "<stdin>" else m.group(1)
            lineno, col = int(m.group(2)), int(m.group(3) or 1)
            src = text.split("\n") if file == filename else []
            line_text = src[lineno - 1] if 0 < lineno <= len(src) else ""
            return UserError(f"C preprocessor: {m.group(4)}",
                             SourceLoc(file, lineno, col, line_text))
    return UserError(f"C preprocessor failed:\n{stderr.strip()}", SourceLoc(filename, 1))


def split_output(out: str, filename: str) -> tuple[list[_Line], list[str]]:
    """(lines of the user's own files, lines of system headers) of the preprocessor output."""
    user: list[_Line] = []
    system: list[str] = []
    file, line, is_system = filename, 1, False
    for text in out.split("\n"):
        m = _MARKER.match(text)
        if m:
            name = m.group(2).replace('\\"', '"').replace("\\\\", "\\")
            file = filename if name == "<stdin>" else name
            line = int(m.group(1))
            is_system = "3" in m.group(3).split() or name in ("<built-in>", "<command-line>")
            continue
        if is_system:
            system.append(text)
        elif text.strip():
            user.append(_Line(file, line, text))
        line += 1
    return user, system


# -- system typedef names ---------------------------------------------------------------------
def system_typedef_names(lines: list[str]) -> frozenset[str]:
    """Names that system headers declare with `typedef` (a lexical scan, no full parse)."""
    return _typedef_names("\n".join(t for t in lines if not t.lstrip().startswith("#")))


@lru_cache(maxsize=16)
def _typedef_names(text: str) -> frozenset[str]:
    names: set[str] = set()
    stmt: list[tuple[str, int]] = []
    depth, opener = 0, ""
    for tok in _TOKEN.findall(text):
        if tok in "{([" and len(tok) == 1:
            if depth == 0 and tok == "{":
                opener = stmt[-1][0] if stmt else ""
            depth += 1
        elif tok in "})]" and len(tok) == 1:
            depth = max(depth - 1, 0)
            if depth == 0 and tok == "}" and opener == ")":
                stmt = []  # an inline function body ends a top-level item
                continue
        if tok == ";" and depth == 0:
            if any(t == "typedef" and d == 0 for t, d in stmt):
                names |= _typedef_declarators([t for t, _ in stmt])
            stmt = []
            continue
        stmt.append((tok, depth))
    return frozenset(names - _C_KEYWORDS)


def _typedef_declarators(toks: list[str]) -> set[str]:
    toks = _drop_groups(toks)
    names: set[str] = set()
    part: list[str] = []
    depth = 0
    for tok in toks + [","]:
        depth += tok == "("
        depth -= tok == ")"
        if tok == "," and depth == 0:
            name = _declarator_name(part)
            if name:
                names.add(name)
            part = []
        else:
            part.append(tok)
    return names


def _drop_groups(toks: list[str]) -> list[str]:
    """Remove {...} and [...] groups and GNU attribute-like calls with their parentheses."""
    out: list[str] = []
    k = 0
    while k < len(toks):
        tok = toks[k]
        if tok in ("{", "[") or (tok in _SKIP_IN_TYPEDEF and k + 1 < len(toks)
                                 and toks[k + 1] == "("):
            k = _group_end(toks, k if tok in ("{", "[") else k + 1)
            continue
        out.append(tok)
        k += 1
    return out


def _group_end(toks: list[str], start: int) -> int:
    close = {"{": "}", "[": "]", "(": ")"}[toks[start]]
    depth = 0
    for k in range(start, len(toks)):
        depth += toks[k] == toks[start]
        depth -= toks[k] == close
        if depth == 0:
            return k + 1
    return len(toks)


def _declarator_name(part: list[str]) -> str | None:
    idents = [t for t in part if re.match(r"[A-Za-z_]", t) and t not in _C_KEYWORDS]
    for k, tok in enumerate(part[:-1]):
        if tok == "(" and part[k + 1] in ("*", "^"):
            inner = [t for t in part[k + 1:] if re.match(r"[A-Za-z_]", t)
                     and t not in _C_KEYWORDS and not t.startswith("__restrict")]
            return inner[0] if inner else None
    if "(" in part:
        before = part[:part.index("(")]
        idents = [t for t in before if re.match(r"[A-Za-z_]", t) and t not in _C_KEYWORDS]
    return idents[-1] if idents else None


# -- the user's code ----------------------------------------------------------------------------
def strip_gnu(lines: list[_Line]) -> list[_Line]:
    """Respell or blank GNU extensions, keeping every line and column in place."""
    text = "\n".join(ln.text for ln in lines)
    for word, repl in _GNU_WORDS.items():
        text = re.sub(rf"\b{word}\b", _padded(repl), text)
    for word in _GNU_GROUPS:
        text = _blank_calls(text, word)
    return [_Line(ln.file, ln.line, t) for ln, t in zip(lines, text.split("\n"))]


_EXTENSION = re.compile(r"\b(__attribute__|__attribute|__asm__|__asm|__declspec)\b")


def reject_extensions_in_regions(lines: list[_Line], unit: Unit) -> None:
    """strip_gnu blanks inline assembly and attributes; inside a region that would drop code
    (or a declaration's meaning) silently, so there they are errors.

    Raises:
        UnsupportedConstruct: at the first such word inside a `#pragma scop` region.
    """
    inside = False
    for ln in lines:
        m = _PRAGMA_REGION.match(ln.text)
        if m:
            inside = m.group(1) == "scop"
            continue
        found = _EXTENSION.search(ln.text) if inside else None
        if found:
            word = found.group(1)
            what = "inline assembly" if "asm" in word else "an attribute"
            coord = c_parser.Coord(ln.file, ln.line, found.start() + 1)
            raise UnsupportedConstruct(f"'{word}' ({what}) inside a region: it is not "
                                       "translated; move it out of the region",
                                       unit.loc(coord))


def _padded(repl: str) -> Callable[[re.Match[str]], str]:
    """A re.sub replacement: `repl` padded with spaces to the matched length."""
    return lambda m: repl.ljust(len(m.group()))


def _blank_calls(text: str, word: str) -> str:
    pattern = re.compile(rf"\b{word}\b\s*(?:volatile\s*|__volatile__\s*)?\(")
    while True:
        m = pattern.search(text)
        if not m:
            return text
        depth, end = 0, len(text)
        for k in range(m.end() - 1, len(text)):
            depth += text[k] == "("
            depth -= text[k] == ")"
            if depth == 0:
                end = k + 1
                break
        blank = re.sub(r"[^\n]", " ", text[m.start():end])
        text = text[:m.start()] + blank + text[end:]


@dataclass
class _Chunk:
    """Consecutive lines holding whole top-level items: declarations or a function."""

    lines: list[_Line]
    is_function: bool = False
    has_region: bool = False


def top_level_chunks(lines: list[_Line]) -> list[_Chunk]:
    """Split the user's lines into top-level items (a pragma at file scope is its own chunk)."""
    chunks: list[_Chunk] = []
    cur = _Chunk([])
    depth, prev, opener = 0, "", ""
    for ln in lines:
        if ln.text.lstrip().startswith("#"):
            if depth == 0 and not cur.lines:
                chunks.append(_Chunk([ln]))
                continue
            cur.has_region |= bool(_PRAGMA_REGION.match(ln.text))
            cur.lines.append(ln)
            continue
        cur.lines.append(ln)
        pending = False
        for tok in _TOKEN.findall(ln.text):
            pending = True
            if tok == "{":
                opener = prev if depth == 0 else opener
                cur.is_function |= depth == 0 and prev == ")"
                depth += 1
            elif tok == "}":
                depth -= 1
                pending = not (depth == 0 and opener == ")")
            elif tok == ";" and depth == 0:
                pending = False
            prev = tok
        if depth == 0 and not pending:
            chunks.append(cur)
            cur = _Chunk([])
    if cur.lines:
        chunks.append(cur)
    return chunks


def _function_lines(chunks: list[_Chunk], filename: str) -> dict[str, tuple[int, int]]:
    result = {}
    for chunk in chunks:
        if not chunk.is_function or any(ln.file != filename for ln in chunk.lines):
            continue
        toks = _TOKEN.findall(" ".join(ln.text for ln in chunk.lines))
        idents = [t for t in toks[:toks.index("(")] if re.match(r"[A-Za-z_]", t)] \
            if "(" in toks else []
        if idents:
            result[idents[-1]] = (chunk.lines[0].line, chunk.lines[-1].line)
    return result


def marked_text(lines: list[_Line]) -> str:
    """The lines with line markers wherever the file or line number jumps."""
    out: list[str] = []
    where: tuple[str, int] | None = None
    for ln in lines:
        if where != (ln.file, ln.line):
            name = ln.file.replace("\\", "\\\\").replace('"', '\\"')
            out.append(f'# {ln.line} "{name}"')
        out.append(ln.text)
        where = (ln.file, ln.line + 1)
    return "\n".join(out) + "\n"


# -- parsing ------------------------------------------------------------------------------------
_SYSTEM_FILE = "<system typedefs>"


def parse_unit(text: str, filename: str = "<string>", include_dirs: tuple[str, ...] = (),
               defines: tuple[str, ...] = ()) -> Unit:
    """Preprocess and parse `text`; keep the user's declarations and the region functions.

    Raises:
        UserError: the preprocessor or the parser failed (location in the user's file), or a
            `#pragma scop` / `#pragma endscop` stands outside any function.
    """
    user, system = split_output(run_cpp(text, filename, include_dirs, defines), filename)
    pp_lines: dict[tuple[str, int], str] = {}
    for ln in user:  # before strip_gnu, which keeps columns: more tokens match the original
        pp_lines.setdefault((ln.file, ln.line), ln.text)
    unit = Unit(filename, text, c_ast.FileAST([]), pp_lines)
    reject_extensions_in_regions(user, unit)
    user = strip_gnu(user)
    used = {tok for ln in user for tok in _TOKEN.findall(ln.text)}
    prelude = f'# 1 "{_SYSTEM_FILE}"\n' + "".join(
        f"typedef int {name};\n" for name in sorted(system_typedef_names(system) & used))
    parser = c_parser.CParser()
    chunks = top_level_chunks(user)
    unit.function_lines = _function_lines(chunks, filename)
    kept = _kept_chunks(parser, unit, chunks, prelude)
    ast = _parse(parser, unit, prelude + marked_text([ln for c in kept for ln in c.lines]))
    unit.ast = c_ast.FileAST([n for n in ast.ext
                              if n.coord is None or n.coord.file != _SYSTEM_FILE])
    return unit


def _parse(parser: c_parser.CParser, unit: Unit, source: str) -> c_ast.FileAST:
    try:
        return parser.parse(source, unit.file)
    except c_parser.ParseError as err:
        m = re.match(r"^(.*?):(\d+):(\d+): (.*)$", str(err), re.DOTALL)
        if m:
            coord, msg = c_parser.Coord(m.group(1), int(m.group(2)), int(m.group(3))), m.group(4)
        else:
            coord, msg = _next_token_coord(parser), str(err).rpartition(": ")[2]
        raise UserError(f"C syntax error (pycparser: {msg})", unit.loc(coord)) from None


def _next_token_coord(parser: c_parser.CParser) -> c_parser.Coord | None:
    # Some pycparser 3.0 errors carry only the file name; the next token knows where it is.
    try:
        return parser._tok_coord(parser._tokens.peek(1))
    except Exception:  # noqa: BLE001 -- private API of pycparser: fall back to no location
        return None


def _parses(parser: c_parser.CParser, source: str) -> c_ast.FileAST | None:
    try:
        return parser.parse(source, "<trial>")
    except c_parser.ParseError:
        return None


def _kept_chunks(parser: c_parser.CParser, unit: Unit, chunks: list[_Chunk],
                 prelude: str) -> list[_Chunk]:
    """Region functions, and the declarations that pycparser accepts (GNU-only ones dropped)."""
    for chunk in chunks:
        first = chunk.lines[0]
        m = _PRAGMA_REGION.match(first.text)
        if m and len(chunk.lines) == 1:
            coord = c_parser.Coord(first.file, first.line, first.text.index("#") + 1)
            raise UserError(f"'#pragma {m.group(1)}' outside a function: a region must be "
                            "inside a function body", unit.loc(coord))
    decls = [c for c in chunks if not c.is_function and not c.lines[0].text.lstrip()
             .startswith("#")]
    everything = prelude + marked_text([ln for c in decls for ln in c.lines])
    if _parses(parser, everything) is not None:
        ok = {id(c) for c in decls}
    else:
        ok = _parsable_one_by_one(parser, decls, prelude)
    return [c for c in chunks if id(c) in ok or (c.is_function and c.has_region)]


def _parsable_one_by_one(parser: c_parser.CParser, decls: list[_Chunk], prelude: str
                         ) -> set[int]:
    ok: set[int] = set()
    typedefs: list[str] = []
    for chunk in decls:
        known = "".join(f"typedef int {name};\n" for name in typedefs)
        ast = _parses(parser, prelude + known + marked_text(chunk.lines))
        if ast is None:
            continue
        ok.add(id(chunk))
        typedefs += [n.name for n in ast.ext if isinstance(n, c_ast.Typedef)]
    return ok
