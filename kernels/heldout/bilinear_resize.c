/* Bilinear image resize from an h x w image to oh x ow: the source rows and columns and the
 * weights precomputed in tables (y0, x0, fy, fx), so each output pixel reads a 2x2 stencil
 * at indirect positions. */
void bilinear_resize(int h, int w, int oh, int ow, float in[h][w], int y0[oh], int x0[ow],
                     float fy[oh], float fx[ow], float out[oh][ow])
{
#pragma scop
  for (int i = 0; i < oh; i++)
    for (int j = 0; j < ow; j++) {
      float top = (1.0f - fx[j]) * in[y0[i]][x0[j]] + fx[j] * in[y0[i]][x0[j] + 1];
      float bot = (1.0f - fx[j]) * in[y0[i] + 1][x0[j]] + fx[j] * in[y0[i] + 1][x0[j] + 1];
      out[i][j] = (1.0f - fy[i]) * top + fy[i] * bot;
    }
#pragma endscop
}
