"""polycuda: sequential loop nests (C or Python) to verified parallel CUDA and OpenMP code."""

import logging

from polycuda.api import JitFunction, compile, compile_all, jit
from polycuda.errors import (BuildError, IllegalScheduleError, IndexAccessError,
                             IndirectSubscriptError, InvalidConfigError, LaunchError,
                             NotAffineError, OutOfBoundsError, PolycudaError, PolycudaWarning,
                             SolverTimeoutError, SourceLoc, ToolNotFoundError, UnknownOptionError,
                             UnsupportedConstruct, UserError, VerificationError)
from polycuda.options import Options
from polycuda.program import Program

__all__ = [
    "BuildError",
    "IllegalScheduleError",
    "IndexAccessError",
    "IndirectSubscriptError",
    "InvalidConfigError",
    "JitFunction",
    "LaunchError",
    "NotAffineError",
    "Options",
    "OutOfBoundsError",
    "PolycudaError",
    "PolycudaWarning",
    "Program",
    "SolverTimeoutError",
    "SourceLoc",
    "ToolNotFoundError",
    "UnknownOptionError",
    "UnsupportedConstruct",
    "UserError",
    "VerificationError",
    "compile",
    "compile_all",
    "jit",
]
__version__ = "0.1.0"

# Progress records (progress.py) go nowhere unless the application configures logging; the
# `polycuda` command shows them on stderr (cli._progress_on_stderr).
logging.getLogger("polycuda").addHandler(logging.NullHandler())
