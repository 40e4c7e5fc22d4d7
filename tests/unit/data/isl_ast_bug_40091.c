/* fuzz seed 40091 (issue 40): isl's AST generator drops instances of S1's Pluto schedule
   (balanced wavefronts, tiled): isl_ast_bug_40091.schedule; codegen/ast_check.py catches it. */
#include <math.h>
#define min(x, y) ((x) < (y) ? (x) : (y))
#define max(x, y) ((x) > (y) ? (x) : (y))

void fuzz(int n, int m, int A[3][n - 2], int C[9])
{
  int i, j, k;
#pragma scop
  for (i = min(n - 1, 4); i >= 1; i--) {
    for (j = min(n - 1, (m - 5) % 4 + 1); j >= 0; j--) {
      for (k = max(0, (m - 7) / 4 + 2); k < i; k++) {
        if (n + 1 >= j && n >= k + 1) {
          C[k + i + 1] = (C[k + i + 1] + A[j][(j - 4) / 2 + 2] + A[j + i - 2][i] + ((k - 5) / 2) + 2) / 4;
        }
      }
      for (k = 1; k <= min(m - 1, (n - 2) % 3 + 3); k++) {
        C[(k - 3) / 2 + 1] = (C[(k - 3) / 2 + 1] + 2) / 2;
      }
    }
  }
#pragma endscop
}
