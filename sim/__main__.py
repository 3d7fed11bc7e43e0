"""``python -m sim``: the same command line as the ``ginbox`` script."""

import sys

from sim.cli import main

sys.exit(main())
