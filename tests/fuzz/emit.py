"""Lay out a generated tree (array shifts and extents) and print it as a C `#pragma scop` region.

The tree is run at the program's parameter values, recording the smallest and largest index
of each array dimension; each dimension is then shifted so that its smallest index is 0 and
declared with exactly the extent needed, so no access leaves its array.
"""

from __future__ import annotations

import dataclasses
import random

from tests.fuzz.tree import Access, Aff, Assign, DivAff, Expr, FuzzProgram, If, Loop, Node

PRELUDE = ("#include <math.h>\n"
           "#define min(x, y) ((x) < (y) ? (x) : (y))\n"
           "#define max(x, y) ((x) > (y) ? (x) : (y))\n")
WEIGHTS = ("0.5", "0.25", "0.3", "0.125")
FUNCTION = "fuzz"


class _Trace:
    """Index ranges per (array, dim) and instances run, from one simulated execution."""

    def __init__(self) -> None:
        self.ranges: dict[tuple[str, int], tuple[int, int]] = {}
        self.instances = 0
        self.scalar_set = False
        self.valid = True  # False: the scalar is read before any write

    def touch(self, acc: Access, env: dict[str, int]) -> None:
        for dim, sub in enumerate(acc.subscripts):
            v = sub.value(env)
            lo, hi = self.ranges.get((acc.array, dim), (v, v))
            self.ranges[(acc.array, dim)] = (min(lo, v), max(hi, v))


def _simulate(nodes: tuple[Node, ...], env: dict[str, int], trace: _Trace) -> None:
    for node in nodes:
        if isinstance(node, Loop):
            lo = max(a.value(env) for a in node.lower)
            hi = min(a.value(env) for a in node.upper)
            for v in range(lo, hi + 1):
                _simulate(node.body, {**env, node.var: v}, trace)
        elif isinstance(node, If):
            taken = all(_holds(aff, rel, env) for aff, rel in node.conds)
            _simulate(node.then if taken else node.other, env, trace)
        else:
            trace.instances += 1
            for acc in node.reads:
                if acc is None:
                    trace.valid &= trace.scalar_set
                else:
                    trace.touch(acc, env)
            if node.lhs is None:
                trace.valid &= trace.scalar_set or node.op == "="
                trace.scalar_set = True
            else:
                trace.touch(node.lhs, env)


def _holds(aff: Expr, rel: str, env: dict[str, int]) -> bool:
    value = aff.value(env)
    return value == 0 if rel == "==" else value >= 0


def layout(prog: FuzzProgram) -> FuzzProgram | None:
    """`prog` with its C source; None when no statement runs or the scalar is read unset."""
    trace = _Trace()
    _simulate(prog.body, dict(prog.sizes), trace)
    if trace.instances == 0 or not trace.valid:
        return None
    shifts = {key: -lo for key, (lo, _) in trace.ranges.items()}
    extents = {key: hi - lo + 1 for key, (lo, hi) in trace.ranges.items()}
    return dataclasses.replace(prog, source=_source(prog, shifts, extents))


def _source(prog: FuzzProgram, shifts: dict[tuple[str, int], int],
            extents: dict[tuple[str, int], int]) -> str:
    printer = _Printer(shifts)
    printer.nodes(prog.body, 1)
    body = "\n".join(printer.lines)
    # a dimension is a VLA `n + c` or a constant, by a choice of its own (not the tree's)
    rng = random.Random(f"{prog.seed}-layout")
    n = prog.sizes["n"]
    params = [f"int {p}" for p in prog.sizes]
    if "alpha" in body:
        params.append("double alpha")
    for name, dtype, ndim in prog.arrays:
        if f"{name}[" not in body:
            continue
        dims = []
        for dim in range(ndim):
            extent = extents.get((name, dim), 1)
            dims.append(f"[{Aff.of('n', 1, extent - n).to_c()}]" if rng.random() < 0.5
                        else f"[{extent}]")
        params.append(f"{dtype} {name}{''.join(dims)}")
    iterators = sorted({v for v in ("i", "j", "k", "l") if f"for ({v} =" in body})
    decls = [f"  int {', '.join(iterators)};"]
    if "s0" in body:
        decls.append("  double s0;")
    return (f"{PRELUDE}\nvoid {FUNCTION}({', '.join(params)})\n{{\n" + "\n".join(decls)
            + f"\n#pragma scop\n{body}\n#pragma endscop\n}}\n")


class _Printer:
    """C text of a tree, with each array dimension's shift added to its subscripts."""

    def __init__(self, shifts: dict[tuple[str, int], int]):
        self.shifts = shifts
        self.lines: list[str] = []

    def nodes(self, nodes: tuple[Node, ...], depth: int) -> None:
        for node in nodes:
            pad = "  " * depth
            if isinstance(node, Loop):
                self.lines.append(pad + _loop_header(node) + " {")
                self.nodes(node.body, depth + 1)
                self.lines.append(pad + "}")
            elif isinstance(node, If):
                conds = " && ".join(_cond(aff, rel) for aff, rel in node.conds)
                self.lines.append(f"{pad}if ({conds}) {{")
                self.nodes(node.then, depth + 1)
                if node.other:
                    self.lines.append(pad + "} else {")
                    self.nodes(node.other, depth + 1)
                self.lines.append(pad + "}")
            else:
                self.lines.append(pad + self.assign(node))

    def access(self, acc: Access | None) -> str:
        if acc is None:
            return "s0"
        return acc.array + "".join(
            f"[{sub.plus(self.shifts.get((acc.array, d), 0)).to_c()}]"
            for d, sub in enumerate(acc.subscripts))

    def assign(self, node: Assign) -> str:
        reads = [self.access(r) for r in node.reads]
        if node.call and reads:
            reads[0] = f"{node.call}({reads[0]})"
        if node.dtype == "int":
            extra = [f"({node.index_term.to_c()})"] if node.index_term else []
            rhs = f"({' + '.join(reads + extra + [node.const])}) / {len(reads) + 1}"
        else:
            terms = [f"{WEIGHTS[k % len(WEIGHTS)]} * {r}" for k, r in enumerate(reads)]
            if node.index_term:
                terms.append(f"0.5 * ({node.index_term.to_c()})")
            rhs = " + ".join(terms + [node.const])
        return f"{self.access(node.lhs)} {node.op} {rhs};"


def _minmax(fn: str, affs: tuple[Expr, ...]) -> str:
    text = affs[-1].to_c()
    for aff in reversed(affs[:-1]):
        text = f"{fn}({aff.to_c()}, {text})"
    return text


def _loop_header(loop: Loop) -> str:
    v = loop.var
    lower, upper = _minmax("max", loop.lower), _minmax("min", loop.upper)
    if loop.down:
        return f"for ({v} = {upper}; {v} >= {lower}; {v}--)"
    if loop.strict:
        bound = _minmax("min", tuple(u.plus(1) for u in loop.upper))
        return f"for ({v} = {lower}; {v} < {bound}; {v}++)"
    return f"for ({v} = {lower}; {v} <= {upper}; {v}++)"


def _cond(aff: Aff | DivAff, rel: str) -> str:
    """aff >= 0 (or == 0) written as `positive side rel negative side`."""
    if isinstance(aff, DivAff):
        return f"{aff.to_c()} {rel} 0"
    left = Aff(tuple(t for t in aff.terms if t[1] > 0), max(aff.const, 0))
    right = Aff(tuple((v, -c) for v, c in aff.terms if c < 0), max(-aff.const, 0))
    return f"{left.to_c()} {rel} {right.to_c()}"
