"""The optional `main` of a generated .cu: a self-contained test program.

Compiled with -DPOLYCUDA_MAIN, it takes the integer parameters as NAME=VALUE arguments,
fills every array with pseudo-random values in [0.5, 1.5), runs the region through the
host-pointer entry, and prints the elapsed time and a checksum of every written array.
"""

from __future__ import annotations

from polycuda.codegen import abi
from polycuda.codegen.c_target import array_elements
from polycuda.ir.scop import Scop

DEFAULT_PARAM = 64


def main_source(scop: Scop) -> str:
    """C++ text of `main`, guarded by `#ifdef POLYCUDA_MAIN`."""
    lines = ["#ifdef POLYCUDA_MAIN", "#include <string.h>", "#include <time.h>", "",
             "int main(int argc, char **argv) {"]
    for arg in scop.args:
        if arg.kind == "param":
            lines.append(f"  long long {arg.name} = {DEFAULT_PARAM};")
        elif arg.kind == "scalar":
            lines.append(f"  {abi.C_TYPES[arg.dtype]} {arg.name} = 1.5;")
    lines.append("  for (int a = 1; a < argc; a++) {")
    for arg in scop.args:
        if arg.kind == "param":
            n = len(arg.name) + 1
            lines.append(f'    if (strncmp(argv[a], "{arg.name}=", {n}) == 0) '
                         f"{arg.name} = atoll(argv[a] + {n});")
    lines.append("  }")
    lines.append("  unsigned long long seed = 88172645463325252ULL;")
    arrays = [a for a in scop.args if a.kind == "array"]
    for arg in arrays:
        ctype, size = abi.C_TYPES[arg.dtype], array_elements(scop.array(arg.name))
        lines.append(f"  size_t n_{arg.name} = {size};")
        lines.append(f"  {ctype} *{arg.name} = ({ctype} *)malloc(n_{arg.name} * sizeof({ctype}));")
        lines.append(f"  for (size_t k = 0; k < n_{arg.name}; k++) {{ seed ^= seed << 13; "
                     "seed ^= seed >> 7; seed ^= seed << 17; "
                     f"{arg.name}[k] = ({ctype})(0.5 + (seed >> 11) * (1.0 / 9007199254740992.0)); }}")
    call = ", ".join(a.name for a in scop.args)
    lines += ["  struct timespec t0, t1;", "  clock_gettime(CLOCK_MONOTONIC, &t0);",
              f"  int err = {abi.entry_name(scop)}({call});",
              "  clock_gettime(CLOCK_MONOTONIC, &t1);",
              ('  if (err) { fprintf(stderr, "error %d: %s\\n", err, '
               "cudaGetErrorString((cudaError_t)err)); return 1; }"),
              ('  printf("time_ms %.3f\\n", (t1.tv_sec - t0.tv_sec) * 1e3 + '
               "(t1.tv_nsec - t0.tv_nsec) * 1e-6);")]
    for name in scop.written_arrays():
        if scop.array(name).local:
            continue
        lines += [f"  double sum_{name} = 0;",
                  f"  for (size_t k = 0; k < n_{name}; k++) sum_{name} += (double){name}[k];",
                  f'  printf("checksum {name} %.17g\\n", sum_{name});']
    lines += [f"  free({a.name});" for a in arrays]
    lines += ["  return 0;", "}", "#endif"]
    return "\n".join(lines) + "\n"
