// A region's kernels against its host version and the rule's pick (codegen/host_choice.py), per
// call of pc_gemm on host arrays; results: bench/results/2026-12-02-nvidia-h200-host-choice.json.
// Build on the GPU machine: polycuda compile kernels/c/gemm.c --target cuda -o gemm.cu (default
// options; the .cu alone, without the rewritten host C), then
// nvcc -O3 -arch=sm_90 -o bench bench_gemm.cu && ./bench
#include "gemm.cu"
#include "common.h"
int main() {
  cudaFree(0);
  /* copies: one cudaMemcpy's time by size, pageable and page-locked */
  size_t sizes[] = {8, 4096, 65536, 1 << 20, 16 << 20, 256 << 20};
  void *d; cudaMalloc(&d, 256 << 20);
  char *h = (char *)malloc(256 << 20); memset(h, 1, 256 << 20);
  char *p; cudaMallocHost((void **)&p, 256 << 20); memset(p, 1, 256 << 20);
  for (size_t b : sizes) {
    double hp = median_ns([&] { cudaMemcpy(d, h, b, cudaMemcpyHostToDevice); }, 9);
    double dp = median_ns([&] { cudaMemcpy(h, d, b, cudaMemcpyDeviceToHost); }, 9);
    double hl = median_ns([&] { cudaMemcpy(d, p, b, cudaMemcpyHostToDevice); }, 9);
    double dl = median_ns([&] { cudaMemcpy(p, d, b, cudaMemcpyDeviceToHost); }, 9);
    printf("copy bytes %zu h2d_pageable_ns %.0f d2h_pageable_ns %.0f h2d_pinned_ns %.0f d2h_pinned_ns %.0f\n", b, hp, dp, hl, dl);
  }
  long long ns[] = {4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024};
  for (long long n : ns) {
    size_t e = (size_t)n * n;
    std::vector<double> A(e), B(e), C(e); fill(A.data(), e); fill(B.data(), e); fill(C.data(), e);
    int reps = n <= 256 ? 21 : 5;
    double t[3]; int ran = 0;
    for (int f = 0; f < 3; f++) {
      pc_gemm_force = f == 2 ? 0 : f + 1;
      t[f] = median_ns([&] { int err = pc_gemm(n, n, n, 1.5, 1.2, C.data(), A.data(), B.data()); if (err) { printf("err %d\n", err); exit(1); } }, (f == 1 && n >= 512) ? 1 : reps);
      if (f == 2) ran = pc_gemm_ran;
    }
    printf("gemm n %lld kernels_ns %.0f host_ns %.0f auto_ns %.0f auto_ran %d\n", n, t[0], t[1], t[2], ran);
  }
  return 0;
}
