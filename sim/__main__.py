"""``python -m sim``: the same command line as the ``ginbox`` script."""

import sys

from sim.cli import main

if __name__ == "__main__":  # worker processes that re-import the main module run nothing
    sys.exit(main())
