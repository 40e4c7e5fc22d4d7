/* fuzz seed 60589 (issue 40): isl's AST build of this region's original-order schedule map
   fails ("input involves unknown divs", from S3's n % (-2) bound); ast_check.original_ast
   builds the same order as a schedule tree. */
#include <math.h>
#define min(x, y) ((x) < (y) ? (x) : (y))
#define max(x, y) ((x) > (y) ? (x) : (y))

void fuzz(int n, int m, double alpha, double A[n + 3][n + 5], double B[6][10])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++) {
    for (j = min(i - 1, 3); j >= 2; j--) {
      for (k = 0; k <= m - 1; k++) {
        B[i + j - 2][2 * i + 1] = 0.5 * sqrt(A[j + i][2 * j + 1]) + 0.5 * ((i - 5) % (-2)) + alpha;
        if (i >= 1 && (i - 1) % 2 == 0) {
          A[0][2 * i + 3] = 0.5 * A[j - 1][k] + 0.25 * A[i - 2][k + 2] + 0.5 * ((i - 4) % 4) + 0.1;
        }
      }
      B[(i - 2) / (-3) + 1][(i - 4) % (-3) + 1] = 0.5 * sqrt(B[(i - 2) % (-2)][m - i]) + 0.5 * ((i - 1) % (-2)) + 0.1;
    }
    for (j = i + 1; j >= max(0, (n) % (-2) + 2); j--) {
      for (k = i + 1; k < min(m, (n - 5) % 4 + 6); k++) {
        A[k - 2][(j - 2) % 2 + 1] = 0.5 * A[k - 2][(j - 2) % 2 + 1] + 0.25 * A[i - 1][i + 3] + 0.1;
      }
    }
  }
#pragma endscop
}
