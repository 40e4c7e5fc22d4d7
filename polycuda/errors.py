"""Every error class of polycuda, and the source locations they point at."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SourceLoc:
    """A point in the user's source: file, 1-based line and column, and the line's text."""

    file: str
    line: int
    col: int = 1
    text: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


class PolycudaError(Exception):
    """Base class of every error polycuda raises on purpose."""


class UserError(PolycudaError):
    """Bad input: printed as `file:line:col: error: msg`, the source line and a caret."""

    def __init__(self, msg: str, loc: SourceLoc | None = None):
        self.msg = msg
        self.loc = loc
        super().__init__(self.render())

    def render(self) -> str:
        if self.loc is None:
            return f"error: {self.msg}"
        head = f"{self.loc}: error: {self.msg}"
        if not self.loc.text:
            return head
        caret = " " * (max(self.loc.col, 1) - 1) + "^"
        return f"{head}\n  {self.loc.text.rstrip()}\n  {caret}"


class UnsupportedConstruct(UserError):
    """A construct outside the supported subset (goto, pointer arithmetic, side effects...)."""


class NotAffineError(UserError):
    """A loop bound, condition or subscript that is not affine in iterators and parameters."""


class IndirectSubscriptError(NotAffineError):
    """A subscript that reads another array (`A[idx[i]]`): needs the run-time inspector path."""


class InvalidConfigError(PolycudaError):
    """Options that cannot apply to this program (a tuner skips such a configuration)."""


class UnknownOptionError(InvalidConfigError, TypeError):
    """A keyword that is no Options field (`Options(tile_size=...)`): a TypeError too, as the
    dataclass's own would be."""


class IllegalScheduleError(PolycudaError):
    """A schedule that violates a dependence: never used to generate code."""


class ToolNotFoundError(PolycudaError):
    """A compiler or device the run needs is missing; the message says how to get it."""


class BuildError(PolycudaError):
    """The C/CUDA compiler failed; carries the command and its stderr."""

    def __init__(self, cmd: list[str], stderr: str):
        self.cmd = cmd
        self.stderr = stderr
        super().__init__(f"build failed: {' '.join(cmd)}\n{stderr}")


class LaunchError(PolycudaError):
    """A generated kernel or entry failed at run time (CUDA error code, bad arguments)."""


class OutOfBoundsError(UserError, LaunchError):
    """An access of the region reaches outside its array at the given parameter values
    (analysis/bounds.py, checked before anything runs)."""


class IndexAccessError(UserError):
    """The drawn inputs would make the original program access outside an array
    (analysis/index_check.py)."""


class VerificationError(PolycudaError):
    """The transformed program's result differs from the sequential reference."""


class SolverTimeoutError(PolycudaError):
    """A bounded solver call ran past the wall-clock safety net (Options.solver_timeout_s)
    before its work limit: the compile fails instead of using other code (schedule/budget.py)."""


class PolycudaWarning(UserWarning):
    """polycuda gave something up and still generated correct code: a scheduler or AST build
    ran out of its work limit (Options.schedule_operations, ast_operations, ...: isl
    operations, the same on every machine) or its result was refused, and a simpler one was
    used. The message says what was given up and why."""
