"""polycuda: sequential loop nests (C or Python) to verified parallel CUDA and OpenMP code."""

from polycuda.api import JitFunction, compile, compile_all, jit
from polycuda.errors import PolycudaError, UserError
from polycuda.options import Options
from polycuda.program import Program

__all__ = [
           "JitFunction",
           "Options",
           "PolycudaError",
           "Program",
           "UserError",
           "compile",
           "compile_all",
           "jit",
]
__version__ = "0.1.0"
