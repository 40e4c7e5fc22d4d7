/* All-pairs shortest paths (Floyd-Warshall) on the n x n matrix of edge lengths, in place:
 * after step k, path[i][j] is the length of the shortest path from i to j through vertices
 * 0 .. k only. The k loop carries the flow dependences (step k reads row k and column k as step
 * k - 1 left them); within a step, i and j carry none in the math (row and column k do not change
 * in step k when path[k][k] >= 0), though the accesses alone do not show it. */
#include <math.h>

#ifndef DATA_TYPE
#define DATA_TYPE double
#endif
/* Literal constants in DATA_TYPE's precision, as PolyBench writes them: the float build
 * defines SCALAR_VAL(x)=x##f. */
#ifndef SCALAR_VAL
#define SCALAR_VAL(x) x
#endif

void floyd_warshall(int n, DATA_TYPE path[n][n])
{
  int i, j, k;
#pragma scop
  for (k = 0; k < n; k++)
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j]
                                                           : path[i][k] + path[k][j];
#pragma endscop
}
