/* Black-Scholes call and put prices per option, float, with exp/log/sqrt and the
 * Abramowitz-Stegun normal CDF (its sign handled by an if on data). */
#include <math.h>

void black_scholes(int n, float S[n], float K[n], float Tm[n], float r, float v,
                   float call[n], float put[n])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    float sq = sqrtf(Tm[i]);
    float d1 = (logf(S[i] / K[i]) + (r + 0.5f * v * v) * Tm[i]) / (v * sq);
    float d2 = d1 - v * sq;
    float k1 = 1.0f / (1.0f + 0.2316419f * fabsf(d1));
    float n1 = 1.0f - 0.3989423f * expf(-0.5f * d1 * d1) * k1 * (0.3193815f + k1 * (-0.3565638f
               + k1 * (1.781478f + k1 * (-1.821256f + k1 * 1.330274f))));
    if (d1 < 0.0f)
      n1 = 1.0f - n1;
    float k2 = 1.0f / (1.0f + 0.2316419f * fabsf(d2));
    float n2 = 1.0f - 0.3989423f * expf(-0.5f * d2 * d2) * k2 * (0.3193815f + k2 * (-0.3565638f
               + k2 * (1.781478f + k2 * (-1.821256f + k2 * 1.330274f))));
    if (d2 < 0.0f)
      n2 = 1.0f - n2;
    float disc = K[i] * expf(-r * Tm[i]);
    call[i] = S[i] * n1 - disc * n2;
    put[i] = disc * (1.0f - n2) - S[i] * (1.0f - n1);
  }
#pragma endscop
}
