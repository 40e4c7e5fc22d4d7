"""Loading a built library and calling its entry through ctypes, with checked arguments.

`load(lib_path, scop, target)` gives a Kernel; `Kernel(*args, **kwargs)` takes the Scop's
arguments (by position or name), checks them against the Scop and calls `pc_<name>` (or
`pc_<name>_dev` with CuPy/torch GPU arrays, `pc_ref_<name>` for target "reference") following
polycuda.codegen.abi. `time_calls` times repeated calls.
"""

from __future__ import annotations

import ctypes
import math
import numbers
import operator
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from polycuda.analysis import bounds
from polycuda.codegen import abi
from polycuda.codegen.host_driver import MAX_INDEXED_ELEMENTS
from polycuda.errors import LaunchError
from polycuda.ir import dtypes
from polycuda.ir.scop import Arg, Scop
from polycuda.runtime import arrays, device, emulate

HOST_TARGETS = ("c", "openmp", "reference", "emulate")
_SCALAR_CTYPES = {"int": ctypes.c_int, "long": ctypes.c_longlong, "float": ctypes.c_float,
                  "double": ctypes.c_double, "char": ctypes.c_byte, "schar": ctypes.c_byte,
                  "uchar": ctypes.c_ubyte, "short": ctypes.c_short, "ushort": ctypes.c_ushort,
                  "uint": ctypes.c_uint, "ulong": ctypes.c_ulonglong}
_INT_RANGE = {name: (int(np.iinfo(t).min), int(np.iinfo(t).max))
              for name, t in arrays.NUMPY_DTYPES.items() if name in dtypes.INTEGER}
CUDA_ERRORS = {1: "cudaErrorInvalidValue", 2: "cudaErrorMemoryAllocation",
               9: "cudaErrorInvalidConfiguration", 35: "cudaErrorInsufficientDriver",
               100: "cudaErrorNoDevice", 209: "cudaErrorNoKernelImageForDevice",
               222: "cudaErrorUnsupportedPtxVersion", 700: "cudaErrorIllegalAddress",
               720: "cudaErrorCooperativeLaunchTooLarge",
               719: "cudaErrorLaunchFailure"}


def load(lib_path: str | Path, scop: Scop, target: str, *, device_entry: bool = False,
         seed: int | None = None, transformed: Scop | None = None) -> Kernel:
    """The callable entry of a library built by `build.build_shared` for `scop`.

    Args:
        target: the target it was built for ("c", "openmp", "cuda", "reference", "emulate").
        device_entry: target "emulate" only: call `pc_<name>_dev` with host arrays standing in
            for device memory (exercises the device-pointer entry in CI).
        seed: target "emulate" only: seed of the shuffled block/thread orders.
        transformed: the Scop the code was generated from (pipeline.Generated.scop), when
            passes added statements or arrays (expansion, copies): its accesses are checked
            against the shapes too before every call, so that a compiler bug is refused, not
            run past an array's end.

    Raises:
        LaunchError: the library cannot be loaded or lacks the entry symbol.

    Example:
        >>> k = load(build.build_shared(src, "c"), scop, "c")      # doctest: +SKIP
        >>> k(n, A, B)                                               # doctest: +SKIP
    """
    if target not in HOST_TARGETS + ("cuda",):
        raise LaunchError(f"{target=} is not one of {HOST_TARGETS + ('cuda',)}")
    try:
        lib = ctypes.CDLL(str(lib_path))
    except OSError as exc:
        raise LaunchError(f"cannot load {lib_path}: {exc}") from exc
    kernel = Kernel(lib, scop, target, device_entry=device_entry, transformed=transformed)
    if target in ("cuda", "emulate"):  # the auto host fallback's GPU cost per level
        from polycuda.tune import level_cost

        level_cost.install(lib, scop.name, target)
    if seed is not None:
        kernel.set_seed(seed)
    return kernel


