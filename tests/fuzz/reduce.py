"""Shrink a failing generated program: greedily drop nodes, reads, conditions and bounds while
the failure stays (the same crash class, or a mismatch, of the same configuration and target).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

from tests.fuzz.emit import layout
from tests.fuzz.tree import Assign, FuzzProgram, If, Loop, Node

Body = tuple[Node, ...]


def _node_variants(node: Node) -> Iterator[Node | None]:
    """Smaller versions of one node (None: the node removed)."""
    yield None
    if isinstance(node, Loop):
        for body in _body_variants(node.body):
            yield dataclasses.replace(node, body=body)
        for field in ("lower", "upper"):
            bounds = getattr(node, field)
            for k in range(len(bounds) if len(bounds) > 1 else 0):
                yield dataclasses.replace(node, **{field: bounds[:k] + bounds[k + 1:]})
        if node.down:
            yield dataclasses.replace(node, down=False)
    elif isinstance(node, If):
        for k in range(len(node.conds) if len(node.conds) > 1 else 0):
            yield dataclasses.replace(node, conds=node.conds[:k] + node.conds[k + 1:])
        if node.other:
            yield dataclasses.replace(node, other=())
        for body in _body_variants(node.then):
            yield dataclasses.replace(node, then=body)
    else:
        for k in range(len(node.reads)):
            yield dataclasses.replace(node, reads=node.reads[:k] + node.reads[k + 1:])
        if node.call:
            yield dataclasses.replace(node, call="")
        if node.op != "=":
            yield dataclasses.replace(node, op="=")


def _body_variants(body: Body) -> Iterator[Body]:
    """Smaller bodies: one node removed or shrunk; an `if` replaced by one of its branches."""
    for k, node in enumerate(body):
        if isinstance(node, If):
            for branch in (node.then, node.other):
                if branch:
                    yield body[:k] + branch + body[k + 1:]
        for small in _node_variants(node):
            new = body[:k] + ((small,) if small is not None else ()) + body[k + 1:]
            if new:
                yield new


def minimise(prog: FuzzProgram, still_fails: Callable[[FuzzProgram], bool],
             budget: int = 200) -> FuzzProgram:
    """The smallest program found (at most `budget` trials) for which `still_fails` holds."""
    trials = 0
    improved = True
    while improved and trials < budget:
        improved = False
        for body in _body_variants(prog.body):
            candidate = layout(dataclasses.replace(prog, body=body, source=""))
            if candidate is None:
                continue
            trials += 1
            if still_fails(candidate):
                prog, improved = candidate, True
                break
            if trials >= budget:
                break
    return prog


def size(prog: FuzzProgram) -> int:
    """Statements plus reads: what minimise() reduces."""
    def count(body: Body) -> int:
        total = 0
        for node in body:
            if isinstance(node, Loop):
                total += 1 + count(node.body)
            elif isinstance(node, If):
                total += 1 + count(node.then) + count(node.other)
            elif isinstance(node, Assign):
                total += 1 + len(node.reads)
        return total

    return count(prog.body)
