// A region's kernels against its host version and the rule's pick (codegen/host_choice.py), per
// call of pc_jacobi_1d on host arrays; results: bench/results/2026-12-02-nvidia-h200-host-choice.json.
// Build on the GPU machine: polycuda compile kernels/c/jacobi_1d.c --target cuda -o jacobi_1d.cu (default
// options; the .cu alone, without the rewritten host C), then
// nvcc -O3 -arch=sm_90 -o bench bench_jacobi.cu && ./bench
#include "jacobi_1d.cu"
#include "common.h"
int main() {
  cudaFree(0);
  long long cases[][2] = {{1, 16}, {10, 100}, {100, 100}, {1000, 100}, {10, 10000}, {100, 10000}, {1000, 1000}, {100, 100000}, {1000, 100000}, {10, 1000000}, {100, 1000000}};
  for (auto &c : cases) {
    long long T = c[0], n = c[1];
    std::vector<double> A(n), B(n); fill(A.data(), n); fill(B.data(), n);
    double t[3]; int ran = 0;
    for (int f = 0; f < 3; f++) {
      pc_jacobi_1d_force = f == 2 ? 0 : f + 1;
      t[f] = median_ns([&] { int err = pc_jacobi_1d(T, n, A.data(), B.data()); if (err) { printf("err %d\n", err); exit(1); } }, 11);
      if (f == 2) ran = pc_jacobi_1d_ran;
    }
    printf("jacobi_1d T %lld n %lld kernels_ns %.0f host_ns %.0f auto_ns %.0f auto_ran %d\n", T, n, t[0], t[1], t[2], ran);
  }
  return 0;
}
