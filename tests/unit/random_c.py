"""Deterministic random affine C regions for scheduler stress tests: many statements in deep,
partly shared loop nests, with subscripts that couple iterators (hard for any scheduler)."""

from __future__ import annotations

import random

ARRAYS = ("A", "B", "C", "D")


def _subscript(rng: random.Random, iters: list[str]) -> str:
    # a sum of up to two iterators plus 0..2: stays inside [0, 4n) for iterators in [0, n)
    picked = rng.sample(iters, k=min(len(iters), rng.choice((1, 1, 2))))
    return " + ".join(picked + [str(rng.randrange(3))])


def _access(rng: random.Random, iters: list[str]) -> str:
    return f"{rng.choice(ARRAYS)}[{_subscript(rng, iters)}][{_subscript(rng, iters)}]"


def random_region(seed: int, statements: int = 20, depth: int = 5) -> str:
    """C source of one `#pragma scop` region `rand<seed>(n, A, B, C, D)`: `statements`
    statements, each at loop depth 1..depth, consecutive statements sharing outer loops at
    random; arrays are [4n][4n] doubles, loops run over [0, n)."""
    rng = random.Random(seed)
    names = "ijklmnopqrs"
    lines: list[str] = []
    open_loops = 0
    for _ in range(statements):
        want = rng.choice((depth, depth, rng.randint(1, depth)))
        keep = rng.randint(0, min(open_loops, want))
        while open_loops > keep:
            open_loops -= 1
            lines.append("  " * (open_loops + 1) + "}")
        while open_loops < want:
            it = names[open_loops]
            lines.append("  " * (open_loops + 1) + f"for (int {it} = 0; {it} < n; {it}++) {{")
            open_loops += 1
        iters = list(names[:open_loops])
        lhs, r1, r2 = (_access(rng, iters) for _ in range(3))
        lines.append("  " * (open_loops + 1) + f"{lhs} = 0.5 * {r1} + 0.25 * {r2};")
    while open_loops:
        open_loops -= 1
        lines.append("  " * (open_loops + 1) + "}")
    body = "\n".join(lines)
    return (f"void rand{seed}(int n, double A[4 * n][4 * n], double B[4 * n][4 * n],\n"
            f"           double C[4 * n][4 * n], double D[4 * n][4 * n])\n{{\n"
            f"#pragma scop\n{body}\n#pragma endscop\n}}\n")
