"""Division by zero in code generated from Python (issue 40, part 3): a ZeroDivisionError where
Python raises (Python numbers), NumPy's values where an operand is an array element, never a
SIGFPE that kills the process (the jit calls run in a subprocess: a signal fails the test
instead of ending pytest)."""

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import polycuda
from polycuda.runtime import device

ROOT = Path(__file__).resolve().parents[2]

FUNCTIONS = '''
import numpy as np
import polycuda


def elems(A, B, C):
    for i in range(A.shape[0]):
        C[i] = A[i] // B[i] + A[i] % B[i]


def by_param(A, k):
    for i in range(A.shape[0]):
        A[i] = (i + 1) // k


def mod_param(A, k):
    for i in range(A.shape[0]):
        A[i] = A[i] + (i + 3) % k


def true_div(A, k):
    for i in range(A.shape[0]):
        A[i] = i / k


def float_div(A, x):
    for i in range(A.shape[0]):
        A[i] = A[i] + 1.5 / x
'''

CALLS = '''
import sys
target = sys.argv[1]


def run(fn, *args):
    jit = polycuda.jit(fn, target=target) if target != "emulate" else None
    if jit is None:  # the generated CUDA on the CPU, every block and thread
        jit = polycuda.jit(fn)
        prog = jit.program(*args)
        return prog.kernel("emulate")(*jit.entry_arguments(prog, args, {}))
    return jit(*args)


A = np.array([1, 2, 3, 4, 5, -2**63, 7, 8], dtype=np.int64)
B = np.array([1, 0, 2, 0, 3, -1, -3, 2], dtype=np.int64)
C = np.zeros(8, dtype=np.int64)
run(elems, A, B, C)
print("elems", C.tolist())
for fn, arr in ((by_param, np.zeros(8, dtype=np.int64)), (mod_param, np.zeros(8, dtype=np.int64)),
                (true_div, np.zeros(8)), (float_div, np.zeros(8))):
    try:
        run(fn, arr, 0.0 if fn is float_div else 0)
        print(fn.__name__, "no error")
    except ZeroDivisionError as err:
        print(fn.__name__, "ZeroDivisionError:", err)
run(by_param, arr := np.zeros(8, dtype=np.int64), -2)
print("by_param -2", arr.tolist())
'''


def _python_answers() -> list[str]:
    """What the Python functions themselves print on NumPy arrays (the jit's reference)."""
    space: dict = {}
    exec(FUNCTIONS, space)
    A = np.array([1, 2, 3, 4, 5, -2**63, 7, 8], dtype=np.int64)
    B = np.array([1, 0, 2, 0, 3, -1, -3, 2], dtype=np.int64)
    C = np.zeros(8, dtype=np.int64)
    with np.errstate(all="ignore"):  # NumPy warns; the generated code does not
        space["elems"](A, B, C)
    lines = [f"elems {C.tolist()}"]
    for name in ("by_param", "mod_param", "true_div", "float_div"):
        try:
            space[name](np.zeros(8), 0.0 if name == "float_div" else 0)
            lines.append(f"{name} no error")
        except ZeroDivisionError as err:
            lines.append(f"{name} ZeroDivisionError: {err}")
    arr = np.zeros(8, dtype=np.int64)
    space["by_param"](arr, -2)
    return lines + [f"by_param -2 {arr.tolist()}"]


@pytest.mark.parametrize("target", ["c", "openmp", "emulate"])
def test_jit_division_by_zero_answers_as_python(tmp_path, target):
    script = tmp_path / "zero_division.py"
    script.write_text(FUNCTIONS + CALLS)
    run = subprocess.run([sys.executable, str(script), target], capture_output=True, text=True,
                         cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                         timeout=600)
    assert run.returncode == 0, f"returncode {run.returncode} (SIGFPE is -8): {run.stderr}"
    assert run.stdout.splitlines() == _python_answers()
    assert "elems [1, 0, 2, 0, 3, -9223372036854775808, -5, 4]" in run.stdout


def constant_divisors(A, k):
    for i in range(A.shape[0]):
        A[i] = (i + k) // 3 + (i - k) % 4 + A[i] // 2


def divisions(A, B, k):
    for i in range(A.shape[0]):
        A[i] = (i + 1) // k + B[i] % A[i] + i / k


def _source(fn, target: str, *args: object) -> str:
    jit = polycuda.jit(fn)
    return jit.program(*args).generate(target).source


def test_constant_divisors_get_no_guard():
    source = _source(constant_divisors, "c", np.zeros(8, dtype=np.int64), 1)
    assert "pc_div_" not in source and "pc_rem_" not in source
    assert "_divided" not in source  # the entry is not wrapped


def test_c_input_keeps_c_semantics():
    prog = polycuda.compile(textwrap.dedent("""\
        void f(int n, long A[n], long B[n]) {
        #pragma scop
          for (int i = 0; i < n; i++)
            A[i] = A[i] / B[i] + A[i] % B[i];
        #pragma endscop
        }
        """))
    source = prog.generate("c").source
    assert "pc_div_" not in source and "pc_zero_division" not in source


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found: CUDA not compiled")
def test_guarded_cuda_compiles(tmp_path):
    cu = tmp_path / "f.cu"
    cu.write_text(_source(divisions, "cuda", np.ones(8, dtype=np.int64),
                          np.ones(8, dtype=np.int64), 1))
    text = cu.read_text()
    assert "atomicAdd(&pc_zero_divisions_dev[k], 1);" in text
    assert "pc_divisions_dev_divided(" in text and "pc_divisions_divided(" in text
    subprocess.run([device.find_nvcc(), "-c", str(cu), "-o", str(tmp_path / "f.o")],
                   check=True)
