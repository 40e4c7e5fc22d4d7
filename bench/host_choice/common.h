#include <chrono>
#include <vector>
#include <algorithm>
static double now_ns() { return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
template <class F> static double median_ns(F f, int reps) {
  std::vector<double> t; f();
  for (int r = 0; r < reps; r++) { double a = now_ns(); f(); t.push_back(now_ns() - a); }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
static void fill(double *p, size_t n) { for (size_t k = 0; k < n; k++) p[k] = 0.5 + (k % 97) / 97.0; }
