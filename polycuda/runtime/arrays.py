"""Array interop: NumPy, CuPy (`__cuda_array_interface__`), torch and DLPack arguments.

`describe` turns any accepted array into an ArrayInfo (pointer, ir dtype name, shape,
contiguity, host or device); `check_array` also checks it against the Scop's Array at the
given parameter values. CuPy and torch are never imported here: arrays are duck-typed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from polycuda.ir.c_expr import expr_to_c
from polycuda.errors import LaunchError
from polycuda.ir import dtypes
from polycuda.ir.evaluate import eval_int
from polycuda.ir.scop import Array
from polycuda.runtime import device

# NumPy / array-interface type strings and torch dtype names of each ir dtype; an int8 array
# is a `signed char` one, and passes for a `char` one too (char is signed: ir/dtypes.py)
NUMPY_DTYPES = {name: getattr(np, d.numpy) for name, d in dtypes.TABLE.items()}
_TYPESTR = {np.dtype(t).str[1:]: dtypes.FROM_NUMPY[np.dtype(t).name]
            for name, t in NUMPY_DTYPES.items() if name != "char"}
_TORCH = {f"torch.{numpy}": name for numpy, name in dtypes.FROM_NUMPY.items()}
_DLPACK_CPU, _DLPACK_CUDA, _DLPACK_CUDA_HOST, _DLPACK_CUDA_MANAGED = 1, 2, 3, 13


@dataclass(frozen=True)
class ArrayInfo:
    """What the runtime needs of one array argument.

    kind: "numpy", "torch", "cuda" (any `__cuda_array_interface__` object: CuPy, Numba...).
    dtype: the ir dtype name (ir/dtypes.py), or the foreign name if none.
    obj: the object the pointer belongs to (kept alive while the info is).
    """

    kind: str
    ptr: int
    dtype: str
    shape: tuple[int, ...]
    contiguous: bool
    device: bool
    writeable: bool = True
    obj: Any = field(default=None, compare=False, repr=False)

    @property
    def nbytes(self) -> int:
        itemsize = np.dtype(NUMPY_DTYPES[self.dtype]).itemsize if self.dtype in NUMPY_DTYPES else 0
        return int(np.prod(self.shape, dtype=np.int64)) * itemsize


def classify(obj: object) -> str | None:
    """"numpy", "torch", "cuda", "dlpack", or None for an object that is not an array."""
    if isinstance(obj, np.ndarray):
        return "numpy"
    if callable(getattr(obj, "data_ptr", None)) and hasattr(obj, "is_cuda"):
        return "torch"
    if hasattr(obj, "__cuda_array_interface__"):
        return "cuda"
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return "dlpack"
    return None


def describe(obj: object, name: str = "array") -> ArrayInfo:
    """ArrayInfo of an array argument (DLPack objects are viewed as NumPy or CuPy first).

    Raises:
        LaunchError: `obj` is not an array this runtime understands.
        ToolNotFoundError: a DLPack GPU array without CuPy installed.
    """
    kind = classify(obj)
    if kind == "numpy":
        return _numpy_info(obj)  # type: ignore[arg-type]
    if kind == "torch":
        return _torch_info(obj)
    if kind == "cuda":
        return _cai_info(obj)
    if kind == "dlpack":
        return describe(_from_dlpack(obj, name), name)
    raise LaunchError(f"argument '{name}' must be an array (NumPy, CuPy, torch or DLPack), "
                      f"got {type(obj).__name__}")


def _numpy_info(arr: np.ndarray) -> ArrayInfo:
    dtype = _TYPESTR.get(arr.dtype.str[1:], str(arr.dtype)) if arr.dtype.isnative else (
        f"{arr.dtype} (non-native byte order)")
    return ArrayInfo("numpy", int(arr.ctypes.data), dtype, tuple(arr.shape),
                     bool(arr.flags.c_contiguous), False, bool(arr.flags.writeable), arr)


def _torch_info(t: Any) -> ArrayInfo:
    dtype = _TORCH.get(str(t.dtype), str(t.dtype))
    return ArrayInfo("torch", int(t.data_ptr()), dtype, tuple(int(s) for s in t.shape),
                     bool(t.is_contiguous()), bool(t.is_cuda), True, t)


def _cai_info(obj: Any) -> ArrayInfo:
    cai = obj.__cuda_array_interface__
    shape = tuple(int(s) for s in cai["shape"])
    typestr = cai["typestr"]
    dtype = _TYPESTR.get(typestr[1:], typestr) if typestr[0] in "<|=" else typestr
    ptr, readonly = cai["data"]
    strides = cai.get("strides")
    itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 1
    contiguous = strides is None or tuple(strides) == c_strides(shape, itemsize)
    return ArrayInfo("cuda", int(ptr or 0), dtype, shape, contiguous, True, not readonly, obj)


def c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """Byte strides of a C-contiguous (row-major) array of `shape`."""
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


def _from_dlpack(obj: Any, name: str) -> object:
    dev_type, _ = obj.__dlpack_device__()
    if dev_type == _DLPACK_CPU or dev_type == _DLPACK_CUDA_HOST:
        return np.from_dlpack(obj)
    if dev_type in (_DLPACK_CUDA, _DLPACK_CUDA_MANAGED):
        return device.require_cupy().from_dlpack(obj)
    raise LaunchError(f"argument '{name}' lives on DLPack device type {dev_type}; only CPU "
                      "and CUDA arrays are supported")


def expected_shape(array: Array, params: dict[str, int]) -> tuple[int, ...]:
    """The shape of `array` at the parameter values (Array.shape evaluated).

    Raises:
        LaunchError: a dimension is negative at these values.
    """
    shape = tuple(eval_int(e, params) for e in array.shape)
    if any(s < 0 for s in shape):
        raise LaunchError(f"array '{array.name}' would have the negative shape {shape} at "
                          f"{params}")
    return shape


def check_array(name: str, obj: object, array: Array, params: dict[str, int], *,
                written: bool = False) -> ArrayInfo:
    """Check one array argument against the Scop's Array and return its ArrayInfo.

    A written scalar (shape ()) may be given as a 0-d or a one-element 1-d array.

    Raises:
        LaunchError: not an array, wrong dtype, wrong shape, not C-contiguous, or read-only
            while the region writes it; the message names the argument and both values.
    """
    info = describe(obj, name)
    if not same_dtype(info.dtype, array.dtype):
        raise LaunchError(f"argument '{name}' has dtype {info.dtype}, expected {array.dtype} "
                          f"(NumPy {np.dtype(NUMPY_DTYPES[array.dtype]).name})")
    want = expected_shape(array, params)
    if info.shape != want and not (want == () and info.shape == (1,)):
        raise LaunchError(f"argument '{name}' has shape {info.shape}, expected {want} "
                          f"(shape {_shape_text(array)} at {params})")
    if not info.contiguous:
        raise LaunchError(f"argument '{name}' is not C-contiguous (row-major); pass a "
                          "contiguous copy (numpy.ascontiguousarray / .contiguous())")
    if written and not info.writeable:
        raise LaunchError(f"argument '{name}' is read-only but the region writes it")
    return info


def same_dtype(given: str, wanted: str) -> bool:
    """Whether an array of ir dtype `given` holds elements of `wanted` (int8 is char too)."""
    return given == wanted or (given in NUMPY_DTYPES and wanted in NUMPY_DTYPES
                               and NUMPY_DTYPES[given] is NUMPY_DTYPES[wanted])


def _shape_text(array: Array) -> str:
    return "(" + ", ".join(expr_to_c(e) for e in array.shape) + ("," if len(array.shape) == 1
                                                                  else "") + ")"
