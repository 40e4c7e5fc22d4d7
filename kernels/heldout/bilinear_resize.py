"""Bilinear resize through precomputed row/column tables: a 2x2 stencil at indirect positions."""


def bilinear_resize(h, w, oh, ow, img, y0, x0, fy, fx, out):
    for i in range(oh):
        for j in range(ow):
            top = (1.0 - fx[j]) * img[y0[i], x0[j]] + fx[j] * img[y0[i], x0[j] + 1]
            bot = (1.0 - fx[j]) * img[y0[i] + 1, x0[j]] + fx[j] * img[y0[i] + 1, x0[j] + 1]
            out[i, j] = (1.0 - fy[i]) * top + fy[i] * bot
