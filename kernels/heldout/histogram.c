/* Weighted histogram with int counters: the bin is read from data (a scatter-add through
 * key, i.e. dependences known only at run time). */
void histogram(int n, int nb, int key[n], int wt[n], int hist[nb])
{
#pragma scop
  for (int b = 0; b < nb; b++)
    hist[b] = 0;
  for (int i = 0; i < n; i++)
    hist[key[i]] += wt[i];
#pragma endscop
}