class Kernel:
    """One region's entry in a loaded library: call it with the Scop's arguments."""

    def __init__(self, lib: ctypes.CDLL, scop: Scop, target: str, *, device_entry: bool = False,
                 transformed: Scop | None = None):
        self.lib, self.scop, self.target = lib, scop, target
        self.device_entry = device_entry and target == "emulate"
        if target == "reference":
            self._host = _entry(lib, f"pc_ref_{scop.name}", scop)
        elif self.device_entry:
            self._host = _entry(lib, abi.entry_name(scop, "_dev"), scop)
        else:
            self._host = _entry(lib, abi.entry_name(scop), scop)
        self._dev = _entry(lib, abi.entry_name(scop, "_dev"), scop) if target == "cuda" else None
        self._written = set(scop.written_arrays())
        self._bounds: bounds.BoundsChecker | None = None
        self._transformed = transformed if transformed is not None and transformed != scop \
            else None
        self._transformed_bounds: bounds.BoundsChecker | None = None
        self._transformed_ok: set[tuple[tuple[str, int], ...]] = set()  # checked sizes

    def __call__(self, *args: object, **kwargs: object) -> None:
        """Run the entry in place on the arguments.

        Raises:
            LaunchError: a bad argument, or the entry returned nonzero (code in the message).
        """
        self.prepare(*args, **kwargs)()

    def set_seed(self, seed: int) -> None:
        """Target "emulate": restart the shuffled block/thread orders from `seed`."""
        if self.target != "emulate":
            raise LaunchError(f"set_seed applies to target 'emulate', not '{self.target}'")
        emulate.set_seed(self.lib, seed)

    def bind(self, *args: object, **kwargs: object) -> dict[str, object]:
        """The Scop's argument names mapped to the values given by position or by name.

        Raises:
            LaunchError: too many, missing, unknown or doubly given arguments.
        """
        names = [a.name for a in self.scop.args]
        if len(args) > len(names):
            raise LaunchError(f"{self.scop.name}() takes {len(names)} arguments "
                              f"({', '.join(names)}), got {len(args)}")
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise LaunchError(f"{self.scop.name}() has no argument '{key}' "
                                  f"(arguments: {', '.join(names)})")
            if key in values:
                raise LaunchError(f"argument '{key}' of {self.scop.name}() given twice")
            values[key] = value
        missing = [n for n in names if n not in values]
        if missing:
            raise LaunchError(f"{self.scop.name}() is missing argument(s) {', '.join(missing)}")
        return {n: values[n] for n in names}

    def prepare(self, *args: object, **kwargs: object) -> PreparedCall:
        """Check the arguments once; return a no-argument callable that runs the entry.

        Used by `time_calls` so that checks stay out of the timed region.
        """
        values = self.bind(*args, **kwargs)
        params = {a.name: check_param(a, values[a.name]) for a in self.scop.args
                  if a.kind == "param"}
        infos = {a.name: arrays.check_array(a.name, values[a.name], self.scop.array(a.name),
                                            params, written=a.name in self._written)
                 for a in self.scop.args if a.kind == "array"}
        self._check_bounds(params)
        if self.target in ("cuda", "emulate"):
            check_indexable(infos)
        on_device = self._side(infos)
        check_no_overlap(infos, self._written)
        fn = self._dev if on_device else self._host
        cargs = [params[a.name] if a.kind == "param" else
                 infos[a.name].ptr if a.kind == "array" else check_scalar(a, values[a.name])
                 for a in self.scop.args]
        return PreparedCall(self, fn, cargs, infos, on_device)

    def _check_bounds(self, params: dict[str, int]) -> None:
        """Refuse parameter values for which an access leaves its array (or the region's
        assumptions): generated code indexes raw pointers, so it would write past a buffer."""
        if self._bounds is None:
            self._bounds = bounds.BoundsChecker(self.scop)
        self._bounds.check(params)
        key = tuple(sorted(params.items()))
        if self._transformed is None or key in self._transformed_ok:
            return  # (isl work once per sizes, as BoundsChecker.check: calls repeat them)
        if self._transformed_bounds is None:
            self._transformed_bounds = bounds.BoundsChecker(self._transformed)
        bad = self._transformed_bounds.violations(params)
        if bad:  # the user's accesses are in bounds (checked above): the passes' are not
            raise LaunchError(f"internal error, nothing was run: the generated code of "
                              f"{self.scop.name} would access outside an array: "
                              f"{bad[0].describe(params)} (please report it)")
        self._transformed_ok.add(key)

    def _side(self, infos: dict[str, arrays.ArrayInfo]) -> bool:
        """True when the entry gets device pointers (target cuda with GPU arrays)."""
        on_device = {name for name, info in infos.items() if info.device}
        if not on_device:
            return False
        if self.target != "cuda":
            name = min(on_device)
            raise LaunchError(f"target '{self.target}' runs on the host but argument '{name}' "
                              "is a GPU array; pass NumPy arrays (or use target 'cuda')")
        if len(on_device) != len(infos):
            host = sorted(set(infos) - on_device)
            raise LaunchError(f"arguments {', '.join(sorted(on_device))} are GPU arrays but "
                              f"{', '.join(host)} are host arrays; pass all arrays on one side")
        return True



