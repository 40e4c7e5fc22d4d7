"""Arrays too large for the CUDA kernels' 32-bit indices (int iterators, element numbers in
int): refused before anything runs, by the Python launcher and by the generated entries
themselves (a C caller of the drop-in file), with the array named; nothing is written."""

import ctypes

import numpy as np
import pytest

import polycuda
from polycuda.codegen.host_driver import MAX_INDEXED_ELEMENTS
from polycuda.errors import LaunchError
from polycuda.options import Options
from polycuda.runtime import arrays, emulate
from polycuda.runtime.launch import check_indexable


def _info(shape):
    return arrays.ArrayInfo("numpy", 0, "double", shape, True, False)


def test_the_launcher_names_the_array_over_the_limit():
    check_indexable({"A": _info((46340, 46340)), "x": _info((MAX_INDEXED_ELEMENTS,))})
    with pytest.raises(LaunchError, match=r"array 'A' of shape \(50000, 50000\) has 2500000000 "
                                          r"elements, more than the 2147483647"):
        check_indexable({"x": _info((10,)), "A": _info((50000, 50000))})


@pytest.mark.parametrize("name,sizes,refused", [
    ("bicg", (50000, 50000), "A"), ("bicg", (3, 2**31), "A"), ("bicg", (1, 2**31), "A"),
    ("heat_3d", (2, 1300), "A")])
def test_the_generated_entries_refuse_before_running(tmp_path, capfd, name, sizes, refused):
    """Both entries (device pointers and host pointers) of the emulated build, called from C
    with extents whose product overflows int: error 1 (cudaErrorInvalidValue), the array named
    on stderr, the buffers untouched (small stand-ins: nothing may be read or written)."""
    prog = polycuda.compile(f"kernels/c/{name}.c", options=Options(target="cuda"))
    lib = ctypes.CDLL(str(emulate.build_emulated(prog.generate("cuda").source, cache=tmp_path)))
    arrays_ = [a for a in prog.scop.args if a.kind == "array"]
    params = [a for a in prog.scop.args if a.kind == "param"]
    assert len(params) == len(sizes)
    buffers = [np.full(4, 7.0) for _ in arrays_]
    args = [ctypes.c_longlong(v) for v in sizes] + [b.ctypes.data_as(ctypes.c_void_p)
                                                   for b in buffers]
    for entry in (f"pc_{name}_dev", f"pc_{name}"):
        assert getattr(lib, entry)(*args) == 1, entry
        assert f"array {refused} has more than 2147483647 elements" in capfd.readouterr().err
        assert all((b == 7.0).all() for b in buffers)
    source = prog.generate("cuda").source
    assert source.count("32-bit indices reach") == 2 * len([a for a in arrays_
                                                              if prog.scop.array(a.name).shape])
