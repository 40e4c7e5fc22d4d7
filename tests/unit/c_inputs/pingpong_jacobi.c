/* 2-D Jacobi with a ping-pong buffer: step t reads plane t % 2, writes plane (t + 1) % 2. */
void pingpong_jacobi(int tsteps, int n, double T[2][n][n])
{
#pragma scop
  for (int t = 0; t < tsteps; t++)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        T[(t + 1) % 2][i][j] = 0.2 * (T[t % 2][i][j] + T[t % 2][i - 1][j] + T[t % 2][i + 1][j]
                                      + T[t % 2][i][j - 1] + T[t % 2][i][j + 1]);
#pragma endscop
}
