"""The tree of a generated program: affine expressions, accesses, assignments, loops, ifs."""

from __future__ import annotations

from dataclasses import dataclass

@dataclass(frozen=True)
class Aff:
    """An affine expression: sum of coeff * name, plus const (names: iterators, params)."""

    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0

    @staticmethod
    def of(name: str | None = None, coeff: int = 1, const: int = 0) -> Aff:
        return Aff(((name, coeff),) if name and coeff else (), const)

    def plus(self, const: int) -> Aff:
        return Aff(self.terms, self.const + const)

    def value(self, env: dict[str, int]) -> int:
        return sum(c * env[v] for v, c in self.terms) + self.const

    def names(self) -> set[str]:
        return {v for v, _ in self.terms}

    def to_c(self) -> str:
        parts: list[str] = []
        for name, coeff in self.terms:
            mag = abs(coeff)
            text = name if mag == 1 else f"{mag} * {name}"
            parts.append(text if not parts and coeff > 0 else
                         f"- {text}" if coeff < 0 else f"+ {text}")
        if self.const or not parts:
            sign = "-" if self.const < 0 else "+"
            parts.append(str(self.const) if not parts else f"{sign} {abs(self.const)}")
        text = " ".join(parts)
        return "-" + text[2:] if text.startswith("- ") else text


def c_div(a: int, d: int) -> int:
    """C's a / d: rounds toward zero."""
    q = abs(a) // abs(d)
    return q if (a < 0) == (d < 0) else -q


@dataclass(frozen=True)
class DivAff:
    """C `(num) / divisor + const` or `(num) % divisor + const`, with C's truncation (the
    numerator may be negative, the divisor a non-zero constant of either sign). It stands
    wherever an Aff does: subscripts, loop bounds, conditions, statement bodies."""

    num: Aff
    op: str  # "/" or "%"
    divisor: int
    const: int = 0

    def plus(self, const: int) -> DivAff:
        return DivAff(self.num, self.op, self.divisor, self.const + const)

    def value(self, env: dict[str, int]) -> int:
        a = self.num.value(env)
        q = c_div(a, self.divisor)
        return (q if self.op == "/" else a - self.divisor * q) + self.const

    def names(self) -> set[str]:
        return self.num.names()

    def to_c(self) -> str:
        d = str(self.divisor) if self.divisor > 0 else f"({self.divisor})"
        text = f"({self.num.to_c()}) {self.op} {d}"
        if self.const:
            text += f" {'-' if self.const < 0 else '+'} {abs(self.const)}"
        return text


Expr = Aff | DivAff


@dataclass(frozen=True)
class Access:
    array: str
    subscripts: tuple[Expr, ...]


@dataclass(frozen=True)
class Assign:
    """`lhs op rhs`: lhs an Access or the scalar (None); rhs: weighted reads plus a constant."""

    lhs: Access | None
    op: str  # "=" or "+="
    reads: tuple[Access | None, ...]  # None reads the scalar
    const: str
    dtype: str  # "double" or "int"
    call: str = ""  # "sqrt" wraps the first read
    index_term: DivAff | None = None  # a C '/' or '%' of the iterators, added to the value


@dataclass(frozen=True)
class Loop:
    var: str
    lower: tuple[Expr, ...]  # max of
    upper: tuple[Expr, ...]  # min of, inclusive
    down: bool
    body: tuple[Node, ...]
    strict: bool = False  # upward loop written `i < upper + 1`


@dataclass(frozen=True)
class If:
    conds: tuple[tuple[Expr, str], ...]  # each: aff >= 0 or aff == 0; joined by &&
    then: tuple[Node, ...]
    other: tuple[Node, ...] = ()


Node = Assign | Loop | If


@dataclass(frozen=True)
class FuzzProgram:
    """A generated program: its tree, parameter values, arrays, and C source."""

    seed: int
    profile: str  # the generator's FuzzConfig, by name (generator.PROFILES)
    body: tuple[Node, ...]
    sizes: dict[str, int]
    arrays: tuple[tuple[str, str, int], ...]  # (name, dtype, ndim)
    source: str = ""
