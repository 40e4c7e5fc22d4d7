/* 2-D convolution of an h x w float image with a 5x5 filter, the image and the output
 * flattened to 1-D (img[i*w + j]); a scalar accumulator per output pixel. */
void conv2d_5x5(int h, int w, float img[h * w], float filt[25], float out[h * w])
{
#pragma scop
  for (int i = 0; i < h - 4; i++)
    for (int j = 0; j < w - 4; j++) {
      float s = 0.0f;
      for (int di = 0; di < 5; di++)
        for (int dj = 0; dj < 5; dj++)
          s += img[(i + di) * w + (j + dj)] * filt[di * 5 + dj];
      out[i * w + j] = s;
    }
#pragma endscop
}
