"""A corpus of malformed inputs: C regions, Python functions and command lines that polycuda
must refuse with a located error naming the construct (exit code 1, or 2 for a bad command
line), never a traceback and never an exit code of 0.

Each C case is a region body in one function (or a whole file), each Python case a function
body (or a whole file); NEEDLES name the construct each message must mention.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from polycuda.cli import main

SIG = "void f(int n, int m, double A[n][n], double B[n], int idx[n], double s)"
LOOP = "  for (int i = 0; i < n; i++)\n"
C_BODIES = {
    "while": "  int i = 0;\n  while (i < n) { B[i] = 1.0; i++; }",
    "do_while": "  int i = 0;\n  do { B[i] = 1.0; i++; } while (i < n);",
    "goto": LOOP + "  { if (i > 2) goto out; B[i] = 1.0; }\n  out: ;",
    "break": LOOP + "  { if (i > 2) break; B[i] = 1.0; }",
    "continue": LOOP + "  { if (i > 2) continue; B[i] = 1.0; }",
    "return": LOOP + "  { B[i] = 1.0; return; }",
    "switch": LOOP + "  switch (i) { case 0: B[i] = 1.0; }",
    "label": LOOP + "  { here: B[i] = 1.0; }",
    "call": LOOP + "    B[i] = foo(B[i]);",
    "call_stmt": LOOP + "    foo(B[i]);",
    "printf": LOOP + "    printf(\"%f\", B[i]);",
    "asm": LOOP + "  { __asm__ volatile(\"nop\"); B[i] = 1.0; }",
    "asm_plain": LOOP + "  { asm(\"nop\"); B[i] = 1.0; }",
    "attribute": LOOP + "  { double t __attribute__((aligned(8))) = B[i]; B[i] = t; }",
    "pragma_omp": "#pragma omp parallel for\n" + LOOP + "    B[i] = 1.0;",
    "pragma_unroll": LOOP + "  {\n#pragma GCC unroll 4\n    B[i] = 1.0;\n  }",
    "nested_scop": "#pragma scop\n" + LOOP + "    B[i] = 1.0;",
    "pointer_deref": LOOP + "    *B = 1.0;",
    "address_of": LOOP + "    B[i] = *(&B[i]);",
    "pointer_decl": LOOP + "  { double *p = B; p[i] = 1.0; }",
    "struct_decl": LOOP + "  { struct { int x; } q; q.x = i; }",
    "string": LOOP + "    B[i] = \"x\"[0];",
    "comma_expr": LOOP + "    B[i] = 1.0, B[i] = 2.0;",
    "post_incr_in_expr": LOOP + "    B[i] = B[i]++;",
    "indirect_subscript": LOOP + "    B[idx[i] * idx[i]] = 1.0;",
    "index_array_written": LOOP + "  { idx[i] = i; B[idx[i]] = 1.0; }",
    "float_index_array": LOOP + "    B[(int)B[i]] = 1.0;",
    "data_dep_bound": LOOP + "    for (int j = 0; j < idx[i] * idx[i]; j++) B[j] = 1.0;",
    "nonaffine_subscript": LOOP + "    B[i * i] = 1.0;",
    "nonaffine_bound": LOOP + "    for (int j = 0; j < i * i; j++) B[j] = 1.0;",
    "param_product_subscript": LOOP + "    A[i][n * m] = 1.0;",
    "float_iterator": "  for (double x = 0; x < n; x++)\n    B[0] = x;",
    "step_2": "  for (int i = 0; i < n; i += 2)\n    B[i] = 1.0;",
    "step_var": "  for (int i = 0; i < n; i += m)\n    B[i] = 1.0;",
    "no_cond": "  for (int i = 0; ; i++)\n    B[i] = 1.0;",
    "no_init": "  int i;\n  for (; i < n; i++)\n    B[i] = 1.0;",
    "no_incr": "  for (int i = 0; i < n;)\n    B[i] = 1.0;",
    "cond_not_iter": "  for (int i = 0; m < n; i++)\n    B[i] = 1.0;",
    "wrong_direction": "  for (int i = 0; i > n; i++)\n    B[i] = 1.0;",
    "iter_assigned": LOOP + "  { i = 3; B[i] = 1.0; }",
    "param_assigned": LOOP + "  { n = 3; B[i] = 1.0; }",
    "scalar_param_assigned": LOOP + "  { s = 3.0; B[i] = 1.0; }",
    "too_many_subscripts": LOOP + "    B[i][0] = 1.0;",
    "too_few_subscripts": LOOP + "    A[i] = 1.0;",
    "undeclared": LOOP + "    B[i] = Z[i];",
    "static_local": LOOP + "  { static double t; t = B[i]; B[i] = t; }",
    "array_init": LOOP + "  { double t[2] = {1.0, 2.0}; B[i] = t[0]; }",
    "mod_assign": LOOP + "    idx[i] %= 3;",
    "shift_assign": LOOP + "    idx[i] <<= 1;",
    "cast_pointer": LOOP + "    B[i] = (double)(long)&B[i];",
    "sizeof_expr": LOOP + "    B[i] = sizeof(B);",
    "syntax_error": LOOP + "    B[i] = ;",
    "unterminated": LOOP + "    B[i] = 1.0;\n#pragma endscop\n#pragma scop",
    "empty_region": "",
    "typedef_in_region": "  typedef int T;\n" + LOOP + "    B[i] = 1.0;",
    "division_by_variable": LOOP + "    B[(i - 5) / m] = 1.0;",
    "min_in_lower_bound": LOOP + "    for (int j = min(i, m); j < n; j++) B[j] = 1.0;",
    "max_in_upper_bound": LOOP + "    for (int j = 0; j < max(i, m); j++) B[j] = 1.0;",
    # an affine condition makes a piecewise access (test_subscript_forms); this one is not
    "ternary_subscript": LOOP + "    B[i * i > 2 ? i : 0] = 1.0;",
}
REGION = "\n{\n#pragma scop\n" + LOOP + "    B[i] = 1.0;\n#pragma endscop\n}\n"
C_FILES = {
    "kr_definition": "void f(n, B)\nint n; double B[10];" + REGION,
    "pointer_param": "void f(int n, double *B)" + REGION,
    "variadic": "void f(int n, double B[n], ...)" + REGION,
    "scop_outside_function": "#pragma scop\nint x;\n#pragma endscop\nvoid f(void) {}\n",
    "endscop_alone": "void f(int n, double B[n])\n{\n" + LOOP
                     + "    B[i] = 1.0;\n#pragma endscop\n}\n",
    "isl_keyword_param": "void f(int floor, double B[floor])\n{\n#pragma scop\n"
                         "  for (int i = 0; i < floor; i++)\n    B[i] = 1.0;\n#pragma endscop\n}\n",
    "missing_include": '#include "nonexistent_header.h"\nvoid f(int n, double B[n])' + REGION,
    "struct_param": "struct S { int x; };\nvoid f(int n, struct S B[n])\n{\n#pragma scop\n"
                    + LOOP + "    B[i].x = 1;\n#pragma endscop\n}\n",
    "unsized_array_param": "void f(int n, double B[])" + REGION,
    "no_region": "void f(int n, double B[n])\n{\n" + LOOP + "    B[i] = 1.0;\n}\n",
    "global_scalar": "double g;\nvoid f(int n, double B[n])\n{\n#pragma scop\n" + LOOP
                     + "    B[i] = g;\n#pragma endscop\n}\n",
    "long_double_array": "void f(int n, long double B[n])\n{\n#pragma scop\n" + LOOP
                  + "    B[i] = 1;\n#pragma endscop\n}\n",
}
MINMAX = ("#define min(a, b) ((a) < (b) ? (a) : (b))\n"
          "#define max(a, b) ((a) > (b) ? (a) : (b))\n")


def c_texts():
    out = {}
    for name, body in C_BODIES.items():
        out[name] = (MINMAX + "double foo(double);\n#include <stdio.h>\n"
                     f"{SIG}\n{{\n#pragma scop\n{body}\n#pragma endscop\n}}\n")
    out.update(C_FILES)
    return out


PY_BODIES = {
    "while": "    i = 0\n    while i < n:\n        B[i] = 1.0\n        i += 1",
    "for_else": "    for i in range(n):\n        B[i] = 1.0\n    else:\n        B[0] = 2.0",
    "break": "    for i in range(n):\n        if i > 2:\n            break\n        B[i] = 1.0",
    "continue": ("    for i in range(n):\n        if i > 2:\n            continue\n"
                 "        B[i] = 1.0"),
    "return_value": "    for i in range(n):\n        B[i] = 1.0\n    return B",
    "early_return": "    for i in range(n):\n        B[i] = 1.0\n        return",
    "try": "    try:\n        B[0] = 1.0\n    except Exception:\n        pass",
    "with": "    with open('x') as f:\n        B[0] = 1.0",
    "print": "    for i in range(n):\n        print(B[i])",
    "call": "    for i in range(n):\n        B[i] = helper(B[i])",
    "iterate_list": "    for i in [1, 2, 3]:\n        B[i] = 1.0",
    "iterate_array": "    for x in B:\n        B[0] = x",
    "range_step_2": "    for i in range(0, n, 2):\n        B[i] = 1.0",
    "range_kw": "    for i in range(n, step=1):\n        B[i] = 1.0",
    "tuple_target": "    for i, j in zip(range(n), range(n)):\n        B[i] = 1.0",
    "indirect": "    for i in range(n):\n        B[idx[i] * idx[i]] = 1.0",
    "index_array_written": "    for i in range(n):\n        idx[i] = i\n        B[idx[i]] = 1.0",
    "data_dep_bound": ("    for i in range(n):\n        for j in range(idx[i]):\n"
                       "            B[j] = 1.0"),
    "nonaffine": "    for i in range(n):\n        B[i * i] = 1.0",
    "float_bound": "    for i in range(s):\n        B[i] = 1.0",
    "float_subscript": "    for i in range(n):\n        B[s] = 1.0",
    "lambda": "    f = lambda x: x\n    B[0] = 1.0",
    "nested_def": "    def g():\n        pass\n    B[0] = 1.0",
    "list_comp": "    B[0] = sum([x for x in range(3)])",
    "global": "    global G\n    B[0] = 1.0",
    "import": "    import math\n    B[0] = 1.0",
    "assert": "    assert n > 0\n    B[0] = 1.0",
    "delete": "    del B\n",
    "slice": "    for i in range(n):\n        B[1:3] = 1.0",
    "attribute_store": "    B.x = 1.0",
    "chained_compare_store": "    a = b = 1.0\n    B[0] = a",
    "tuple_assign": "    a, b = 1.0, 2.0\n    B[0] = a",
    "matmul": "    for i in range(n):\n        B[i] = B[i] @ B[i]",
    "string": "    for i in range(n):\n        B[i] = 'x'",
    "array_no_subscript": "    for i in range(n):\n        B[i] = B",
    "param_assigned": "    n = 3\n    for i in range(n):\n        B[i] = 1.0",
    "loopvar_reuses_arg": "    for n in range(3):\n        B[n] = 1.0",
    "loopvar_after_loop": "    for i in range(n):\n        B[i] = 1.0\n    B[0] = i",
    "yield": "    for i in range(n):\n        yield i",
    "no_statement": "    pass",
    "walrus": "    for i in range(n):\n        B[(j := i)] = 1.0",
}


def py_texts():
    out = {}
    for name, body in PY_BODIES.items():
        out[name] = ("import numpy as np\n\n\ndef helper(x):\n    return x\n\n\n"
                     "def f(B: np.ndarray, idx: np.ndarray, n: int, s: float):\n" + body + "\n")
    out["non_ascii_param"] = "def f(B, \u00f1):\n    for i in range(\u00f1):\n        B[i] = 1.0\n"
    out["isl_keyword_param"] = "def f(B, mod):\n    for i in range(mod):\n        B[i] = 1.0\n"
    out["varargs"] = "def f(B, *rest):\n    B[0] = 1.0\n"
    out["syntax"] = "def f(B, n):\n    for i in range(n)\n        B[i] = 1.0\n"
    out["module_raises"] = "raise RuntimeError('boom')\n"
    out["no_function"] = "x = 1\n"
    return out


C_NEEDLES = {
    'while': "'while' loop",
    'do_while': "'do-while' loop",
    'goto': "'goto'",
    'break': "'break'",
    'continue': "'continue'",
    'return': "'return'",
    'switch': "'switch'",
    'label': 'label',
    'call': "call to 'foo'",
    'call_stmt': "call to 'foo'",
    'printf': "call to 'printf'",
    'asm': "'__asm__' (inline assembly)",
    'asm_plain': "call to 'asm'",
    'attribute': "'__attribute__'",
    'pragma_omp': "'#pragma omp parallel for'",
    'pragma_unroll': "'#pragma GCC unroll 4'",
    'nested_scop': 'regions do not nest',
    'pointer_deref': 'pointer dereference',
    'address_of': 'pointer dereference',
    'pointer_decl': "'double *'",
    'struct_decl': "'struct'",
    'string': 'string literal',
    'comma_expr': 'ExprList',
    'post_incr_in_expr': 'increment/decrement inside an expression',
    'indirect_subscript': 'indirect subscript multiplies two non-constant terms',
    'index_array_written': "uses 'idx' as an index array",
    'float_index_array': "'B', an array of double",
    'data_dep_bound': 'loop bound read from arrays',
    'nonaffine_subscript': 'not affine',
    'nonaffine_bound': 'loop bound multiplies',
    'param_product_subscript': 'not affine',
    'float_iterator': "loop iterator 'x' of type 'double'",
    'step_2': 'loop step 2',
    'step_var': "loop increment of 'i'",
    'no_cond': 'without a condition',
    'no_init': 'without an initialization',
    'no_incr': 'without an increment',
    'cond_not_iter': 'must compare the iterator',
    'wrong_direction': 'counts up',
    'iter_assigned': "assignment to loop iterator 'i'",
    'param_assigned': "parameter 'n'",
    'scalar_param_assigned': "parameter 's'",
    'too_many_subscripts': 'subscripted with 2',
    'too_few_subscripts': 'subscripted with 1',
    'undeclared': "'Z' is not declared",
    'static_local': "'static' declaration",
    'array_init': "initializer of array 't'",
    'mod_assign': "'%='",
    'shift_assign': "'<<='",
    'cast_pointer': 'address-of',
    'sizeof_expr': "'sizeof'",
    'syntax_error': 'C syntax error',
    'unterminated': 'contains no statement',
    'empty_region': 'contains no statement',
    'typedef_in_region': 'Typedef',
    'division_by_variable': "divides by a non-constant with C '/'",
    'min_in_lower_bound': "lower bound of loop 'j' takes a min",
    'max_in_upper_bound': "upper bound of loop 'j' takes a max",
    'ternary_subscript': "conditional '?:' whose condition is not affine",
    'kr_definition': 'K&R',
    'pointer_param': "pointer parameter 'B'",
    'variadic': 'variadic',
    'scop_outside_function': 'outside a function',
    'endscop_alone': "without a '#pragma scop'",
    'isl_keyword_param': "'floor' is a keyword",
    'missing_include': 'nonexistent_header.h',
    'struct_param': "'struct S'",
    'unsized_array_param': 'has no size',
    'no_region': 'no loop region',
    'global_scalar': "global variable 'g'",
    'long_double_array': "type 'long double'",
}
PY_NEEDLES = {
    'while': "'while' loop",
    'for_else': "'for ... else'",
    'break': "'break'",
    'continue': "'continue'",
    'return_value': "'return' with a value",
    'early_return': "'return' before the end",
    'try': "'try'",
    'with': "'with'",
    'print': "call of 'print'",
    'call': "call of 'helper'",
    'iterate_list': "iteration over '[1, 2, 3]'",
    'iterate_array': "iteration over 'B'",
    'range_step_2': "loop step '2'",
    'range_kw': 'this form of range()',
    'tuple_target': 'loop target',
    'indirect': "indirect subscript multiplies two non-constant terms",
    'index_array_written': "uses 'idx' as an index array",
    'data_dep_bound': "range() bound 'idx[i]' is a double",  # integer arrays: CSR loops
    'nonaffine': 'not affine',
    'float_bound': "range() bound 's' is a double",
    'float_subscript': "subscript 's' is a double",
    'lambda': 'lambda',
    'nested_def': 'nested function',
    'list_comp': "call of 'sum'",
    'global': "'global'",
    'import': "'import'",
    'assert': "'assert'",
    'delete': "'del'",
    'slice': "slice 'B[1:3]'",
    'attribute_store': 'attribute write',
    'chained_compare_store': 'chained assignment',
    'tuple_assign': 'tuple assignment',
    'matmul': "operator '@'",
    'string': "constant 'x'",
    'array_no_subscript': 'without a subscript',
    'param_assigned': "assignment to argument 'n'",
    'loopvar_reuses_arg': "loop variable 'n'",
    'loopvar_after_loop': 'used after its loop',
    'yield': 'expression statement',
    'no_statement': 'assigns no array element',
    'walrus': "':='",
    'non_ascii_param': 'not an ASCII identifier',
    'isl_keyword_param': "'mod' is a keyword",
    'varargs': "variadic argument 'rest'",
    'syntax': 'that parses',
    'module_raises': 'RuntimeError: boom',
    'no_function': "no region or function named 'f'",
}
LOCATED = re.compile(r"^\S+:\d+:\d+: error: ", re.MULTILINE)
# messages without a source location: the file as a whole is wrong
C_UNLOCATED = {"no_region"}
PY_UNLOCATED = {"no_function"}


def _run(capsys, argv: list[str]) -> tuple[int, str]:
    try:
        rc = main(argv)
    except SystemExit as stop:  # argparse's usage errors
        rc = int(stop.code or 0)
    return rc, capsys.readouterr().err


def _check(rc: int, err: str, needle: str, located: bool) -> None:
    assert rc != 0, err
    assert "Traceback" not in err, err
    assert needle in err, err
    if located:
        assert LOCATED.search(err), err


@pytest.mark.parametrize("name", sorted(c_texts()))
def test_malformed_c(capsys, tmp_path, name):
    path = tmp_path / f"{name}.c"
    path.write_text(c_texts()[name])
    rc, err = _run(capsys, ["compile", str(path), "--target", "c"])
    _check(rc, err, C_NEEDLES[name], name not in C_UNLOCATED)
    assert rc == 1


@pytest.mark.parametrize("name", sorted(py_texts()))
def test_malformed_python(capsys, tmp_path, name):
    path = tmp_path / f"{name}.py"
    path.write_text(py_texts()[name], encoding="utf-8")
    rc, err = _run(capsys, ["compile", str(path), "--target", "c", "--function", "f"])
    _check(rc, err, PY_NEEDLES[name], name not in PY_UNLOCATED)
    assert rc == 1


def test_every_case_has_a_needle():
    assert set(C_NEEDLES) == set(c_texts()) and set(PY_NEEDLES) == set(py_texts())
    assert len(C_NEEDLES) >= 60 and len(PY_NEEDLES) >= 40


# -- command lines: (argv, needle, exit code) ------------------------------------------------------
OK_C = """void f(int n, double A[n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = A[i] + 1.0;
#pragma endscop
}
"""
CLI_CASES = {
    "tile_negative": (["compile", "{c}", "--tile-sizes", "-4,8"], "sizes must be >= 1", 2),
    "tile_zero": (["compile", "{c}", "--tile-sizes=0"], "sizes must be >= 1", 2),
    "tile_text": (["compile", "{c}", "--tile-sizes", "a,b"], "comma-separated integers", 2),
    "block_too_many_threads": (["compile", "{c}", "--block-sizes", "64,32"], "2048 threads", 1),
    "block_x_limit": (["compile", "{c}", "--block-sizes", "4096,4096"], "along x", 1),
    "block_z_limit": (["compile", "{c}", "--block-sizes", "65,1,1"], "along z", 1),
    "block_4d": (["compile", "{c}", "--block-sizes", "1,1,1,1"], "at most 3 dimensions", 1),
    "block_over_tile": (["compile", "{c}", "--block-sizes", "512"], "exceeds tile size 256", 1),
    "unknown_target": (["compile", "{c}", "--target", "gpu"], "invalid choice", 2),
    "verify_targets": (["verify", "{c}", "--targets", "bogus"], "emulate", 2),
    "verify_targets_empty": (["verify", "{c}", "--targets", "c,"], "unknown target", 2),
    "scheduler": (["compile", "{c}", "--scheduler", "ppcg"], "invalid choice", 2),
    "balanced_isl": (["compile", "{c}", "--balanced-wavefront"], "scheduler='pluto'", 1),
    "shared_memory": (["compile", "{c}", "--shared-memory", "0"], "shared_memory_kib", 1),
    "repeat_zero": (["run", "{c}", "--repeat", "0"], "must be >= 1", 2),
    "size_form": (["verify", "{c}", "--size", "n"], "expected NAME=INT", 2),
    "size_unknown": (["verify", "{c}", "--size", "q=3"], "not integer parameters", 1),
    "size_negative": (["verify", "{c}", "--size", "n=-3", "--targets", "c"], "must be", 1),
    "size_huge": (["verify", "{c}", "--size", "n=4000000000000", "--targets", "c"], "--size n=", 1),
    "function_missing": (["compile", "{c}", "--function", "g"], "no region or function named", 1),
    "missing_file": (["compile", "{d}/nothing.c"], "no such file", 1),
    "directory": (["compile", "{d}"], "is a directory", 1),
    "output_dir_missing": (["compile", "{c}", "-o", "{d}/no/out.cu"], "does not exist", 1),
    "output_is_directory": (["compile", "{c}", "-o", "{d}"], "is a directory", 1),
    "options_missing": (["compile", "{c}", "--options", "{d}/none.json"], "cannot read", 1),
    "options_garbage": (["compile", "{c}", "--options", "{d}/garbage.json"], "not JSON", 1),
    "options_unknown": (["compile", "{c}", "--options", "{d}/unknown.json"], "unknown option", 1),
    "options_type": (["compile", "{c}", "--options", "{d}/typed.json"], "must be a list", 1),
    "binary_c": (["compile", "{d}/binary.c"], "not a C source text file", 1),
    "binary_py": (["compile", "{d}/binary.py"], "that parses", 1),
    "missing_include_dir": (["compile", "{d}/inc.c", "-I", "{d}/none"], "No such file", 1),
}


@pytest.fixture
def cli_dir(tmp_path: Path) -> Path:
    (tmp_path / "ok.c").write_text(OK_C)
    (tmp_path / "garbage.json").write_text("{garbage")
    (tmp_path / "unknown.json").write_text('{"colour": "blue"}')
    (tmp_path / "typed.json").write_text('{"block_sizes": 32}')
    (tmp_path / "binary.c").write_bytes(b"\x7fELF\x02\x01\x00\xd0\xff\n")
    (tmp_path / "binary.py").write_bytes(b"\x7fELF\x02\x01\x00\xd0\xff\n")
    (tmp_path / "inc.c").write_text('#include "absent.h"\n' + OK_C)
    return tmp_path


@pytest.mark.parametrize("name", sorted(CLI_CASES))
def test_malformed_command_line(capsys, cli_dir, name):
    argv, needle, code = CLI_CASES[name]
    argv = [a.format(c=cli_dir / "ok.c", d=cli_dir) for a in argv]
    rc, err = _run(capsys, argv)
    assert rc == code, err
    assert "Traceback" not in err and needle in err, err
