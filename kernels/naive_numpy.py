"""The naive CuPy baselines of kernels/naive_cupy.py run on NumPy (`xp=numpy`), so that their
logic is tested on the CPU against the loop-nest kernels. Same names, same arguments."""

from __future__ import annotations

import functools

import numpy

from kernels import naive_cupy

__all__ = naive_cupy.__all__

globals().update({name: functools.partial(getattr(naive_cupy, name), xp=numpy)
                  for name in naive_cupy.__all__})