def check_indexable(infos: dict[str, arrays.ArrayInfo]) -> None:
    """Refuse an array of more elements than the CUDA kernels' 32-bit indices reach
    (host_driver.MAX_INDEXED_ELEMENTS; the generated entries refuse it too).

    Raises:
        LaunchError: naming the array, its shape and the limit.
    """
    for name, info in infos.items():
        count = math.prod(info.shape)
        if count > MAX_INDEXED_ELEMENTS:
            raise LaunchError(f"array '{name}' of shape {info.shape} has {count} elements, more "
                              f"than the {MAX_INDEXED_ELEMENTS} that the CUDA kernels' 32-bit "
                              "indices reach; nothing was run")


@dataclass(frozen=True)
class PreparedCall:
    """One checked call of an entry: `call()` runs it again on the same arguments.

    uses_device: the entry gets device pointers (CuPy/torch GPU arrays, target cuda).
    arrays: the ArrayInfo of each array argument (it keeps the arrays alive).
    """

    kernel: Kernel
    fn: Any
    cargs: list[Any]
    arrays: dict[str, arrays.ArrayInfo]
    uses_device: bool

    def __call__(self) -> None:
        """Run the entry.

        Raises:
            ZeroDivisionError: the region divided Python numbers by 0 (as Python would).
            LaunchError: it returned nonzero (or left an emulated CUDA error): code and message.
        """
        if self.kernel.target != "emulate":
            rc = self.fn(*self.cargs)
            if rc in abi.ZERO_DIVISION_MESSAGES:  # codegen/zero_division.py
                raise ZeroDivisionError(abi.ZERO_DIVISION_MESSAGES[rc])
            if rc != 0:
                raise LaunchError(f"{self.fn.__name__} ({self.kernel.target}) returned "
                                  f"{_error_name(rc, self.kernel.scop)}")
            return
        self._run_emulated()

    def _run_emulated(self) -> None:
        lib = self.kernel.lib
        emulate.reset_error(lib)
        registered = self.arrays.values() if self.kernel.device_entry else ()
        for info in registered:  # host arrays stand in for device memory
            lib.pc_emu_register_device(ctypes.c_void_p(info.ptr), ctypes.c_ulonglong(info.nbytes))
        try:
            rc = self.fn(*self.cargs)
        finally:
            for info in registered:
                lib.pc_emu_unregister_device(ctypes.c_void_p(info.ptr))
        code, message = emulate.take_error(lib)
        if rc in abi.ZERO_DIVISION_MESSAGES and not code:
            raise ZeroDivisionError(abi.ZERO_DIVISION_MESSAGES[rc])
        if rc or code:
            raise LaunchError(f"{self.fn.__name__} (emulated) failed with "
                              f"{_error_name(rc or code, self.kernel.scop)}"
                              + (f": {message}" if message else ""))


def _entry(lib: ctypes.CDLL, symbol: str, scop: Scop) -> Any:
    try:
        fn = getattr(lib, symbol)
    except AttributeError:
        raise LaunchError(f"{lib._name} has no entry '{symbol}' (see polycuda.codegen.abi)"
                          ) from None
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_longlong if a.kind == "param" else
                   ctypes.c_void_p if a.kind == "array" else _SCALAR_CTYPES[a.dtype]
                   for a in scop.args]
    return fn


def check_param(arg: Arg, value: object) -> int:
    """An integer parameter's value (Python or NumPy integer; bool and float are refused).

    Raises:
        LaunchError: not an integer, or out of the range of long long.
    """
    return _integer(arg, value, "long")


