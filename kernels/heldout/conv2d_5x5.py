"""2-D convolution with a 5x5 filter (2-D arrays; the filter flattened to 25)."""


def conv2d_5x5(h, w, img, filt, out):
    for i in range(h - 4):
        for j in range(w - 4):
            s = 0.0
            for di in range(5):
                for dj in range(5):
                    s += img[i + di, j + dj] * filt[di * 5 + dj]
            out[i, j] = s
