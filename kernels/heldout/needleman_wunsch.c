/* Needleman-Wunsch global alignment scores: an (n+1) x (m+1) int table flattened to 1-D,
 * each cell the max of three neighbours (a wavefront); row and column 0 preset. */
#define MAX(x, y) ((x) > (y) ? (x) : (y))

void needleman_wunsch(int n, int m, int sa[n], int sb[m], int H[n * m], int match,
                      int mismatch, int gap)
{
#pragma scop
  for (int j = 0; j < m; j++)
    H[j] = -gap * j;
  for (int i = 1; i < n; i++)
    H[i * m] = -gap * i;
  for (int i = 1; i < n; i++)
    for (int j = 1; j < m; j++) {
      int diag = H[(i - 1) * m + (j - 1)] + (sa[i] == sb[j] ? match : mismatch);
      int up = H[(i - 1) * m + j] - gap;
      int left = H[i * m + (j - 1)] - gap;
      H[i * m + j] = MAX(diag, MAX(up, left));
    }
#pragma endscop
}
