"""Layers point down (STYLE.md): gpu/ never imports codegen/, not even lazily inside a function
or through analysis/, schedule/ or ir/ (the gpu <-> codegen cycle of issue 15 item 7: the
isl-AST and IR expression printers now live in ir/). Checked on the source with `ast`."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "polycuda"


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every polycuda module that `path` imports (module level or inside functions), with
    the line: `from polycuda.a import b` gives polycuda.a and polycuda.a.b."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found += [(node.lineno, node.module)]
            found += [(node.lineno, f"{node.module}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
    return [(line, name) for line, name in found if name.startswith("polycuda.")]


def _layer(module: str) -> str:
    """The subpackage (or top-level module) of polycuda that `module` names."""
    return module.split(".")[1]


def _layer_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).with_suffix("")
        layer = rel.parts[0]
        for _, name in _imports(path):
            if _layer(name) != layer:
                graph.setdefault(layer, set()).add(_layer(name))
    return graph


def test_gpu_never_imports_codegen():
    offenders = [f"{path.relative_to(PACKAGE.parent)}:{line}: {name}"
                 for path in sorted((PACKAGE / "gpu").glob("*.py"))
                 for line, name in _imports(path) if name.startswith("polycuda.codegen")]
    assert offenders == []


def test_no_layer_below_codegen_reaches_it():
    graph = _layer_graph()
    for start in ("gpu", "analysis", "schedule", "ir"):
        seen, todo = set(), [start]
        while todo:
            layer = todo.pop()
            for below in graph.get(layer, ()):
                if below not in seen:
                    seen.add(below)
                    todo.append(below)
        assert "codegen" not in seen, f"{start} reaches codegen through {sorted(seen)}"


def test_the_check_sees_lazy_imports(tmp_path: Path):
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from polycuda.codegen import abi\n    return abi\n")
    assert _imports(module) == [(2, "polycuda.codegen"), (2, "polycuda.codegen.abi")]


def _gpu_graph() -> dict[str, set[str]]:
    """The gpu package's own import graph: module -> the gpu modules it imports. Every import
    counts, at module level, inside a function or under `if TYPE_CHECKING:` (_imports walks
    them all): a function-local import only defers a cycle to the first call, and a typing
    one still makes the two modules one unit to read and change, so neither may close one.
    `from polycuda.gpu import a` names polycuda.gpu.a; the package itself is no node."""
    modules = {p.stem for p in (PACKAGE / "gpu").glob("*.py") if p.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for name in sorted(modules):
        graph[name] = {parts[2] for _, imported in _imports(PACKAGE / "gpu" / f"{name}.py")
                       if (parts := imported.split("."))[:2] == ["polycuda", "gpu"]
                       and len(parts) > 2 and parts[2] in modules and parts[2] != name}
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """A cycle of `graph` (its nodes in order, the first repeated at the end), or []."""
    state: dict[str, str] = {}  # "open" while on the path, "done" after
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = "open"
        path.append(node)
        for after in sorted(graph.get(node, ())):
            if state.get(after) == "open":
                return path[path.index(after):] + [after]
            if after not in state and (found := visit(after)):
                return found
        state[node] = "done"
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_gpu_package_imports_no_cycle():
    assert _cycle(_gpu_graph()) == []


def test_the_cycle_check_finds_one():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) == []
