"""`python -m polycuda`: the `polycuda` command (polycuda.cli)."""

import sys

from polycuda.cli import main

if __name__ == "__main__":
    sys.exit(main())
