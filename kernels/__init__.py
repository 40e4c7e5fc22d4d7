"""The project's own benchmark and test kernels: C sources (c/), Python versions (python/), the
catalogue (suite.py) and whole-array baselines (naive_cupy.py, naive_numpy.py)."""