def check_scalar(arg: Arg, value: object) -> int | float:
    """A scalar argument's value, checked against its dtype.

    Raises:
        LaunchError: not a number (an integer for int/long scalars), or out of range.
    """
    if arg.dtype in _INT_RANGE:
        return _integer(arg, value, arg.dtype)
    if isinstance(value, (bool, np.bool_)) or not _is_real(value):
        raise LaunchError(f"{arg.kind} '{arg.name}' ({arg.dtype}) must be a real number, "
                          f"got {type(value).__name__} {value!r}")
    return float(value)  # type: ignore[arg-type]


def _is_real(value: object) -> bool:
    # NumPy registers its integer and floating scalars as numbers.Real.
    return isinstance(value, numbers.Real)


def _integer(arg: Arg, value: object, dtype: str) -> int:
    if isinstance(value, (bool, np.bool_)):
        raise LaunchError(f"{arg.kind} '{arg.name}' must be an integer, got bool {value!r}")
    try:
        number = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise LaunchError(f"{arg.kind} '{arg.name}' must be an integer, got "
                          f"{type(value).__name__} {value!r}") from None
    low, high = _INT_RANGE[dtype]
    if not low <= number <= high:
        raise LaunchError(f"{arg.kind} '{arg.name}' = {number} is out of the range of "
                          f"{abi.C_TYPES[dtype]}")
    return number


def check_no_overlap(infos: dict[str, arrays.ArrayInfo], written: set[str]) -> None:
    """Refuse a written array that shares memory with another argument.

    Generated code declares arrays `__restrict__` and reads/writes them in a new order, so
    aliased arguments would give wrong results silently.

    Raises:
        LaunchError: naming the two arguments.
    """
    spans = sorted((info.ptr, info.ptr + info.nbytes, name) for name, info in infos.items()
                   if info.nbytes > 0)
    # every later span that starts inside this one, not only the next: a large array read
    # may hold a small one read and, past it, one written
    for k, (_, a1, a) in enumerate(spans):
        for b0, _, b in spans[k + 1:]:
            if b0 >= a1:
                break
            if a in written or b in written:
                raise LaunchError(f"arguments '{a}' and '{b}' share memory, and the region "
                                  f"writes {a if a in written else b}; pass distinct arrays")


def _error_name(code: int, scop: Scop | None = None) -> str:
    arrays = scop.arrays if scop is not None else ()
    if 0 <= code - abi.INDEX_ERROR_BASE < len(arrays):  # codegen/inspector_cuda.py, csr.py
        name = arrays[code - abi.INDEX_ERROR_BASE].name
        return (f"error {code} (index out of bounds: a subscript of '{name}' read from an "
                "index array is outside its extent; checked before any write)")
    if len(arrays) <= code - abi.INDEX_ERROR_BASE < 2 * len(arrays):  # codegen/csr.py
        name = arrays[code - abi.INDEX_ERROR_BASE - len(arrays)].name
        return (f"error {code} (bad loop bounds read from '{name}': a range decreases (row "
                "pointers must not decrease) or takes the loop's iterator outside the extent "
                "of an array it subscripts (row pointers must lie within [0, nnz]); checked "
                "before any write)")
    name = CUDA_ERRORS.get(code)
    return f"error {code} ({name})" if name else f"error {code}"


def time_calls(kernel: Kernel, args: Sequence[object], repeats: int = 10,
               warmup: int = 2) -> list[float]:
    """Seconds taken by each of `repeats` calls of `kernel(*args)`, after `warmup` calls.

    Host arrays: time.perf_counter around each call. GPU arrays: CUDA events around each
    call (CuPy's, else torch's), which exclude Python overhead before the launch.
    """
    run = kernel.prepare(*args)
    for _ in range(warmup):
        run()
    if run.uses_device:
        return _time_events(run, repeats)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return times


def _time_events(run: Callable[[], None], repeats: int) -> list[float]:
    try:
        cuda = device.require_cupy().cuda
        make, elapsed_ms = cuda.Event, cuda.get_elapsed_time
    except Exception:  # noqa: BLE001 (no CuPy: torch arrays bring torch's events)
        import torch  # type: ignore[import-not-found, unused-ignore]  # GPU tensors were given

        def make() -> Any:
            return torch.cuda.Event(enable_timing=True)

        def elapsed_ms(a: Any, b: Any) -> float:
            return a.elapsed_time(b)
    times = []
    for _ in range(repeats):
        start, stop = make(), make()
        start.record()
        run()
        stop.record()
        stop.synchronize()
        times.append(elapsed_ms(start, stop) / 1e3)
    return times
